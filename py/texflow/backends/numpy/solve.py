"""numpy kernels of tf.linalg's determinants, inverses and solvers (ops/solve.py). They are
host-only ops: every backend runs these on the host, in float64 with numpy's LAPACK, and
rounds the results to float32."""

import numpy as np

from ...errors import InvalidArgumentError
from ..base import kernel

_last = [None]  # ((op, attrs, shape, input bytes), outputs) of a multi-output call


def once(name, x, attrs, compute, output_index):
    """Output `output_index` of compute(x in float64) for op `name` with `attrs`. An op of
    several outputs is called once per output, in order (engine/run.py `_run_on_host`):
    the factorization made for the first is kept until the last has been taken."""
    key = (name, attrs, x.shape, x.tobytes())
    if _last[0] is None or _last[0][0] != key:
        _last[0] = (key, compute(np.asarray(x, np.float64)))
    outputs = _last[0][1]
    if output_index == len(outputs) - 1:
        _last[0] = None
    return outputs[output_index]


def _swap(x):
    return np.swapaxes(x, -1, -2)


def _invertible(a, message):
    """TensorFlow's inverse and solve refuse an LU factorization with a zero (or NaN)
    pivot. slogdet's sign is 0 exactly for a zero pivot of LAPACK's LU; numpy's own
    LinAlgError cannot be relied on: it comes from floating-point status flags, which
    WebAssembly lacks (in Pyodide a singular matrix gives NaN and no error)."""
    if np.isnan(a).any() or (np.linalg.slogdet(a)[0] == 0).any():
        raise InvalidArgumentError(message)


def _slogdet(a):
    """numpy's slogdet, NaN for a matrix holding NaN (as TensorFlow's LU gives; LAPACK's
    pivot search skips NaN and may report a zero pivot)."""
    with np.errstate(invalid="ignore"):
        sign, log_abs = np.linalg.slogdet(a)
    nan = np.isnan(a).any(axis=(-2, -1))
    return np.where(nan, np.nan, sign), np.where(nan, np.nan, log_abs)


@kernel("matrix_determinant", "numpy")
def matrix_determinant(k, x):
    a = np.asarray(x, np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(a).any(axis=(-2, -1)), np.nan, np.linalg.det(a))


@kernel("log_matrix_determinant", "numpy")
def log_matrix_determinant(k, x, output_index):
    return once("slogdet", x, (), _slogdet, output_index)


@kernel("matrix_inverse", "numpy")
def matrix_inverse(k, x, adjoint):
    a = np.asarray(x, np.float64)
    _invertible(a, "Input is not invertible.")
    inverse = np.linalg.inv(a)
    return _swap(inverse) if adjoint else inverse


@kernel("matrix_solve", "numpy")
def matrix_solve(k, a, b, adjoint):
    a = np.asarray(a, np.float64)
    _invertible(a, "Input matrix is not invertible.")
    return np.linalg.solve(_swap(a) if adjoint else a, np.asarray(b, np.float64))


@kernel("matrix_triangular_solve", "numpy")
def matrix_triangular_solve(k, a, b, lower, adjoint):
    """Forward (backward) substitution, one row at a time over the whole batch: a zero
    on the diagonal gives infinities and NaNs, as TensorFlow's, not an error."""
    batch = tuple(k.out_shape[:-2])
    t = np.asarray(a, np.float64)
    t = np.broadcast_to(np.tril(t) if lower else np.triu(t), batch + t.shape[-2:])
    b = np.broadcast_to(np.asarray(b, np.float64), batch + b.shape[-2:])
    if adjoint:
        t, lower = _swap(t), not lower
    n = t.shape[-1]
    x = np.zeros(batch + b.shape[-2:])
    with np.errstate(all="ignore"):
        for i in range(n) if lower else range(n - 1, -1, -1):
            done = slice(0, i) if lower else slice(i + 1, n)
            known = (t[..., i:i + 1, done] @ x[..., done, :])[..., 0, :]
            x[..., i, :] = (b[..., i, :] - known) / t[..., i, i:i + 1]
    return x


@kernel("cholesky", "numpy")
def cholesky(k, x):
    """The lower factor, reading the lower triangle only; a matrix that is not positive
    definite gives NaN on and below the diagonal and 0 above (TensorFlow's CPU kernel),
    not an error. numpy fills such a matrix with NaN and raises natively (one failure
    fails the batch: then each matrix alone), not in Pyodide (no floating-point flags)."""
    a = np.asarray(x, np.float64)
    try:
        factor = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        factor = np.empty_like(a)
        flat = factor.reshape((-1,) + a.shape[-2:])
        for i, matrix in enumerate(a.reshape(flat.shape)):
            try:
                flat[i] = np.linalg.cholesky(matrix)
            except np.linalg.LinAlgError:
                flat[i] = np.nan
    return np.where(np.tri(a.shape[-1], dtype=bool), factor, 0.0)
