"""numpy kernels of tf.linalg's QR, SVD and symmetric eigen decompositions (ops/decomp.py),
host-only ops computed in float64 with numpy's LAPACK on every backend."""

import numpy as np

from ..base import kernel
from .solve import once


def _swap(x):
    return np.swapaxes(x, -1, -2)


@kernel("qr", "numpy")
def qr(k, x, full_matrices, output_index):
    mode = "complete" if full_matrices else "reduced"
    return once("qr", x, mode, lambda a: tuple(np.linalg.qr(a, mode=mode)), output_index)


def _eye(shape):
    return np.broadcast_to(np.eye(shape[-2], shape[-1]), shape)


def _svd(a, full_matrices):
    m, n = a.shape[-2:]
    if m == 0 or n == 0:  # LAPACK takes no empty matrix: no singular values
        batch = a.shape[:-2]
        return (np.zeros(batch + (0,)), _eye(batch + (m, m if full_matrices else 0)),
                _eye(batch + (n, n if full_matrices else 0)))
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return s, u, _swap(vh)


@kernel("svd", "numpy")
def svd(k, x, full_matrices, output_index):
    return once("svd", x, full_matrices, lambda a: _svd(a, full_matrices), output_index)


@kernel("singular_values", "numpy")
def singular_values(k, x):
    a = np.asarray(x, np.float64)
    if 0 in a.shape[-2:]:
        return np.zeros(a.shape[:-2] + (0,))
    return np.linalg.svd(a, compute_uv=False)


@kernel("self_adjoint_eig", "numpy")
def self_adjoint_eig(k, x, output_index):
    """Ascending eigenvalues and eigenvectors, reading the lower triangle only."""
    return once("eigh", x, (), lambda a: tuple(np.linalg.eigh(a, UPLO="L")), output_index)


@kernel("self_adjoint_eigvals", "numpy")
def self_adjoint_eigvals(k, x):
    return np.linalg.eigvalsh(np.asarray(x, np.float64), UPLO="L")
