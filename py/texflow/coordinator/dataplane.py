"""The collectives of one coordinator process (the main one or a shard).

It matches contributions by generation and sequence number, feeds them to
`allreduce.Collective`, and sends results, refusals and restarts. Membership
comes from outside (`set_generation`, `break_generation`): the main process
owns it, shard processes hear it over their control link.
"""

import asyncio
import logging
import struct

from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from . import wire
from .allreduce import Collective, Refused

log = logging.getLogger("texflow.coordinator")
# Bytes queued for one connection before the coordinator waits for it (2 MiB measured the
# same as 16 MiB within noise on the shared build machine, 10M floats, 2 workers).
WRITE_LIMIT = 16 << 20


class DataPlane:
    """Open and recently completed collectives of the current generation."""

    def __init__(self, allow_nonfinite=False, max_bytes=1 << 30):
        self.allow_nonfinite, self.max_bytes = allow_nonfinite, max_bytes
        self.generation = 0
        self.members = {}           # rank -> connection
        self.ranks = ()             # every rank of the generation (shards bind them one by one)
        self.broken = False
        self.open = {}              # seq -> Collective
        self.retained = {}          # seq -> completed Collective (reopened by an abort)
        self.generation_changed = asyncio.Event()
        self.bytes_in = self.bytes_out = 0
        self.sent_to = {}           # connection -> bytes sent to it

    def _drop_all(self):
        for coll in list(self.open.values()) + list(self.retained.values()):
            coll.release()
        self.open.clear()
        self.retained.clear()

    def set_generation(self, generation, members, ranks=None):
        self.generation, self.members = generation, dict(members)
        self.ranks = tuple(sorted(self.members if ranks is None else ranks))
        self.broken = False
        self._drop_all()
        self.generation_changed.set()
        self.generation_changed = asyncio.Event()

    def break_generation(self):
        """A member was lost: no collective of this generation can complete."""
        self.broken = True
        self._drop_all()

    def bind(self, rank, conn):
        self.members[rank] = conn

    async def wait_for_generation(self, generation, timeout):
        """Waits until this process has heard of `generation` (shards lag the main one)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.generation < generation:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            try:
                await asyncio.wait_for(self.generation_changed.wait(), remaining)
            except asyncio.TimeoutError:
                return False
        return True

    async def contribute(self, rank, conn, h):
        """Handles one CONTRIB message of member `rank` arriving on `conn`."""
        self.bytes_in += len(h.data)
        if h.generation != self.generation or self.broken or \
                self.members.get(rank) is not conn:
            return  # the sender learns of the change from its membership messages
        coll = self.open.get(h.seq)
        if coll is None:
            if h.seq in self.retained:
                await self._send(conn, wire.control(
                    "error", error="InvalidArgumentError", generation=h.generation,
                    seq=h.seq, attempt=h.attempt,
                    message=f"collective {h.seq} of generation {h.generation} is already "
                            "complete"))
                return
            coll = self.open[h.seq] = Collective(h.generation, h.seq, self.ranks,
                                                 self.allow_nonfinite, self.max_bytes)
        try:
            coll.contribute(rank, h)
        except Refused as e:
            attempt = coll.refuse(rank)
            log.warning("refused the contribution of rank %d to collective %d: %s",
                        rank, h.seq, e)
            await self._send(conn, wire.control(
                "error", error="InvalidArgumentError", generation=h.generation, seq=h.seq,
                attempt=attempt, message=f"rank {rank}'s contribution to collective "
                                         f"{h.seq} was refused: {e}"))
        await self._flush(coll)

    async def abort(self, rank, conn, generation, seq):
        """A worker withdraws its contribution (another shard refused part of it)."""
        if generation != self.generation or self.broken or self.members.get(rank) is not conn:
            return
        coll = self.open.get(seq)
        if coll is None and seq in self.retained:
            coll = self.open[seq] = self.retained.pop(seq)
            coll.restart(exclude=rank)
        if coll is None:
            coll = self.open[seq] = Collective(generation, seq, self.ranks,
                                               self.allow_nonfinite, self.max_bytes)
        attempt = coll.refuse(rank)
        await self._send(conn, wire.control("aborted", generation=generation, seq=seq,
                                            attempt=attempt))
        await self._flush(coll)

    async def _flush(self, coll):
        for rank, attempt in coll.take_restarts().items():
            await self._send(self.members.get(rank), wire.control(
                "restart", generation=coll.generation, seq=coll.seq, attempt=attempt))
        for parts, ranks in coll.take_results():
            await self._deliver(parts, ranks)
        if coll.done and self.open.get(coll.seq) is coll:
            del self.open[coll.seq]
            # Keep the last few completed ones: an abort from another shard may reopen them.
            self.retained[coll.seq] = coll
            for seq in sorted(self.retained)[:-4]:
                self.retained.pop(seq).release()

    async def _deliver(self, parts, ranks):
        """Sends one result message to `ranks`. Server frames are unmasked and uncompressed,
        so every member's frame is the same bytes: its header is built once and written to
        each open connection, with the data straight from the accumulator in the same system
        call (fastframes.write_parts; the kernel copies it; asyncio only keeps what the
        socket did not take), instead of
        websockets framing it again per member. Then, for a member whose backlog passed
        WRITE_LIMIT, it waits for websockets' flow control (the collective's results and
        this member's next contributions wait with it); a closing connection gets
        websockets' own send."""
        head, data = parts
        size = len(head) + len(data)
        first = None
        behind = []
        for rank in ranks:
            conn = self.members.get(rank)
            if conn is None:
                continue
            transport = conn.transport
            if conn.protocol.state is State.OPEN and not transport.is_closing():
                if first is None:
                    first = _frame_head(size) + head
                if len(data) and hasattr(conn, "write_parts"):
                    conn.write_parts([first, data])
                else:
                    transport.write(first)
                    if len(data):
                        transport.write(data)
                self.bytes_out += len(first) + len(data)
                self.sent_to[conn] = self.sent_to.get(conn, 0) + len(first) + len(data)
                if transport.get_write_buffer_size() > WRITE_LIMIT:
                    behind.append(conn)
            else:
                await self._send(conn, head + bytes(data))
        for conn in behind:
            try:
                await conn.drain()
            except (ConnectionClosed, OSError):
                pass  # that connection's own handler reports the loss

    async def _send(self, conn, message):
        if conn is None:
            return
        try:
            await conn.send(message)
            self.bytes_out += len(message)
            self.sent_to[conn] = self.sent_to.get(conn, 0) + len(message)
        except ConnectionClosed:
            pass  # that connection's own handler reports the loss


def _frame_head(size):
    """The header of an unmasked, final, binary WebSocket frame of `size` bytes (RFC 6455)."""
    if size < 126:
        return struct.pack("!BB", 0x82, size)
    if size < 1 << 16:
        return struct.pack("!BBH", 0x82, 126, size)
    return struct.pack("!BBQ", 0x82, 127, size)
