"""tf.linalg's QR, SVD and symmetric eigen decompositions, as TensorFlow 2.21's: qr, svd
and eigh are host-only ops computed by numpy on the host in float64 on every backend
(backends/numpy/decomp.py), rounded to float32, recorded and recomputed at each replay
inside tf.function as ops/solve.py's; their gradients are TensorFlow's formulas written
with texflow's ops. eigvalsh, pinv and matrix_rank are composed of them, as in TensorFlow."""

from collections import namedtuple

import numpy as np

from ..dtypes import float32, int32
from ..engine.ndarray import as_array
from ..engine.registry import def_op, export
from ..engine.run import run_op
from . import elementwise as ew
from . import reduce as rd
from .creation import zeros_like
from .matmul import matmul
from .matrix import band_part, diag, matrix_transpose as _t, set_diag
from .movement import concat, expand_dims
from .solve import halve_diagonal, matrices_rule, square_rule, triangular_solve

Qr = namedtuple("Qr", ["q", "r"])


# -- gradient helpers ------------------------------------------------------------------

def _safe_reciprocal(x):
    # TensorFlow's Lorentz broadening: no inf/NaN for repeated eigen/singular values
    return ew.mul(x, ew.reciprocal(ew.add(ew.mul(x, x), 1e-20)))


def _filled(dys, outputs):
    return [zeros_like(y) if d is None else d for d, y in zip(dys, outputs)]


# -- QR --------------------------------------------------------------------------------

def _qr_rule(inputs, attrs):
    *batch, m, n = matrices_rule(inputs[0])
    k = m if attrs["full_matrices"] else min(m, n)
    return [((*batch, m, k), float32), ((*batch, k, n), float32)]


def _r_solve(x, r):
    """x @ inverse(r)^T for upper triangular r."""
    return _t(triangular_solve(r, _t(x), lower=False))


def _qr_grad_deep(q, r, dq, dr):
    qdq = matmul(q, dq, adjoint_a=True)
    rdr = matmul(r, dr, adjoint_b=True)
    tril = band_part(ew.add(ew.sub(qdq, _t(qdq)), ew.sub(rdr, _t(rdr))), -1, 0)
    grad_a = matmul(q, ew.add(dr, _r_solve(tril, r)))
    return ew.add(grad_a, _r_solve(ew.sub(dq, matmul(q, qdq)), r))


def _qr_grad(dys, inputs, outputs, attrs):
    (q, r), (dq, dr) = outputs, _filled(dys, outputs)
    m, n = r.shape[-2:]
    if m > n and q.shape[-1] == q.shape[-2]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={list(r.shape)}")
    if q.shape[-2] >= n:
        return (_qr_grad_deep(q, r, dq, dr),)
    k = q.shape[-2]  # wide: a = [x, y], r = [u, v], reduced to the square case
    y, u = inputs[0][..., :, k:], r[..., :, :k]
    dv, du = dr[..., :, k:], dr[..., :, :k]
    dx = _qr_grad_deep(q, u, ew.add(dq, matmul(y, dv, adjoint_b=True)), du)
    return (concat([dx, matmul(q, dv)], axis=-1),)


_qr = def_op("qr", _qr_rule, grad=_qr_grad, num_outputs=2, host_only=True)


@export("linalg")
def qr(input, full_matrices=False, name=None):  # noqa: A002
    """The QR decomposition of each matrix [..., M, N]: a named tuple (q, r), q with
    orthonormal columns [..., M, P], r upper triangular [..., P, N], P = min(M, N)
    (P = M with full_matrices=True). Householder reflections (LAPACK), which give
    TensorFlow's signs.

    >>> [t.shape for t in tf.linalg.qr(tf.ones([3, 2]))]
    [TensorShape([3, 2]), TensorShape([2, 2])]
    """
    return Qr(*run_op(_qr, (as_array(input),), {"full_matrices": bool(full_matrices)}))


# -- SVD -------------------------------------------------------------------------------

def _svd_rule(inputs, attrs):
    *batch, m, n = matrices_rule(inputs[0])
    full, k = attrs["full_matrices"], min(m, n)
    return [((*batch, k), float32), ((*batch, m, m if full else k), float32),
            ((*batch, n, n if full else k), float32)]


def _singular_values_grad(ds, inputs, s, attrs):
    _, u, v = svd(inputs[0])
    return (matmul(u, matmul(diag(ds), v, adjoint_b=True)),)


def _svd_grad(dys, inputs, outputs, attrs):
    (s, u, v), (ds, du, dv) = outputs, _filled(dys, outputs)
    full = attrs["full_matrices"]
    m, n = inputs[0].shape[-2:]
    transposed = m > n  # the gradient of a^T = v s u^T, transposed at the end
    if transposed:
        m, n, u, v, du, dv = n, m, v, u, dv, du
    if full and n - m > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when "
                                  f"full_matrices is True. Received: m={m} and n={n}")
    s_mat, s2 = diag(s), ew.square(s)
    f = set_diag(_safe_reciprocal(ew.sub(expand_dims(s2, -2), expand_dims(s2, -1))),
                 zeros_like(s))
    v1, dv1 = v[..., :, :m], dv[..., :, :m]
    f_u = ew.mul(f, matmul(u, du, adjoint_a=True))
    f_v = ew.mul(f, matmul(v1, dv1, adjoint_a=True))
    middle = ew.add(ew.add(diag(ds), matmul(ew.add(f_u, _t(f_u)), s_mat)),
                    matmul(s_mat, ew.add(f_v, _t(f_v))))
    grad = matmul(u, matmul(middle, v1, adjoint_b=True))
    if m != n:
        dv1t = _t(dv1)
        rest = ew.sub(dv1t, matmul(matmul(dv1t, v1), v1, adjoint_b=True))
        if full:
            v2, dv2 = v[..., :, m:n], dv[..., :, m:n]
            rest = ew.sub(rest, matmul(matmul(v1, dv2, adjoint_a=True), v2, adjoint_b=True))
        u_s_inv = matmul(u, diag(_safe_reciprocal(s)))
        grad = ew.add(grad, matmul(u_s_inv, rest))
    return (_t(grad) if transposed else grad,)


_svd = def_op("svd", _svd_rule, grad=_svd_grad, num_outputs=3, host_only=True)


_singular_values = def_op("singular_values", lambda inputs, attrs: _svd_rule(
    inputs, {"full_matrices": False})[0], grad=_singular_values_grad, host_only=True)


@export("linalg")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """The singular values s [..., P] (descending, P = min(M, N)) of each matrix
    [..., M, N] and, with compute_uv, its singular vectors: (s, u, v) with
    tensor = u @ diag(s) @ v^T, u [..., M, P] and v [..., N, P] ([..., M, M] and
    [..., N, N] with full_matrices), TensorFlow's order. Vectors' signs may differ from
    TensorFlow's (they are determined up to sign).

    >>> tf.linalg.svd([[3.0, 0.0], [0.0, -4.0]], compute_uv=False).numpy().tolist()
    [4.0, 3.0]
    """
    x = as_array(tensor)
    if not compute_uv:
        return run_op(_singular_values, (x,))
    return tuple(run_op(_svd, (x,), {"full_matrices": bool(full_matrices)}))


# -- eigh ------------------------------------------------------------------------------

def _eig_rule(inputs, attrs):
    shape = square_rule(inputs[0])
    return [(shape[:-1], float32), (shape, float32)]


def _symmetric_lower(g):
    """The gradient toward a matrix only whose lower triangle is read."""
    return halve_diagonal(band_part(ew.add(g, _t(g)), -1, 0))


def _eig_grad(dys, inputs, outputs, attrs):
    (e, v), (de, dv) = outputs, _filled(dys, outputs)
    f = set_diag(_safe_reciprocal(ew.sub(expand_dims(e, -2), expand_dims(e, -1))),
                 zeros_like(e))
    inner = ew.add(diag(de), ew.mul(f, matmul(v, dv, adjoint_a=True)))
    return (_symmetric_lower(matmul(v, matmul(inner, v, adjoint_b=True))),)


def _eigvals_grad(de, inputs, e, attrs):
    _, v = eigh(inputs[0])
    return (_symmetric_lower(matmul(v, matmul(diag(de), v, adjoint_b=True))),)


_eig = def_op("self_adjoint_eig", _eig_rule, grad=_eig_grad, num_outputs=2, host_only=True)


_eigvals = def_op("self_adjoint_eigvals", lambda inputs, attrs: _eig_rule(inputs, attrs)[0],
                  grad=_eigvals_grad, host_only=True)


@export("linalg")
def eigh(tensor, name=None):
    """The eigenvalues (ascending) and eigenvectors of each self-adjoint matrix, reading
    its lower triangle: (e [..., N], v [..., N, N]) with tensor @ v = v * e.
    Eigenvectors' signs may differ from TensorFlow's.

    >>> tf.linalg.eigh([[2.0, 0.0], [0.0, 1.0]])[0].numpy().tolist()
    [1.0, 2.0]
    """
    return tuple(run_op(_eig, (as_array(tensor),)))


@export("linalg")
def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of each self-adjoint matrix, reading its lower
    triangle: [..., N].

    >>> tf.linalg.eigvalsh([[2.0, 1.0], [1.0, 2.0]]).numpy().round(4).tolist()
    [1.0, 3.0]
    """
    return run_op(_eigvals, (as_array(tensor),))


# -- composed of the SVD ---------------------------------------------------------------

def _float_matrices(a):
    a = as_array(a)
    if a.dtype != float32:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype}).")
    if len(a.shape) < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {len(a.shape)}).")
    return a


_EPS = float(np.finfo(np.float32).eps)


@export("linalg")
def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse of each matrix [..., M, N]: [..., N, M], from its
    SVD with singular values at most rcond * max(s) dropped (rcond default
    10 * max(M, N) * float32's eps), TensorFlow's formula and gradient.

    >>> tf.linalg.pinv([[2.0, 0.0], [0.0, 0.0]]).numpy().tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    a = _float_matrices(a)
    if rcond is None:
        rcond = 10.0 * max(a.shape[-2:]) * _EPS
    s, u, v = svd(a)
    cutoff = ew.mul(rcond, rd.max(s, axis=-1, keepdims=True))
    s = ew.where(ew.greater(s, cutoff), s, np.float32(np.inf))
    return matmul(ew.div(v, expand_dims(s, -2)), u, adjoint_b=True)


@export("linalg")
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values of each matrix above `tol` (default
    max(s) * max(M, N) * float32's eps): int32 [...].

    >>> tf.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]]).numpy().tolist()
    1
    """
    a = _float_matrices(a)
    s = svd(a, compute_uv=False)
    if tol is None:
        tol = ew.mul(_EPS * max(a.shape[-2:]), rd.max(s, axis=-1, keepdims=True))
    return rd.sum(ew.cast(ew.greater(s, tol), int32), axis=-1)
