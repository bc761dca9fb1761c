"""Transformations that carry state or draw numbers: scan, take_while, unique, counter,
random, sample_from_datasets, choose_from_datasets, rejection_resample."""

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError
from . import spec, structure
from .dataset import INFINITE, UNKNOWN, Dataset, Failure, TensorSpec, call
from .transforms import _END, _Unary, judged


def _scalar(value):
    value = value.numpy() if hasattr(value, "numpy") else value
    return np.asarray(value)


class Scan(_Unary):
    """`scan_func(state, element) -> (new_state, output)` over the elements."""

    def __init__(self, inp, initial_state, scan_func):
        super().__init__(inp)
        self.initial = structure.normalize(initial_state, True)
        self.fn = scan_func

    def _step(self, state, element):
        result = structure.normalize(self.fn(state, element), True)
        if not isinstance(result, tuple) or len(result) != 2:
            raise TypeError("The scan function must return a pair comprising the new state "
                            f"and the output value, returned {result!r}")
        return result

    def _gen(self, ctx):
        state = self.initial
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            try:
                state, out = self._step(state, e)
            except Exception as x:  # noqa: BLE001  (travels in the element's place)
                yield Failure(x)
                continue
            yield out

    def _spec(self):
        results = spec.first(self, 2)  # two: sizes that vary are None
        return spec.mapped(None, [None], results) if results else None


class TakeWhile(_Unary):
    def __init__(self, inp, predicate):
        super().__init__(inp)
        self.predicate = predicate

    def _gen(self, ctx):
        for e, keep in judged(self.inp._gen(ctx), self.predicate,
                              "`predicate` must return a scalar boolean tensor"):
            if keep is False:
                return
            yield e

    def _cardinality(self):
        return UNKNOWN


class Unique(_Unary):
    def __init__(self, inp):
        super().__init__(inp)
        inner = spec.static(inp)
        if inner is not None:
            if not isinstance(inner, TensorSpec):
                raise InvalidArgumentError("UniqueDataset only supports inputs with a single "
                                           "component.")
            if inner.dtype not in ("int32", "int64", "string"):
                raise TypeError(f"`tf.data.Dataset.unique` does not support type "
                                f"{inner.dtype!r} -- only `tf.int32`, `tf.int64`, and "
                                "`tf.string` are supported.")

    def _gen(self, ctx):
        seen = set()
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            key = e if isinstance(e, bytes) else (np.shape(e), np.asarray(e).tobytes())
            if key not in seen:
                seen.add(key)
                yield e

    def _cardinality(self):
        return UNKNOWN


class Counter(Dataset):
    _tf_name = "_ScanDataset"
    def __init__(self, start, step, dtype):
        self.start, self.step = start, step
        self.dtype = structure.host_dtype(getattr(dtype, "name", dtype))

    def _gen(self, ctx):
        value, t = self.start, self.dtype.type
        while True:
            yield t(value)
            value += self.step

    def _cardinality(self):
        return INFINITE

    def _spec(self):
        return TensorSpec([], structure.dtype_name(self.dtype))


class RandomInts(Dataset):
    """Dataset.random: non-negative int64 numbers, texflow's (numpy's generator)."""

    _tf_name = "_RandomDataset"

    def __init__(self, seed, rerandomize):
        self.seed, self.rerandomize, self.passes = seed, rerandomize, 0

    def _gen(self, ctx):
        if self.seed is None:
            rng = np.random.default_rng()
        else:
            rng = np.random.default_rng([int(self.seed), self.passes if self.rerandomize else 0])
        self.passes += 1
        while True:
            yield from rng.integers(0, 2**63 - 1, 256, dtype=np.int64)

    def _cardinality(self):
        return INFINITE

    def _spec(self):
        return TensorSpec([], "int64")


def _common_spec(datasets, check=False):
    """The datasets' common element spec; with `check`, only a check at construction
    (specs that need data are left out)."""
    specs = [spec.static(d) if check else d._spec() for d in datasets]
    known = [s for s in specs if s is not None]
    out = known[0] if known else None
    for s in known[1:]:
        merged = spec.common(out, s)
        if merged is None:
            listed = "\n".join(f"Dataset {i} element_spec={s}." for i, s in enumerate(specs))
            raise TypeError("Invalid `datasets`. `datasets` must have compatible element "
                            f"specs.\n {listed}")
        out = merged
    return out


class Choose(Dataset):
    """choose_from_datasets: the element of datasets[i] for each i of `choices`."""

    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, datasets, choices, stop_on_empty):
        self.datasets, self.choices, self.stop = list(datasets), choices, stop_on_empty
        self._inputs = (*self.datasets, choices)
        if not self.datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        for d in self.datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid `datasets`. `datasets` must be a list of "
                                f"`tf.data.Dataset`s, received {type(d).__name__}")
        choice_spec = spec.static(choices)
        if choice_spec is not None and (not isinstance(choice_spec, TensorSpec) or
                                        choice_spec.dtype != "int64" or
                                        choice_spec.shape.rank != 0):
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                            f"scalar `tf.int64` tensors but are {choice_spec}.")
        _common_spec(self.datasets, check=True)

    def _gen(self, ctx):
        gens = [d._gen(ctx) for d in self.datasets]
        done = [False] * len(gens)
        for c in self.choices._gen(ctx):
            if type(c) is Failure:
                yield c
                continue
            i = int(c)
            if not 0 <= i < len(gens):
                yield Failure(InvalidArgumentError(
                    f"Selector index out of range: {i} >= {len(gens)}"))
                return
            if done[i]:
                continue
            e = next(gens[i], _END)
            if e is _END:
                done[i] = True
                if self.stop or all(done):
                    return
                continue
            yield e

    def _spec(self):
        return _common_spec(self.datasets)


class Sample(Dataset):
    """sample_from_datasets: each element from a dataset drawn by `weights` (texflow's
    numbers); an exhausted dataset ends the sampling or leaves it."""

    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, datasets, weights, seed, stop_on_empty, rerandomize):
        self.datasets = list(datasets)
        self._inputs = tuple(self.datasets)
        if not self.datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        n = len(self.datasets)
        if weights is None:
            weights = [1.0 / n] * n
        if isinstance(weights, Dataset):
            raise NotImplementedError("sample_from_datasets with a Dataset of weights")
        weights = np.asarray(_scalar(weights), np.float64).reshape(-1)
        if len(weights) != n:
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible "
                             f"with `[len(datasets)]` but is {[len(weights)]}.")
        self.weights = weights
        self.seed, self.stop, self.passes = seed, stop_on_empty, 0
        self.rerandomize = rerandomize
        _common_spec(self.datasets, check=True)

    def _rng(self):
        epoch = self.passes if self.rerandomize is not False else 0
        self.passes += 1
        if self.seed is None:
            return np.random.default_rng()
        return np.random.default_rng([int(self.seed), epoch])

    def _gen(self, ctx):
        rng = self._rng()
        gens = [d._gen(ctx) for d in self.datasets]
        weights = self.weights.copy()
        while weights.sum() > 0:
            i = int(rng.choice(len(gens), p=weights / weights.sum()))
            e = next(gens[i], _END)
            if e is _END:
                if self.stop:
                    return
                weights[i] = 0.0
                continue
            yield e

    def _cardinality(self):
        ns = [d._cardinality() for d in self.datasets]
        return INFINITE if all(n == INFINITE for n in ns) else UNKNOWN

    def _spec(self):
        return _common_spec(self.datasets)


class RejectionResample(_Unary):
    """(class, element) pairs, elements kept with the probability that moves the class
    distribution from `initial_dist` (estimated from the data seen when None) to
    `target_dist`: texflow's numbers, plain rejection sampling."""

    def __init__(self, inp, class_func, target_dist, initial_dist, seed):
        super().__init__(inp)
        self.class_func = class_func
        self.target = np.asarray(_scalar(target_dist), np.float64)
        self.initial = None if initial_dist is None else np.asarray(_scalar(initial_dist),
                                                                    np.float64)
        self.seed, self.passes = seed, 0

    def _gen(self, ctx):
        rng = np.random.default_rng(None if self.seed is None else [int(self.seed),
                                                                    self.passes])
        self.passes += 1
        counts = np.zeros(len(self.target))
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            label = _scalar(call(self.class_func, e))[()]
            c = int(label)
            counts[c] += 1
            initial = self.initial if self.initial is not None else counts / counts.sum()
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(initial > 0, self.target / initial, 0.0)
            if rng.random() < ratio[c] / ratio.max():
                yield (label, e)

    def _cardinality(self):
        return UNKNOWN

    def _spec(self):  # the class_func's type: read from the data
        return spec.from_data(self)


class AssertCardinality(_Unary):
    """tf.data.experimental.assert_cardinality: declares the number of elements, and
    raises FailedPreconditionError where the data has another."""

    def __init__(self, inp, expected):
        super().__init__(inp)
        self.expected = int(_scalar(expected))

    def _gen(self, ctx):
        count = 0
        for e in self.inp._gen(ctx):
            if type(e) is not Failure:
                count += 1
                if 0 <= self.expected < count:
                    yield Failure(FailedPreconditionError(
                        f"Input dataset was expected to contain {self.expected} elements but "
                        f"contained at least {count} elements."))
                    return
            yield e
        if count < self.expected or self.expected == INFINITE:
            which = "infinite" if self.expected == INFINITE else str(self.expected)
            yield Failure(FailedPreconditionError(
                f"Input dataset was expected to contain {which} elements but contained only "
                f"{count} elements."))

    def _cardinality(self):
        return self.expected
