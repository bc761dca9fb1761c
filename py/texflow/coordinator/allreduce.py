"""One collective on one coordinator process: contributions in, results out.

A `Collective` is pure bookkeeping over numpy buffers (no I/O), so the server,
the shard processes and the tests drive it the same way:

    coll.contribute(rank, header)   # raises Refused naming the tensor and why
    for (head, data), ranks in coll.take_results(): send head + data to those ranks

Reductions accumulate chunk by chunk as they arrive. Beyond the furthest any
other sender has reached, a chunk is held as it arrived (up to HOLD messages; then
copied into the accumulator), and the next sender's chunk is reduced with it
straight into the accumulator: one pass over the bytes fewer than copying the
first arrival. So a contribution's data must not change after `contribute`
returns: the server's messages are `bytes`, or views of fastframes' receive
buffers, which it reuses only when nothing refers to them. Results stream out as
soon as every member has sent a prefix (at least 64 KiB of it, or the end). A
refused contribution never reaches anyone: if some of its chunks were already
added, everyone's contribution is dropped and the others are asked to send again
(`restarts`); results already sent for the dropped attempt are discarded by the
workers.
"""

import collections
import threading

import numpy as np

from . import wire

RESULT_STEP = 64 << 10      # send results once this much of the prefix is ready
RESULT_CHUNK = 1 << 20      # and at most this much per message
HOLD = 4                    # messages held per collective (see Collective)


class _Buffers:
    """Reused accumulators: fresh pages cost more than the copy into them."""

    def __init__(self, limit=256 << 20):
        self.free, self.limit = [], limit

    def take(self, size):
        for i, buf in enumerate(self.free):
            if len(buf) == size:
                return self.free.pop(i)
        return np.empty(size, np.uint8)

    def give(self, buf):
        if buf is not None and len(buf) <= self.limit // 4:
            self.free.append(buf)
            while sum(len(b) for b in self.free) > self.limit:
                self.free.pop(0)


_buffers = _Buffers()


class _Tables:
    """Parsed tables by their bytes: a training step sends the same table every step, and
    parsing it again was about a quarter of the coordinator's CPU for the MNIST CNN's
    six gradients (README, "Collective benchmark"). Only what depends on the bytes alone
    is kept (the Layout, which `unpack_table` validated against `max_bytes`, part of the
    key); every check against a collective's state runs per contribution. Layouts are
    never changed once made, so collectives share them. Bounded in entries and in table
    bytes; tables that fail to parse are not kept."""

    def __init__(self, entries=64, table_bytes=256 << 10):
        self.entries, self.table_bytes = entries, table_bytes
        self.layouts = {}           # (table bytes, max_bytes) -> Layout
        self.held = 0               # table bytes held as keys
        self.lock = threading.Lock()  # coordinators in threads of one process share it

    def get(self, table, max_bytes):
        key = (bytes(table), max_bytes)
        layout = self.layouts.get(key)
        if layout is None:
            layout = wire.unpack_table(key[0], max_bytes)
            if len(key[0]) <= self.table_bytes // 4:
                with self.lock:
                    while self.layouts and (len(self.layouts) >= self.entries or
                                            self.held + len(key[0]) > self.table_bytes):
                        oldest = next(iter(self.layouts))
                        del self.layouts[oldest]
                        self.held -= len(oldest[0])
                    if key not in self.layouts:
                        self.layouts[key] = layout
                        self.held += len(key[0])
        return layout


_tables = _Tables()


class Refused(Exception):
    """A contribution the coordinator will not use; the message says why."""


class Collective:
    """The state of collective `seq` of membership `generation` on this process.

    Args:
        generation, seq: what the collective is matched by.
        members: the ranks that take part.
        allow_nonfinite: pass NaN and infinity through reductions.
        max_bytes: the largest payload accepted.
    """

    def __init__(self, generation, seq, members, allow_nonfinite=False, max_bytes=1 << 30):
        self.generation, self.seq = generation, seq
        self.members = tuple(sorted(members))
        self.allow_nonfinite = allow_nonfinite
        self.max_bytes = max_bytes
        self.attempt = {r: 0 for r in self.members}
        self.restarts = {}          # rank -> new attempt, for senders who must send again
        self.bytes_in = 0
        self._reset()

    def release(self):
        """Gives the accumulator back for reuse (the collective is gone)."""
        _buffers.give(self.acc)
        self.acc = None
        self.held = collections.deque()

    def _reset(self):
        if getattr(self, "acc", None) is not None:
            self.release()
        self.op = self.root = self.layout = None
        self.name = ""
        self.progress = {}          # rank -> payload offset reached in the current attempt
        self.tables = {}            # rank -> Layout (all_gather and broadcast)
        self.parts = {}             # rank -> bytearray (all_gather) / root payload (broadcast)
        self.acc = None
        self.held = collections.deque()  # (payload offset, message data) not yet reduced
        self.sent = None
        self.done = False

    # -- contributions -------------------------------------------------------------------

    def contribute(self, rank, h):
        """Takes one CONTRIB message from `rank`; stale attempts are ignored."""
        if rank not in self.attempt:
            raise Refused(f"rank {rank} is not a member of generation {self.generation} "
                          f"(members: {list(self.members)})")
        if h.attempt < self.attempt[rank]:
            return  # still in flight when its attempt was refused or restarted
        if h.attempt > self.attempt[rank]:
            raise Refused(f"attempt {h.attempt} is ahead of the coordinator's "
                          f"{self.attempt[rank]}")
        if self.done:
            raise Refused(f"collective {self.seq} is already complete")
        if h.table:
            self._begin(rank, h)
        elif rank not in self.progress:
            raise Refused(f"data at offset {h.offset} before the contribution's table")
        self._data(rank, h)

    def _begin(self, rank, h):
        if rank in self.progress:
            raise Refused("a second table within one contribution")
        try:
            layout = _tables.get(h.table, self.max_bytes)
        except wire.WireError as e:
            raise Refused(f"bad table: {e}") from None
        if self.op is None:
            self.op, self.root, self.name = h.op, h.root, layout.name
        if h.op != self.op:
            raise Refused(f"op {wire.OP_NAMES[h.op]!r} does not match "
                          f"{wire.OP_NAMES[self.op]!r}, which the first contribution to "
                          f"collective {self.seq} asked for")
        if h.op == wire.BROADCAST and h.root != self.root:
            raise Refused(f"broadcast root {h.root} does not match root {self.root}")
        if h.op == wire.BROADCAST and self.root not in self.attempt:
            raise Refused(f"broadcast root {self.root} is not a member "
                          f"(members: {list(self.members)})")
        if layout.name and self.name and layout.name != self.name:
            raise Refused(f"collective name {layout.name!r} does not match {self.name!r} "
                          f"(sequence number {self.seq})")
        self.name = self.name or layout.name
        if h.offset != layout.lo or h.total != layout.total:
            raise Refused(f"the table's message starts at offset {h.offset} of {h.total} "
                          f"bytes; expected {layout.lo} of {layout.total}")
        self._check_layout(rank, layout)
        self.progress[rank] = layout.lo

    def _check_layout(self, rank, layout):
        op = self.op
        if op in wire.REDUCTIONS:
            for spec in layout.specs:
                if spec.dtype not in wire.REDUCIBLE:
                    raise Refused(f"{spec.describe()}: {wire.OP_NAMES[op]} is not "
                                  f"defined for {spec.dtype}")
        if op == wire.GATHER:
            if any(not spec.shape for spec in layout.specs):
                raise Refused(f"all_gather needs tensors of rank >= 1; got "
                              f"{[s.describe() for s in layout.specs if not s.shape]}")
            if self.layout is None:
                self.layout = layout
            elif layout is not self.layout:  # the same table's bytes agree with themselves
                _agree(layout, self.layout, first_dim=False)
            self.tables[rank] = layout
            self.parts[rank] = bytearray(layout.total)
            return
        if op == wire.BROADCAST:
            if layout.specs or rank == self.root:  # receivers may leave the table empty
                if self.layout is None:
                    self.layout = layout
                else:
                    _agree(layout, self.layout, first_dim=True)
            if rank == self.root:
                self.layout = layout  # its byte range is what goes out
                self.parts[rank] = bytearray(layout.total)
            self.tables[rank] = layout
            return
        if self.layout is None:
            self.layout = layout
        elif layout is not self.layout:
            _agree(layout, self.layout, first_dim=True)
            if (layout.lo, layout.hi) != (self.layout.lo, self.layout.hi):
                raise Refused(f"byte range [{layout.lo}, {layout.hi}) does not match "
                              f"[{self.layout.lo}, {self.layout.hi})")
        if self.acc is None and op != wire.BARRIER:
            self.acc = _buffers.take(layout.hi - layout.lo)
            # Padding between dtypes goes out in results as it is: make it zeros.
            at = layout.lo
            for start, end, _ in layout.runs + [(layout.hi, layout.hi, None)]:
                if start > at:
                    self.acc[at - layout.lo:min(start, layout.hi) - layout.lo] = 0
                at = max(at, end)
            self.sent = layout.lo

    def _data(self, rank, h):
        data = h.data
        if not len(data):
            return
        start = self.progress[rank]
        if h.offset != start:
            raise Refused(f"data at offset {h.offset}; expected offset {start}")
        if self.op == wire.GATHER:
            table = self.tables[rank]
            if start + len(data) > table.hi:
                raise Refused(f"data runs to byte {start + len(data)}, past the payload's "
                              f"{table.hi}")
            _whole_elements(start + len(data), table)
            self._check_finite(table, start, data)
            self.parts[rank][start:start + len(data)] = data
        elif self.op == wire.BROADCAST and rank == self.root:
            if start + len(data) > self.layout.hi:
                raise Refused(f"data runs to byte {start + len(data)}, past the payload's "
                              f"{self.layout.hi}")
            _whole_elements(start + len(data), self.layout)
            self._check_finite(self.layout, start, data)
            self.parts[rank][start:start + len(data)] = data
        elif self.op in (wire.BROADCAST, wire.BARRIER):
            raise Refused(f"{len(data)} bytes of data where no data belongs (only the "
                          f"broadcast root sends any)")
        else:
            self._reduce(rank, start, data)
        self.progress[rank] = start + len(data)
        self.bytes_in += len(data)

    def _reduce(self, rank, start, data):
        layout = self.layout
        end = start + len(data)
        if end > layout.hi:
            raise Refused(f"data runs to byte {end}, past the slice's end {layout.hi}")
        _whole_elements(end, layout)
        self._check_finite(layout, start, data)
        # Below the frontier every byte is in the accumulator or held; the held ones (only
        # one sender has reached them) lie above every other sender's progress, in order,
        # so a sender meets them from the front.
        frontier = max(self.progress.values())
        split = min(max(frontier, start), end)
        held, pos = self.held, start
        while pos < split and held and held[0][0] < split:
            at, view = held[0]
            if at > pos:  # reached by others: in the accumulator
                self._apply(pos, at, data, start)
                pos = at
            stop = min(at + len(view), split)
            self._apply(pos, stop, data, start, view, at)
            if stop == at + len(view):
                held.popleft()
            else:
                held[0] = (stop, view[stop - at:])
            pos = stop
        if pos < split:
            self._apply(pos, split, data, start)
        if split < end:
            if len(held) < HOLD:
                held.append((split, data[split - start:]))
            else:
                self._apply(split, end, data, start, copy=True)

    def _apply(self, a, b, data, start, other=None, other_at=0, copy=False):
        """Bytes [a, b) of the accumulator from `data` (payload byte `start` on): copied,
        reduced into it, or (`other`: a held message from `other_at` on) the reduction of
        both."""
        lo = self.layout.lo
        for run_start, run_end, dtype in self.layout.runs:
            x, y = max(a, run_start), min(b, run_end)
            if x >= y:
                continue
            count = (y - x) // np.dtype(dtype).itemsize
            src = np.frombuffer(data, dtype, count, x - start)
            dst = self.acc[x - lo:y - lo].view(dtype)
            if copy:
                dst[:] = src
                continue
            first = dst if other is None else np.frombuffer(other, dtype, count, x - other_at)
            if self.op == wire.MAX:
                np.maximum(first, src, out=dst)
            elif self.op == wire.MIN:
                np.minimum(first, src, out=dst)
            else:
                # Finite values whose sum overflows give infinity, as TensorFlow's
                # all-reduce does: the refusal of non-finite values is the
                # contributions' rule (each is checked above), not the results'.
                with np.errstate(over="ignore"):
                    np.add(first, src, out=dst)

    def _check_finite(self, layout, start, data):
        if self.allow_nonfinite:
            return
        end = start + len(data)
        for run_start, run_end, dtype in layout.runs:
            a, b = max(start, run_start), min(end, run_end)
            if a >= b or dtype not in wire.FLOATS:
                continue
            size = np.dtype(dtype).itemsize
            values = np.frombuffer(data, dtype, (b - a) // size, a - start)
            # One pass finds NaN and infinity (they propagate); only when it says one may
            # be there is each value checked, to name it.
            if wire.surely_finite(values):
                continue
            bad = np.flatnonzero(~np.isfinite(values))
            if not len(bad):
                continue
            at = a + int(bad[0]) * size
            spec = layout.spec_at(at)
            index = (at - spec.offset) // size
            where = np.unravel_index(index, spec.shape) if spec.shape else ()
            raise Refused(f"{spec.describe()} has {len(bad)} non-finite value(s) in "
                          f"this chunk, the first {values[bad[0]]} at index "
                          f"{[int(i) for i in where]} (start the coordinator with "
                          f"--allow-nonfinite to pass them)")

    # -- refusals and restarts -----------------------------------------------------------

    def refuse(self, rank):
        """Drops `rank`'s current attempt; returns its next attempt number.

        When chunks of it were already added (or results went out), every other
        started contribution is dropped too and `self.restarts` names who must
        send again with which attempt.
        """
        mixed = (self.op in wire.REDUCTIONS and rank in self.progress
                 and self.layout is not None and self.progress[rank] > self.layout.lo)
        self.attempt[rank] += 1
        self.progress.pop(rank, None)
        self.tables.pop(rank, None)
        self.parts.pop(rank, None)
        if mixed:
            self.restart(exclude=rank)
        elif not self.progress:
            self._reset()
        return self.attempt[rank]

    def restart(self, exclude=None):
        """Drops every contribution; the senders are asked to send again."""
        for other in self.progress:
            if other != exclude:
                self.attempt[other] += 1
                self.restarts[other] = self.attempt[other]
        self._reset()

    def take_restarts(self):
        out, self.restarts = self.restarts, {}
        return out

    # -- results -------------------------------------------------------------------------

    def take_results(self):
        """((header, data), ranks it goes to) for every result ready to send."""
        if self.done or self.op is None or set(self.progress) != set(self.members):
            return []
        if self.op in wire.REDUCTIONS:
            return self._reduction_results()
        if self.op == wire.BARRIER:
            self.done = True
            return [(self._result(0, 0, b""), self.members)]
        if self.op == wire.BROADCAST:
            return self._broadcast_results()
        return self._gather_results()

    def _result(self, offset, total, data, table=b""):
        """A RESULT message as (header and table, data): the data is often a view of the
        accumulator, joined with its header only once, into the frame every member gets."""
        return wire.pack_header(wire.RESULT, self.op, self.generation, self.seq, offset, total,
                                table=table), data

    def _reduction_results(self):
        layout = self.layout
        ready = min(self.progress.values())
        while self.held and self.held[0][0] < ready:  # one member: nothing to add to them
            at, view = self.held.popleft()
            self._apply(at, at + len(view), view, at, copy=True)
        if layout.hi == layout.lo:  # nothing to reduce (no tensors, or empty ones)
            self.done = True
            return [(self._result(layout.lo, layout.total, b""), self.members)]
        if ready <= self.sent or (ready - self.sent < RESULT_STEP and ready < layout.hi):
            return []
        out = []
        while self.sent < ready:
            end = min(ready, self.sent + RESULT_CHUNK)
            data = memoryview(self.acc[self.sent - layout.lo:end - layout.lo])
            out.append((self._result(self.sent, layout.total, data), self.members))
            self.sent = end
        self.done = self.sent >= layout.hi
        return out

    def _broadcast_results(self):
        layout = self.layout if self.root in self.parts else None
        if layout is None or self.progress[self.root] < layout.hi:
            return []
        self.done = True
        table = wire.pack_table(layout)
        payload = self.parts[self.root]
        receivers = tuple(r for r in self.members if r != self.root)
        out = [(self._result(layout.total, layout.total, b""), (self.root,))]
        for i, start in enumerate(range(0, max(layout.total, 1), RESULT_CHUNK)):
            end = min(layout.total, start + RESULT_CHUNK)
            out.append((self._result(start, layout.total, bytes(payload[start:end]),
                                     table if i == 0 else b""), receivers))
        return out

    def _gather_results(self):
        if any(self.progress[r] < self.tables[r].hi for r in self.members):
            return []
        self.done = True
        first = self.tables[self.members[0]]
        specs = []
        for i, spec in enumerate(first.specs):
            rows = sum(self.tables[r].specs[i].shape[0] for r in self.members)
            specs.append(wire.TensorSpec(spec.name, spec.dtype, (rows, *spec.shape[1:])))
        result = wire.Layout(specs, self.name)
        payload = bytearray(result.total)
        for i, spec in enumerate(result.specs):
            at = spec.offset
            for r in self.members:
                part = self.tables[r].specs[i]
                payload[at:at + part.nbytes] = self.parts[r][part.offset:
                                                             part.offset + part.nbytes]
                at += part.nbytes
        table = wire.pack_table(result)
        out = []
        for i, start in enumerate(range(0, max(result.total, 1), RESULT_CHUNK)):
            end = min(result.total, start + RESULT_CHUNK)
            out.append((self._result(start, result.total, bytes(payload[start:end]),
                                     table if i == 0 else b""), self.members))
        return out


def _whole_elements(end, layout):
    """Messages end at multiples of 8 bytes (element boundaries: wire.py) or at the payload's
    end, so every check and reduction sees whole elements (one cut inside an element would
    split a NaN between two finite checks)."""
    if end % 8 and end != layout.total:
        raise Refused(f"data ends at byte {end}, inside an element: messages end at multiples "
                      f"of 8 bytes or at the payload's end ({layout.total})")


def _agree(layout, first, first_dim):
    """Raises Refused naming the first tensor of `layout` that differs from `first`."""
    if len(layout.specs) != len(first.specs):
        raise Refused(f"{len(layout.specs)} tensors do not match the {len(first.specs)} "
                      f"of the first contribution")
    for i, (mine, theirs) in enumerate(zip(layout.specs, first.specs)):
        shape_ok = mine.shape == theirs.shape if first_dim else (
            len(mine.shape) == len(theirs.shape) and mine.shape[1:] == theirs.shape[1:])
        if mine.dtype != theirs.dtype or not shape_ok:
            raise Refused(f"{mine.describe()} does not match the first contribution's "
                          f"{theirs.describe()}")
        if mine.name and theirs.name and mine.name != theirs.name:
            raise Refused(f"tensor {i} is named {mine.name!r}, the first contribution's "
                          f"{theirs.name!r}")
