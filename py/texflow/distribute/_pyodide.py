"""Pyodide transport: the browser's own WebSocket (web/collective.js), on its event loop.

JS only moves frames; messages come to Python as str or ArrayBuffer through two
proxies, and the client protocol (_core.py) runs on Pyodide's webloop. Sending a
contribution hands JS the header and the tensor bytes as Python buffers, which it
reads in place in the WebAssembly heap (PyProxy.getBuffer): one copy into the
message's Uint8Array, which WebSocket.send copies again, and no copy through a
Python bytes object or `to_js`. A reduction's result is copied once, from the
ArrayBuffer into the result buffer.
"""

from ..coordinator import wire
from ..errors import UnavailableError

SINK_MIN = 64 << 10  # smaller results: one to_bytes copy costs less than the extra calls


def _ensure_js():
    import js

    if getattr(js, "texflowSocket", None) is None:  # a page that did not load it
        from .. import resources
        js.eval(resources.read_text("web", "collective.js"))
    return js


class PyodideTransport:
    """One WebSocket of a group, opened from Python inside Pyodide."""

    def __init__(self, core, index):
        self.core, self.index = core, index
        self.open = False
        self.sock = None
        self._proxies = []

    async def connect(self, url):
        from pyodide.ffi import JsException, create_proxy

        js = _ensure_js()
        on_message, on_close = create_proxy(self._message), create_proxy(self._closed)
        self._proxies = [on_message, on_close]
        self.sock = js.texflowSocket(url, on_message, on_close)
        try:
            await self.sock.ready
        except JsException as e:  # onclose follows and releases the proxies
            raise UnavailableError(f"cannot connect to the coordinator at {url}: {e}") from None
        self.open = True

    def _message(self, data):
        if not isinstance(data, str):
            data = self._binary(data)
        try:
            self.core.on_message(self.index, data)
        except Exception as e:  # a malformed message from the coordinator: drop it
            self.sock.close(1002, f"{type(e).__name__}: {e}"[:120])

    def _binary(self, buffer):
        """A binary message (an ArrayBuffer proxy) for the core. A reduction's result data
        is copied once, from the ArrayBuffer straight into the result buffer (JsBuffer
        .assign_to into the slice `core.result_sink` gives), instead of into a bytes object
        and then again into the result; anything else becomes bytes."""
        size = buffer.byteLength
        if size >= SINK_MIN:
            from js import Uint8Array

            head = Uint8Array.new(buffer, 0, wire.HEADER_SIZE).to_bytes()
            try:
                dest = self.core.result_sink(self.index, head, size)
            except Exception:  # a malformed header: the whole message fails in the core
                dest = None
            if dest is not None:
                Uint8Array.new(buffer, wire.HEADER_SIZE, size - wire.HEADER_SIZE).assign_to(
                    dest)
                return wire.Placed(head, size)
        return buffer.to_bytes()

    def _closed(self, code, reason):
        was_open, self.open = self.open, False
        if was_open:
            self.core.on_close(self.index, f"closed ({code} {reason})".strip(), code)
        self._release()

    def _release(self):
        for proxy in self._proxies:
            proxy.destroy()
        self._proxies = []

    async def send(self, message):
        from pyodide.ffi import to_js

        if not self.open:
            raise UnavailableError("lost the connection to the coordinator; "
                                   "call group.rejoin() to go on")
        if isinstance(message, str):
            self.sock.sendText(message)
        else:
            self.sock.sendBytes(to_js(memoryview(message)))

    async def send_parts(self, head, data):
        """One binary message of `head` and `data` (buffers), joined by JS in place."""
        if not self.open:
            raise UnavailableError("lost the connection to the coordinator; "
                                   "call group.rejoin() to go on")
        if len(data):
            self.sock.sendParts(head, data)
        else:
            self.sock.sendParts(head, None)

    async def close(self):
        if self.sock is not None and self.open:
            self.open = False
            self.sock.close(1000, "")
