"""numpy kernels of the host-only linear algebra ops (no GPU kernel: they run on the
host on every backend)."""

import numpy as np

from ..base import kernel
from .decomp import nan_where_not_finite


@kernel("matrix_norm2", "numpy")
def matrix_norm2(k, x):
    """The largest singular value of each matrix (the last two axes)."""
    if 0 in x.shape[-2:]:
        return np.zeros(x.shape[:-2], np.float32)
    return nan_where_not_finite(x.astype(np.float64),
                                lambda a: np.linalg.svd(a, compute_uv=False)[..., 0])


@kernel("matrix_norm2_vectors", "numpy")
def matrix_norm2_vectors(k, x):
    """u1 v1^T of each matrix: the gradient of its largest singular value."""
    if 0 in x.shape[-2:]:
        return np.zeros(x.shape, np.float32)
    def top(a):
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        return u[..., :, :1] @ vh[..., :1, :]
    return nan_where_not_finite(x.astype(np.float64), top)
