"""numpy kernels of the elementwise ops. They compute in the output dtype the
op registry decided; the backend casts results to it.

The declaration of each op (ops/elementwise.py) names its kernel here (or a numpy
function); `where` and `cast` register theirs below."""

import numpy as np

from ..base import kernel, numpy_elementwise

_f32 = np.float32


def _num(x):
    """bool data as int32, so arithmetic counts True as 1."""
    if isinstance(x, np.ndarray) and x.dtype == np.bool_:
        return x.astype(np.int32)
    return int(x) if isinstance(x, bool) else x


def _float(x):
    return x.astype(_f32, copy=False) if isinstance(x, np.ndarray) else _f32(x)


def _quiet(fn):
    def wrapped(*args, **kw):
        with np.errstate(all="ignore"):
            return fn(*args, **kw)
    wrapped.__name__ = fn.__name__
    return wrapped


def square(x):
    return np.multiply(x, x)


def relu(x):
    return np.maximum(x, x.dtype.type(0))


@_quiet
def exp(x):
    return np.exp(_float(x))


@_quiet
def log(x):
    return np.log(_float(x))


@_quiet
def sqrt(x):
    return np.sqrt(_float(x))


@_quiet
def rsqrt(x):
    return _f32(1) / np.sqrt(_float(x))


def tanh(x):
    return np.tanh(_float(x))


@_quiet
def sigmoid(x):
    x = _float(x)
    # exp of a negative number only: no overflow for large |x|.
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + z), z / (1 + z))


@_quiet
def elu(x):
    x = _float(x)
    return np.where(x > 0, x, np.expm1(x))


@_quiet
def sin(x):
    return np.sin(_float(x))


@_quiet
def cos(x):
    return np.cos(_float(x))


@_quiet
def log1p(x):
    return np.log1p(x)


@_quiet
def expm1(x):
    return np.expm1(x)


@_quiet
def softplus(x):
    return np.where(x > 0, x, 0) + np.log1p(np.exp(-np.abs(x)))


@_quiet
def softsign(x):
    return x / (np.abs(x) + 1)


# Trigonometric and hyperbolic functions computed in float64 and rounded once (quietly:
# sinh's and cosh's overflow): within half an ulp of float32 on every CPU, where numpy's
# own float32 loops differ by SIMD target.
def _in_f64(fn):
    @_quiet
    def wrapped(*args):
        return fn(*(np.asarray(x, np.float64) for x in args)).astype(_f32)
    wrapped.__name__ = fn.__name__
    return wrapped


tan, sinh, cosh = _in_f64(np.tan), _in_f64(np.sinh), _in_f64(np.cosh)
asin, acos, atan = _in_f64(np.arcsin), _in_f64(np.arccos), _in_f64(np.arctan)
asinh, atanh = _in_f64(np.arcsinh), _in_f64(np.arctanh)


@_in_f64
def acosh(x):
    # Pyodide's numpy (musl's libm) gives arccosh(-102007.5) = -1.39, not NaN
    return np.where(x < 1, np.nan, np.arccosh(x))



@_in_f64
def log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


@_quiet
def reciprocal_no_nan(x):
    x = _float(x)
    return np.where(x == 0, _f32(0), _f32(1) / np.where(x == 0, _f32(1), x))


atan2 = _in_f64(np.arctan2)


# xlogy and xdivy give x itself where x is 0 (TensorFlow's keep -0); multiply_no_nan 0
@_in_f64
def xlogy(x, y):
    return np.where(x == 0, x, x * np.log(y))


@_quiet
def xdivy(x, y):
    x, y = _float(np.asarray(x)), _float(np.asarray(y))
    return np.where(x == 0, x, x / y)


@_quiet
def multiply_no_nan(x, y):
    x, y = _float(np.asarray(x)), _float(np.asarray(y))
    return np.where(y == 0, _f32(0), x * y)


def relu6(x):
    return np.where(np.isnan(x), x, np.clip(x, 0, 6)) if x.dtype.kind == "f" else \
        np.clip(x, 0, 6)


def erf(x):
    return erf_f64(x.astype(np.float64))


def erfc(x):
    return erfc_f64(x.astype(np.float64))


def erfc_f64(x):
    """erfc in float64: 1 - erf(x) below 1.5, else erfc's continued fraction (relative
    accuracy in the tail, where 1 - erf(x) would cancel)."""
    big = np.where(x < 1.5, 2.0, np.minimum(x, 30.0))
    t = np.zeros_like(x)
    for k in range(80, 0, -1):
        t = 0.5 * k / (big + t)
    with np.errstate(under="ignore"):
        tail = np.exp(-big * big) / np.sqrt(np.pi) / (big + t)
    return np.where(x < 1.5, 1.0 - erf_f64(x), tail)


def erf_f64(x):
    """erf in float64 (numpy has none): its Taylor series for |x| < 1.5, 1 - erfc by
    erfc's continued fraction above; within 1e-15 of math.erf."""
    a = np.abs(x)
    small = a < 1.5
    z = np.where(small, x * x, 0.0)
    term, series = np.where(small, x, 0.0), np.zeros_like(x)
    for k in range(40):
        series = series + term / (2 * k + 1)
        term = term * -z / (k + 1)
    big = np.where(small, 2.0, np.minimum(a, 30.0))
    t = np.zeros_like(x)
    for k in range(80, 0, -1):
        t = 0.5 * k / (big + t)
    with np.errstate(under="ignore"):
        tail = np.sign(x) * (1.0 - np.exp(-big * big) / np.sqrt(np.pi) / (big + t))
    out = np.where(small, series * (2.0 / np.sqrt(np.pi)), tail)
    return np.where(np.isnan(x) | (x == 0), x, out)  # erf(-0) = -0, as TensorFlow's


@_quiet
def add(a, b):
    return np.add(_num(a), _num(b))


@_quiet
def sub(a, b):
    return np.subtract(_num(a), _num(b))


@_quiet
def mul(a, b):
    # float32 times a bool mask (a ReLU's gradient): numpy keeps float32, no int copy.
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and (
            (a.dtype == _f32 and b.dtype == np.bool_) or (b.dtype == _f32 and a.dtype == np.bool_)):
        return np.multiply(a, b)
    return np.multiply(_num(a), _num(b))


@_quiet
def div(a, b):
    return np.divide(_float(a), _float(b))


@_quiet
def pow(a, b):  # noqa: A001
    a, b = _num(a), _num(b)
    if np.result_type(a, b).kind == "f":
        return np.power(_float(a), _float(b))
    return int_pow(a, b)


def int_pow(a, b):
    """Integer a ** b; a negative exponent truncates 1 / a ** |b| (so 0 unless |a| is 1)."""
    a = np.asarray(a, np.int32)
    b = np.asarray(b, np.int32)
    out = np.power(a, np.maximum(b, 0))
    odd = (b % 2) != 0
    recip = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    return np.where(b < 0, recip, out).astype(np.int32)


@_quiet
def floordiv(a, b):
    a, b = _num(a), _num(b)
    if np.result_type(a, b).kind == "f":
        return np.floor(np.divide(_float(a), _float(b)))  # TensorFlow's, not numpy's
    return np.floor_divide(a, b)


@_quiet
def floormod(a, b):
    a, b = _num(a), _num(b)
    if np.result_type(a, b).kind != "f":
        return np.mod(a, b)
    a, b = _float(a), _float(b)
    r = np.fmod(a, b)
    return np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r)


def maximum(a, b):
    return np.maximum(a, b)


def minimum(a, b):
    return np.minimum(a, b)


def where(cond, a, b):
    return np.where(cond, a, b)


@_quiet
def cast(x, dtype):
    if dtype == "bool":
        return x != 0
    if dtype == "int32" and x.dtype.kind == "f":
        return np.trunc(x).astype(np.int32)
    return x


kernel("where", "numpy")(numpy_elementwise(where))
kernel("cast", "numpy")(numpy_elementwise(cast))
