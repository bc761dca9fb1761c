"""numpy kernel of matmul."""

import numpy as np

from ..base import kernel
from .blas import one_blas_thread


def _matmul_work(k, a, b, transpose_a, transpose_b):
    return a.size * (b.shape[-2] if transpose_b else b.shape[-1])


@kernel("matmul", "numpy")
@one_blas_thread(work=_matmul_work)
def matmul(k, a, b, transpose_a, transpose_b):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.dtype != b.dtype:
        a, b = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.matmul(a, b)
