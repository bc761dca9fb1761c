"""numpy kernels of the cumulative ops."""

import numpy as np

from ..base import kernel


def _scan(fn, identity):
    def scan(k, x, axis, exclusive, reverse):
        if reverse:
            x = np.flip(x, axis)
        with np.errstate(all="ignore"):
            out = fn(x, axis=axis, dtype=x.dtype)
        if exclusive:
            pad = [(0, 0)] * x.ndim
            pad[axis] = (1, 0)
            index = [slice(None)] * x.ndim
            index[axis] = slice(0, x.shape[axis])
            out = np.pad(out, pad, constant_values=identity)[tuple(index)]
        return np.flip(out, axis) if reverse else out
    return scan


kernel("cumsum", "numpy")(_scan(np.cumsum, 0))
kernel("cumprod", "numpy")(_scan(np.cumprod, 1))
