"""Pyodide transport: the browser's own WebSocket (web/collective.js), on its event loop.

JS moves frames; messages come to Python as str or ArrayBuffer through proxies,
and the client protocol (_core.py) runs on Pyodide's webloop. Every call between
Python and JS has a fixed cost, so a collective makes one each way rather than
one per message (measured in the README's "Cost model"). Sending a contribution
hands JS its headers and the payload as Python buffers in one call
(`sendChunks`), which JS cuts into messages, reading the bytes in place in the
WebAssembly heap (PyProxy.getBuffer): one copy into the message's Uint8Array,
which WebSocket.send copies again, and no copy through a Python bytes object or
`to_js`. Before sending, Python tells the socket which reduction results to
expect (`expectResults`, with the result buffer): JS copies each in-order result
message straight from its ArrayBuffer into the result buffer and calls Python
once, when all are in or when any other message comes first (which Python then
sees after the placed results, in order, and judges itself: errors, restarts,
anything unexpected).
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
        on_placed = create_proxy(self._placed)
        self._proxies = [on_message, on_close, on_placed]
        self.sock = js.texflowSocket(url, on_message, on_close, on_placed)
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
            return
        self.expect_results()  # JS stopped placing results to hand this message over

    def _placed(self, op, generation, seq, start, size):
        """JS placed results [start, start + size) of a collective in the result buffer."""
        head = wire.pack_header(wire.RESULT, op, generation, seq, start, 0)
        self.core.on_message(self.index, wire.Placed(head, wire.HEADER_SIZE + size))

    def expect_results(self):
        """Tells JS which results to place straight into the result buffer (if any)."""
        region = self.core.result_region(self.index) if self.open else None
        if region is not None:
            self.sock.expectResults(*region)

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

    async def send_chunks(self, p, lo, hi, table, attempt, chunk):
        """Pending `p`'s contribution of payload bytes [lo, hi) (`table` in its first
        message) in messages of at most `chunk` bytes, in one call to JS (sendChunks in
        web/collective.js), after telling JS which results to expect."""
        if not self.open:
            raise UnavailableError("lost the connection to the coordinator; "
                                   "call group.rejoin() to go on")
        first, later = (wire.pack_header(wire.CONTRIB, p.op, p.generation, p.seq, lo,
                                         p.layout.total, attempt, p.root, t)
                        for t in (table, b""))
        self.expect_results()
        self.sock.sendChunks(first, later, p.reader.read(lo, hi) if hi > lo else None, lo,
                             chunk)
        count = max(1, -(-(hi - lo) // chunk))
        self.core.stats["bytes_sent"] += len(first) + (count - 1) * len(later) + hi - lo

    async def close(self):
        if self.sock is not None and self.open:
            self.open = False
            self.sock.close(1000, "")
