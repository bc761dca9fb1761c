"""tf.linalg's determinants, inverses and solvers, as TensorFlow 2.21's: det, slogdet, inv,
solve, triangular_solve and cholesky are host-only ops (GPU kernels have no LAPACK): on
every backend numpy computes them on the host in float64 (backends/numpy/solve.py) and
rounds to float32; inside tf.function a trace records them and each replay computes them
again from that call's values. Their gradients are TensorFlow's formulas (linalg_grad.py)
written with texflow's ops. logdet, cholesky_solve and lstsq (fast=True) are composed of
those, as TensorFlow composes them; lstsq's fast=False is a host-only op of its own, with
no gradient, as TensorFlow's. QR, SVD and eigh: ops/decomp.py."""

from collections import namedtuple

import numpy as np

from ..dtypes import float32
from ..engine.ndarray import as_array
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..errors import InvalidArgumentError
from . import elementwise as ew
from . import reduce as rd
from .creation import eye, zeros, zeros_like
from .grad_util import unbroadcast
from .matmul import matmul
from .matrix import band_part, diag_part, matrix_transpose, set_diag
from .movement import reshape

LogMatrixDeterminant = namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


# -- shape and dtype rules: TensorFlow's kernels' checks and messages ------------------

def _float(x, index=0):
    if x.dtype != float32:
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype} is not in the list of "
                                   f"allowed values: half, float, double, complex64, "
                                   f"complex128 (input {index} of shape {list(x.shape)})")


def matrices_rule(x, index=0):
    """The shape of float32 matrices `x` (input `index` of an op), or TensorFlow's error."""
    _float(x, index)
    if len(x.shape) < 2:
        raise InvalidArgumentError(f"Input tensor {index} must have rank >= 2, got "
                                   f"{len(x.shape)}")
    return tuple(x.shape)


def square_rule(x):
    """The shape of float32 square matrices `x`, or TensorFlow's error."""
    shape = matrices_rule(x)
    if shape[-1] != shape[-2]:
        raise InvalidArgumentError(f"Input matrix must be square. Received shape "
                                   f"{list(shape)}")
    return shape


def _batch_of(inputs, attrs):
    return square_rule(inputs[0])[:-2], float32


def _same_square(inputs, attrs):
    return square_rule(inputs[0]), float32


# -- gradient helpers ------------------------------------------------------------------

def _per_matrix(v):
    """[...] -> [..., 1, 1], to scale whole matrices."""
    return reshape(v, tuple(v.shape) + (1, 1))


def halve_diagonal(x):
    """`x` with its diagonal halved (gradients toward symmetric matrices)."""
    if x.shape[-1] == 0:
        return x
    return set_diag(x, ew.mul(diag_part(x), 0.5))


# -- determinants ----------------------------------------------------------------------

def _det_grad(dy, inputs, y, attrs):
    return (ew.mul(_per_matrix(ew.mul(dy, y)), inv(inputs[0], adjoint=True)),)


_det = def_op("matrix_determinant", _batch_of, grad=_det_grad, host_only=True)


@export("linalg")
def det(input, name=None):  # noqa: A002  (TensorFlow's argument name)
    """The determinant of each square matrix of `input` [..., M, M]: [...] (LU on the
    host; a singular matrix gives 0).

    >>> round(float(tf.linalg.det([[1.0, 2.0], [3.0, 4.0]])), 4)
    -2.0
    """
    return run_op(_det, (as_array(input),))


def _slogdet_grad(dys, inputs, outputs, attrs):
    if dys[1] is None:
        return (zeros_like(inputs[0]),)
    return (ew.mul(_per_matrix(dys[1]), inv(inputs[0], adjoint=True)),)


_slogdet = def_op("log_matrix_determinant",
                  lambda inputs, attrs: [_batch_of(inputs, attrs)] * 2,
                  grad=_slogdet_grad, num_outputs=2, host_only=True)


@export("linalg")
def slogdet(input, name=None):  # noqa: A002
    """The sign and the log of the absolute value of each determinant: a named tuple
    (sign, log_abs_determinant), each [...] (a singular matrix: 0 and -inf).

    >>> [round(float(t), 4) for t in tf.linalg.slogdet([[0.0, 2.0], [3.0, 0.0]])]
    [-1.0, 1.7918]
    """
    return LogMatrixDeterminant(*run_op(_slogdet, (as_array(input),)))


@export("linalg")
def logdet(matrix, name=None):
    """The log of the determinant of each Hermitian positive definite matrix:
    2 * sum(log(diag(cholesky(matrix)))), TensorFlow's formula (NaN where the matrix is
    not positive definite).

    >>> round(float(tf.linalg.logdet([[4.0, 0.0], [0.0, 9.0]])), 4)
    3.5835
    """
    chol = cholesky(matrix)
    if chol.shape[-1] == 0:
        return zeros(chol.shape[:-2])
    return ew.mul(rd.sum(ew.log(diag_part(chol)), axis=-1), 2.0)


# -- inverse and solves ----------------------------------------------------------------

def _inv_grad(dy, inputs, ainv, attrs):
    adj = attrs["adjoint"]
    inner = matmul(dy, ainv, adjoint_a=adj, adjoint_b=not adj)
    return (ew.neg(matmul(ainv, inner, adjoint_a=not adj)),)


_inv = def_op("matrix_inverse", _same_square, grad=_inv_grad, host_only=True)


@export("linalg")
def inv(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each square matrix of `input` (of its adjoint with adjoint=True);
    a matrix with a zero pivot (singular) or NaN raises InvalidArgumentError, as
    TensorFlow's CPU kernel.

    >>> tf.linalg.inv([[2.0, 0.0], [0.0, 4.0]]).numpy().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return run_op(_inv, (as_array(input),), {"adjoint": bool(adjoint)})


def _solve_rule(inputs, attrs, square=True):
    """MatrixSolve's checks (MatrixSolveLs's with square=False: any [..., M, N])."""
    a, b = inputs
    a_shape, b_shape = matrices_rule(a), tuple(b.shape)
    if len(b_shape) != len(a_shape):
        raise InvalidArgumentError(f"All input tensors must have the same rank. Received "
                                   f"{list(a_shape)} and {list(b_shape)}")
    _float(b, 1)
    if a_shape[:-2] != b_shape[:-2]:
        raise InvalidArgumentError(f"All input tensors must have the same outer dimensions. "
                                   f"Received {list(a_shape)} and {list(b_shape)}")
    if square and a_shape[-1] != a_shape[-2]:
        raise InvalidArgumentError(f"First input (lhs) must be a square matrix. Received "
                                   f"{list(a_shape)}")
    if b_shape[-2] != a_shape[-2]:
        raise InvalidArgumentError(f"Input matrix and rhs are incompatible. Received "
                                   f"{list(a_shape)} and {list(b_shape)}")
    return a_shape[:-2] + (a_shape[-1], b_shape[-1]), float32


def _solve_grad(dy, inputs, c, attrs):
    adj = attrs["adjoint"]
    grad_b = solve(inputs[0], dy, adjoint=not adj)
    grad_a = matmul(c, grad_b, adjoint_b=True) if adj else matmul(grad_b, c, adjoint_b=True)
    return ew.neg(grad_a), grad_b


_solve = def_op("matrix_solve", _solve_rule, grad=_solve_grad, host_only=True)


@export("linalg")
def solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs (adjoint(matrix) @ X with adjoint=True), per matrix of a
    batch: matrix [..., M, M], rhs [..., M, K] with the same batch dimensions (no
    broadcasting, as TensorFlow's MatrixSolve). A singular matrix raises.

    >>> tf.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [[2.0], [2.0]]).numpy().tolist()
    [[1.0], [0.5]]
    """
    return run_op(_solve, (as_array(matrix), as_array(rhs)), {"adjoint": bool(adjoint)})


def _triangular_rule(inputs, attrs):
    a, b = inputs
    for i, x in enumerate(inputs):
        if len(x.shape) < 2:
            raise InvalidArgumentError(f"In[{i}] ndims must be >= 2: {len(x.shape)}")
    if a.dtype != b.dtype:
        raise InvalidArgumentError(f"cannot compute MatrixTriangularSolve as input "
                                   f"#1(zero-based) was expected to be a {a.dtype} tensor "
                                   f"but is a {b.dtype} tensor")
    _float(a)
    a_shape, b_shape = tuple(a.shape), tuple(b.shape)
    try:
        batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    except ValueError:
        raise InvalidArgumentError(f"In[0] and In[1] must have compatible batch dimensions: "
                                   f"[{','.join(map(str, a_shape))}] vs. "
                                   f"[{','.join(map(str, b_shape))}]") from None
    if a_shape[-1] != a_shape[-2]:
        raise InvalidArgumentError(f"In[0] matrices in the last dimensions must be square "
                                   f"({a_shape[-1]} =/= {a_shape[-2]})")
    if a_shape[-1] != b_shape[-2]:
        raise InvalidArgumentError(
            f"In[0] mismatch In[1] shape: {a_shape[-1]} vs. {b_shape[-2]}: "
            f"[{','.join(map(str, a_shape))}] [{','.join(map(str, b_shape))}] "
            f"{int(attrs['lower'])} {int(attrs['adjoint'])}")
    return tuple(batch) + b_shape[-2:], float32


def _triangular_grad(dy, inputs, c, attrs):
    a, b = inputs
    lower, adj = attrs["lower"], attrs["adjoint"]
    grad_b = triangular_solve(a, dy, lower=lower, adjoint=not adj)
    grad_a = matmul(c, grad_b, adjoint_b=True) if adj else matmul(grad_b, c, adjoint_b=True)
    grad_a = band_part(ew.neg(grad_a), -1, 0) if lower else band_part(ew.neg(grad_a), 0, -1)
    return unbroadcast(grad_a, a.shape), unbroadcast(grad_b, b.shape)


_triangular = def_op("matrix_triangular_solve", _triangular_rule, grad=_triangular_grad,
                     host_only=True)


@export("linalg")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix @ X = rhs for triangular matrices (the lower triangle is read with
    lower=True, the upper one otherwise; the other is ignored); batch dimensions
    broadcast. A zero on the diagonal gives infinities or NaN, as in TensorFlow.

    >>> tf.linalg.triangular_solve([[2.0, 0.0], [1.0, 1.0]], [[2.0], [2.0]]).numpy().tolist()
    [[1.0], [1.0]]
    """
    return run_op(_triangular, (as_array(matrix), as_array(rhs)),
                  {"lower": bool(lower), "adjoint": bool(adjoint)})


# -- Cholesky and least squares --------------------------------------------------------

def _cholesky_grad(dy, inputs, chol, attrs):
    n = chol.shape[-1]
    l_inverse = triangular_solve(chol, eye(n, batch_shape=chol.shape[:-2]))
    middle = band_part(halve_diagonal(matmul(chol, dy, adjoint_a=True)), -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    return (ew.mul(ew.add(grad_a, matrix_transpose(grad_a)), 0.5),)


_cholesky = def_op("cholesky", _same_square, grad=_cholesky_grad, host_only=True)


@export("linalg")
def cholesky(input, name=None):  # noqa: A002
    """The lower triangular L with L @ L^T = input for each symmetric positive definite
    matrix (only its lower triangle is read). A matrix that is not positive definite
    gives NaN on and below the diagonal, as TensorFlow's CPU kernel (no error).

    >>> tf.linalg.cholesky([[4.0, 2.0], [2.0, 2.0]]).numpy().tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    return run_op(_cholesky, (as_array(input),))


@export("linalg")
def cholesky_solve(chol, rhs, name=None):
    """X with A @ X = rhs, given chol = cholesky(A): two triangular solves.

    >>> tf.linalg.cholesky_solve([[2.0, 0.0], [0.0, 1.0]], [[4.0], [1.0]]).numpy().tolist()
    [[1.0], [1.0]]
    """
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


def _no_gradient(dy, inputs, y, attrs):
    raise ValueError("Gradient not defined for fast=False")


_solve_ls = def_op("matrix_solve_ls", lambda inputs, attrs: _solve_rule(inputs, attrs, False),
                   grad=_no_gradient, host_only=True)


@export("linalg")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solutions X of matrix @ X = rhs (matrix [..., M, N], rhs
    [..., M, K]), minimizing ||matrix @ X - rhs||^2 + l2_regularizer * ||X||^2.
    fast=True: TensorFlow's Cholesky factors of the regularized normal equations (M >= N)
    or of matrix @ matrix^T (M < N: the minimum-norm solution), with their gradients.
    fast=False: the minimum-norm solution for any rank (l2_regularizer ignored, no
    gradient, as TensorFlow's), from the SVD on the host.

    >>> tf.linalg.lstsq([[1.0], [1.0]], [[1.0], [3.0]]).numpy().tolist()
    [[2.0]]
    """
    a, b = as_array(matrix), as_array(rhs)
    if not fast:
        return run_op(_solve_ls, (a, b))
    if len(a.shape) < 2:
        raise InvalidArgumentError(f"lstsq: matrix must have rank >= 2, received shape "
                                   f"{list(a.shape)}")
    m, n = a.shape[-2:]
    deep = m >= n
    gram = matmul(a, a, adjoint_a=deep, adjoint_b=not deep)
    if not isinstance(l2_regularizer, (int, float)) or l2_regularizer != 0:
        small = n if deep else m
        gram = ew.add(gram, ew.mul(l2_regularizer, eye(small, batch_shape=a.shape[:-2])))
    chol = cholesky(gram)
    if deep:
        return cholesky_solve(chol, matmul(a, b, adjoint_a=True))
    return matmul(a, cholesky_solve(chol, b), adjoint_a=True)
