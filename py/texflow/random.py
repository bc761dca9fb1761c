"""`tf.random`: seeded random tensors with TensorFlow's seeding rules.

The seeds follow TensorFlow 2 (engine/seeds.py states the rules): `tf.random.set_seed(g)`
sets the global seed, an op's `seed` argument its op seed; with a global seed and no op
seed each op draws a fresh op seed from a sequence the global seed starts; with an op
seed and no global seed the global seed is TensorFlow's default (87654321); with
neither, the numbers are not reproducible. Eager calls with the same (global, op) seed
pair continue one stream (the second call gives new numbers) until `set_seed` starts
everything again; inside tf.function each op of each trace has a stream of its own, as
in TensorFlow.

Numbers are drawn on the host with numpy from those seeds and uploaded when an
op needs them, so one program gives the same numbers on every texflow backend.
They are not TensorFlow's numbers: its Philox streams are not reproduced.
"""

import numpy as _np

from . import dtypes as _dtypes
from .engine import seeds as _seeds
from .engine.ndarray import NDArray as _NDArray, from_numpy as _from_numpy
from .engine.ndarray import normalize_shape as _normalize_shape, to_numpy as _to_numpy
from .engine.seeds import drawn_each_call as _drawn_each_call, generator as _generator
from .engine.trace import dry as _dry, fresh_each_call as _fresh_each_call
from .errors import InvalidArgumentError as _InvalidArgumentError
from .errors import NotFoundError as _NotFoundError
from ._stateless import stateless_binomial, stateless_categorical, stateless_normal  # noqa: F401
from ._stateless import stateless_truncated_normal, stateless_uniform  # noqa: F401

_state = _seeds.state


def set_seed(seed):
    """Sets the global random seed and restarts every seeded stream (tf.random.set_seed).

    >>> tf.random.set_seed(1); a = tf.random.uniform([2], seed=1)
    >>> tf.random.set_seed(1); bool((a == tf.random.uniform([2], seed=1)).numpy().all())
    True
    """
    _seeds.set_seed(seed)


def _get_state():
    """The seeding state as JSON values (global seed, op-seed sequence, stream positions,
    the global Generator), for texflow.distribute's training state."""
    generator = _global_generator[0]
    return {"global": _state["global"], "ops": _jsonable(_state["ops"].getstate()),
            "streams": [[*key, n] for key, n in _state["streams"].items()],
            "generator": None if generator is None else
            [generator._seed, generator._rng.bit_generator.state]}


def _set_state(state):
    """Restores `_get_state()` output."""
    _state["global"] = state["global"]
    version, internal, gauss = state["ops"]
    _state["ops"].setstate((version, tuple(internal), gauss))
    # (global seed, op seed, op name); before 2026-11-24 the name was not part of it
    _state["streams"] = {tuple(k[:-1]) if len(k) == 4 else (*k[:-1], None): k[-1]
                         for k in state["streams"]}
    if state.get("generator") is not None:
        seed, bits = state["generator"]
        generator = Generator(seed)
        generator._rng.bit_generator.state = bits
        _global_generator[0] = generator


def _jsonable(value):
    return [_jsonable(v) for v in value] if isinstance(value, tuple) else value


def _float_dtype(dtype, name):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name} ({name} "
                        "draws floats)")
    return _dtypes.device_dtype(dtype)


# The dtypes tf.random.uniform accepts (Generator.uniform checks its kernels' lists instead)
_UNIFORM = ("float16", "bfloat16", "float32", "float64", "int32", "int64")


def _uniform_dtype(dtype, generator):
    """uniform's `dtype` checked as TensorFlow's tf.random.uniform (`generator` False) or
    Generator.uniform checks it, then as a device dtype: float16 raises DTypeError (it has
    no device storage), as every float16 tensor does, and never gives float32 silently."""
    dtype = _dtypes.as_dtype(dtype)
    name = dtype.name
    if not generator and name not in _UNIFORM:
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{name}'>. Accepted "
                         "dtypes are (tf.float16, tf.bfloat16, tf.float32, tf.float64, "
                         "tf.int32, tf.int64).")
    if dtype.is_bool or dtype == _dtypes.string:
        raise TypeError(f"Cannot convert 0 to EagerTensor of dtype {name}")
    if name in ("uint32", "uint64"):  # TensorFlow lists them but has no CPU kernel
        raise _NotFoundError(f"Could not find device for node: {{{{node "
                             f"StatelessRandomUniformIntV2}}}} = StatelessRandomUniformIntV2"
                             f"[dtype=DT_{name.upper()}]")
    if not (dtype.is_floating or name in ("int32", "int64")):
        allowed = "int32, int64, uint32, uint64" if dtype.is_integer else \
            "half, bfloat16, float, double"
        raise _InvalidArgumentError(f"Value for attr 'dtype' of {name} is not in the list "
                                    f"of allowed values: {allowed}")
    return _dtypes.device_dtype(dtype)


def _scalar(value):
    return value.numpy() if isinstance(value, _NDArray) else _np.asarray(value)


def _size(shape):
    return int(_np.prod(_normalize_shape(shape), dtype=_np.int64))


def _normal(rng, shape, mean, stddev, truncated):
    shape = _normalize_shape(shape)
    if not truncated:
        return rng.standard_normal(shape) * _scalar(stddev) + _scalar(mean)
    draws = rng.standard_normal(shape)
    bad = _np.abs(draws) > 2.0
    while bad.any():  # resample beyond two standard deviations, as TensorFlow does
        draws[bad] = rng.standard_normal(int(bad.sum()))
        bad = _np.abs(draws) > 2.0
    return draws * _scalar(stddev) + _scalar(mean)


def _uniform(rng, shape, minval, maxval, dtype):
    shape = _normalize_shape(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        low, high = int(_scalar(minval)), int(_scalar(maxval))
        if high <= low:
            raise ValueError(f"uniform: need minval < maxval for integers, received "
                             f"[{low}, {high})")
        return _from_numpy(rng.integers(low, high, shape, dtype=_np.int64).astype(_np.int32))
    low, high = _scalar(minval), _scalar(1.0 if maxval is None else maxval)
    values = rng.random(shape) * (high - low) + low
    return _from_numpy(values.astype(_np.float32))


@_drawn_each_call  # a new draw at every tf.function call, a stream per traced op
def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Samples of a normal distribution (tf.random.normal).

    >>> tf.random.normal([2, 3], seed=1).shape
    TensorShape([2, 3])
    """
    dtype = _float_dtype(dtype, "normal")
    return _from_numpy(_to_numpy(_normal(_generator(seed, _size(shape)), shape, mean, stddev,
                                         False), dtype))


@_drawn_each_call  # a new draw at every tf.function call, a stream per traced op
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Samples of a normal distribution redrawn beyond two standard deviations."""
    dtype = _float_dtype(dtype, "truncated_normal")
    return _from_numpy(_to_numpy(_normal(_generator(seed, _size(shape)), shape, mean, stddev,
                                         True), dtype))


@_drawn_each_call  # a new draw at every tf.function call, a stream per traced op
def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    """Samples of a uniform distribution on [minval, maxval) (tf.random.uniform): floats
    in [0, 1) by default; integer _dtypes need `maxval`.

    >>> tf.random.uniform([3], 0, 10, dtype=tf.int32, seed=1).dtype
    tf.int32
    """
    dtype = _uniform_dtype(dtype, False)
    integer = dtype.is_integer  # TensorFlow's RandomUniformInt kernel
    rng = _generator(seed, _size(shape), "uniform_int" if integer else None)
    return _uniform(rng, shape, minval, maxval, dtype)


@_drawn_each_call  # a new draw at every tf.function call, a stream per traced op
def shuffle(value, seed=None, name=None):
    """`value` with its first axis randomly permuted (a gather on the device)."""
    from .ops.movement import gather
    x = value if isinstance(value, _NDArray) else _from_numpy(_to_numpy(value))
    if not x.shape:
        return x
    order = _generator(seed, x.shape[0]).permutation(x.shape[0]).astype(_np.int32)
    return gather(x, _from_numpy(order))


@_drawn_each_call  # a new draw at every tf.function call, a stream per traced op
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices drawn from the unnormalised log-probabilities of each row of
    `logits` [batch, classes]; the result is [batch, num_samples] (int64, stored as
    int32). The logits are read on the host to sample there."""
    data = logits.numpy() if isinstance(logits, _NDArray) else _np.asarray(logits)
    if data.ndim != 2:
        raise ValueError(f"logits should be a matrix, received shape {list(data.shape)}")
    rng = _generator(seed, data.shape[0] * int(num_samples))
    z = data.astype(_np.float64)
    z = _np.exp(z - z.max(axis=1, keepdims=True))
    p = z / z.sum(axis=1, keepdims=True)
    out = _np.stack([rng.choice(data.shape[1], int(num_samples), p=row) for row in p]) \
        if len(p) else _np.zeros((0, int(num_samples)))
    return _from_numpy(out.astype(_np.int32).reshape(data.shape[0], int(num_samples)))


class Generator:
    """A random number generator with its own state (tf.random.Generator): the same
    seed gives the same sequence of draws on every backend.

    >>> g = tf.random.Generator.from_seed(1)
    >>> g.normal([2]).shape
    TensorShape([2])
    """

    def __init__(self, seed=None, alg=None):
        self._seed = seed
        self._rng = _np.random.default_rng(seed)

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(int(seed), alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(None, alg)

    def reset_from_seed(self, seed):
        self.__init__(int(seed))

    @_fresh_each_call  # a new draw at every tf.function call
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        dtype = _float_dtype(dtype, "normal")
        return _from_numpy(_to_numpy(_normal(self._draws(), shape, mean, stddev, False), dtype))

    @_fresh_each_call  # a new draw at every tf.function call
    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        dtype = _float_dtype(dtype, "truncated_normal")
        return _from_numpy(_to_numpy(_normal(self._draws(), shape, mean, stddev, True), dtype))

    @_fresh_each_call  # a new draw at every tf.function call
    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
        return _uniform(self._draws(), shape, minval, maxval, _uniform_dtype(dtype, True))

    def _draws(self):
        # get_concrete_function: a throwaway generator, as the draw is discarded
        return _np.random.default_rng(0) if _dry() else self._rng

    def split(self, count=1):
        """`count` new generators, each with its own stream derived from this one."""
        return [Generator(int(s)) for s in self._rng.integers(0, 2**63 - 1, int(count))]


_global_generator = [None]


def get_global_generator():
    if _global_generator[0] is None:
        _global_generator[0] = Generator.from_non_deterministic_state()
    return _global_generator[0]


def set_global_generator(generator):
    _global_generator[0] = generator
