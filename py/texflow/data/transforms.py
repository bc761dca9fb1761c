"""The Dataset transformations. Each is a generator over its input's generator,
passing `Failure` markers through in the place of the element that failed."""

import concurrent.futures
import logging
import os
import pickle
import queue
import threading

import numpy as np

from ..errors import InvalidArgumentError
from . import spec, structure
from .dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset, Failure, call

log = logging.getLogger("texflow.data")


def _positive(name, value):
    value = int(value)
    if value <= 0:
        raise InvalidArgumentError(f"{name} must be greater than zero, received {value}")
    return value


class _Unary(Dataset):
    def __init__(self, inp):
        if not isinstance(inp, Dataset):
            raise TypeError(f"expected a Dataset, received {type(inp).__name__}")
        self.inp = inp
        self._inputs = (inp,)

    def _cardinality(self):
        return self.inp._cardinality()

    def _spec(self):  # most transformations keep the element's type
        return self.inp._spec()


class WithOptions(_Unary):
    _tf_name = "_OptionsDataset"
    def __init__(self, inp, options):
        super().__init__(inp)
        self._options = options

    def _gen(self, ctx):
        return self.inp._gen(ctx)


def _apply(fn, element):
    try:
        return structure.normalize(call(fn, element), True)
    except Exception as e:  # travels down the pipeline in the element's place
        return Failure(e)


class Map(_Unary):
    def __init__(self, inp, fn, num_parallel_calls, deterministic):
        super().__init__(inp)
        self.fn = fn
        self.parallel = num_parallel_calls
        self.deterministic = deterministic
        self._tf_name = "_ParallelMapDataset" if num_parallel_calls else "_MapDataset"

    def _gen(self, ctx):
        fn = self.fn
        workers = self.parallel
        if workers == AUTOTUNE:
            workers = os.cpu_count() or 1
        if not ctx.threads or not workers or workers <= 1:
            for e in self.inp._gen(ctx):
                yield e if type(e) is Failure else _apply(fn, e)
            return
        # Ordered parallel map: keep `workers` calls in flight, yield in input order.
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            pending = []
            for e in self.inp._gen(ctx):
                pending.append(e if type(e) is Failure else pool.submit(_apply, fn, e))
                if len(pending) > workers:
                    first = pending.pop(0)
                    yield first if type(first) is Failure else first.result()
            for item in pending:
                yield item if type(item) is Failure else item.result()

    def _spec(self):
        elements = spec.first(self.inp, 2)  # two: sizes that vary are None
        if not elements:
            return None
        results = [structure.normalize(call(self.fn, e), True) for e in elements]
        return spec.mapped(self.inp._spec(), elements, results)


def judged(elements, predicate, message):
    """(element, verdict) for each of `elements` by `predicate`, which must give a scalar
    bool (else InvalidArgumentError starting with `message`); a failure, the element's
    own or the predicate's, comes as (Failure, None), travelling in the element's place."""
    for e in elements:
        if type(e) is Failure:
            yield e, None
            continue
        try:
            keep = call(predicate, e)
            keep = np.asarray(keep.numpy() if hasattr(keep, "numpy") else keep)
            if keep.shape != () or keep.dtype != np.bool_:
                raise InvalidArgumentError(f"{message}, returned dtype {keep.dtype} and "
                                           f"shape {list(keep.shape)}")
        except Exception as x:  # noqa: BLE001  (travels in the element's place)
            yield Failure(x), None
            continue
        yield e, bool(keep)


class Filter(_Unary):
    def __init__(self, inp, predicate):
        super().__init__(inp)
        self.predicate = predicate

    def _gen(self, ctx):
        for e, keep in judged(self.inp._gen(ctx), self.predicate,
                              "filter predicate must return a scalar bool"):
            if keep is not False:  # kept, or a failure travelling in its place
                yield e

    def _cardinality(self):
        return UNKNOWN


class Interleave(_Unary):
    """interleave and flat_map (cycle_length 1): TensorFlow's deterministic order."""

    def __init__(self, inp, fn, cycle_length, block_length, num_parallel_calls):
        super().__init__(inp)
        self.fn = fn
        self.cycle = _positive("cycle_length", cycle_length)
        self.block = _positive("block_length", block_length)
        self._tf_name = "_ParallelInterleaveDataset" if num_parallel_calls else \
            "_InterleaveDataset"

    def _open(self, element, ctx):
        ds = call(self.fn, element)
        if not isinstance(ds, Dataset):
            raise TypeError(f"the function given to interleave/flat_map must return a "
                            f"Dataset, returned {type(ds).__name__}")
        return ds._gen(ctx)

    def _gen(self, ctx):
        inputs = self.inp._gen(ctx)
        slots = [None] * self.cycle
        index = block_index = open_count = 0
        end_of_input = False
        while not end_of_input or open_count:
            current = slots[index]
            if current is not None:
                e = next(current, _END)
                if e is not _END:
                    yield e
                    block_index += 1
                    if block_index == self.block:
                        block_index, index = 0, (index + 1) % self.cycle
                    continue
                slots[index] = None
                open_count -= 1
                block_index, index = 0, (index + 1) % self.cycle
            elif not end_of_input:
                e = next(inputs, _END)
                if e is _END:
                    end_of_input = True
                elif type(e) is Failure:
                    yield e
                else:
                    try:
                        slots[index] = self._open(e, ctx)
                        open_count += 1
                    except Exception as x:
                        yield Failure(x)
            else:
                block_index, index = 0, (index + 1) % self.cycle

    def _cardinality(self):
        return UNKNOWN

    def _spec(self):
        element = spec.first(self.inp)
        return None if element is None else call(self.fn, element)._spec()


_END = object()


class Shuffle(_Unary):
    def __init__(self, inp, buffer_size, seed, reshuffle):
        super().__init__(inp)
        self.buffer_size = _positive("buffer_size", buffer_size)
        self.seed = None if seed is None else int(seed)
        self.reshuffle = reshuffle
        self.iterations = 0

    def _rng(self):
        epoch = self.iterations if self.reshuffle else 0
        self.iterations += 1
        if self.seed is None:
            if not self.reshuffle:
                if not hasattr(self, "_fixed"):
                    self._fixed = int(np.random.SeedSequence().entropy % 2**63)
                return np.random.default_rng([self._fixed, 0])
            return np.random.default_rng()
        return np.random.default_rng([self.seed, epoch])

    def _gen(self, ctx):
        rng = self._rng()
        buf = []
        draws, k = rng.random(1024), 0
        inputs = self.inp._gen(ctx)
        exhausted = False
        while True:
            while not exhausted and len(buf) < self.buffer_size:
                e = next(inputs, _END)
                if e is _END:
                    exhausted = True
                elif type(e) is Failure:
                    yield e
                else:
                    buf.append(e)
            if not buf:
                return
            if k == len(draws):
                draws, k = rng.random(1024), 0
            i = int(draws[k] * len(buf))
            k += 1
            buf[i], buf[-1] = buf[-1], buf[i]
            yield buf.pop()


class Repeat(_Unary):
    def __init__(self, inp, count):
        super().__init__(inp)
        self.count = -1 if count is None else int(count)

    def _gen(self, ctx):
        epoch = 0
        while self.count < 0 or epoch < self.count:
            produced = False
            for e in self.inp._gen(ctx):
                produced = True
                yield e
            if not produced:  # an empty input would repeat forever
                return
            epoch += 1

    def _cardinality(self):
        n = self.inp._cardinality()
        if self.count == 0 or n == 0:
            return 0
        if self.count < 0:
            return INFINITE if n != UNKNOWN else UNKNOWN
        return n * self.count if n >= 0 else n


class Take(_Unary):
    def __init__(self, inp, count):
        super().__init__(inp)
        self.count = int(count)

    def _gen(self, ctx):
        if self.count == 0:
            return
        taken = 0
        for e in self.inp._gen(ctx):
            yield e
            if type(e) is not Failure:
                taken += 1
                if taken == self.count:
                    return

    def _cardinality(self):
        n = self.inp._cardinality()
        if self.count < 0:
            return n
        return self.count if n in (INFINITE,) else (min(n, self.count) if n >= 0 else n)


class Skip(_Unary):
    def __init__(self, inp, count):
        super().__init__(inp)
        self.count = int(count)

    def _gen(self, ctx):
        skipped = 0
        for e in self.inp._gen(ctx):
            if type(e) is Failure or (self.count >= 0 and skipped >= self.count):
                yield e
            else:
                skipped += 1

    def _cardinality(self):
        n = self.inp._cardinality()
        if self.count < 0:
            return 0
        return max(0, n - self.count) if n >= 0 else n


class Shard(_Unary):
    def __init__(self, inp, num_shards, index):
        super().__init__(inp)
        self.n = _positive("num_shards", num_shards)
        self.index = int(index)
        if not 0 <= self.index < self.n:
            raise InvalidArgumentError(f"Index must be between 0 and {self.n - 1} (currently "
                                       f"index = {self.index}).")

    def _gen(self, ctx):
        i = 0
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            if i % self.n == self.index:
                yield e
            i += 1

    def _cardinality(self):
        n = self.inp._cardinality()
        return n if n < 0 else n // self.n + (1 if n % self.n > self.index else 0)


class Zip(Dataset):
    def __init__(self, datasets):
        self.datasets = datasets
        self._inputs = tuple(structure.flatten(datasets))
        for d in self._inputs:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip takes Datasets, received {type(d).__name__}")

    def _gen(self, ctx):
        gens = [d._gen(ctx) for d in self._inputs]
        while True:
            items = [next(g, _END) for g in gens]
            if any(i is _END for i in items):
                return
            failed = [i for i in items if type(i) is Failure]
            yield failed[0] if failed else structure.pack_as(self.datasets, items)

    def _spec(self):
        return structure.pack_as(self.datasets, [d._spec() for d in self._inputs])

    def _cardinality(self):
        ns = [d._cardinality() for d in self._inputs]
        finite = [n for n in ns if n >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in ns else INFINITE


class Concatenate(Dataset):
    def __init__(self, first, second):
        self._inputs = (first, second)
        a, b = spec.static(first), spec.static(second)
        if a is not None and b is not None and spec.common(a, b) is None:
            raise TypeError(f"Incompatible dataset elements:\n  {a} vs.   {b}")

    def _spec(self):
        a, b = (d._spec() for d in self._inputs)
        return b if a is None else a if b is None else spec.common(a, b)

    def _gen(self, ctx):
        for d in self._inputs:
            yield from d._gen(ctx)

    def _cardinality(self):
        a, b = (d._cardinality() for d in self._inputs)
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b


class Cache(_Unary):
    _tf_name = "CacheDataset"
    def __init__(self, inp, filename):
        super().__init__(inp)
        self.filename = os.fspath(filename) if filename else ""
        self.elements = None

    def _path(self):
        return self.filename + ".texflow-cache"

    def _gen(self, ctx):
        if self.elements is None and self.filename and os.path.exists(self._path()):
            with open(self._path(), "rb") as f:
                self.elements = pickle.load(f)
        if self.elements is not None:
            yield from self.elements
            return
        collected, complete = [], True
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                complete = False
            else:
                collected.append(e)
            yield e
        if complete:
            self.elements = collected
            if self.filename:
                tmp = self._path() + ".part"
                with open(tmp, "wb") as f:
                    pickle.dump(collected, f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, self._path())


class Prefetch(_Unary):
    def __init__(self, inp, buffer_size):
        super().__init__(inp)
        size = int(buffer_size)
        self.size = 2 if size == AUTOTUNE else size

    def _gen(self, ctx):
        if not ctx.threads or self.size == 0:
            yield from self.inp._gen(ctx)
            return
        q = queue.Queue(self.size)
        stop = threading.Event()

        def produce():
            try:
                for e in self.inp._gen(ctx):
                    while not stop.is_set():
                        try:
                            q.put(e, timeout=0.1)
                            break
                        except queue.Full:
                            pass
                    if stop.is_set():
                        return
                item = _END
            except BaseException as e:  # a bug in a stage: hand it to the consumer
                item = Failure(e)
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.1)
                    return
                except queue.Full:
                    pass

        worker = threading.Thread(target=produce, daemon=True, name="texflow-prefetch")
        worker.start()
        try:
            while True:
                e = q.get()
                if e is _END:
                    return
                yield e
        finally:
            stop.set()


class IgnoreErrors(_Unary):
    def __init__(self, inp, log_warning):
        super().__init__(inp)
        self.log_warning = log_warning
        self.skipped = 0
        self.skipped_errors = []

    def _gen(self, ctx):
        this_pass = 0
        for e in self.inp._gen(ctx):
            if type(e) is not Failure:
                yield e
                continue
            this_pass += 1
            self.skipped += 1
            message = f"{type(e.exc).__name__}: {e.exc}"
            if len(self.skipped_errors) < 100:
                self.skipped_errors.append(message)
            if self.log_warning:
                log.warning("ignore_errors: skipped an element: %s", message)
        if this_pass:
            log.warning("ignore_errors: skipped %d element(s) with errors in this pass "
                        "(%d in all); the first: %s", this_pass, self.skipped,
                        self.skipped_errors[0] if self.skipped_errors else "")

    def _cardinality(self):
        return UNKNOWN
