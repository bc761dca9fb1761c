"""numpy references for every op, named as the ops are, plus the comparison rule.

The references are written independently of texflow's numpy backend: float
results are computed in float64 and rounded to float32, integer results wrap
like int32, and dtype rules are restated here (bool < int32 < float32; bools
count as 0/1 in arithmetic; div and transcendental ops give float32;
comparisons give bool). Empty reductions follow TensorFlow.
"""

import math

import numpy as np

F32, F64, I32, I64, B = np.float32, np.float64, np.int32, np.int64, np.bool_
_RANK = {np.dtype(B): 0, np.dtype(I32): 1, np.dtype(F32): 2}


def _dtype(x):
    if isinstance(x, (bool, np.bool_)):
        return np.dtype(B)
    if isinstance(x, (int, np.integer)):
        return np.dtype(I32)
    if isinstance(x, (float, np.floating)):
        return np.dtype(F32)
    return np.asarray(x).dtype


def _is_scalar(x):
    return isinstance(x, (bool, int, float))


def result_dtype(a, b):
    """dtype of arithmetic on a and b (Python scalars do not widen int32 arrays)."""
    da, db = _dtype(a), _dtype(b)
    if _is_scalar(a) and not _is_scalar(b):
        da = _weak(da, db)
    elif _is_scalar(b) and not _is_scalar(a):
        db = _weak(db, da)
    return da if _RANK[da] >= _RANK[db] else db


def _weak(scalar, other):
    if scalar == F32 or other == F32:
        return np.dtype(F32)
    return other if other != B else scalar


def _f64(x):
    return np.asarray(x, dtype=F64)


def _i64(x):
    return np.asarray(x).astype(I64)


def _float_op(fn):
    def ref(x):
        with np.errstate(all="ignore"):
            return np.asarray(fn(_f64(x))).astype(F32)
    return ref


def _same(fn):
    def ref(x):
        x = np.asarray(x)
        with np.errstate(all="ignore"):
            if x.dtype == F32:
                return np.asarray(fn(_f64(x))).astype(F32)
            return np.asarray(fn(_i64(x))).astype(x.dtype)
    return ref


neg = _same(np.negative)
abs = _same(np.abs)  # noqa: A001
square = _same(lambda x: x * x)
sign = _same(np.sign)
relu = _same(lambda x: np.where(np.isnan(x), x, np.maximum(x, 0)))
floor = _same(np.floor)
ceil = _same(np.ceil)
exp = _float_op(np.exp)
log = _float_op(np.log)
sqrt = _float_op(np.sqrt)
rsqrt = _float_op(lambda x: 1.0 / np.sqrt(x))
tanh = _float_op(np.tanh)
sigmoid = _float_op(lambda x: 1.0 / (1.0 + np.exp(-x)))
elu = _float_op(lambda x: np.where(x > 0, x, np.expm1(x)))
sin = _float_op(np.sin)
cos = _float_op(np.cos)


log1p = _float_op(np.log1p)
expm1 = _float_op(np.expm1)
softplus = _float_op(lambda x: np.logaddexp(0.0, x))
softsign = _float_op(lambda x: x / (np.abs(x) + 1))
erf = _float_op(np.vectorize(math.erf, otypes=[F64]))
erfc = _float_op(np.vectorize(math.erfc, otypes=[F64]))
relu6 = _same(lambda x: np.where(np.isnan(x), x, np.minimum(np.maximum(x, 0), 6)))

tan = _float_op(np.tan)
sinh = _float_op(np.sinh)
cosh = _float_op(np.cosh)
asin = _float_op(np.arcsin)
acos = _float_op(np.arccos)
atan = _float_op(np.arctan)
asinh = _float_op(np.arcsinh)
acosh = _float_op(lambda x: np.where(x < 1, np.nan, np.arccosh(x)))  # musl: arccosh(-1e5) = -1.4
atanh = _float_op(np.arctanh)
log_sigmoid = _float_op(lambda x: -np.logaddexp(0.0, -x))
reciprocal_no_nan = _float_op(lambda x: np.where(x == 0, 0.0, 1.0 / np.where(x == 0, 1.0, x)))
rint = _float_op(np.rint)


def invert(x):
    return ~np.asarray(x, I32)


def is_nan(x):
    return np.isnan(np.asarray(x, F64))


def is_finite(x):
    return np.isfinite(np.asarray(x, F64))


def logical_not(x):
    return np.asarray(x) == 0


def _arith(fn, bool_ok=False):
    def ref(a, b):
        dtype = result_dtype(a, b)
        if dtype == B and not bool_ok:
            dtype = np.dtype(I32)
        with np.errstate(all="ignore"):
            if dtype == F32:
                out = fn(_f64(a), _f64(b))
            else:
                out = fn(_i64(a), _i64(b))
        return np.asarray(out).astype(dtype)
    return ref


add = _arith(np.add)
sub = _arith(np.subtract)
mul = _arith(np.multiply)
maximum = _arith(np.maximum, bool_ok=True)
minimum = _arith(np.minimum, bool_ok=True)


def div(a, b):
    with np.errstate(all="ignore"):
        return np.asarray(_f64(a) / _f64(b)).astype(F32)


def _float_pair(fn):
    def ref(a, b):
        with np.errstate(all="ignore"):
            return np.asarray(fn(_f64(a), _f64(b))).astype(F32)
    return ref


atan2 = _float_pair(np.arctan2)
xlogy = _float_pair(lambda x, y: np.where(x == 0, x, x * np.log(y)))  # 0 where x is 0
xdivy = _float_pair(lambda x, y: np.where(x == 0, x, x / y))
multiply_no_nan = _float_pair(lambda x, y: np.where(y == 0, 0.0, x * y))  # 0 where y is 0


def pow(a, b):  # noqa: A001
    dtype = result_dtype(a, b)
    if dtype == F32:
        with np.errstate(all="ignore"):
            return np.asarray(np.power(_f64(a), _f64(b))).astype(F32)
    a, b = np.broadcast_arrays(_i64(a), _i64(b))
    out = np.ones(a.shape, I64)
    base, e = a.copy(), np.maximum(b, 0)
    for _ in range(32):  # square-and-multiply with int32 wraparound
        out = np.where(e & 1, (out * base).astype(I32).astype(I64), out)
        base = (base * base).astype(I32).astype(I64)
        e >>= 1
    recip = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 != 0, -1, 1), 0))
    return np.where(b < 0, recip, out).astype(I32)


def _floordiv(a, b):
    """TensorFlow's: floats floor the float32 quotient; ints floor the exact one."""
    if np.result_type(a, b) == F64:
        return np.floor(np.asarray(a / b).astype(F32))
    return np.floor_divide(a, b)


def _floormod(a, b):
    """TensorFlow's: C's fmod (exact), moved to the divisor's sign."""
    r = np.fmod(a, b)
    return np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r)


floordiv = _arith(_floordiv)
floormod = _arith(_floormod)


def _bitwise(fn):
    def ref(a, b):
        return fn(np.asarray(a, I32), np.asarray(b, I32))
    return ref


bitwise_and = _bitwise(np.bitwise_and)
bitwise_or = _bitwise(np.bitwise_or)
bitwise_xor = _bitwise(np.bitwise_xor)


def _compare(fn):
    def ref(a, b):
        return np.asarray(fn(_f64(a), _f64(b)))
    return ref


equal = _compare(np.equal)
not_equal = _compare(np.not_equal)
less = _compare(np.less)
less_equal = _compare(np.less_equal)
greater = _compare(np.greater)
greater_equal = _compare(np.greater_equal)


def where(cond, a, b):
    dtype = result_dtype(a, b)
    return np.where(np.asarray(cond) != 0, np.asarray(a), np.asarray(b)).astype(dtype)


def cast(x, dtype):
    x = np.asarray(x)
    if dtype == "bool":
        return x != 0
    if dtype == "int32":
        return np.trunc(_f64(x)).astype(I32) if x.dtype == F32 else x.astype(I32)
    return x.astype(F32)


def _reduced(shape, axes, keepdims):
    return tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdims else \
        tuple(d for i, d in enumerate(shape) if i not in axes)


def _axes(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    axis = [axis] if isinstance(axis, int) else axis
    return tuple(sorted(a % x.ndim for a in axis))


def sum(x, axis=None, keepdims=False):  # noqa: A001
    x = np.asarray(x)
    axes = _axes(x, axis)
    if x.dtype == F32:
        with np.errstate(invalid="ignore"):
            return np.sum(_f64(x), axis=axes, keepdims=keepdims).astype(F32)
    return np.sum(_i64(x), axis=axes, keepdims=keepdims).astype(I32)


def mean(x, axis=None, keepdims=False):
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        total = np.sum(_f64(x), axis=_axes(x, axis), keepdims=keepdims)
        count = int(np.prod([x.shape[a] for a in _axes(x, axis)]))
        return np.asarray(total / count if count else total * np.nan).astype(F32)


def prod(x, axis=None, keepdims=False):
    x = np.asarray(x)
    axes = _axes(x, axis)
    if x.dtype == F32:
        with np.errstate(all="ignore"):
            return np.prod(_f64(x), axis=axes, keepdims=keepdims).astype(F32)
    return np.prod(x.astype(I32), axis=axes, keepdims=keepdims, dtype=I32)  # wraps


def _scan(fn, identity):
    def ref(x, axis=0, exclusive=False, reverse=False):
        x = np.asarray(x)
        y = np.flip(x, axis) if reverse else x
        with np.errstate(all="ignore"):
            if x.dtype == F32:
                out = fn(_f64(y), axis=axis).astype(F32)
            else:
                out = fn(y.astype(I32), axis=axis, dtype=I32)  # wraps
        if exclusive:
            out = np.moveaxis(out, axis, 0)
            first = np.full((1 if len(out) else 0,) + out.shape[1:], identity, out.dtype)
            out = np.concatenate([first, out[:-1]])
            out = np.moveaxis(out, 0, axis)
        return np.flip(out, axis) if reverse else out
    return ref


cumsum = _scan(np.cumsum, 0)
cumprod = _scan(np.cumprod, 1)


def argsort(x, axis=-1, direction="ASCENDING"):
    """Stable: ties keep index order both ways; NaN sorts as the largest value."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    if direction == "ASCENDING":
        out = np.argsort(x, axis=-1, kind="stable")
    else:  # stable descending: rank by (-value, index) with NaN first
        n = x.shape[-1]
        keys = np.where(np.isnan(x), -np.inf, -x.astype(F64)) if x.dtype == F32 else \
            -x.astype(I64)
        nan_first = np.isnan(x) if x.dtype == F32 else np.zeros(x.shape, bool)
        index = np.broadcast_to(np.arange(n), x.shape)
        out = np.lexsort((index, keys, ~nan_first), axis=-1)
    return np.moveaxis(out.astype(I32), -1, axis)


def sort(x, axis=-1, direction="ASCENDING"):
    x = np.asarray(x)
    return np.take_along_axis(x, argsort(x, axis, direction), axis)


def top_k(x, k):
    order = argsort(x, -1, "DESCENDING")[..., :k]
    return np.take_along_axis(np.asarray(x), order, -1), order


def matrix_norm2(x):
    """The largest singular value of each matrix (the last two axes)."""
    x = _f64(x)
    if 0 in x.shape[-2:]:
        return np.zeros(x.shape[:-2], F32)
    return np.linalg.norm(x, ord=2, axis=(-2, -1)).astype(F32)


def reverse(x, axes):
    return np.flip(np.asarray(x), tuple(axes)) if len(axes) else np.asarray(x)


def _extreme(fn, which):
    def ref(x, axis=None, keepdims=False):
        x = np.asarray(x)
        axes = _axes(x, axis)
        if x.size == 0:
            if x.dtype == F32:
                fill = -np.inf if which == "max" else np.inf
            elif x.dtype == B:
                fill = which == "min"
            else:
                fill = np.iinfo(I32).min if which == "max" else np.iinfo(I32).max
            return np.full(_reduced(x.shape, axes, keepdims), fill, x.dtype)
        return fn(x, axis=axes, keepdims=keepdims)
    return ref


max = _extreme(np.max, "max")  # noqa: A001
min = _extreme(np.min, "min")  # noqa: A001


def argmax(x, axis=None, keepdims=False):
    x = np.asarray(x)
    if axis is None:
        out = np.argmax(x.reshape(-1))
        return np.asarray(out, I32).reshape((1,) * x.ndim if keepdims else ())
    return np.argmax(x, axis=axis, keepdims=keepdims).astype(I32)


def argmin(x, axis=None, keepdims=False):
    x = np.asarray(x)
    if axis is None:
        out = np.argmin(x.reshape(-1))
        return np.asarray(out, I32).reshape((1,) * x.ndim if keepdims else ())
    return np.argmin(x, axis=axis, keepdims=keepdims).astype(I32)


def logsumexp(x, axis=None, keepdims=False):
    x = _f64(x)
    axes = _axes(x, axis)
    with np.errstate(all="ignore"):
        raw = np.max(x, axis=axes, keepdims=True) if x.size else \
            np.full(_reduced(x.shape, axes, True), -np.inf)
        shift = np.where(np.isfinite(raw), raw, 0.0)
        out = np.log(np.sum(np.exp(x - shift), axis=axes, keepdims=True)) + shift
    return out.reshape(_reduced(x.shape, axes, keepdims)).astype(F32)


def matmul(a, b, transpose_a=False, transpose_b=False):
    a, b = np.asarray(a), np.asarray(b)
    dtype = result_dtype(a, b)
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    if dtype == F32:
        with np.errstate(invalid="ignore"):
            return np.matmul(_f64(a), _f64(b)).astype(F32)
    return np.matmul(_i64(a), _i64(b)).astype(I32)


def transpose(x, perm=None):
    return np.transpose(np.asarray(x), perm)


def reshape(x, shape):
    return np.reshape(np.asarray(x), shape)


# -- comparison -------------------------------------------------------------------

def assert_close(got, expected, rtol, atol, what):
    """Asserts `got` equals `expected`: same dtype and shape, NaN and inf positions
    exact, finite float values within atol + rtol * |expected| (atol may be an array)."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype}, expected {expected.dtype}"
    assert got.shape == expected.shape, f"{what}: shape {got.shape}, expected {expected.shape}"
    if expected.dtype != F32:
        bad = np.flatnonzero(got != expected)
        assert bad.size == 0, _report(what, got, expected, bad)
        return
    g, e = got.astype(F64), expected.astype(F64)
    with np.errstate(invalid="ignore"):
        _compare_floats(what, got, expected, g, e, rtol, atol)


def _compare_floats(what, got, expected, g, e, rtol, atol):
    nan_bad = np.isnan(g) != np.isnan(e)
    inf_e = np.isinf(e)
    inf_bad = (inf_e | np.isinf(g)) & (g != e) & ~np.isnan(e)
    finite = np.isfinite(e) & np.isfinite(g)
    atol = np.broadcast_to(np.asarray(atol, F64), e.shape)
    close_bad = finite & (np.abs(g - e) > atol + rtol * np.abs(e))
    bad = np.flatnonzero(nan_bad | inf_bad | close_bad)
    assert bad.size == 0, _report(what, got, expected, bad)


def _report(what, got, expected, bad):
    idx = [np.unravel_index(i, expected.shape) if expected.shape else () for i in bad[:5]]
    rows = ", ".join(f"{tuple(int(k) for k in i)}: got {got[i]!r} expected {expected[i]!r}"
                     for i in idx)
    return f"{what}: {bad.size} of {expected.size} elements differ; first {rows}"
