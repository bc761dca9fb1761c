"""Cumulative ops along an axis: cumsum and cumprod (TensorFlow's, with exclusive and
reverse).

GPU kernels scan in ceil(log2 n) passes (Hillis-Steele: pass k combines each element with
the one 2^k before it), so a float32 cumsum adds in a tree order, not left to right: its
rounding differs from TensorFlow's sequential sum by a few ulps of the running total.
"""

from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..errors import InvalidArgumentError
from . import elementwise as ew


def _cumsum_grad(dy, inputs, y, attrs):
    return (cumsum(dy, attrs["axis"], attrs["exclusive"], not attrs["reverse"]),)


def _cumprod_grad(dy, inputs, y, attrs):
    # TensorFlow's: cumsum(prod * dy) in the other direction, divided by x (0 where x is 0)
    x = inputs[0]
    axis, exclusive, reverse = attrs["axis"], attrs["exclusive"], attrs["reverse"]
    prod = cumprod(x, axis, exclusive, reverse)
    out = cumsum(ew.mul(prod, dy), axis, exclusive, not reverse)
    zero = ew.equal(x, 0.0)
    return (ew.where(zero, 0.0, ew.div(out, ew.where(zero, 1.0, x))),)


_cumsum = def_op("cumsum", ew.dtype_rule("cumsum", ew.NUMERIC), grad=_cumsum_grad)
_cumprod = def_op("cumprod", ew.dtype_rule("cumprod", ew.NUMERIC), grad=_cumprod_grad)


def _scan(op, x, axis, exclusive, reverse):
    x = x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
    rank = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, int):
        try:
            axis = int(axis)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{op.name}: axis must be an int, received "
                                       f"{axis!r}") from None
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{op.name}: expected the scan axis in the range "
                                   f"[{-rank}, {rank}), but got {axis}")
    return run_op(op, (x,), {"axis": axis % rank, "exclusive": bool(exclusive),
                             "reverse": bool(reverse)})


@export("tf", "math")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along `axis` (TensorFlow's cumsum). `exclusive` leaves out each
    element itself (the first result is 0); `reverse` sums from the end.

    >>> tf.cumsum(tf.constant([1, 2, 3]), exclusive=True, reverse=True).tolist()
    [5, 3, 0]
    """
    return _scan(_cumsum, x, axis, exclusive, reverse)


@export("math")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along `axis` (TensorFlow's cumprod); see `cumsum`.

    >>> tf.math.cumprod(tf.constant([1, 2, 3]), exclusive=True).tolist()
    [1, 1, 2]
    """
    return _scan(_cumprod, x, axis, exclusive, reverse)
