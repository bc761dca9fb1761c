"""Creating NDArrays: from values, filled, random.

These make host-resident arrays; a GPU backend uploads them the first time an
op needs them, as in deeplearn.js. Random values come from numpy's seeded
generator, so a seed gives the same values on every backend.
"""

import numpy as np

from .. import dtypes
from ..dtypes import float32
from ..engine.ndarray import NDArray, from_numpy, normalize_shape, to_numpy
from ..engine.registry import export
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from .index_checks import values_for_shape


@export("tf", "tf.tensor")
def array(values, dtype=None):
    """An NDArray holding `values` (a number, nested lists, numpy data or an NDArray).

    With `dtype` None it is inferred as TensorFlow does: Python floats give
    float32, ints int32, bools bool; numpy float64 becomes float32 and int64 int32.

    >>> tf.array([[1, 2], [3, 4]]).dtype
    tf.int32
    """
    return from_numpy(to_numpy(values, dtype))


tensor = array


@export("tf")
def constant(value, dtype=None, shape=None, name=None):
    """TensorFlow's tf.constant: `array(value, dtype)`, with an optional `shape` that
    a scalar value fills or a value of the same size is reshaped to.

    >>> tf.constant(7, shape=[2]).tolist()
    [7, 7]
    """
    _check_python_values(value, dtype)
    data = to_numpy(value, dtype)
    if shape is not None:
        shape = normalize_shape(shape)
        if data.size == 1:
            data = np.full(shape, data.reshape(()), data.dtype)
        elif data.size == int(np.prod(shape)):
            data = data.reshape(shape)
        else:
            raise ShapeError(f"constant: {data.size} values do not fit shape {list(shape)}")
    return from_numpy(data)


@export("tf")
def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """`value` itself if it is an NDArray of `dtype` (or any dtype when None), else a new one.
    `dtype_hint` is a preferred dtype for values that are not tensors (ints become float32
    for a float32 hint), as in TensorFlow."""
    if isinstance(value, NDArray) and (dtype is None
                                       or dtypes.device_dtype(dtype) == value.dtype):
        return value
    if isinstance(value, (list, tuple)):
        from .packing import packed
        stacked = packed(value, dtype)
        if stacked is not None:
            return stacked
    if dtype is None and dtype_hint is not None and not isinstance(value, NDArray):
        data = to_numpy(value)
        hint = dtypes.device_dtype(dtype_hint)
        if hint == dtypes.float32 and data.dtype == np.int32:
            dtype = hint
    _check_python_values(value, dtype)
    return array(value, dtype)


def _check_python_values(value, dtype):
    """TypeError, as TensorFlow's, where Python numbers would change kind to fit `dtype`:
    floats (even 2.0) to an integer or bool dtype, ints to bool. numpy data converts."""
    if dtype is None:
        return
    kinds = set()
    if not _python_kinds(value, kinds):
        return  # tensors, numpy data or other objects inside: converted as before
    target = dtypes.as_dtype(dtype)
    if ("f" in kinds and (target.is_integer or target.is_bool)) or \
            ("i" in kinds and target.is_bool):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {target.name}")


def _python_kinds(value, kinds):
    """Adds the kinds ("b", "i", "f") of the Python numbers in nested lists/tuples `value`
    to `kinds`; False where it holds anything else."""
    if isinstance(value, bool):
        kinds.add("b")
    elif isinstance(value, int):
        kinds.add("i")
    elif isinstance(value, float):
        kinds.add("f")
    elif isinstance(value, (list, tuple)):
        return all(_python_kinds(v, kinds) for v in value)
    else:
        return False
    return True


def _filled(shape, value, dtype):
    shape = normalize_shape(shape)
    dtype = dtypes.device_dtype(dtype) if dtype is not None else dtypes.scalar_dtype(value)
    return from_numpy(np.full(shape, value, dtypes.NUMPY[dtype]))


@export("tf")
def zeros(shape, dtype=float32, name=None):
    """An NDArray of zeros. `tf.zeros([2, 3])`."""
    return _filled(shape, 0, dtype)


@export("tf")
def ones(shape, dtype=float32, name=None):
    """An NDArray of ones. `tf.ones([2, 3], 'int32')`."""
    return _filled(shape, 1, dtype)


@export("tf")
def fill(dims, value, name=None, *, dtype=None):
    """An NDArray of shape `dims` filled with `value` (dtype inferred from the value).

    >>> tf.fill([2], 7).tolist()
    [7, 7]
    """
    return _filled(dims, value, dtype)


@export("tf")
def zeros_like(input, dtype=None, name=None):  # noqa: A002  (TensorFlow's argument name)
    """Zeros of `input`'s shape and dtype (or `dtype`); `input` may be any array-like."""
    x = as_array(input)
    return _filled(x.shape, 0, dtype or x.dtype)


@export("tf")
def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones of `input`'s shape and dtype (or `dtype`); `input` may be any array-like."""
    x = as_array(input)
    return _filled(x.shape, 1, dtype or x.dtype)


def _random(shape, dtype, draw):
    shape = normalize_shape(shape)
    dtype = dtypes.device_dtype(dtype)
    data = draw(shape)
    if dtype != float32:
        data = np.floor(data) if dtype == dtypes.int32 else data
    return from_numpy(data.astype(dtypes.NUMPY[dtype]))


@export("tf")
def random_normal(shape, mean=0.0, stddev=1.0, seed=None, dtype=float32):
    """Samples of a normal distribution; the same `seed` gives the same values.

    >>> tf.random_normal([2, 2], seed=1).shape
    TensorShape([2, 2])
    """
    if stddev < 0:
        raise ValueError(f"random_normal: stddev must be >= 0, received {stddev}")
    rng = np.random.default_rng(seed)
    return _random(shape, dtype, lambda s: rng.normal(mean, stddev, s))


@export("tf")
def random_uniform(shape, minval=0.0, maxval=1.0, seed=None, dtype=float32):
    """Samples of a uniform distribution on [minval, maxval).

    For int32 the values are integers in [minval, maxval), as in TensorFlow.

    >>> tf.random_uniform([3], 0, 10, seed=1, dtype='int32').dtype
    tf.int32
    """
    if maxval < minval:
        raise ValueError(f"random_uniform: maxval {maxval} is below minval {minval}")
    rng = np.random.default_rng(seed)
    if dtypes.device_dtype(dtype) == dtypes.int32:
        if maxval <= minval:
            raise ValueError(f"random_uniform: int32 needs maxval > minval, "
                             f"received {minval} and {maxval}")
        return from_numpy(rng.integers(int(minval), int(maxval), normalize_shape(shape),
                                       dtype=np.int32))
    return _random(shape, dtype, lambda s: rng.uniform(minval, maxval, s))


# TensorFlow's order for inferring range's dtype: the highest of the three arguments'.
_RANGE_ORDER = ("int32", "int64", "float16", "bfloat16", "float32", "float64")


def _range_arg(value, dtype, what):
    """A range argument as a 0-d numpy value of TensorFlow's dtype for it: a tensor keeps
    its dtype (cast to `dtype` later), numpy data keeps numpy's (np.int64 is int64), a
    Python number converts as tf.convert_to_tensor(value, dtype) does."""
    if isinstance(value, NDArray):
        if hasattr(value, "assign"):
            value = value.value()
        data = np.asarray(values_for_shape(value, "range"))
        if data.size != 1 or data.ndim > 1:
            # TensorFlow's kernel also takes a one-element vector
            raise InvalidArgumentError(f"range: {what} must be a scalar, not shape "
                                       f"[{','.join(map(str, data.shape))}]")
        return data.reshape(())
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value).reshape(())
    if dtype is None:
        return to_numpy(value).reshape(())
    np_dtype = np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype)
    if isinstance(value, float) and np_dtype.kind != "f" or \
            np_dtype.kind == "b" or not isinstance(value, (int, float)):
        raise DTypeError(f"Cannot convert {value!r} to EagerTensor of dtype "
                        f"{dtypes.as_dtype(dtype).name}")
    return np.asarray(value, np_dtype)


def _range_text(v):
    # the numbers as TensorFlow's messages print them: 5, 1.5, nan
    return str(int(v)) if v.dtype.kind in "iu" or float(v).is_integer() else str(v)


@export("tf.range")
def range_(start, limit=None, delta=1, dtype=None, name=None):
    """`tf.range`: numbers from `start` up to (not including) `limit` by `delta`.

    The arguments may be Python numbers, numpy scalars or 0-d tensors (read on the
    host: the result's length depends on them). Without `dtype` the result has the
    highest of their dtypes (int32 < int64 < float32 < float64, stored narrowed);
    the values are start + i * delta computed in that dtype, as TensorFlow's kernel.

    >>> tf.range(tf.constant(1), 7, 2).tolist()
    [1, 3, 5]
    >>> tf.range(tf.constant(2.0)).dtype
    tf.float32
    """
    if limit is None:
        start, limit = 0, start
    args = [_range_arg(v, dtype, what) for v, what in
            ((start, "start"), (limit, "limit"), (delta, "delta"))]
    if dtype is None:
        names = [a.dtype.name for a in args]
        bad = [n for n in names if n not in _RANGE_ORDER]
        if bad:
            raise DTypeError(f"range: start, limit and delta must be int32, int64 or float "
                             f"values, received {', '.join(bad)}")
        dtype = max(names, key=_RANGE_ORDER.index)
    np_dtype = np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype)
    if np_dtype.kind not in "iuf":
        raise InvalidArgumentError(f"range: dtype must be an integer or float type, "
                                   f"received {dtypes.as_dtype(dtype).name}")
    start, limit, delta = (a.astype(np_dtype) for a in args)
    where = f"{_range_text(start)}/{_range_text(limit)}"
    if delta == 0:
        raise InvalidArgumentError(f"Requires delta != 0: {_range_text(delta)}")
    if delta > 0 and not start <= limit:
        raise InvalidArgumentError(f"Requires start <= limit when delta > 0: {where}")
    if delta < 0 and not start >= limit:
        raise InvalidArgumentError(f"Requires start >= limit when delta < 0: {where}")
    with np.errstate(over="ignore"):
        if np_dtype.kind == "f":  # in the dtype itself: float32 sizes round as TF's do
            size = np.ceil(np.abs((limit - start) / delta))
        else:
            size = (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
        too_large = not np.isfinite(size) or size > np.iinfo(np.int64).max
    if too_large:
        raise InvalidArgumentError("Requires ((limit - start) / delta) <= "
                                   f"{np.iinfo(np.int64).max}")
    values = start + np.arange(int(size)).astype(np_dtype) * delta
    return from_numpy(values.astype(np_dtype))


def as_array(x):
    """`x` itself if it is an NDArray, else `array(x)`."""
    return x if isinstance(x, NDArray) else array(x)


def _narrowed(dtype):
    """The texflow dtype holding TensorFlow's `dtype` (int64 and float64 narrow, as the
    README's TensorFlow 2 table says)."""
    text = str(getattr(dtype, "name", dtype))
    return dtypes.as_dtype({"int64": "int32", "float64": "float32"}.get(text, dtype))


@export("tf", "math", "linalg")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None):
    """An identity matrix [num_rows, num_columns] (ones on the diagonal), repeated over
    `batch_shape` (TensorFlow's eye).

    >>> tf.eye(2, 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    batch = () if batch_shape is None else tuple(int(d) for d in batch_shape)
    for d in (rows, cols) + batch:
        if d < 0:
            raise InvalidArgumentError(f"eye: dimension {d} must be >= 0 (num_rows={rows}, "
                                       f"num_columns={cols}, batch_shape={list(batch)})")
    matrix = np.eye(rows, cols, dtype=dtypes.NUMPY[_narrowed(dtype)])
    return from_numpy(np.broadcast_to(matrix, batch + (rows, cols)))


@export("tf")
def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from `start` to `stop`, both included (TensorFlow's
    linspace: start + k * (stop - start) / (num - 1) in float32, with the ends exact).
    `start` and `stop` may be tensors of one shape; the values run along `axis`.

    >>> tf.linspace(0.0, 1.0, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    from . import elementwise as ew
    from .movement import concat, expand_dims, slice as slice_
    num = int(num)
    if num < 0:
        raise InvalidArgumentError(f"linspace: num must be >= 0, received {num}")
    start = start if isinstance(start, NDArray) else array(start, "float32")
    stop = stop if isinstance(stop, NDArray) else array(stop, "float32")
    if start.shape != stop.shape:
        raise InvalidArgumentError(f"linspace: start shape {list(start.shape)} and stop "
                                   f"shape {list(stop.shape)} differ")
    rank = len(start.shape) + 1
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"linspace: axis {axis} is out of range for a result of "
                                   f"rank {rank}")
    axis %= rank
    first, last = expand_dims(ew.cast(start, float32), axis), expand_dims(
        ew.cast(stop, float32), axis)
    parts = [first, last]
    if num > 2:  # the points between the ends
        delta = ew.div(ew.sub(last, first), float(num - 1))
        steps = [1] * rank
        steps[axis] = num - 2
        ks = array(np.arange(1, num - 1, dtype=np.float32).reshape(steps))
        parts.insert(1, ew.add(first, ew.mul(delta, ks)))
    size = list(first.shape)
    size[axis] = num
    return slice_(concat(parts, axis), [0] * rank, size)
