"""Elementwise ops: unary math, binary arithmetic with broadcasting, comparisons,
`where` and `cast`.

dtype rules (numpy-like, with TensorFlow's int32/float32 defaults):
- arithmetic on two arrays gives the wider dtype (bool < int32 < float32);
  a Python int keeps an int32 array int32, a Python float makes it float32;
  bools in arithmetic count as 0/1 int32 (maximum/minimum of bools stay bool);
- `div` is true division and always gives float32;
- transcendental ops (exp, log, tanh, ...) give float32 for any input;
- comparisons give bool; `cast` converts float to int by truncation toward zero.
"""

import numpy as np

from .. import dtypes
from ..backends.numpy import elementwise as npk
from ..dtypes import bool_, float32
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op, run_view
from ..errors import InvalidArgumentError, NotFoundError
from .declare import (FLOAT, NUMERIC, arith_rule, binary, dtype_of, dtype_rule,  # noqa: F401
                      expect_dtype, ints_only, reduce_to_inputs, result_dtype, shape_of, unary)
from .shape_util import broadcast_shapes

# Each op below is one declaration (ops/declare.py): its class, dtype rule, gradient,
# numpy kernel and public names ("tf": tf.*, "math": tf.math, "nn": tf.nn, "dl": the
# deeplearn.js math objects and Graph). Its GLSL and WGSL bodies are `op_<name>` in
# shaders/glsl/*_ops.glsl and shaders/wgsl/*_ops.wgsl. docs/ADDING_AN_OP.md has the recipe.
_TF, _MATH, _NN, _DL = "tf", "math", "nn", "dl"
_ALL = (_TF, _MATH, _DL)


# -- unary -----------------------------------------------------------------------

def _no_gradient(dy, x, y):
    """Piecewise-constant ops: TensorFlow gives None, not zeros."""
    return None


neg = unary("neg", "same", "-x", lambda dy, x, y: neg(dy), numpy=np.negative,
            exports=_ALL + ("tf.negative", "math.negative"))
abs = unary("abs", "same", "|x|", lambda dy, x, y: mul(dy, sign(x)),  # noqa: A001  (tf.abs)
            numpy=np.abs, exports=_ALL)
square = unary("square", "same", "x * x", lambda dy, x, y: mul(dy, mul(x, 2.0)),
               numpy=npk.square, exports=_ALL)
sign = unary("sign", "same", "-1, 0 or 1 by the sign of x (NaN stays NaN)", _no_gradient,
             numpy=np.sign, exports=_ALL)
# relu's and relu6's gradients read the output, as TensorFlow's ReluGrad/Relu6Grad do (the
# same mask): the pre-activation then dies at once, so tf.function fuses a bias add and
# the activation into the matmul or conv2d before them
relu = unary("relu", "same", "max(x, 0)", lambda dy, x, y: mul(dy, greater(y, 0)),
             numpy=npk.relu, exports=(_TF, _NN, _DL), param="features")
floor = unary("floor", "same", "The largest integer <= x", _no_gradient, numpy=np.floor,
              exports=_ALL)
ceil = unary("ceil", "same", "The smallest integer >= x", _no_gradient, numpy=np.ceil,
             exports=_ALL)
exp = unary("exp", "float", "e ** x", lambda dy, x, y: mul(dy, y), numpy=npk.exp,
            exports=_ALL)
log = unary("log", "float", "The natural logarithm of x", lambda dy, x, y: div(dy, x),
            numpy=npk.log, exports=_ALL)
sqrt = unary("sqrt", "float", "The square root of x", lambda dy, x, y: div(dy, mul(y, 2.0)),
             numpy=npk.sqrt, exports=_ALL)
rsqrt = unary("rsqrt", "float", "1 / sqrt(x)",
              lambda dy, x, y: mul(dy, mul(mul(y, square(y)), -0.5)), numpy=npk.rsqrt,
              exports=_ALL)
tanh = unary("tanh", "float", "The hyperbolic tangent of x",
             lambda dy, x, y: mul(dy, sub(1.0, square(y))), numpy=npk.tanh,
             exports=_ALL + (_NN,))
sigmoid = unary("sigmoid", "float", "1 / (1 + exp(-x))",
                lambda dy, x, y: mul(dy, mul(y, sub(1.0, y))), numpy=npk.sigmoid,
                exports=_ALL + (_NN,))
elu = unary("elu", "float", "x if x > 0 else exp(x) - 1",
            lambda dy, x, y: mul(dy, where(greater(x, 0), 1.0, add(y, 1.0))), numpy=npk.elu,
            exports=(_TF, _NN, _DL), param="features")
sin = unary("sin", "float", "The sine of x", lambda dy, x, y: mul(dy, cos(x)), numpy=npk.sin,
            exports=_ALL)
cos = unary("cos", "float", "The cosine of x", lambda dy, x, y: neg(mul(dy, sin(x))),
            numpy=npk.cos, exports=_ALL)
log1p = unary("log1p", "float", "log(1 + x), accurate for small x",
              lambda dy, x, y: div(dy, add(x, 1.0)), numpy=npk.log1p, allowed=FLOAT,
              exports=(_MATH,))
expm1 = unary("expm1", "float", "exp(x) - 1, accurate for small x",
              lambda dy, x, y: mul(dy, add(y, 1.0)), numpy=npk.expm1, allowed=FLOAT,
              exports=(_MATH,))
softplus = unary("softplus", "float", "log(1 + exp(x)), without overflow",
                 lambda dy, x, y: mul(dy, sigmoid(x)), numpy=npk.softplus, allowed=FLOAT,
                 exports=(_MATH, _NN), param="features")
softsign = unary("softsign", "float", "x / (|x| + 1)",
                 lambda dy, x, y: div(dy, square(add(abs(x), 1.0))), numpy=npk.softsign,
                 allowed=FLOAT, exports=(_MATH, _NN), param="features")
relu6 = unary("relu6", "same", "min(max(x, 0), 6)",
              lambda dy, x, y: where(logical_and(greater(y, 0), less(y, 6)), dy, 0.0),
              numpy=npk.relu6, allowed=NUMERIC, exports=(_NN,), param="features")
erf = unary("erf", "float", "The error function of x",
            lambda dy, x, y: mul(dy, mul(exp(neg(square(x))), 1.1283791670955126)),
            numpy=npk.erf, allowed=FLOAT, exports=(_MATH,))
erfc = unary("erfc", "float", "1 - erf(x), accurate where erf(x) is near 1",
             lambda dy, x, y: mul(dy, mul(exp(neg(square(x))), -1.1283791670955126)),
             numpy=npk.erfc, allowed=FLOAT, exports=(_MATH,))
# Trigonometric and hyperbolic functions, float tensors only as in TensorFlow; gradients
# are TensorFlow's formulas (tan's is sec(x)^2 from cos(x), asinh's 1 / cosh(y), ...).
tan = unary("tan", "float", "The tangent of x",
            lambda dy, x, y: mul(dy, square(div(1.0, cos(x)))), numpy=npk.tan,
            allowed=FLOAT, exports=(_TF, _MATH))
sinh = unary("sinh", "float", "The hyperbolic sine of x",
             lambda dy, x, y: mul(dy, cosh(x)), numpy=npk.sinh, allowed=FLOAT,
             exports=(_TF, _MATH))
cosh = unary("cosh", "float", "The hyperbolic cosine of x",
             lambda dy, x, y: mul(dy, sinh(x)), numpy=npk.cosh, allowed=FLOAT,
             exports=(_TF, _MATH))
asin = unary("asin", "float", "The arcsine of x (NaN outside [-1, 1])",
             lambda dy, x, y: mul(dy, div(1.0, sqrt(sub(1.0, square(x))))), numpy=npk.asin,
             allowed=FLOAT, exports=(_TF, _MATH))
acos = unary("acos", "float", "The arccosine of x (NaN outside [-1, 1])",
             lambda dy, x, y: neg(mul(dy, div(1.0, sqrt(sub(1.0, square(x)))))),
             numpy=npk.acos, allowed=FLOAT, exports=(_TF, _MATH))
atan = unary("atan", "float", "The arctangent of x",
             lambda dy, x, y: mul(dy, div(1.0, add(1.0, square(x)))), numpy=npk.atan,
             allowed=FLOAT, exports=(_TF, _MATH))
asinh = unary("asinh", "float", "The inverse hyperbolic sine of x",
              lambda dy, x, y: div(dy, cosh(y)), numpy=npk.asinh, allowed=FLOAT,
              exports=(_TF, _MATH))
acosh = unary("acosh", "float", "The inverse hyperbolic cosine of x (NaN below 1)",
              lambda dy, x, y: div(dy, sinh(y)), numpy=npk.acosh, allowed=FLOAT,
              exports=(_TF, _MATH))
atanh = unary("atanh", "float", "The inverse hyperbolic tangent of x (+-inf at +-1)",
              lambda dy, x, y: mul(dy, div(1.0, sub(1.0, square(x)))), numpy=npk.atanh,
              allowed=FLOAT, exports=(_TF, _MATH))
log_sigmoid = unary("log_sigmoid", "float", "log(1 / (1 + exp(-x))), that is -softplus(-x)",
                    lambda dy, x, y: mul(dy, sigmoid(neg(x))), numpy=npk.log_sigmoid,
                    allowed=FLOAT, exports=(_MATH,))
# TensorFlow's gradient is div_no_nan(div_no_nan(-1, x), x): -y^2, 0 where x is 0
reciprocal_no_nan = unary("reciprocal_no_nan", "float", "1 / x, and 0 where x is 0",
                          lambda dy, x, y: mul(dy, neg(square(y))),
                          numpy=npk.reciprocal_no_nan, allowed=FLOAT, exports=(_MATH,))
rint = unary("rint", "float", "x rounded to the nearest integer, halves to the even one",
             _no_gradient, numpy=np.rint, allowed=FLOAT, exports=(_MATH,))
is_nan = unary("is_nan", "pred", "True where x is NaN", numpy=np.isnan, exports=_ALL)
is_finite = unary("is_finite", "pred", "True where x is neither infinite nor NaN",
                  numpy=np.isfinite, exports=_ALL)
logical_not = unary("logical_not", "pred", "True where x is zero (or False)",
                    numpy=np.logical_not, exports=_ALL)
invert = unary("invert", "same", "The bits of x flipped (~x)", numpy=np.invert,
               rule=ints_only("invert"), exports=(_MATH, "bitwise"))


# -- binary ----------------------------------------------------------------------

add = binary("add", "arith", "a + b", lambda dy, a, b, y: (dy, dy), numpy=npk.add,
             exports=_ALL)
sub = binary("sub", "arith", "a - b", lambda dy, a, b, y: (dy, neg(dy)), numpy=npk.sub,
             exports=_ALL + ("tf.subtract", "math.subtract"))
mul = binary("mul", "arith", "a * b", lambda dy, a, b, y: (mul(dy, b), mul(dy, a)),
             numpy=npk.mul, exports=_ALL + ("tf.multiply", "math.multiply"))
div = binary("div", "float", "a / b (true division, float32 result)",
             lambda dy, a, b, y: (div(dy, b), neg(div(mul(dy, y), b))), numpy=npk.div,
             exports=_ALL + ("tf.divide", "tf.truediv", "math.divide", "math.truediv"))
_pow = binary("pow", "arith", "a ** b", lambda dy, a, b, y: _pow_grad(dy, a, b, y),
              numpy=npk.pow)
maximum = binary("maximum", "arith", "The larger of a and b",
                 lambda dy, a, b, y: _select_grad(dy, greater_equal(a, b)), numpy=np.maximum,
                 rule=arith_rule("maximum", bool_ok=True), exports=_ALL)
minimum = binary("minimum", "arith", "The smaller of a and b",
                 lambda dy, a, b, y: _select_grad(dy, less_equal(a, b)), numpy=np.minimum,
                 rule=arith_rule("minimum", bool_ok=True), exports=_ALL)
equal = binary("equal", "cmp", "a == b", numpy=np.equal, exports=_ALL)
not_equal = binary("not_equal", "cmp", "a != b", numpy=np.not_equal, exports=_ALL)
less = binary("less", "cmp", "a < b", numpy=np.less, exports=_ALL)
less_equal = binary("less_equal", "cmp", "a <= b", numpy=np.less_equal, exports=_ALL)
greater = binary("greater", "cmp", "a > b", numpy=np.greater, exports=_ALL)
greater_equal = binary("greater_equal", "cmp", "a >= b", numpy=np.greater_equal, exports=_ALL)
bitwise_and = binary("bitwise_and", "arith", "The bits set in both a and b",
                     numpy=np.bitwise_and, rule=ints_only("bitwise_and"),
                     exports=(_MATH, "bitwise"))
bitwise_or = binary("bitwise_or", "arith", "The bits set in a or b", numpy=np.bitwise_or,
                    rule=ints_only("bitwise_or"), exports=(_MATH, "bitwise"))
bitwise_xor = binary("bitwise_xor", "arith", "The bits set in one of a, b",
                     numpy=np.bitwise_xor, rule=ints_only("bitwise_xor"),
                     exports=(_MATH, "bitwise"))
# Float tensors only, as TensorFlow's; the gradients follow TensorFlow's conventions where
# x or y is 0 (xlogy's: xlogy(x != 0, y) and xdivy(x, y); multiply_no_nan's use itself).
atan2 = binary("atan2", "float", "The angle of the point (x, y), in [-pi, pi]",
               lambda dy, a, b, y: _atan2_grad(dy, a, b), numpy=npk.atan2, allowed=FLOAT,
               exports=(_TF, _MATH), params=("y", "x"))
xlogy = binary("xlogy", "float", "x * log(y), and 0 where x is 0",
               lambda dy, a, b, y: (mul(xlogy(_nonzero(a), b), dy), mul(xdivy(a, b), dy)),
               numpy=npk.xlogy, allowed=FLOAT, exports=(_MATH,))
xdivy = binary("xdivy", "float", "x / y, and 0 where x is 0",
               lambda dy, a, b, y: (mul(xdivy(_nonzero(a), b), dy),
                                    mul(xdivy(neg(a), square(b)), dy)),
               numpy=npk.xdivy, allowed=FLOAT, exports=(_MATH,))
multiply_no_nan = binary("multiply_no_nan", "float", "x * y, and 0 where y is 0 (even for "
                         "an infinite or NaN x)",
                         lambda dy, a, b, y: (multiply_no_nan(dy, b), multiply_no_nan(a, dy)),
                         numpy=npk.multiply_no_nan, allowed=FLOAT, exports=(_MATH,))
# no gradient for floordiv, as in TensorFlow; both check int divisors first (below)
_floordiv = binary("floordiv", "arith", "a // b", numpy=npk.floordiv)
_floormod = binary("floormod", "arith", "floormod",
                   lambda dy, a, b, y: (dy, neg(mul(dy, floordiv(a, b)))), numpy=npk.floormod)


def _host_or_none(x):
    from .index_checks import host_values
    return host_values(x) if isinstance(x, NDArray) else np.asarray(x)


@export(*_ALL)
def pow(x, y, name=None):  # noqa: A001  (tf.pow)
    """x ** y, elementwise with numpy broadcasting. An int base to a negative int
    exponent raises InvalidArgumentError, as in TensorFlow, when the exponent is known
    on the host; one computed on a GPU truncates 1 / a ** |b| there (see the README).

    >>> tf.pow(tf.array([1.0, 2.0]), 2.0).shape
    TensorShape([2])
    """
    exponent = _host_or_none(y)  # not in the shape rule: that is cached per signature
    if exponent is not None and exponent.dtype.kind in "iub" and exponent.size and \
            (exponent < 0).any():
        float_base = x.dtype == float32 if isinstance(x, NDArray) else \
            np.asarray(x).dtype.kind == "f"
        if not float_base:
            raise InvalidArgumentError("Integers to negative integer powers are not allowed")
    return _pow(x, y)


pow.op = _pow.op


def _check_int_divisor(name, a, b):
    """TensorFlow raises on an integer division by zero; a GPU cannot, so zeros are looked
    for first: in the host copy when there is one, else by one reduction and a read of
    its single bool."""
    if dtypes.upcast(dtype_of(a), dtype_of(b)) == float32:
        return
    if not isinstance(b, NDArray):
        zero = b == 0
    elif b._storage.values is not None:
        zero = not b._storage.values.all()
    else:
        from .reduce import max as reduce_max
        zero = bool(reduce_max(equal(b, 0)).item())
    if zero:
        raise InvalidArgumentError(f"{name}: integer division by zero (divisor of shape "
                                   f"{list(shape_of(b))})")


def _division(declared, doc):
    op = declared.op

    def fn(x, y, name=None):
        if not isinstance(x, NDArray) and not isinstance(y, NDArray):
            x = from_numpy(to_numpy(x))
        if isinstance(y, (list, tuple)) or hasattr(y, "__array__") and not isinstance(
                y, NDArray):
            y = from_numpy(to_numpy(y))
        _check_int_divisor(op.name, x, y)
        return run_op(op, (x, y))
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = doc
    fn.op = op
    return export(_MATH)(fn)


floordiv = _division(_floordiv, """a // b rounded toward -inf, TensorFlow's floordiv (`//`).

    Floats give floor(a / b); ints the floored quotient, and an int division by zero
    raises InvalidArgumentError (on a GPU backend that check reads back one bool).

    >>> tf.math.floordiv(tf.constant([7, -7]), 2).tolist()
    [3, -4]
    """)
floormod = _division(_floormod, """The remainder of floordiv, with the divisor's sign,
    TensorFlow's floormod (`%`): a - floordiv(a, b) * b, computed exactly for floats.

    >>> tf.math.floormod(tf.constant([7, -7]), 3).tolist()
    [1, 2]
    """)


def _bool_pair(name):
    def check(x, y):
        x = x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
        y = y if isinstance(y, NDArray) else from_numpy(to_numpy(y))
        for i, v in enumerate((x, y)):
            if v.dtype != bool_:
                raise InvalidArgumentError(f"{name}: input {i} must be a bool tensor, "
                                           f"received {v.dtype} (shape {list(v.shape)})")
        return x, y
    return check


@export(_TF, _MATH)
def logical_and(x, y, name=None):
    """Elementwise x AND y of two bool tensors, broadcasting (TensorFlow's logical_and).

    >>> tf.logical_and(tf.constant([True, True]), tf.constant([True, False])).tolist()
    [True, False]
    """
    return minimum(*_bool_pair("logical_and")(x, y))


@export(_TF, _MATH)
def logical_or(x, y, name=None):
    """Elementwise x OR y of two bool tensors, broadcasting."""
    return maximum(*_bool_pair("logical_or")(x, y))


@export(_MATH)
def logical_xor(x, y, name=None):
    """Elementwise x XOR y of two bool tensors, broadcasting."""
    return not_equal(*_bool_pair("logical_xor")(x, y))


@export(_MATH)
def reciprocal(x, name=None):
    """1 / x of a float32 tensor (TensorFlow has no int32 kernel for it on the CPU).

    >>> tf.math.reciprocal(tf.constant([2.0, 0.0])).tolist()
    [0.5, inf]
    """
    x = x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
    if x.dtype != float32:
        raise NotFoundError(f"reciprocal: no kernel for {x.dtype} tensors (shape "
                            f"{list(x.shape)}); cast to float32")
    return div(1.0, x)


def _pow_grad(dy, a, b, y):
    da = mul(dy, mul(b, pow(a, sub(b, 1.0)))) if isinstance(a, NDArray) else None
    # NOTE: d/db a**b = a**b log(a) is defined for a > 0 only; TensorFlow uses 0 elsewhere.
    db = mul(dy, mul(y, where(greater(a, 0), log(where(greater(a, 0), a, 1.0)), 0.0))) \
        if isinstance(b, NDArray) else None
    return da, db


def _atan2_grad(dy, y, x):
    """TensorFlow's: dy / (x^2 + y^2) times (x, -y); NaN at the origin."""
    scale = div(dy, add(square(x), square(y)))
    return mul(x, scale), neg(mul(y, scale))


def _nonzero(x):
    return cast(not_equal(x, 0.0), float32) if isinstance(x, NDArray) else float(x != 0)


def _select_grad(dy, mask):
    """maximum/minimum: the gradient goes to the chosen input (the first on ties)."""
    return where(mask, dy, 0.0), where(mask, 0.0, dy)


# -- where and cast --------------------------------------------------------------

def _where_infer(inputs, attrs):
    cond, a, b = inputs
    shape = broadcast_shapes("where", shape_of(cond), shape_of(a), shape_of(b))
    return shape, result_dtype(a, b)


def _where_grad(dy, inputs, y, attrs):
    cond = inputs[0]
    return reduce_to_inputs((None, where(cond, dy, 0.0), where(cond, 0.0, dy)), inputs)


_where = def_op("where", _where_infer, grad=_where_grad, elementwise="where")


@export(_TF, _DL)
def where(condition, x=None, y=None, name=None):
    """Elements of `x` where `condition` is true (non-zero), else of `y`.

    The three arguments broadcast together (TensorFlow 2's `tf.where`). With `x` and
    `y` both None: the coordinates of the true entries, as `tf.where(condition)`
    (read back to the host: the result's shape depends on the values).

    >>> tf.where(tf.array([True, False]), 1.0, 2.0).tolist()
    [1.0, 2.0]
    """
    if x is None or y is None:
        if x is not None or y is not None:
            raise ValueError("where: x and y must both be non-None or both be None.")
        from .array_ops import where_nonzero
        return where_nonzero(condition)
    if not isinstance(x, NDArray) and not isinstance(y, NDArray):
        x = from_numpy(to_numpy(x))
    if not isinstance(condition, NDArray):
        condition = from_numpy(to_numpy(condition))
    return run_op(_where, (condition, x, y))


def _cast_infer(inputs, attrs):
    return inputs[0].shape, attrs["dtype"]


def _cast_grad(dy, inputs, y, attrs):
    # Only float -> float casts pass gradients (the tape ignores gradients for ints).
    return (dy if attrs["dtype"] == float32 else None,)


_cast = def_op("cast", _cast_infer, grad=_cast_grad, elementwise="cast")


@export(_TF, _DL)
def cast(x, dtype, name=None):
    """`x` (a tensor, number, list or numpy data) converted to `dtype`.

    Floats become ints by truncation toward zero; anything non-zero becomes True.
    int64 and the small integer types are stored as int32, float64 as float32
    (texflow's device dtypes); float16 raises DTypeError.

    >>> tf.cast(tf.constant([1.7, -1.7]), tf.int32).numpy().tolist()
    [1, -1]
    >>> tf.cast(3, tf.float32).numpy()
    np.float32(3.0)
    """
    dtype = dtypes.device_dtype(dtype)
    if not isinstance(x, NDArray):
        x = from_numpy(to_numpy(x))
    if x.dtype == dtype:
        return run_view(_cast, x, x.shape, {"dtype": dtype})
    return run_op(_cast, (x,), {"dtype": dtype})


_stop_gradient = def_op("stop_gradient", lambda inputs, attrs: (inputs[0].shape,
                                                                 inputs[0].dtype))


@export(_TF, _DL)
def stop_gradient(input, name=None):  # noqa: A002 (TensorFlow's name)
    """`input` itself (no copy), with no gradient flowing through it."""
    if not isinstance(input, NDArray):
        input = from_numpy(to_numpy(input))
    return run_view(_stop_gradient, input, input.shape)
