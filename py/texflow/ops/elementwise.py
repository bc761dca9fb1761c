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
from ..dtypes import bool_, float32, int32
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op
from ..engine.run import run_op, run_view
from ..errors import InvalidArgumentError, NotFoundError, OpDTypeError
from .shape_util import broadcast_shapes

_SCALARS = (float, int, bool)


def _dtype_of(x):
    return x.dtype if isinstance(x, NDArray) else dtypes.scalar_dtype(x)


def _shape_of(x):
    return x.shape if isinstance(x, NDArray) else ()


# -- unary -----------------------------------------------------------------------

def _no_gradient(dy, x, y):
    """Piecewise-constant ops: TensorFlow gives None, not zeros."""
    return None


def _same_numeric(name):
    def infer(inputs, attrs):
        x = inputs[0]
        if x.dtype == bool_:
            raise OpDTypeError(f"{name} does not accept bool input; cast it first")
        return x.shape, x.dtype
    return infer


FLOAT, NUMERIC = (float32,), (float32, int32)


def expect_dtype(x, name, allowed, error=InvalidArgumentError):
    """`x` as an NDArray of one of the `allowed` dtypes, or `error` (TensorFlow's class for
    the op: InvalidArgumentError for kernels without that dtype) naming what came."""
    x = x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
    if x.dtype not in allowed:
        raise error(f"{name} needs a {' or '.join(allowed)} tensor, received {x.dtype} "
                    f"(shape {list(x.shape)})")
    return x


def dtype_rule(name, allowed):
    """The shape/dtype rule of an op keeping its input's shape and dtype, for inputs of
    the `allowed` dtypes only (TensorFlow's rule for log1p, erf, cumsum, ...)."""
    def infer(inputs, attrs):
        x = expect_dtype(inputs[0], name, allowed)
        return x.shape, x.dtype
    return infer


def _to_float(inputs, attrs):
    x = inputs[0]
    return x.shape, float32


def _bool_result(inputs, attrs):
    return inputs[0].shape, bool_


def _unary(name, infer, doc, grad=None):
    """Defines a unary op; `grad(dy, x, y)` gives the input's gradient (or None)."""
    op = def_op(name, infer, grad=(lambda dy, inputs, y, attrs: (grad(dy, inputs[0], y),))
                if grad else None)

    def fn(x):
        if not isinstance(x, NDArray):
            x = from_numpy(to_numpy(x))
        return run_op(op, (x,))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{doc}, elementwise.\n\n"
                  f"    >>> tf.{name}(tf.array([-1.0, 0.5])).shape\n    TensorShape([2])\n")
    fn.op = op
    return fn


neg = _unary("neg", _same_numeric("neg"), "-x", lambda dy, x, y: neg(dy))
abs = _unary("abs", _same_numeric("abs"), "|x|",  # noqa: A001  (tf.abs)
             lambda dy, x, y: mul(dy, sign(x)))
square = _unary("square", _same_numeric("square"), "x * x",
                lambda dy, x, y: mul(dy, mul(x, 2.0)))
sign = _unary("sign", _same_numeric("sign"), "-1, 0 or 1 by the sign of x (NaN stays NaN)",
              _no_gradient)
relu = _unary("relu", _same_numeric("relu"), "max(x, 0)",
              lambda dy, x, y: mul(dy, greater(x, 0)))
floor = _unary("floor", _same_numeric("floor"), "The largest integer <= x", _no_gradient)
ceil = _unary("ceil", _same_numeric("ceil"), "The smallest integer >= x", _no_gradient)
exp = _unary("exp", _to_float, "e ** x", lambda dy, x, y: mul(dy, y))
log = _unary("log", _to_float, "The natural logarithm of x", lambda dy, x, y: div(dy, x))
sqrt = _unary("sqrt", _to_float, "The square root of x",
              lambda dy, x, y: div(dy, mul(y, 2.0)))
rsqrt = _unary("rsqrt", _to_float, "1 / sqrt(x)",
               lambda dy, x, y: mul(dy, mul(mul(y, square(y)), -0.5)))
tanh = _unary("tanh", _to_float, "The hyperbolic tangent of x",
              lambda dy, x, y: mul(dy, sub(1.0, square(y))))
sigmoid = _unary("sigmoid", _to_float, "1 / (1 + exp(-x))",
                 lambda dy, x, y: mul(dy, mul(y, sub(1.0, y))))
elu = _unary("elu", _to_float, "x if x > 0 else exp(x) - 1",
             lambda dy, x, y: mul(dy, where(greater(x, 0), 1.0, add(y, 1.0))))
sin = _unary("sin", _to_float, "The sine of x", lambda dy, x, y: mul(dy, cos(x)))
cos = _unary("cos", _to_float, "The cosine of x", lambda dy, x, y: neg(mul(dy, sin(x))))
log1p = _unary("log1p", dtype_rule("log1p", FLOAT), "log(1 + x), accurate for small x",
               lambda dy, x, y: div(dy, add(x, 1.0)))
expm1 = _unary("expm1", dtype_rule("expm1", FLOAT), "exp(x) - 1, accurate for small x",
               lambda dy, x, y: mul(dy, add(y, 1.0)))
softplus = _unary("softplus", dtype_rule("softplus", FLOAT), "log(1 + exp(x)), without overflow",
                  lambda dy, x, y: mul(dy, sigmoid(x)))
relu6 = _unary("relu6", dtype_rule("relu6", NUMERIC), "min(max(x, 0), 6)",
               lambda dy, x, y: where(logical_and(greater(x, 0), less(x, 6)), dy, 0.0))
erf = _unary("erf", dtype_rule("erf", FLOAT), "The error function of x",
             lambda dy, x, y: mul(dy, mul(exp(neg(square(x))), 1.1283791670955126)))
erfc = _unary("erfc", dtype_rule("erfc", FLOAT), "1 - erf(x), accurate where erf(x) is near 1",
              lambda dy, x, y: mul(dy, mul(exp(neg(square(x))), -1.1283791670955126)))
is_nan = _unary("is_nan", _bool_result, "True where x is NaN")
is_finite = _unary("is_finite", _bool_result, "True where x is neither infinite nor NaN")
logical_not = _unary("logical_not", _bool_result, "True where x is zero (or False)")


# -- binary ----------------------------------------------------------------------

def _result_dtype(name, a, b):
    if type(a) in _SCALARS:
        da, db = _weak(a, b.dtype), b.dtype
    elif type(b) in _SCALARS:
        da, db = a.dtype, _weak(b, a.dtype)
    else:
        da, db = a.dtype, b.dtype
    return dtypes.upcast(da, db)


def _weak(scalar, other):
    """A Python scalar's dtype next to an array of dtype `other` (it does not widen ints)."""
    d = dtypes.scalar_dtype(scalar)
    if d == float32 or other == float32:
        return float32 if d == float32 else other
    return other if d == bool_ else (int32 if other == bool_ else other)


def _arith(name, bool_ok=False):
    def infer(inputs, attrs):
        a, b = inputs
        dtype = _result_dtype(name, a, b)
        if dtype == bool_ and not bool_ok:
            dtype = int32
        return broadcast_shapes(name, _shape_of(a), _shape_of(b)), dtype
    return infer


def _div_infer(inputs, attrs):
    a, b = inputs
    return broadcast_shapes("div", _shape_of(a), _shape_of(b)), float32


def _compare_infer(name):
    def infer(inputs, attrs):
        a, b = inputs
        return broadcast_shapes(name, _shape_of(a), _shape_of(b)), bool_
    return infer


def _binary(name, infer, doc, grad=None):
    """Defines a binary op; `grad(dy, a, b, y)` gives both inputs' gradients at the
    broadcast shape (they are reduced to each input's shape here)."""
    op = def_op(name, infer, grad=(lambda dy, inputs, y, attrs:
                                   _reduce_to_inputs(grad(dy, *inputs, y), inputs))
                if grad else None)

    def fn(a, b):
        if not isinstance(a, NDArray) and not isinstance(b, NDArray):
            a = from_numpy(to_numpy(a))
        return run_op(op, (a, b))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{doc}, elementwise with numpy broadcasting.\n\n    Args:\n"
                  "        a, b: NDArrays, numbers, lists or numpy arrays.\n\n"
                  f"    >>> tf.{name}(tf.array([1.0, 2.0]), 2.0).shape\n    TensorShape([2])\n")
    fn.op = op
    return fn


add = _binary("add", _arith("add"), "a + b", lambda dy, a, b, y: (dy, dy))
sub = _binary("sub", _arith("sub"), "a - b", lambda dy, a, b, y: (dy, neg(dy)))
mul = _binary("mul", _arith("mul"), "a * b", lambda dy, a, b, y: (mul(dy, b), mul(dy, a)))
div = _binary("div", _div_infer, "a / b (true division, float32 result)",
              lambda dy, a, b, y: (div(dy, b), neg(div(mul(dy, y), b))))
_pow = _binary("pow", _arith("pow"), "a ** b",
               lambda dy, a, b, y: _pow_grad(dy, a, b, y))


def _host_or_none(x):
    from .index_checks import host_values
    return host_values(x) if isinstance(x, NDArray) else np.asarray(x)


def pow(a, b):  # noqa: A001  (tf.pow)
    """a ** b, elementwise with numpy broadcasting. An int base to a negative int
    exponent raises InvalidArgumentError, as in TensorFlow, when the exponent is known
    on the host; one computed on a GPU truncates 1 / a ** |b| there (see the README).

    >>> tf.pow(tf.array([1.0, 2.0]), 2.0).shape
    TensorShape([2])
    """
    exponent = _host_or_none(b)  # not in the shape rule: that is cached per signature
    if exponent is not None and exponent.dtype.kind in "iub" and exponent.size and \
            (exponent < 0).any():
        float_base = a.dtype == float32 if isinstance(a, NDArray) else \
            np.asarray(a).dtype.kind == "f"
        if not float_base:
            raise InvalidArgumentError("Integers to negative integer powers are not allowed")
    return _pow(a, b)


pow.op = _pow.op
maximum = _binary("maximum", _arith("maximum", bool_ok=True), "The larger of a and b",
                  lambda dy, a, b, y: _select_grad(dy, greater_equal(a, b)))
minimum = _binary("minimum", _arith("minimum", bool_ok=True), "The smaller of a and b",
                  lambda dy, a, b, y: _select_grad(dy, less_equal(a, b)))
equal = _binary("equal", _compare_infer("equal"), "a == b")
not_equal = _binary("not_equal", _compare_infer("not_equal"), "a != b")
less = _binary("less", _compare_infer("less"), "a < b")
less_equal = _binary("less_equal", _compare_infer("less_equal"), "a <= b")
greater = _binary("greater", _compare_infer("greater"), "a > b")
greater_equal = _binary("greater_equal", _compare_infer("greater_equal"), "a >= b")


_floordiv = def_op("floordiv", _arith("floordiv"))  # no gradient, as in TensorFlow
_floormod = def_op("floormod", _arith("floormod"), grad=lambda dy, inputs, y, attrs:
                   _reduce_to_inputs((dy, neg(mul(dy, floordiv(*inputs)))), inputs))


def _check_int_divisor(name, a, b):
    """TensorFlow raises on an integer division by zero; a GPU cannot, so zeros are looked
    for first: in the host copy when there is one, else by one reduction and a read of
    its single bool."""
    if dtypes.upcast(_dtype_of(a), _dtype_of(b)) == float32:
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
                                   f"{list(_shape_of(b))})")


def _division(op, doc):
    def fn(a, b):
        if not isinstance(a, NDArray) and not isinstance(b, NDArray):
            a = from_numpy(to_numpy(a))
        if isinstance(b, (list, tuple)) or hasattr(b, "__array__") and not isinstance(
                b, NDArray):
            b = from_numpy(to_numpy(b))
        _check_int_divisor(op.name, a, b)
        return run_op(op, (a, b))
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = doc
    fn.op = op
    return fn


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


def _ints_only(name):
    """Bitwise ops: int32 operands only (TensorFlow has no bool or float kernels)."""
    def infer(inputs, attrs):
        for i, x in enumerate(inputs):
            d = _dtype_of(x)
            if d != int32:
                raise InvalidArgumentError(f"{name}: input {i} must be int32, received {d}")
        return broadcast_shapes(name, *[_shape_of(x) for x in inputs]), int32
    return infer


bitwise_and = _binary("bitwise_and", _ints_only("bitwise_and"), "The bits set in both a and b")
bitwise_or = _binary("bitwise_or", _ints_only("bitwise_or"), "The bits set in a or b")
bitwise_xor = _binary("bitwise_xor", _ints_only("bitwise_xor"), "The bits set in one of a, b")
invert = _unary("invert", _ints_only("invert"), "The bits of x flipped (~x)")


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


def logical_and(x, y):
    """Elementwise x AND y of two bool tensors, broadcasting (TensorFlow's logical_and).

    >>> tf.logical_and(tf.constant([True, True]), tf.constant([True, False])).tolist()
    [True, False]
    """
    return minimum(*_bool_pair("logical_and")(x, y))


def logical_or(x, y):
    """Elementwise x OR y of two bool tensors, broadcasting."""
    return maximum(*_bool_pair("logical_or")(x, y))


def logical_xor(x, y):
    """Elementwise x XOR y of two bool tensors, broadcasting."""
    return not_equal(*_bool_pair("logical_xor")(x, y))


def reciprocal(x):
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


def _select_grad(dy, mask):
    """maximum/minimum: the gradient goes to the chosen input (the first on ties)."""
    return where(mask, dy, 0.0), where(mask, 0.0, dy)


def _reduce_to_inputs(grads, inputs):
    from .grad_util import unbroadcast
    return tuple(None if g is None or not isinstance(x, NDArray) else unbroadcast(g, x.shape)
                 for g, x in zip(grads, inputs))


# -- where and cast --------------------------------------------------------------

def _where_infer(inputs, attrs):
    cond, a, b = inputs
    shape = broadcast_shapes("where", _shape_of(cond), _shape_of(a), _shape_of(b))
    return shape, _result_dtype("where", a, b)


def _where_grad(dy, inputs, y, attrs):
    cond = inputs[0]
    return _reduce_to_inputs((None, where(cond, dy, 0.0), where(cond, 0.0, dy)), inputs)


_where = def_op("where", _where_infer, grad=_where_grad)


def where(condition, x=None, y=None):
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


_cast = def_op("cast", _cast_infer, grad=_cast_grad)


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
