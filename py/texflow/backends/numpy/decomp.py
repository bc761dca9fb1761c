"""numpy kernels of tf.linalg's QR, SVD and symmetric eigen decompositions (ops/decomp.py),
host-only ops computed in float64 with numpy's LAPACK on every backend."""

import numpy as np

from ...errors import InvalidArgumentError
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


def nan_where_not_finite(a, compute):
    """compute(a) (an array or a tuple of them, each [batch..., ...]) with NaN for every
    matrix of `a` holding an infinity or NaN: TensorFlow's Eigen SVD fails on those and
    gives NaN, where LAPACK raises (natively) or returns what it found."""
    bad = ~np.isfinite(a).all(axis=(-2, -1))
    if not bad.any():
        return compute(a)
    results = compute(np.where(bad[..., None, None], 0.0, a))

    def spoil(r):
        return np.where(bad.reshape(bad.shape + (1,) * (r.ndim - bad.ndim)), np.nan, r)
    return tuple(map(spoil, results)) if isinstance(results, tuple) else spoil(results)


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
    return once("svd", x, full_matrices,
                lambda a: nan_where_not_finite(a, lambda b: _svd(b, full_matrices)),
                output_index)


@kernel("singular_values", "numpy")
def singular_values(k, x):
    return nan_where_not_finite(np.asarray(x, np.float64), lambda a: _svd(a, False)[0])


def _eigh(a):
    """Ascending eigenvalues and eigenvectors, reading the lower triangle only, with the
    outcomes of TensorFlow's Eigen solver where it holds NaN (an error) or an infinity
    (NaN eigenvalues, identity eigenvectors)."""
    lower = np.tril(a)
    if np.isnan(lower).any():
        raise InvalidArgumentError("Self-adjoint eigen decomposition was not successful. "
                                   "The input might not be valid.")
    infinite = np.isinf(lower).any(axis=(-2, -1))
    e, v = np.linalg.eigh(np.where(infinite[..., None, None], 0.0, a), UPLO="L")
    return (np.where(infinite[..., None], np.nan, e),
            np.where(infinite[..., None, None], _eye(v.shape), v))


@kernel("self_adjoint_eig", "numpy")
def self_adjoint_eig(k, x, output_index):
    return once("eigh", x, (), _eigh, output_index)


@kernel("self_adjoint_eigvals", "numpy")
def self_adjoint_eigvals(k, x):
    return _eigh(np.asarray(x, np.float64))[0]


@kernel("matrix_solve_ls", "numpy")
def matrix_solve_ls(k, a, b):
    """The minimum-norm least-squares solutions (lstsq's fast=False): pinv(a) @ b, singular
    values below float32's eps * max(M, N) of the largest counting as zero (the rank
    Eigen's complete orthogonal decomposition finds for float32)."""
    a = np.asarray(a, np.float64)
    rcond = np.finfo(np.float32).eps * max(a.shape[-2:])
    pinv = nan_where_not_finite(a, lambda c: np.linalg.pinv(c, rcond=rcond))
    return pinv @ np.asarray(b, np.float64)
