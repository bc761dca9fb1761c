"""tf.math names composed of texflow's ops: mod (floormod's alias), is_non_decreasing,
is_strictly_increasing and reduce_euclidean_norm."""

from .. import dtypes
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import export
from . import elementwise as ew
from .movement import reshape
from .movement import slice as slice_
from .reduce import reduce_all, sum as reduce_sum


def _tensor(x):
    return x if isinstance(x, NDArray) else from_numpy(to_numpy(x))


@export("math")
def mod(x, y, name=None):
    """The remainder of floordiv, with the divisor's sign: tf.math.mod, TensorFlow's alias
    of floormod.

    >>> tf.math.mod(tf.constant([7, -7]), 3).numpy().tolist()
    [1, 2]
    """
    return ew.floormod(x, y)


def _ordered(x, strictly, what):
    x = _tensor(x)
    if x.dtype == dtypes.bool_:
        raise TypeError(f"Expected x to be numeric, instead found: {what} of dtype bool")
    flat = reshape(x, (-1,))
    n = int(flat.shape[0])
    if n < 2:
        return from_numpy(to_numpy(True))
    head, tail = slice_(flat, [0], [n - 1]), slice_(flat, [1], [n - 1])
    return reduce_all((ew.less if strictly else ew.less_equal)(head, tail))


@export("math")
def is_non_decreasing(x, name=None):
    """Whether each element of `x` (flattened) is >= the one before it
    (tf.math.is_non_decreasing; True for fewer than two elements).

    >>> bool(tf.math.is_non_decreasing([1, 1, 2]))
    True
    """
    return _ordered(x, False, "x")


@export("math")
def is_strictly_increasing(x, name=None):
    """Whether each element of `x` (flattened) is > the one before it
    (tf.math.is_strictly_increasing).

    >>> bool(tf.math.is_strictly_increasing([1, 1, 2]))
    False
    """
    return _ordered(x, True, "x")


@export("math")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):  # noqa: A002
    """sqrt(sum(x ** 2)) over `axis` (all when None): tf.math.reduce_euclidean_norm; int
    inputs give the root truncated to an int, as TensorFlow's.

    >>> float(tf.math.reduce_euclidean_norm(tf.constant([3.0, 4.0])))
    5.0
    """
    x = _tensor(input_tensor)
    squares = reduce_sum(ew.square(x), axis=axis, keepdims=bool(keepdims))
    if x.dtype == dtypes.float32:
        return ew.sqrt(squares)
    return ew.cast(ew.sqrt(ew.cast(squares, dtypes.float32)), x.dtype)
