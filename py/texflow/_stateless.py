"""tf.random's stateless draws: stateless_uniform, stateless_normal,
stateless_truncated_normal, stateless_categorical and stateless_binomial. Each depends on
its `seed` = [a, b] alone (the same numbers at every call, inside tf.function too) and
checks its arguments as TensorFlow does. The numbers are texflow's own (numpy's
generator seeded with the pair, see tf.random), not TensorFlow's Philox streams."""

import numpy as np

from . import dtypes
from .engine.ndarray import NDArray, from_numpy, normalize_shape, to_numpy
from .errors import InvalidArgumentError

_UNIFORM = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint32",
            "uint64")
_ALGS = ("philox", "threefry", "auto_select")


def _type(dtype):
    name = dtypes.as_dtype(dtype).name
    return {"float32": "float", "float64": "double"}.get(name, name)


def stateless_rng(seed, fn):
    """A numpy generator of `seed` alone (a [2] int tensor or list, known when a function
    is traced), checked as TensorFlow checks it."""
    from .framework import get_static_value
    known = get_static_value(seed) if isinstance(seed, NDArray) else seed
    if known is None:
        raise ValueError(f"tf.{fn}: the seed must be known when the function is traced (a "
                         "texflow trace has static shapes)")
    floats = not isinstance(seed, NDArray)  # Python floats become float32, as TensorFlow's
    known = np.asarray(known)
    if known.dtype.kind not in "iu":
        kind = "float" if floats and known.dtype.kind == "f" else _type(known.dtype)
        raise InvalidArgumentError(f"Value for attr 'Tseed' of {kind} is not "
                                   "in the list of allowed values: int32, int64")
    if known.shape != (2,):
        dims = ",".join(str(n) for n in known.shape)
        raise InvalidArgumentError(f"seed must have shape [2], not [{dims}]")
    return np.random.default_rng([int(v) % 2 ** 64 for v in known])


def _shape(shape):
    dims = shape.numpy().reshape(-1).tolist() if isinstance(shape, NDArray) else \
        np.asarray(to_numpy(shape) if not isinstance(shape, (list, tuple)) else shape,
                   np.int64).reshape(-1).tolist()
    for d in dims:
        if int(d) < 0:
            raise InvalidArgumentError(f"Dimension {int(d)} must be >= 0")
    return normalize_shape([int(d) for d in dims])


def _alg(alg):
    if alg not in _ALGS and not isinstance(alg, int):
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                         "philox for the Philox algorithm, threefry for the ThreeFry "
                         "algorithm, and auto_select for auto-selection.")


def _scalar(v):
    return np.asarray(v.numpy() if isinstance(v, NDArray) else v)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None,
                      alg="auto_select"):
    """Uniform numbers in [minval, maxval) from `seed` = [a, b] alone
    (tf.random.stateless_uniform): floats in [0, 1) by default; integer dtypes need both
    bounds or neither (then the whole int range).

    >>> tf.random.stateless_uniform([2], seed=[1, 2]).shape
    TensorShape([2])
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype.name not in _UNIFORM:
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{dtype.name}'>. "
                         "Accepted dtypes are (tf.float16, tf.bfloat16, tf.float32, "
                         "tf.float64, tf.int32, tf.int64, tf.uint32, tf.uint64).")
    _alg(alg)
    shape = _shape(shape)
    rng = stateless_rng(seed, "random.stateless_uniform")
    device = dtypes.device_dtype(dtype)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument <dtype: '{dtype.name}'>, argument "
                             "`minval` and `maxval` must be both None or not None. Got "
                             f"`minval`={minval} and `maxval`={maxval}.")
        if minval is None:
            info = np.iinfo(np.int32)
            low, high = int(info.min), int(info.max) + 1
        else:
            low, high = int(_scalar(minval)), int(_scalar(maxval))
            if low >= high:
                raise InvalidArgumentError(f"Need minval < maxval, got {low} >= {high}")
        return from_numpy(rng.integers(low, high, shape, dtype=np.int64).astype(np.int32))
    low, high = _scalar(minval), _scalar(1.0 if maxval is None else maxval)
    draws = rng.random(shape) * (high - low) + low
    return from_numpy(draws.astype(dtypes.NUMPY[device]))


def _float(dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
    return dtypes.NUMPY[dtypes.device_dtype(dtype)]


def _normal(shape, seed, mean, stddev, dtype, alg, fn, truncated):
    numpy_dtype = _float(dtype)
    _alg(alg)
    shape = _shape(shape)
    rng = stateless_rng(seed, fn)
    draws = rng.standard_normal(shape)
    bad = np.abs(draws) > 2.0 if truncated else np.zeros(shape, bool)
    while bad.any():  # redrawn beyond two standard deviations, as TensorFlow's
        draws[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(draws) > 2.0
    return from_numpy((draws * _scalar(stddev) + _scalar(mean)).astype(numpy_dtype))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                     alg="auto_select"):
    """Normal numbers from `seed` = [a, b] alone (tf.random.stateless_normal).

    >>> tf.random.stateless_normal([2, 3], seed=[1, 2]).shape
    TensorShape([2, 3])
    """
    return _normal(shape, seed, mean, stddev, dtype, alg, "random.stateless_normal", False)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None, alg="auto_select"):
    """Normal numbers within two standard deviations from `seed` = [a, b] alone
    (tf.random.stateless_truncated_normal).

    >>> bool(tf.reduce_all(abs(tf.random.stateless_truncated_normal([50], [1, 2])) <= 2))
    True
    """
    return _normal(shape, seed, mean, stddev, dtype, alg,
                   "random.stateless_truncated_normal", True)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """`num_samples` class indices per row of `logits` [batch, classes] from `seed` =
    [a, b] alone (tf.random.stateless_categorical; int64 is stored as int32).

    >>> tf.random.stateless_categorical([[0.0, 0.0]], 3, seed=[1, 2]).shape
    TensorShape([1, 3])
    """
    out = dtypes.as_dtype(dtype)
    if out.name not in ("int32", "int64"):
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{out.name}'>. Accepted "
                         "dtypes are (tf.int32, tf.int64).")
    data = np.asarray(logits.numpy() if isinstance(logits, NDArray) else logits, np.float64)
    if data.ndim != 2:
        dims = ",".join(str(d) for d in data.shape)
        raise InvalidArgumentError(f"logits should be a matrix, got shape [{dims}]")
    n = int(_scalar(num_samples))
    if n < 0:
        raise InvalidArgumentError(f"num_samples should be non-negative, got {n}")
    if not data.shape[1]:
        raise InvalidArgumentError(f"num_classes should be positive, got {data.shape[1]}")
    rng = stateless_rng(seed, "random.stateless_categorical")
    z = np.exp(data - data.max(axis=1, keepdims=True))
    p = z / z.sum(axis=1, keepdims=True)
    picks = [rng.choice(data.shape[1], n, p=row) for row in p]
    return from_numpy(np.asarray(picks, np.int32).reshape(data.shape[0], n))


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial counts (successes of `counts` trials with success probability `probs`,
    both broadcast to the end of `shape`) from `seed` = [a, b] alone
    (tf.random.stateless_binomial).

    >>> tf.random.stateless_binomial([2], seed=[1, 2], counts=10.0, probs=0.5).dtype
    tf.int32
    """
    shape = _shape(shape)
    n, p = _scalar(counts).astype(np.float64), _scalar(probs).astype(np.float64)
    try:
        both = np.broadcast_shapes(n.shape, p.shape)
        fits = tuple(shape[len(shape) - len(both):]) == both if len(both) <= len(shape) \
            else False
    except ValueError:
        fits = False
    if not fits:
        raise InvalidArgumentError("Shape passed in must end with broadcasted shape.")
    rng = stateless_rng(seed, "random.stateless_binomial")
    draws = rng.binomial(np.broadcast_to(np.maximum(n, 0).astype(np.int64), shape),
                         np.broadcast_to(np.clip(np.nan_to_num(p), 0.0, 1.0), shape))
    out = dtypes.device_dtype(dtypes.as_dtype(output_dtype))
    return from_numpy(np.asarray(draws).astype(dtypes.NUMPY[out]))

