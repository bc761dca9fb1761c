"""numpy kernels of the sorting primitives."""

import numpy as np

from ..base import kernel


@kernel("argsort", "numpy")
def argsort(k, x, descending):
    if not descending:
        return np.argsort(x, axis=-1, kind="stable")
    # stable descending: sort the reversed rows ascending, read from the end
    n = x.shape[-1]
    return n - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]


@kernel("permute_last_axis", "numpy")
def permute_last_axis(k, x, perm):
    return np.take_along_axis(x, perm, axis=-1)
