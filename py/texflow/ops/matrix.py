"""tf.linalg's matrix helpers, composed from texflow's ops (so every backend runs them,
tf.function fuses them and their gradients are those of the ops): matrix_transpose and
adjoint, matvec, diag_part, diag, set_diag (one diagonal `k`, as an int: TensorFlow's
(lower, upper) bands raise NotImplementedError), trace, band_part and tensor_diag, with
TensorFlow 2.21's shapes, values (+0 off the diagonal or band) and errors."""

import numpy as np

from ..engine.ndarray import NDArray, as_array, from_numpy
from ..engine.registry import export
from ..errors import InvalidArgumentError
from . import elementwise as ew
from . import reduce as rd
from .matmul import matmul
from .movement import expand_dims, pad, reshape, squeeze, transpose


def _matrices(x, op):
    x = as_array(x)
    if len(x.shape) < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  "
                         f"Received `a` of shape {list(x.shape)} ({op})")
    return x


def _offset(k, op):
    if isinstance(k, (list, tuple, np.ndarray)) or isinstance(k, NDArray):
        raise NotImplementedError(f"{op}: a band of diagonals k=(lower, upper) is not "
                                  f"supported, only one diagonal (an int), received {k!r}")
    return int(k)


def _mask(rows, cols, k):
    return from_numpy(np.eye(rows, cols, k, dtype=bool))


def _zero(x):
    return from_numpy(np.zeros((), x.dtype.as_numpy_dtype))


@export("linalg")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """`a` with its last two axes swapped (real tensors: conjugate changes nothing)."""
    a = _matrices(a, "matrix_transpose")
    rank = len(a.shape)
    return transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2])


@export("linalg")
def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes (the transpose for real tensors)."""
    return matrix_transpose(matrix)


@export("linalg")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """Matrices `a` [..., M, N] times vectors `b` [..., N]: [..., M]."""
    a, b = _matrices(a, "matvec"), as_array(b)
    return squeeze(matmul(a, expand_dims(b, -1), transpose_a=transpose_a or adjoint_a), -1)


@export("linalg")
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):
    """Diagonal `k` (0: the main one, > 0 above it) of each matrix of `input` [..., M, N]."""
    k = _offset(k, "diag_part")
    x = _matrices(input, "diag_part")
    m, n = x.shape[-2:]
    length = min(m + min(k, 0), n - max(k, 0))
    if length <= 0:
        raise InvalidArgumentError(f"diag_part: diagonal {k} lies outside a {m}x{n} matrix")
    on = ew.where(_mask(m, n, k), x, _zero(x))
    if k >= 0:  # row i holds element (i, i + k)
        return rd.sum(on[..., :length, :], axis=-1)
    return rd.sum(on[..., :, :length], axis=-2)  # column j holds element (j - k, j)


@export("linalg")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    """Matrices with `diagonal` [..., L] on diagonal `k` and `padding_value` elsewhere:
    [..., L + |k|, L + |k|] unless num_rows / num_cols say otherwise."""
    k = _offset(k, "diag")
    v = as_array(diagonal)
    if len(v.shape) < 1:
        raise ValueError(f"diag: diagonal must be at least 1-D, received shape {list(v.shape)}")
    size = v.shape[-1]
    rows = size + abs(k) if num_rows in (-1, None) else int(num_rows)
    cols = size + abs(k) if num_cols in (-1, None) else int(num_cols)
    if min(rows + min(k, 0), cols - max(k, 0)) != size:
        raise InvalidArgumentError(f"diag: diagonal {k} of a {rows}x{cols} matrix does not "
                                   f"hold {size} elements")
    lead = [[0, 0]] * (len(v.shape) - 1)
    if k >= 0:  # row i holds v[i] (at column i + k): v down the rows
        along = pad(expand_dims(v, -1), lead + [[0, rows - size], [0, 0]])
    else:       # column j holds v[j] (at row j - k): v along the columns
        along = pad(expand_dims(v, -2), lead + [[0, 0], [0, cols - size]])
    fill = from_numpy(np.asarray(padding_value, v.dtype.as_numpy_dtype))
    return ew.where(_mask(rows, cols, k), along, fill)


@export("linalg")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """`input` [..., M, N] with diagonal `k` replaced by `diagonal`."""
    k = _offset(k, "set_diag")
    x, v = _matrices(input, "set_diag"), as_array(diagonal)
    m, n = x.shape[-2:]
    length = min(m + min(k, 0), n - max(k, 0))
    if tuple(v.shape) != tuple(x.shape[:-2]) + (length,):
        raise InvalidArgumentError(
            f"set_diag: diagonal of shape {list(v.shape)} does not fit input of shape "
            f"{list(x.shape)}: expected {list(x.shape[:-2]) + [length]}")
    return ew.where(_mask(m, n, k), diag(v, k=k, num_rows=m, num_cols=n), x)


@export("linalg")
def trace(x, name=None):
    """The sum of each matrix's main diagonal: [...]."""
    return rd.sum(diag_part(x), axis=-1)


@export("linalg")
def band_part(input, num_lower, num_upper, name=None):
    """`input` with everything outside the band of `num_lower` subdiagonals and
    `num_upper` superdiagonals (negative: all of them) set to zero."""
    x = _matrices(input, "band_part")
    m, n = x.shape[-2:]
    lower, upper = int(num_lower), int(num_upper)
    if lower > m:
        raise InvalidArgumentError(f"num_lower must be negative or less or equal to number "
                                   f"of rows ({m}) got: {lower}")
    if upper > n:
        raise InvalidArgumentError(f"num_upper must be negative or less or equal to number "
                                   f"of columns ({n}) got: {upper}")
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return ew.where(from_numpy(keep), x, _zero(x))


@export("linalg")
def tensor_diag(diagonal, name=None):
    """A tensor of shape diagonal.shape + diagonal.shape with `diagonal` on its diagonal."""
    v = as_array(diagonal)
    size = int(np.prod(v.shape, dtype=np.int64))
    return reshape(diag(reshape(v, [size])), list(v.shape) * 2)
