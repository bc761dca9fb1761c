"""One collective in flight on a worker: what it sent, and the results coming back."""

import asyncio
import sys

import numpy as np

from ..coordinator import wire
from ._tensors import PayloadReader


class _ResultBuffers:
    """Reuses the buffers reduction results are written into once nothing else refers to
    them (the caller dropped the arrays a previous collective returned, which are views of
    one buffer): a fresh buffer of megabytes costs a page fault per page, more than the copy
    into it (measured in the README, "Cost model"). Holds at most `keep` buffers."""

    def __init__(self, keep=4, smallest=1 << 16):
        self.free, self.keep, self.smallest = [], keep, smallest

    def take(self, size):
        if size >= self.smallest:
            for i in range(len(self.free)):
                # 2: the list's reference and getrefcount's argument; no array views it.
                if len(self.free[i]) == size and sys.getrefcount(self.free[i]) == 2:
                    return self.free.pop(i)
        return np.empty(size, np.uint8)

    def keep_for_reuse(self, buf):
        if len(buf) >= self.smallest:
            self.free.append(buf)
            del self.free[:-self.keep]


_results = _ResultBuffers()


class Pending:
    """Collective `seq` of `generation`: sends `arrays` laid out as `layout`, cut at
    `cuts` into one slice per coordinator shard, and assembles the results."""

    def __init__(self, generation, seq, op, root, layout, arrays, cuts, attempts, my_rank):
        self.generation, self.seq, self.op, self.root = generation, seq, op, root
        self.layout, self.arrays, self.cuts = layout, arrays, cuts
        self.shards = list(range(len(cuts) - 1))
        self.attempts = dict(attempts)
        self.my_rank = my_rank
        self.reader = PayloadReader(layout, arrays)
        self.future = asyncio.get_running_loop().create_future()
        self.finished = False
        self.aborts = None
        self.received = dict.fromkeys(self.shards, 0)
        self.result = _results.take(layout.total) if op in wire.REDUCTIONS else None
        self.result_layout = None
        # Bytes of each connection's results that a sink (result_sink, result_region) may
        # place before their messages come; placed bytes beyond it fail the collective.
        self.sunk = dict.fromkeys(self.shards, 0)

    def slice_of(self, index):
        return self.cuts[index], self.cuts[index + 1]

    def result_sink(self, index, head, size):
        """The part of the result buffer where a reduction's result message of `size` bytes
        with header `head` belongs, for its data to be read straight into it; None for
        anything else (it then arrives as a message and is checked there)."""
        if self.finished or self.op not in wire.REDUCTIONS or index not in self.received:
            return None
        h = wire.unpack(head)
        n = size - wire.HEADER_SIZE
        lo, hi = self.slice_of(index)
        if h.kind != wire.RESULT or h.table or (h.generation, h.seq) != (
                self.generation, self.seq) or not lo <= h.offset <= h.offset + n <= hi:
            return None
        self.sunk[index] += n
        return memoryview(self.result)[h.offset:h.offset + n]

    def result_region(self, index):
        """(op, generation, seq, start, end) of the results still to come on connection
        `index` of a reduction, which may be placed straight into `self.result` in order
        (the browser's socket does, and reports them as one placed message); None when
        none are to come."""
        if self.finished or self.op not in wire.REDUCTIONS or index not in self.received:
            return None
        lo, hi = self.slice_of(index)
        start = lo + self.received[index]
        if start >= hi:
            return None
        self.sunk[index] = hi - start  # what an earlier region did not place is void
        return self.op, self.generation, self.seq, start, hi

    def result_message(self, index, h, placed=None):
        """One result message; `placed`: its data's size when result_sink already put the
        data in place."""
        if self.finished or index not in self.received:
            return
        data = h.data
        size = len(data) if placed is None else placed
        op = self.op
        if op in wire.REDUCTIONS:
            lo, hi = self.slice_of(index)
            if not lo <= h.offset <= h.offset + size <= hi:
                self.fail(wire.WireError(f"a result at bytes [{h.offset}, "
                                         f"{h.offset + size}) outside slice [{lo}, {hi})"))
                return
            if placed is None:
                self.result[h.offset:h.offset + size] = np.frombuffer(data, np.uint8)
            elif placed > self.sunk[index]:  # never expected: placed for another collective
                self.fail(wire.WireError("a result's data was read into another collective"))
                return
            else:
                self.sunk[index] -= placed
            self.received[index] += size
            if all(self.received[j] == self.cuts[j + 1] - self.cuts[j] for j in self.shards):
                self._finish(self._reduced())
        elif op == wire.BARRIER or (op == wire.BROADCAST and self.my_rank == self.root):
            self._finish(None)
        else:
            if h.table:
                self.result_layout = wire.unpack_table(h.table, 1 << 40)
                self.result = np.empty(self.result_layout.total, np.uint8)
            if self.result_layout is None or h.offset + len(data) > len(self.result):
                self.fail(wire.WireError("a result without its table"))
                return
            self.result[h.offset:h.offset + len(data)] = np.frombuffer(data, np.uint8)
            self.received[index] += len(data)
            if self.received[index] >= self.result_layout.total:
                self._finish([self._view(spec) for spec in self.result_layout.specs])

    def _view(self, spec):
        raw = self.result[spec.offset:spec.offset + spec.nbytes]
        return raw.view(spec.dtype).reshape(spec.shape)

    def _reduced(self):
        out = [self._view(spec) for spec in self.layout.specs]
        _results.keep_for_reuse(self.result)
        return out

    def restart(self, index):
        """The coordinator dropped this attempt: results so far are void."""
        self.received[index] = 0
        if self.op not in wire.REDUCTIONS:
            self.result_layout = None

    def fail(self, error):
        if self.finished:
            return
        self.finished = True
        for future in (self.aborts or {}).values():
            future.cancel()
        if not self.future.done():
            self.future.set_exception(error)

    def _finish(self, value):
        self.finished = True
        if not self.future.done():
            self.future.set_result(value)
