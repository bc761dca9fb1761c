"""Native transport: the `websockets` asyncio client on one background event-loop thread.

Every group of the process shares one loop thread, so the caller's thread
only packs tensors and waits: sending, receiving and assembling results run on
the loop while the caller's thread is free, and heartbeats (WebSocket pings)
are answered even while the caller computes. Measured against websockets' sync
client in the README (`texflow bench --collective`).
"""

import asyncio
import struct
import threading

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.protocol import State

from ..coordinator import wire
from ..coordinator.fastframes import FastClientConnection
from ..errors import UnavailableError

_DIRECT = 64 << 10  # see send_parts
_loop = None
_lock = threading.Lock()


def loop():
    """The shared background event loop (started on first use)."""
    global _loop
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            thread = threading.Thread(target=_loop.run_forever, name="texflow-collective",
                                      daemon=True)
            thread.start()
    return _loop


def run(coro, timeout=None):
    """Runs `coro` on the loop thread and waits for it from this thread."""
    lp = loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is lp:
        coro.close()
        raise RuntimeError("a synchronous collective was called on texflow's collective "
                           "thread (from an on_change listener?); use the *_async form")
    return asyncio.run_coroutine_threadsafe(coro, lp).result(timeout)


async def run_async(coro):
    """Awaits `coro`, run on the loop thread, from the caller's own event loop."""
    lp = loop()
    if asyncio.get_running_loop() is lp:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, lp))


class NativeTransport:
    """One WebSocket connection of a group to the coordinator (or to one of its shards)."""

    # The coordinator watches workers closely (liveness.py); a worker only needs to notice
    # a coordinator that hangs, and its pongs may wait behind megabytes of results.
    heartbeat, heartbeat_timeout = 5.0, 30.0
    # Bytes asyncio may hold for the socket before a send waits. Small: what the socket does
    # not take at once is copied into asyncio's buffer, and a buffer of tens of megabytes is
    # fresh memory (a page fault per page) every time it grows (measured in the README).
    write_limit = 1 << 20

    def __init__(self, core, index):
        self.core, self.index = core, index
        self.ws = None
        self.open = False
        self._reader = None

    async def connect(self, url):
        try:
            self.ws = await connect(url, compression=None, max_size=None, max_queue=64,
                                    write_limit=self.write_limit, ping_interval=self.heartbeat,
                                    ping_timeout=self.heartbeat_timeout, close_timeout=1.0,
                                    open_timeout=10, create_connection=FastClientConnection)
        except (OSError, InvalidHandshake, InvalidURI, asyncio.TimeoutError) as e:
            raise UnavailableError(f"cannot connect to the coordinator at {url}: {e}") from None
        # Results of reductions go straight from the socket into the result buffer.
        self.ws.sink, self.ws.sink_head = self._sink, wire.HEADER_SIZE
        self.open = True
        self._reader = asyncio.ensure_future(self._read())

    def _sink(self, head, size):
        try:
            return self.core.result_sink(self.index, head, size)
        except Exception:  # a malformed header: the message goes the usual way and fails
            return None

    async def _read(self):
        reason = "closed"
        try:
            async for message in self.ws:
                self.core.on_message(self.index, message)
        except ConnectionClosed as e:
            reason = str(e)
        except Exception as e:  # a malformed message from the coordinator
            reason = f"{type(e).__name__}: {e}"
            await self.ws.close(1002, reason[:120])
        else:
            reason = (f"closed by the coordinator ({self.ws.close_code} "
                      f"{self.ws.close_reason or ''})").strip()
        finally:
            self.open = False
            self.core.on_close(self.index, reason, self.ws.close_code)

    async def send(self, message):
        try:
            await self.ws.send(message)
        except ConnectionClosed as e:
            raise UnavailableError(f"lost the connection to the coordinator: {e}; "
                                   "call group.rejoin() to go on") from None

    async def send_parts(self, head, pieces):
        """Sends one binary message made of `head` (bytes) and `pieces` (buffers), written
        straight to the socket: a final binary frame with mask key 0, so the tensor bytes
        are neither joined to the header, nor copied by websockets' framing, nor masked
        (three copies of every byte sent; see "Cost model" in the README). Pieces of at
        least `_DIRECT` bytes (views of the caller's arrays) go to the socket as they are;
        the smaller ones are joined to what precedes them, so small tensors cost no
        syscall and no segment of their own. RFC 6455 asks clients for an unpredictable
        key, which protects HTTP intermediaries from frames crafted by scripts in
        browsers; this native client talks to texflow's own coordinator, which accepts
        any key, and browsers keep their own masking. websockets' own sends (pings,
        pongs, text) go through the same transport, whole frames at a time, so frames
        never interleave. The parts leave in one system call (fastframes.write_parts)."""
        ws = self.ws
        transport = ws.transport
        size = len(head) + sum(len(p) for p in pieces)
        if ws.protocol.state is not State.OPEN or transport.is_closing():
            await self.send(b"".join([head, *pieces]))
            return
        parts, small = [], [_client_frame_head(size), head]
        for piece in pieces:
            if len(piece) < _DIRECT:
                small.append(piece)
                continue
            if small:
                parts.append(b"".join(small))
                small = []
            parts.append(piece)
        if small:
            parts.append(b"".join(small))
        ws.write_parts(parts)
        await ws.drain()  # websockets' flow control: waits while over write_limit

    async def close(self):
        self.open = False
        if self.ws is not None:
            await self.ws.close()


def _client_frame_head(size):
    """A final binary frame's header with the mask bit set and mask key 0 (RFC 6455 5.2)."""
    if size < 126:
        return struct.pack("!BBI", 0x82, 0x80 | size, 0)
    if size < 1 << 16:
        return struct.pack("!BBHI", 0x82, 0x80 | 126, size, 0)
    return struct.pack("!BBQI", 0x82, 0x80 | 127, size, 0)
