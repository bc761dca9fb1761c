"""TensorFlow's truncating division (tf.truncatediv, tf.truncatemod), counts
(tf.math.bincount) and fixed-width histograms (tf.histogram_fixed_width and
histogram_fixed_width_bins), composed of texflow's ops.

truncatediv and truncatemod are floordiv and floormod turned toward zero where the
operands' signs differ (exact: floormod is). bincount's length depends on the largest
value, read on the host (values_for_shape) unless minlength >= maxlength fixes it.
histogram_fixed_width bins as TensorFlow's kernel does, (max(x, lo) - lo) / step in
double precision: the bin edges are found on the host in double precision and the values
placed among them by searchsorted on the device, so no backend's division decides a bin.
"""

import numpy as np

from .. import dtypes
from ..engine import ndarray
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import export
from ..errors import InternalError, InvalidArgumentError
from . import elementwise as ew
from .index_checks import every_call, host_values, values_for_shape
from .movement import reshape, unsorted_segment_sum


def _tensor(x):
    return x if isinstance(x, NDArray) else from_numpy(to_numpy(x))


def _type(dtype):
    name = dtypes.as_dtype(dtype).name
    return {"float32": "float", "float64": "double"}.get(name, name)


# -- truncating division -------------------------------------------------------------------

_DIV_TYPES = ("bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, "
              "uint64, int64, complex64, complex128")
_MOD_TYPES = "int32, int64, bfloat16, half, float, double"


def _operands(x, y, op, allowed):
    if not isinstance(x, NDArray) and isinstance(y, NDArray):
        x = ew.cast(_tensor(x), y.dtype) if y.dtype != dtypes.bool_ else _tensor(x)
    x = _tensor(x)
    y = ew.cast(_tensor(y), x.dtype) if not isinstance(y, NDArray) and \
        x.dtype != dtypes.bool_ else _tensor(y)
    if x.dtype == dtypes.bool_:
        raise InvalidArgumentError(f"Value for attr 'T' of bool is not in the list of allowed "
                                   f"values: {allowed}")
    if y.dtype != x.dtype:
        raise InvalidArgumentError(f"cannot compute {op} as input #1(zero-based) was expected "
                                   f"to be a {_type(x.dtype)} tensor but is a {_type(y.dtype)} "
                                   "tensor")
    if x.dtype == dtypes.int32 and _has_zero(y):
        raise InternalError("Unexpected error in binary operator (only integer div and mod "
                            "should have errors)")
    return x, y


def _has_zero(y):
    """Whether int divisor `y` holds a 0 (TensorFlow raises; a GPU cannot): its host copy,
    or one reduction read back; a divisor only a trace knows is not checked."""
    values = host_values(y)
    if values is not None:
        return not values.all()
    if ndarray._read_guard[0] is not None:
        return False
    from .reduce import reduce_any
    return bool(reduce_any(ew.equal(y, 0)).numpy())


def _toward_zero(x, y):
    """floormod(x, y) and where it must move toward zero (a remainder whose sign is not x's)."""
    r = ew.floormod(x, y)
    differ = ew.logical_and(ew.not_equal(r, ew.cast(0, r.dtype)),
                            ew.not_equal(ew.less(x, ew.cast(0, x.dtype)),
                                         ew.less(y, ew.cast(0, y.dtype))))
    return r, differ


@export("tf")
def truncatediv(x, y, name=None):
    """x / y rounded toward zero (tf.truncatediv; C's integer division); int division by
    zero raises InternalError, as TensorFlow's. No gradient, as in TensorFlow.

    >>> tf.truncatediv(tf.constant([7, -7]), 2).numpy().tolist()
    [3, -3]
    """
    x, y = _operands(x, y, "TruncateDiv", _DIV_TYPES)
    if x.dtype == dtypes.float32:
        q = ew.div(x, y)
        q = ew.where(ew.less(q, 0.0), ew.ceil(q), ew.floor(q))
    else:
        r, differ = _toward_zero(x, y)
        q = ew.floordiv(ew.sub(x, r), y)  # exact: x - r is a multiple of y
        q = ew.where(differ, ew.add(q, 1), q)
    return ew.stop_gradient(q)


@export("tf")
def truncatemod(x, y, name=None):
    """The remainder of truncatediv, with x's sign (tf.truncatemod; C's fmod for floats,
    exact; NaN for a zero divisor). No gradient (LookupError), as in TensorFlow.

    >>> tf.truncatemod(tf.constant([7, -7]), 3).numpy().tolist()
    [1, -1]
    """
    x, y = _operands(x, y, "TruncateMod", _MOD_TYPES)

    def forward(a, b):
        if a.dtype != dtypes.float32:
            r, differ = _toward_zero(a, b)
            return ew.where(differ, ew.sub(r, b), r)
        # C's fmod: |x| fmod |y| (floormod of positive numbers, exact) with x's sign; a
        # zero remainder keeps x's sign too (x * 0.0)
        r = ew.floormod(ew.abs(a), ew.abs(b))
        r = ew.where(ew.less(a, 0.0), ew.neg(r), r)
        return ew.where(ew.equal(r, 0.0), ew.mul(a, 0.0), r)
    if x.dtype != dtypes.float32:
        return forward(x, y)
    from ..autodiff.custom_gradient import custom_gradient

    @custom_gradient
    def mod(a, b):
        def grad(dy):
            raise LookupError("gradient registry has no entry for: TruncateMod")
        return forward(a, b), grad
    return mod(x, y)


# -- bincount ------------------------------------------------------------------------------

_BINCOUNT_TYPES = "int32, int64, float, double"


@export("math")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32,
             name=None, axis=None, binary_output=False):
    """How often each value 0, 1, ... occurs in non-negative int `arr`
    (tf.math.bincount), or the sum of `weights` at those places: max(arr) + 1 long, at
    least `minlength`, at most `maxlength` (larger values are not counted). `axis` -1
    counts each row of a 2-D `arr`; `binary_output` gives 1 where a value occurs.

    >>> tf.math.bincount([1, 1, 3, 0]).numpy().tolist()
    [1, 2, 0, 1]
    """
    if axis not in (None, 0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    if binary_output and weights is not None:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    x = _tensor(arr)
    if x.dtype != dtypes.int32:
        x = ew.cast(x, dtypes.int32)
    rows = axis == -1 and len(x.shape) == 2
    if axis == -1 and len(x.shape) > 2:
        raise InvalidArgumentError(f"Shape must be at most rank 2 but is rank {len(x.shape)}")
    if weights is not None:
        w = _tensor(weights)
        if w.dtype == dtypes.bool_:
            raise InvalidArgumentError("Value for attr 'T' of bool is not in the list of "
                                       f"allowed values: {_BINCOUNT_TYPES}")
        if tuple(w.shape) != tuple(x.shape) and w.size:
            dims = ",".join(str(d) for d in w.shape)
            raise InvalidArgumentError("`weights` must be the same shape as `arr` or a "
                                       "length-0 `Tensor`, in which case it acts as all "
                                       f"weights equal to 1. Received [{dims}]")
        out_dtype = w.dtype if w.size else dtypes.device_dtype(dtypes.as_dtype(dtype))
    else:
        w = None
        out_dtype = dtypes.device_dtype(dtypes.as_dtype(dtype))
        if out_dtype == dtypes.bool_:
            raise InvalidArgumentError("Value for attr 'T' of bool is not in the list of "
                                       f"allowed values: {_BINCOUNT_TYPES}")
    message = "Input 'in' must be non-negative! Negative input value found: {}" if rows \
        else "Input arr must be non-negative!"
    size = _bincount_size(x, minlength, maxlength, message)
    flat = reshape(x, (-1,))
    inside = ew.logical_and(ew.greater_equal(flat, 0), ew.less(flat, size))
    if rows:
        offsets = from_numpy(np.repeat(np.arange(x.shape[0], dtype=np.int32) * size,
                                       x.shape[1]))
        flat = ew.add(flat, offsets)
    ids = ew.where(inside, flat, -1)
    values = reshape(w, (-1,)) if w is not None and w.size else \
        from_numpy(np.ones(flat.shape, dtypes.NUMPY[out_dtype]))
    counts = unsorted_segment_sum(values, ids, (x.shape[0] if rows else 1) * size)
    if binary_output:
        counts = ew.cast(ew.greater(counts, 0), out_dtype)
    return reshape(counts, (x.shape[0], size) if rows else (size,))


def _bincount_size(x, minlength, maxlength, message):
    """The output length; arr's negative values raise (checked on host values)."""
    low = None if minlength is None else max(int(minlength), 0)
    high = None if maxlength is None else max(int(maxlength), 0)
    if low is not None and high is not None and low >= high:  # fixed: nothing to read
        every_call(_check_negative, x, message, key=("bincount", message))
        return high
    if not x.size:
        largest = -1
    else:
        from .reduce import max as reduce_max, min as reduce_min
        from .movement import stack
        lo_hi = values_for_shape(stack([reduce_min(x), reduce_max(x)]), "tf.math.bincount")
        if int(lo_hi[0]) < 0:
            raise InvalidArgumentError(message.format(int(lo_hi[0])))
        largest = int(lo_hi[1])
    size = max(largest + 1, low or 0)
    return size if high is None else min(size, high)


def _check_negative(x, message):
    values = host_values(x)
    if values is not None and values.size and values.min() < 0:
        raise InvalidArgumentError(message.format(int(values.min())))


# -- fixed-width histograms ----------------------------------------------------------------

def _histogram_args(values, value_range, nbins):
    x = _tensor(values)
    if x.dtype == dtypes.bool_:
        raise TypeError(f"Cannot convert {value_range!r} to EagerTensor of dtype bool")
    if isinstance(nbins, float):
        raise TypeError(f"Cannot convert {nbins!r} to EagerTensor of dtype int32")
    span = value_range if isinstance(value_range, NDArray) else \
        from_numpy(np.asarray(to_numpy(value_range)).astype(dtypes.NUMPY[x.dtype]))
    span = np.asarray(values_for_shape(span, "tf.histogram_fixed_width's value_range"))
    bins = np.asarray(values_for_shape(nbins, "histogram nbins") if isinstance(nbins, NDArray)
                      else nbins)
    return x, span.astype(dtypes.NUMPY[x.dtype]), bins


def _edges(lo, hi, n, floating):
    """The smallest value d of bin k = 1 .. n-1, where d / step >= k in double precision
    (TensorFlow's kernel: (max(x, lo) - lo) as double / ((hi - lo) as double / n))."""
    dtype = np.float32 if floating else np.int64
    step = float(np.asarray(hi - lo, dtype)) / n
    k = np.arange(1, n, dtype=np.float64)
    d = (k * step).astype(dtype) if floating else np.ceil(k * step).astype(np.int64)

    def move(v, up):
        return np.nextafter(v, np.float32(np.inf if up else -np.inf)) if floating else \
            v + (1 if up else -1)
    for _ in range(4):  # rounding leaves d within a step or two of the edge
        low = d.astype(np.float64) / step < k
        d = np.where(low, move(d, True), d)
        lower = move(d, False)
        d = np.where(lower.astype(np.float64) / step >= k, lower, d)
    return d.astype(np.float32 if floating else np.int32)


@export("tf")
def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts of `values` in `nbins` equal bins spanning `value_range` = [lo, hi]; values
    below lo count in the first bin, above hi in the last (tf.histogram_fixed_width).
    NaN values raise InvalidArgumentError, as TensorFlow's.

    >>> tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15], [0.0, 5.0], 5).numpy().tolist()
    [2, 1, 1, 0, 2]
    """
    out = dtypes.as_dtype(dtype)
    if out.name not in ("int32", "int64"):
        raise InvalidArgumentError(f"Value for attr 'dtype' of {_type(out)} is not in the list "
                                   "of allowed values: int32, int64")
    x, span, bins = _histogram_args(values, value_range, nbins)
    if span.shape != (2,):
        raise InvalidArgumentError("value_range should be a vector of 2 elements.")
    if bins.shape:
        raise InvalidArgumentError("nbins should be a scalar.")
    n = int(bins)
    if n <= 0:
        raise InvalidArgumentError(f"nbins should be a positive number, but got '{n}'")
    if not span[0] < span[1]:
        raise InvalidArgumentError("value_range should satisfy value_range[0] < "
                                   f"value_range[1], but got '[{span[0]:g}, {span[1]:g}]'")
    floating = x.dtype == dtypes.float32
    if floating:
        every_call(_check_nan, x, key="histogram NaN")
    from .search import searchsorted
    lo = ew.cast(span[0].item(), x.dtype)
    flat = reshape(ew.sub(ew.maximum(reshape(x, (1, -1)), lo), lo), (1, -1))
    edges = from_numpy(_edges(span[0], span[1], n, floating).reshape(1, -1))
    at = reshape(searchsorted(edges, flat, side="right"), (-1,))
    return unsorted_segment_sum(from_numpy(np.ones(at.shape, np.int32)), at, n)


def _check_nan(x):
    values = host_values(x)
    if values is None and ndarray._read_guard[0] is None:
        from .reduce import reduce_any
        bad = bool(reduce_any(ew.is_nan(x)).numpy())
    else:
        bad = values is not None and bool(np.isnan(values).any())
    if bad:
        raise InvalidArgumentError("Histogram values must not contain NaN")


@export("tf")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin (0 .. nbins-1) of each of `values` among `nbins` equal bins spanning
    `value_range` (tf.histogram_fixed_width_bins: floor(nbins * (x - lo) / (hi - lo)) in
    the values' float32, clipped; int32 whatever `dtype` says, as TensorFlow's).

    >>> tf.histogram_fixed_width_bins([-1.0, 0.5, 1.5, 9.0], [0.0, 2.0], 4).numpy().tolist()
    [0, 1, 3, 3]
    """
    x, span, bins = _histogram_args(values, value_range, nbins)
    n = int(bins)
    if n <= 0:
        raise InvalidArgumentError("Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be "
                                   f"true. Summarized data: b'nbins tf.Tensor({n}, shape=(), "
                                   "dtype=int32) must > 0'")
    if x.dtype != dtypes.float32:  # TensorFlow: int32 nbins times float64 (truediv of ints)
        raise InvalidArgumentError("cannot compute Mul as input #1(zero-based) was expected "
                                   "to be a int32 tensor but is a double tensor")
    lo, hi = (ew.cast(float(v), x.dtype) for v in span)
    scaled = ew.div(ew.sub(x, lo), ew.sub(hi, lo))
    index = ew.floor(ew.mul(float(n), scaled))
    index = ew.minimum(ew.maximum(index, 0.0), float(n - 1))
    lowest = int(np.iinfo(np.int32).min)  # TensorFlow's CPU cast of NaN
    return ew.where(ew.is_nan(scaled), lowest, ew.cast(index, dtypes.int32))
