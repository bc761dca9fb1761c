"""TensorFlow's segment reductions: tf.math.segment_sum / max / min / prod / mean (sorted
ids, as many segments as the last id + 1) and unsorted_segment_max / min / prod / mean /
sqrt_n (any order, `num_segments` given, negative ids dropped), composed of texflow's
ops so they run and differentiate on every backend.

Sums use the unsorted_segment_sum kernel. Max, min and prod sort the rows by segment (a
gather; the order is made on the host from host-known ids, by argsort on the device for
ids a tf.function trace cannot read) and run a segmented scan in log2(longest segment)
steps (log2(rows) for device ids); each segment's result is its last row. The extremes
follow TensorFlow's CPU fold `acc = acc if acc > x else x`: a NaN is the result only
where it is the segment's last value, otherwise the extreme of the values after the
last NaN. Gradients are TensorFlow's (the extremes share the gradient among the rows
equal to the result; prod's handles zeros).
"""

import numpy as np

from .. import dtypes
from ..engine import ndarray, trace
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import export
from ..errors import InvalidArgumentError
from . import elementwise as ew
from .index_checks import check_segment_ids, values_for_shape
from .movement import gather, reshape, unsorted_segment_sum

_EXTREME_TYPES = ("float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                  "uint32, uint64")
_SUM_TYPES = ("float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
              "qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64")
_FLOAT_TYPES = "bfloat16, half, float, double, complex64, complex128"


def _type(dtype):
    """A dtype as TensorFlow's kernel errors name it (float32 is 'float')."""
    name = dtypes.as_dtype(dtype).name
    return {"float32": "float", "float64": "double"}.get(name, name)


def _data(data, allowed):
    x = data if isinstance(data, NDArray) else from_numpy(to_numpy(data))
    if x.dtype == dtypes.bool_ or (allowed is _FLOAT_TYPES and x.dtype != dtypes.float32):
        raise InvalidArgumentError(f"Value for attr 'T' of {_type(x.dtype)} is "
                                   f"not in the list of allowed values: {allowed}")
    return x


def _int_arg(x, attr):
    t = x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
    if t.dtype != dtypes.int32:
        raise InvalidArgumentError(f"Value for attr '{attr}' of {_type(t.dtype)} is not in "
                                   "the list of allowed values: int32, int64")
    return t


def _lowest(dtype, high):
    """TensorFlow's start of an unsorted max (the lowest number) or min (the highest)."""
    limits = np.finfo(np.float32) if dtype == dtypes.float32 else np.iinfo(np.int32)
    value = limits.min if high else limits.max
    return float(value) if dtype == dtypes.float32 else int(value)


# -- the segmented scan --------------------------------------------------------------------

def _plan(ids, host, count):
    """How to sort the rows by segment: (perm or None for sorted rows, each sorted row's
    segment (numpy when the ids are host-known, else a tensor), rows per segment (likewise),
    the longest segment). Negative ids sort last, into segment `count`, and are dropped."""
    if host is not None:
        key = np.where(host < 0, count, host).astype(np.intp)  # bincount: intp in wasm32
        perm = np.argsort(key, kind="stable")
        counts = np.bincount(key, minlength=count + 1)[:count]
        ordered = None if (perm == np.arange(perm.size)).all() else \
            from_numpy(perm.astype(np.int32))
        return ordered, key[perm], counts, int(counts.max(initial=1))
    from .sort import argsort
    key = ew.where(ew.less(ids, 0), count, ids)
    perm = argsort(key)
    ones = from_numpy(np.ones(ids.shape, np.int32))
    counts = gather(unsorted_segment_sum(ones, key, count + 1),
                    from_numpy(np.arange(count, dtype=np.int32)))
    return perm, gather(key, perm), counts, int(ids.shape[0])


def _scan(state, key, longest, combine):
    """Inclusive segmented scan of the tuple of [n, ...] tensors `state` over rows sorted
    by segment `key`: after it, row i holds combine over its segment's rows up to i."""
    n = int(state[0].shape[0])
    inner = (1,) * (len(state[0].shape) - 1)
    step = 1
    while step < longest:
        prev = np.maximum(np.arange(n) - step, 0)
        if isinstance(key, np.ndarray):
            same = from_numpy(((np.arange(n) >= step) & (key[prev] == key)).reshape((n,) + inner))
        else:
            same = ew.logical_and(from_numpy(np.arange(n) >= step),
                                  ew.equal(gather(key, from_numpy(prev.astype(np.int32))), key))
            same = reshape(same, (n,) + inner)
        earlier = tuple(gather(s, from_numpy(prev.astype(np.int32))) for s in state)
        state = tuple(ew.where(same, c, s) for c, s in zip(combine(earlier, state), state))
        step *= 2
    return state


def _extreme(high):
    pick = ew.maximum if high else ew.minimum

    def combine(a, b):
        # TensorFlow's fold over a then b: b's NaN wins, a NaN at a's end gives way to b
        va, fa = a
        vb, fb = b
        return (ew.where(ew.logical_or(fb, ew.is_nan(va)), vb, pick(va, vb)),
                ew.logical_or(fa, fb))
    return combine


def _reduce(x, ids, host, count, kind, fill, unsorted):
    """Rows of `x` [n, ...] reduced per segment ([count, ...]); empty segments `fill`."""
    shape = (count,) + tuple(x.shape[1:])
    if not count or not x.shape[0]:
        return from_numpy(np.full(shape, fill, dtypes.NUMPY[x.dtype]))
    perm, key, counts, longest = _plan(ids, host, count)
    rows = x if perm is None else gather(x, perm)
    floating = x.dtype == dtypes.float32
    if kind == "prod":
        state = _scan((rows,), key, longest, lambda a, b: (ew.mul(a[0], b[0]),))
    elif floating:
        state = _scan((rows, ew.is_nan(rows)), key, longest, _extreme(kind == "max"))
    else:
        pick = ew.maximum if kind == "max" else ew.minimum
        state = _scan((rows,), key, longest, lambda a, b: (pick(a[0], b[0]),))
    if isinstance(counts, np.ndarray):
        ends = from_numpy(np.maximum(np.cumsum(counts) - 1, 0).astype(np.int32))
        filled = from_numpy((counts > 0).reshape((count,) + (1,) * (len(shape) - 1)))
    else:
        from .scan import cumsum
        ends = ew.maximum(ew.sub(cumsum(counts), 1), 0)
        filled = reshape(ew.greater(counts, 0), (count,) + (1,) * (len(shape) - 1))
    out = gather(state[0], ends)
    if unsorted and kind != "prod":  # TensorFlow's fold starts at the lowest number
        lowest = ew.cast(fill, x.dtype)
        clipped = (ew.maximum if kind == "max" else ew.minimum)(out, lowest)
        out = clipped if not floating else ew.where(gather(state[1], ends), out, clipped)
    return ew.where(filled, out, ew.cast(fill, x.dtype))


def _extreme_grad(dy, x, out, ids):
    """TensorFlow's _(Unsorted)SegmentMinOrMaxGrad: the rows equal to their segment's
    result share its gradient (rows with a negative id get none)."""
    keep = ew.greater_equal(ids, 0)
    clipped = ew.maximum(ids, 0)
    inner = (1,) * (len(x.shape) - 1)
    picked = ew.logical_and(ew.equal(x, gather(out, clipped)), reshape(keep, ids.shape + inner))
    share = unsorted_segment_sum(ew.cast(picked, dy.dtype), ids, int(out.shape[0]))
    return ew.where(picked, gather(ew.div(dy, share), clipped), ew.cast(0, dy.dtype))


def _prod_grad(dy, x, out, ids, host, count):
    """TensorFlow's _UnsortedSegmentProdGrad: prod / x, and where x is 0 the product of
    the segment's other rows (0 when the segment has two zeros)."""
    inner = (1,) * (len(x.shape) - 1)
    keep = reshape(ew.greater_equal(ids, 0), ids.shape + inner)
    clipped = ew.maximum(ids, 0)
    zero = ew.equal(x, 0.0)
    zeros = unsorted_segment_sum(ew.cast(zero, dtypes.int32), ids, count)
    dy = ew.where(ew.greater(zeros, 1), ew.cast(0, dy.dtype), dy)
    others = _reduce(ew.where(zero, ew.cast(1, x.dtype), x), ids, host, count, "prod", 1, True)
    partial = ew.where(zero, gather(others, clipped), ew.div(gather(out, clipped), x))
    return ew.mul(ew.where(keep, gather(dy, clipped), ew.cast(0, dy.dtype)), partial)


def _reduced(x, ids, host, count, kind, fill, unsorted):
    """_reduce with TensorFlow's gradient for float data."""
    if x.dtype != dtypes.float32:
        return _reduce(x, ids, host, count, kind, fill, unsorted)
    from ..autodiff.custom_gradient import custom_gradient

    @custom_gradient
    def reduced(d):
        out = _reduce(d, ids, host, count, kind, fill, unsorted)
        if kind == "prod":
            return out, lambda dy: _prod_grad(dy, d, out, ids, host, count)
        return out, lambda dy: _extreme_grad(dy, d, out, ids)
    return reduced(x)


# -- sorted segment ids --------------------------------------------------------------------

def _sorted(data, segment_ids, op, allowed):
    """data, int32 ids (host values too) and the segment count, checked as TensorFlow's
    SegmentReductionOp checks them."""
    x = _data(data, allowed)
    ids = _int_arg(segment_ids, "Tindices")
    if not x.shape:
        raise InvalidArgumentError("input must be at least rank 1")
    if len(ids.shape) != 1:
        raise InvalidArgumentError("segment_ids should be a vector.")
    if ids.shape[0] != x.shape[0]:
        raise InvalidArgumentError("segment_ids should be the same size as dimension 0 of "
                                   "input.")
    host = np.asarray(values_for_shape(ids, f"tf.math.{op}")).astype(np.int64).reshape(-1)
    if not host.size:
        return x, ids, host, 0
    count = int(host[-1]) + 1
    if count <= 0:
        raise InvalidArgumentError("segment ids must be >= 0")
    runs = host[np.r_[True, host[1:] != host[:-1]]]
    falling = np.r_[runs[:-1] > runs[1:], False]
    outside = (runs < 0) | (runs >= count)
    bad = np.flatnonzero(falling | outside)
    if bad.size:
        k = int(bad[0])
        if falling[k]:
            raise InvalidArgumentError("segment ids are not increasing")
        raise InvalidArgumentError(f"Segment id {int(runs[k])} out of range [0, {count}), "
                                   "possibly because 'segment_ids' input is not sorted.")
    return x, ids, host, count


@export("math")
def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of `data` with equal sorted `segment_ids` (tf.math.segment_sum):
    the result has max(segment_ids) + 1 rows (empty segments 0). Unsorted ids raise.

    >>> tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), [0, 0, 2]).numpy().tolist()
    [3.0, 0.0, 3.0]
    """
    x, ids, _, count = _sorted(data, segment_ids, "segment_sum", _SUM_TYPES)
    return unsorted_segment_sum(x, ids, count)


@export("math")
def segment_max(data, segment_ids, name=None):
    """The largest row of `data` per sorted segment id (tf.math.segment_max); empty
    segments are 0, as TensorFlow's.

    >>> tf.math.segment_max(tf.constant([1.0, 4.0, 3.0]), [0, 0, 2]).numpy().tolist()
    [4.0, 0.0, 3.0]
    """
    x, ids, host, count = _sorted(data, segment_ids, "segment_max", _EXTREME_TYPES)
    return _reduced(x, ids, host, count, "max", 0, False)


@export("math")
def segment_min(data, segment_ids, name=None):
    """The smallest row of `data` per sorted segment id (tf.math.segment_min); empty
    segments are 0.

    >>> tf.math.segment_min(tf.constant([1.0, 4.0, 3.0]), [0, 0, 2]).numpy().tolist()
    [1.0, 0.0, 3.0]
    """
    x, ids, host, count = _sorted(data, segment_ids, "segment_min", _EXTREME_TYPES)
    return _reduced(x, ids, host, count, "min", 0, False)


@export("math")
def segment_prod(data, segment_ids, name=None):
    """The product of the rows of `data` per sorted segment id (tf.math.segment_prod);
    empty segments are 1.

    >>> tf.math.segment_prod(tf.constant([2, 4, 3]), [0, 0, 2]).numpy().tolist()
    [8, 1, 3]
    """
    x, ids, host, count = _sorted(data, segment_ids, "segment_prod", _SUM_TYPES)
    return _reduced(x, ids, host, count, "prod", 1, False)


@export("math")
def segment_mean(data, segment_ids, name=None):
    """The mean of the rows of `data` per sorted segment id (tf.math.segment_mean); empty
    segments are 0; integer data give the quotient truncated toward 0, as TensorFlow's.

    >>> tf.math.segment_mean(tf.constant([1.0, 4.0, 3.0]), [0, 0, 2]).numpy().tolist()
    [2.5, 0.0, 3.0]
    """
    x, ids, host, count = _sorted(data, segment_ids, "segment_mean", _SUM_TYPES)
    return _mean(x, ids, count, False)


def _counts(x, ids, count):
    """Rows per segment (at least 1), shaped to divide a [count, ...] result."""
    ones = from_numpy(np.ones(ids.shape, dtypes.NUMPY[x.dtype]))
    n = ew.maximum(unsorted_segment_sum(ones, ids, count), ew.cast(1, x.dtype))
    return reshape(n, (count,) + (1,) * (len(x.shape) - 1))


def _mean(x, ids, count, unsorted):
    total = unsorted_segment_sum(x, ids, count)
    n = _counts(x, ids, count)
    if x.dtype == dtypes.float32 or unsorted:  # unsorted: TensorFlow's truediv (floats)
        return ew.div(total, n)
    quotient = ew.floordiv(ew.abs(total), n)  # C++ integer division truncates toward 0
    return ew.mul(quotient, ew.sign(total))


# -- unsorted segment ids ------------------------------------------------------------------

def _unsorted(data, segment_ids, num_segments, allowed):
    """data and ids flattened to [rows, ...] and [rows], the ids' host values (None for ids
    a tf.function trace cannot read) and the segment count, as TensorFlow checks them."""
    x = _data(data, allowed)
    ids = _int_arg(segment_ids, "Tindices")
    segments = _int_arg(num_segments, "Tnumsegments")
    if segments.shape:
        dims = ",".join(str(d) for d in segments.shape)
        raise InvalidArgumentError(f"num_segments should be a scalar, not shape [{dims}]")
    if tuple(x.shape[:len(ids.shape)]) != tuple(ids.shape):
        raise InvalidArgumentError(f"data.shape = [{','.join(str(d) for d in x.shape)}] does "
                                   "not start with segment_ids.shape = "
                                   f"[{','.join(str(d) for d in ids.shape)}]")
    count = int(values_for_shape(segments, "unsorted segment reductions' num_segments"))
    if count < 0:
        raise InvalidArgumentError(f"Input num_segments == {count} must not be negative.")
    check_segment_ids(ids, count)
    rows = int(np.prod(ids.shape, dtype=np.int64))
    x, ids = reshape(x, (rows,) + tuple(x.shape[len(ids.shape):])), reshape(ids, (rows,))
    traced = ndarray._read_guard[0] is not None and trace.known_value(ids) is None
    host = None if traced else np.asarray(values_for_shape(ids, "segment ids")).astype(np.int64)
    return x, ids, host, count


@export("math")
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The largest row of `data` per segment id in [0, num_segments)
    (tf.math.unsorted_segment_max); rows with a negative id are dropped, empty segments
    hold the lowest number of the dtype, as TensorFlow's.

    >>> tf.math.unsorted_segment_max(tf.constant([1, 4, 3]), [1, 1, 0], 2).numpy().tolist()
    [3, 4]
    """
    x, ids, host, count = _unsorted(data, segment_ids, num_segments, _EXTREME_TYPES)
    return _reduced(x, ids, host, count, "max", _lowest(x.dtype, True), True)


@export("math")
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """The smallest row of `data` per segment id (tf.math.unsorted_segment_min); empty
    segments hold the highest number of the dtype.

    >>> tf.math.unsorted_segment_min(tf.constant([1, 4, 3]), [1, 1, 0], 2).numpy().tolist()
    [3, 1]
    """
    x, ids, host, count = _unsorted(data, segment_ids, num_segments, _EXTREME_TYPES)
    return _reduced(x, ids, host, count, "min", _lowest(x.dtype, False), True)


@export("math")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of the rows of `data` per segment id (tf.math.unsorted_segment_prod);
    empty segments are 1.

    >>> tf.math.unsorted_segment_prod(tf.constant([2, 4, 3]), [1, 1, 0], 3).numpy().tolist()
    [3, 8, 1]
    """
    x, ids, host, count = _unsorted(data, segment_ids, num_segments, _SUM_TYPES)
    return _reduced(x, ids, host, count, "prod", 1, True)


@export("math")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the rows of `data` per segment id (tf.math.unsorted_segment_mean);
    empty segments are 0; integer data give floats (TensorFlow's float64, float32 here).

    >>> tf.math.unsorted_segment_mean(tf.constant([1.0, 4.0, 3.0]), [1, 1, 0], 2).numpy()
    array([3. , 2.5], dtype=float32)
    """
    x, ids, _, count = _unsorted(data, segment_ids, num_segments, _SUM_TYPES)
    return _mean(x, ids, count, True)


@export("math")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of the rows of `data` per segment id divided by the square root of the
    segment's size (tf.math.unsorted_segment_sqrt_n; floats only); empty segments are 0.

    >>> tf.math.unsorted_segment_sqrt_n(tf.constant([3.0, 4.0]), [0, 0], 1).numpy()
    array([4.9497476], dtype=float32)
    """
    x, ids, _, count = _unsorted(data, segment_ids, num_segments, _FLOAT_TYPES)
    return ew.div(unsorted_segment_sum(x, ids, count), ew.sqrt(_counts(x, ids, count)))
