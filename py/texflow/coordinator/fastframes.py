"""Binary WebSocket frames read straight into reused buffers, around `websockets`.

`websockets` parses what a connection receives through a byte stream: every
byte of a frame is appended to its buffer, sliced out of it, unmasked into a new
object and joined into the message (copies after the kernel's that made about a
third of the coordinator's CPU; the README's "Cost model"). The connection classes here
are `websockets`' own with asyncio's buffered reading (`get_buffer` /
`buffer_updated`): they find frame boundaries themselves and, for a final
binary frame outside a fragmented message within the size limit, let the
socket write the payload straight into a reused buffer, unmask it there with
numpy (a zero mask key, which texflow's native client sends, skips that) and
hand the frame to `websockets`' message queue, in order with everything else, as
a memoryview of that buffer (or, where the reader gave a `sink` for it, with
everything after the frame's head already read into the reader's own buffer).
Every other frame (text, ping, pong, close, fragments, frames over the limit,
malformed ones) goes to `websockets` byte for byte, which answers, closes and
enforces the protocol as before. Reading starts only at a frame boundary
`websockets` is known to be at (right after the handshake's headers); anything
else, such as bytes pipelined behind the handshake, leaves the connection
entirely to `websockets`.
"""

import asyncio
import os
import socket
import struct
import sys

import numpy as np
from websockets.asyncio import messages as _ws_messages
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.messages import Assembler
from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from .wire import Placed

_HEADERS, _PASS, _FAST, _ALL = range(4)  # what the next bytes are
_DIRECT = 4096                            # payload left that the socket writes in place
_SINK_MIN = 64 << 10                      # frames smaller than this are not offered to a sink
_POOL = 6                                 # reused payload buffers per connection
_GATHER_MAX = 512                         # buffers one sendmsg takes (IOV_MAX is 1024)
_END_OF_HEADERS = b"\r\n\r\n"


class _FastFrames:
    """Mixed into a `websockets` asyncio connection: `class C(_FastFrames, Connection,
    asyncio.BufferedProtocol)`, BufferedProtocol last, so that its stubs do not hide the
    connection's own methods and asyncio's transport still reads into `get_buffer`."""

    _expect_mask = True  # clients mask, servers do not (RFC 6455 5.1)
    scratch_size = 256 << 10  # bytes read at once outside fast payloads (tests: a few)

    def connection_made(self, transport):
        super().connection_made(transport)
        self._gather = None  # a second handle on the socket, for write_parts (below)
        if type(self.recv_messages) is Assembler and _Messages.usable:
            self.recv_messages.__class__ = _Messages
        self._scratch = bytearray(self.scratch_size)
        self._pool = []
        self._mode = _ALL          # until the handshake's headers are behind websockets
        self._boundary = True      # websockets is at the start of something we can find
        self._tail = b""           # the last bytes of the headers seen so far
        self._head = bytearray()   # a frame header split between reads
        self._left = 0             # payload bytes of the passed frame still to come
        self._fragmented = False
        self._dest = None          # the fast frame's buffer, its size, bytes filled, key
        self._size = self._got = self._length = 0
        self._asking, self._placed = False, None
        self._key = None
        self._direct = False       # the last get_buffer handed out `_dest`
        self._waiting_open = False # a server between the request and its answer
        self.fast_frames = 0
        # After a big frame, the next read takes a few KiB (its header and a little more):
        # a full scratch read would take up to scratch_size of the next payload, which
        # must then be copied into that frame's buffer.
        self._read = None
        # sink(head, size): called with the first `sink_head` bytes of a fast frame of
        # `size` bytes; may return a writable buffer of `size - sink_head` bytes, where the
        # rest of the frame then goes, and the message is a `Placed` (its head and size).
        self.sink, self.sink_head = None, 0

    def connection_lost(self, exc):
        if self._gather is not None:
            self._gather.close()
            self._gather = None
        super().connection_lost(exc)

    def write_parts(self, parts):
        """Writes the buffers `parts` (a frame's header and message head first, then the
        data, e.g. views of numpy arrays) to the connection, in one system call where
        asyncio has nothing queued for it. A `transport.write` per part sends the head as
        a packet of its own, which wakes the receiver for a few dozen bytes; asyncio's
        `writelines` before Python 3.12 joins the parts into a new bytes object (a copy of
        the data). Here `sendmsg` gathers them from where they are, through a duplicate of
        the socket's descriptor (asyncio does not lend its socket), and whatever the socket
        did not take goes to asyncio's buffer, in order. The caller has checked that the
        connection is open."""
        transport = self.transport
        sent = 0
        if 1 < len(parts) <= _GATHER_MAX and not transport.get_write_buffer_size():
            if sys.version_info >= (3, 12):  # writelines gathers with sendmsg itself
                transport.writelines(parts)
                return
            try:
                if self._gather is None:
                    fd = transport.get_extra_info("socket").fileno()
                    self._gather = socket.socket(fileno=os.dup(fd))
                sent = self._gather.sendmsg(parts)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                sent = 0  # transport.write below meets the same error and reports it
        for part in parts:
            if sent >= len(part):
                sent -= len(part)
                continue
            transport.write(memoryview(part)[sent:] if sent else part)
            sent = 0

    def get_buffer(self, sizehint):
        if self._mode == _FAST and self._size - self._got >= _DIRECT:
            self._direct = True
            return memoryview(self._dest)[self._got:self._size]
        self._direct = False
        return self._scratch if self._read is None else memoryview(self._scratch)[:self._read]

    def buffer_updated(self, nbytes):
        if self._direct:
            self._got += nbytes
            if self._got == self._size:
                self._filled()
            return
        data = memoryview(self._scratch)[:nbytes]
        if self._mode == _ALL:
            self._handshake(data)
        else:
            self._frames(data, 0)

    # What arrives before the connection is open: the handshake, then websockets' choice.

    def _handshake(self, data):
        if self.protocol.state is not State.CONNECTING or not self._boundary:
            self._boundary = False
            self.data_received(bytes(data))
            return
        seen = self._tail + bytes(data)
        end = seen.find(_END_OF_HEADERS)
        if end < 0:
            self._tail = seen[-3:]
            self.data_received(bytes(data))
            return
        cut = end + len(_END_OF_HEADERS) - len(self._tail)
        self.data_received(bytes(data[:cut]))
        if self.protocol.state is State.OPEN:     # a client: the 101 response was read
            self._mode = _HEADERS
            self._frames(data, cut)
        elif cut < len(data):                     # bytes behind a request: leave them
            self._boundary = False
            self.data_received(bytes(data[cut:]))
        else:                                     # a server: frames come once it answers
            self._boundary = True
            self._mode = _HEADERS
            self._waiting_open = True

    # Frames.

    def _frames(self, data, pos):
        if self._waiting_open:
            if self.protocol.state is not State.OPEN:
                self._mode = _ALL   # an answer other than 101: websockets reads on
                self._boundary = False
                self.data_received(bytes(data[pos:]))
                return
            self._waiting_open = False
        end = len(data)
        while pos < end:
            mode = self._mode
            if mode == _FAST:
                k = min(self._size - self._got, end - pos)
                self._dest[self._got:self._got + k] = data[pos:pos + k]
                self._got += k
                pos += k
                if self._got == self._size:
                    self._filled()
            elif mode == _PASS:
                k = min(self._left, end - pos)
                self.data_received(bytes(data[pos:pos + k]))
                self._left -= k
                pos += k
                if not self._left:
                    self._mode = _HEADERS
            elif mode == _ALL:
                self.data_received(bytes(data[pos:]))
                return
            else:
                pos = self._header(data, pos, end)

    def _header(self, data, pos, end):
        """Reads one frame header from `data[pos:]` (or what is there of it)."""
        head = self._head
        if head:
            have = bytes(head) + bytes(data[pos:pos + 14])
        else:
            have = data[pos:pos + 14]
        size = _header_size(have)
        if size is None or len(have) < size:
            head += data[pos:end]  # at most 13 bytes: a header is 2 to 14
            return end
        used = size - len(head)
        header = bytes(have[:size])
        self._head = bytearray()
        pos += used
        b0, b1 = header[0], header[1]
        fin, opcode, masked = b0 & 0x80, b0 & 0x0F, b1 & 0x80
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack_from("!H", header, 2)[0]
        elif length == 127:
            length = struct.unpack_from("!Q", header, 2)[0]
        limit = _limit(self.protocol)
        if (fin and opcode == 2 and not b0 & 0x70 and bool(masked) == self._expect_mask
                and not self._fragmented and (limit is None or length <= limit)
                and self.protocol.state is State.OPEN):
            self._begin(length, header[-4:] if masked else None)
            return pos
        if opcode == 8 or b0 & 0x70 or opcode not in (0, 1, 2, 9, 10):
            self._mode = _ALL  # a close, or a frame websockets will refuse: all its own
            self.data_received(header)
            return pos
        if opcode in (1, 2):
            self._fragmented = not fin
        elif opcode == 0 and fin:
            self._fragmented = False
        self.data_received(header)
        self._left = length
        self._mode = _PASS if length else _HEADERS
        return pos

    def _begin(self, length, key):
        self._key = None if key is None or key == b"\0\0\0\0" else key
        self._length, self._got = length, 0
        self._dest = self._buffer(length)
        self._placed = None
        # A sink is asked once the frame's head is here (frames big enough to be worth it,
        # unmasked, and only where the message queue hands data over as it is).
        self._asking = (self.sink is not None and self._key is None and length >= _SINK_MIN
                        and type(self.recv_messages) is _Messages)
        self._size = self.sink_head if self._asking else length
        self._mode = _FAST
        if not self._size:
            self._filled()

    def _filled(self):
        """The bytes wanted so far are in: ask the sink, or deliver the frame."""
        if self._asking:
            self._asking = False
            head = self._dest
            place = self.sink(memoryview(head)[:self._size], self._length)
            if place is not None:
                self._placed, self._dest = head, place
                self._got, self._size = 0, self._length - self._size
            else:
                self._size = self._length
            if self._got < self._size:
                return
        self._deliver()
    def _buffer(self, length):
        for i in range(len(self._pool)):
            # 2: the pool's reference and getrefcount's argument: no message holds it.
            if len(self._pool[i]) >= length and sys.getrefcount(self._pool[i]) == 2:
                return self._pool[i]
        buf = bytearray(max(length, 64 << 10))
        if len(self._pool) < _POOL:
            self._pool.append(buf)
        return buf

    def _deliver(self):
        buf, size, key = self._dest, self._size, self._key
        self._dest, self._mode = None, _HEADERS
        self._read = _DIRECT if self._length >= _SINK_MIN and self.scratch_size > _DIRECT \
            else None
        if key is not None:
            unmask(buf, size, key)
        self.fast_frames += 1
        if self._placed is not None:
            head = memoryview(self._placed)[:self.sink_head]
            data = Placed(head, self._length)
            self._placed = None
        else:
            data = memoryview(buf)[:size]
        try:
            self.recv_messages.put(_FastFrame(Opcode.BINARY, data))
        except EOFError:
            pass  # the connection is closing: websockets drops what comes after


def _header_size(have):
    """Bytes of the frame header that starts `have` (None: fewer than 2 bytes there)."""
    if len(have) < 2:
        return None
    length = have[1] & 0x7F
    return 2 + (2 if length == 126 else 8 if length == 127 else 0) + (4 if have[1] & 0x80
                                                                     else 0)


def _limit(protocol):
    """The largest message websockets accepts on this connection (None: no limit)."""
    limit = getattr(protocol, "max_message_size", None)
    if limit is None and not hasattr(protocol, "max_message_size"):
        limit = getattr(protocol, "max_size", None)
    return limit


def unmask(buf, size, key):
    """XORs the first `size` bytes of `buf` with the 4-byte mask `key`, in place."""
    arr = np.frombuffer(buf, np.uint8, size)
    whole = size // 8 * 8
    if whole:
        words = arr[:whole].view(np.uint64)
        np.bitwise_xor(words, np.frombuffer(key * 2, np.uint64)[0], out=words)
    for i in range(whole, size):
        arr[i] ^= key[i % 4]


class _FastFrame(Frame):
    """A frame read here: its data is handed to the reader as it is (a memoryview)."""


class _Messages(Assembler):
    """websockets' message queue, returning a fast frame's data without joining it into a
    new bytes object (one copy of every byte fewer); other messages are websockets' own.
    Installed only where the queue has the methods its own `get` uses."""

    usable = hasattr(Assembler, "maybe_resume") and hasattr(
        getattr(_ws_messages, "SimpleQueue", None), "put_back")

    async def get(self, decode=None):
        if decode or self.get_in_progress:
            return await super().get(decode)
        self.get_in_progress = True
        try:
            frame = await self.frames.get(not self.closed)
        finally:
            self.get_in_progress = False
        if type(frame) is _FastFrame:
            self.maybe_resume()
            return frame.data
        self.frames.put_back([frame])
        return await super().get(decode)


class FastServerConnection(_FastFrames, ServerConnection, asyncio.BufferedProtocol):
    """`websockets`' server connection with binary frames read into reused buffers."""


class FastClientConnection(_FastFrames, ClientConnection, asyncio.BufferedProtocol):
    """`websockets`' client connection with binary frames read into reused buffers."""

    _expect_mask = False
