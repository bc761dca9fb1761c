"""numpy kernels of the reductions."""

import math

import numpy as np

from ..base import kernel
from .blas import one_blas_thread


# From this many float32 values, a sum over leading axes is a matrix-vector product
_BLAS_SUM = 1 << 16


@kernel("sum", "numpy")
def sum(k, x, axes, keepdims):  # noqa: A001
    if x.dtype == np.bool_:
        x = x.astype(np.int32)
    lead = len(axes)
    if (x.dtype == np.float32 and x.size >= _BLAS_SUM and 0 < lead < x.ndim
            and tuple(axes) == tuple(range(lead)) and x.flags.c_contiguous):
        # e.g. a bias's gradient: numpy adds the rows one after another; BLAS's product
        # with ones is 4x faster and keeps partial sums (no less accurate)
        out = _sum_rows(x.reshape(math.prod(x.shape[:lead]), -1))
        return out.reshape((1,) * lead + x.shape[lead:] if keepdims else x.shape[lead:])
    with np.errstate(invalid="ignore", over="ignore"):
        return np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


@one_blas_thread
def _sum_rows(m):
    return np.ones(m.shape[0], np.float32) @ m


@kernel("prod", "numpy")
def prod(k, x, axes, keepdims):
    with np.errstate(invalid="ignore", over="ignore"):
        return np.prod(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


def _identity(dtype, which):
    """TensorFlow's value of an empty max (min): the lowest (highest) of the dtype."""
    if dtype == np.bool_:
        return which == "min"
    if dtype.kind == "f":
        return -np.inf if which == "max" else np.inf
    info = np.iinfo(dtype)
    return info.min if which == "max" else info.max


def _extreme(fn, which):
    def reduce(k, x, axes, keepdims):
        if x.size == 0:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdims \
                else tuple(d for i, d in enumerate(x.shape) if i not in axes)
            return np.full(shape, _identity(x.dtype, which), x.dtype)
        return fn(x, axis=axes, keepdims=keepdims)
    return reduce


kernel("max", "numpy")(_extreme(np.max, "max"))
kernel("min", "numpy")(_extreme(np.min, "min"))


@kernel("argmax", "numpy")
def argmax(k, x, axis, keepdims):
    return np.argmax(x, axis=axis, keepdims=keepdims)


@kernel("argmin", "numpy")
def argmin(k, x, axis, keepdims):
    return np.argmin(x, axis=axis, keepdims=keepdims)
