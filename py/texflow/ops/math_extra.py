"""Small TensorFlow math ops made of texflow's own: squared_difference, divide_no_nan,
round and l2_normalize. Each is a few elementwise ops and a reduction, so it runs and
differentiates on every backend without kernels of its own."""

from ..dtypes import float32, int32
from ..engine.ndarray import NDArray
from ..engine.registry import export
from ..errors import InvalidArgumentError
from . import elementwise as ew
from .reduce import sum as reduce_sum


@export("math")
def squared_difference(x, y, name=None):
    """(x - y) ** 2 elementwise, broadcasting (tf.math.squared_difference): float32 or
    int32 operands of one dtype, as in TensorFlow.

    >>> tf.math.squared_difference([1, 5], 2).numpy().tolist()
    [1, 9]
    """
    x = ew.expect_dtype(x, "squared_difference", ew.NUMERIC)
    y = ew.expect_dtype(y, "squared_difference", ew.NUMERIC)
    if x.dtype != y.dtype:
        raise InvalidArgumentError(
            f"squared_difference: x and y must have one dtype, received {x.dtype} and "
            f"{y.dtype} (shapes {list(x.shape)} and {list(y.shape)})")
    return ew.square(ew.sub(x, y))


@export("math")
def divide_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0 (even when x is 0, inf or NaN): tf.math.divide_no_nan.
    Int operands divide as float32 (TensorFlow converts them to floats too).

    >>> tf.math.divide_no_nan([1.0, 2.0], [0.0, 4.0]).numpy().tolist()
    [0.0, 0.5]
    """
    if isinstance(x, NDArray) and isinstance(y, NDArray) and x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got tf.{x.dtype} != "
                        f"tf.{y.dtype}.")
    x, y = (ew.expect_dtype(v, "divide_no_nan", (float32, int32)) for v in (x, y))
    x, y = (ew.cast(v, float32) for v in (x, y))  # a view for float32
    zero = ew.equal(y, 0.0)
    # the divisor 1 where y is 0 keeps the discarded quotient (and its gradient) finite
    return ew.where(zero, 0.0, ew.div(x, ew.where(zero, 1.0, y)))


@export("tf", "math")
def round(x, name=None):  # noqa: A001  (tf.math.round)
    """`x` rounded to the nearest integer, halves to the even one (tf.math.round, banker's
    rounding); int32 tensors come back unchanged; NaN and inf stay.

    >>> tf.math.round([0.5, 1.5, 2.5, -1.5]).numpy().tolist()
    [0.0, 2.0, 2.0, -2.0]
    """
    x = ew.expect_dtype(x, "round", ew.NUMERIC)
    if x.dtype == int32:
        return ew.cast(x, int32)  # a view
    low = ew.floor(x)
    frac = ew.sub(x, low)
    # a half goes to the even neighbour: low + (low mod 2), i.e. up when low is odd
    half = ew.add(low, ew.floormod(low, 2.0))
    up = ew.where(ew.greater(frac, 0.5), ew.add(low, 1.0), low)
    out = ew.where(ew.equal(frac, 0.5), half, up)
    out = ew.where(ew.equal(out, 0.0), ew.mul(x, 0.0), out)  # -0.5 rounds to -0.0
    return ew.where(ew.is_finite(x), out, x)  # floor(inf) - inf is NaN: keep inf, NaN


@export("math", "nn", "linalg")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) (tf.math.l2_normalize, tf.nn.l2_normalize):
    `axis` an int, a list of ints or None (all axes); float tensors only.

    >>> tf.nn.l2_normalize([3.0, 4.0]).numpy().tolist()
    [0.6000000238418579, 0.800000011920929]
    """
    x = ew.expect_dtype(x, "l2_normalize", ew.FLOAT, error=TypeError)
    axis = dim if axis is None else axis
    squares = reduce_sum(ew.square(x), axis=axis, keepdims=True)
    return ew.mul(x, ew.rsqrt(ew.maximum(squares, float(epsilon))))
