"""tf.linalg's matrix helpers, composed from texflow's ops (so every backend runs them,
tf.function fuses them and their gradients are those of the ops): matrix_transpose and
adjoint, matvec, diag_part, diag, set_diag (one diagonal `k` or a band k=(lower, upper),
each diagonal padded to the longest's length as `align` says), trace, band_part and
tensor_diag, with TensorFlow 2.21's shapes, values (+0 off the diagonal or band) and
errors. The diagonal ops are gathers at indices worked out on the host, and `where`."""

import numpy as np

from ..engine.ndarray import NDArray, as_array, from_numpy
from ..engine.registry import export
from ..errors import InvalidArgumentError
from . import elementwise as ew
from . import reduce as rd
from .index_checks import values_for_shape
from .matmul import matmul
from .movement import expand_dims, gather, reshape, squeeze, transpose

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _matrices(x, op):
    x = as_array(x)
    if len(x.shape) < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  "
                         f"Received `a` of shape {list(x.shape)} ({op})")
    return x


def _band(k, align, op):
    """(lower, upper) of `k` (an int, or one or two of them), `align` checked."""
    if align not in _ALIGNS:
        raise InvalidArgumentError(f"Value for attr 'align' of \"{align}\" is not in the "
                                   "list of allowed values: " +
                                   ", ".join(f'"{a}"' for a in _ALIGNS))
    values = values_for_shape(k, op) if isinstance(k, NDArray) else np.asarray(k)
    if values.dtype.kind not in "iu":
        raise TypeError(f"Cannot convert {k!r} to EagerTensor of dtype int32")
    values = values.reshape(-1).tolist()
    if len(values) not in (1, 2):
        raise InvalidArgumentError(f"diag_index must have only one or two elements, "
                                   f"received {len(values)} elements.")
    return values[0], values[-1]


def _check_bounds(lower, upper, m, n, stop):
    """TensorFlow's bounds: each of `lower` <= `upper` a diagonal of an m x n matrix
    (`stop` ends the out-of-bound message: diag_part's has a period, set_diag's not)."""
    for name, d in (("lower", lower), ("upper", upper)):
        if not (-m < d < n or d == 0):
            end = stop if name == "lower" else ""
            raise InvalidArgumentError(f"{name}_diag_index is out of bound: {d}{end} It must "
                                       f"be between {-m} and {n}")
    _check_order(lower, upper)


def _check_order(lower, upper):
    if lower > upper:
        raise InvalidArgumentError(f"lower_diag_index must not be larger than "
                                   f"upper_diag_index: {lower} > {upper}")


def _longest(m, n, lower, upper):
    return max(min(m + min(upper, 0), n - max(lower, 0)), 0)


def _slots(m, n, lower, upper, align):
    """Where each element of diagonals `upper` down to `lower` of an m x n matrix goes in
    TensorFlow's [diagonals, longest] layout: [m, n] slot numbers (-1 off the band). A
    shorter diagonal is padded: superdiagonals (and the main one) at the side `align`
    names first, subdiagonals at the side it names second."""
    longest = _longest(m, n, lower, upper)
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    d = j - i
    size = np.minimum(m + np.minimum(d, 0), n - np.maximum(d, 0))
    first, second = align.split("_")
    right = np.where(d >= 0, first == "RIGHT", second == "RIGHT")
    slot = (upper - d) * longest + np.minimum(i, j) + np.where(right, longest - size, 0)
    return np.where((d >= lower) & (d <= upper), slot, -1).astype(np.int32), longest


def _take(x, index, shape):
    """x's last axis gathered at host `index` (-1: any element), reshaped to x.shape[:-1] +
    `shape`."""
    lead = list(x.shape[:-1])
    if not x.shape[-1] or not index.size:  # nothing to read
        from .creation import zeros
        return zeros(lead + list(shape), x.dtype)
    return reshape(gather(x, from_numpy(np.maximum(index, 0).reshape(-1)), axis=-1),
                   lead + list(shape))


def _fill(x, value):
    return from_numpy(np.asarray(value, x.dtype.as_numpy_dtype))


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
    """Diagonal `k` (0: the main one, > 0 above it) of each matrix of `input` [..., M, N]:
    [..., L]; or the band k=(lower, upper): [..., upper - lower + 1, L], diagonals from
    `upper` down, each padded with `padding_value` to the longest's length L as `align`
    says ("RIGHT_LEFT": superdiagonals to the right, subdiagonals to the left).

    >>> tf.linalg.diag_part(tf.reshape(tf.range(1, 10), [3, 3]), k=(-1, 1)).numpy().tolist()
    [[0, 2, 6], [1, 5, 9], [4, 8, 0]]
    """
    lower, upper = _band(k, align, "tf.linalg.diag_part")
    x = _matrices(input, "diag_part")
    m, n = x.shape[-2:]
    _check_bounds(lower, upper, m, n, ".")
    slots, longest = _slots(m, n, lower, upper, align)
    count = upper - lower + 1
    index = np.full(count * longest, -1, np.int32)
    on = slots >= 0
    index[slots[on]] = (np.arange(m)[:, None] * n + np.arange(n)[None, :])[on]
    shape = [longest] if lower == upper else [count, longest]
    flat = reshape(x, list(x.shape[:-2]) + [m * n])
    taken = _take(flat, index, shape)
    if (index >= 0).all():
        return taken
    return ew.where(from_numpy((index >= 0).reshape(shape)), taken, _fill(x, padding_value))


@export("linalg")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    """Matrices with `diagonal` [..., L] on diagonal `k` and `padding_value` elsewhere:
    [..., L + |k|, L + |k|] unless num_rows / num_cols say otherwise; or with the band
    k=(lower, upper) from `diagonal` [..., upper - lower + 1, L] (laid out as diag_part
    gives it).

    >>> tf.linalg.diag([[1, 2], [3, 4]], k=(0, 1)).numpy().tolist()
    [[3, 2], [0, 4]]
    """
    lower, upper = _band(k, align, "tf.linalg.diag")
    v = as_array(diagonal)
    if len(v.shape) < 1:
        raise ValueError(f"diag: diagonal must be at least 1-D, received shape {list(v.shape)}")
    _check_order(lower, upper)
    count = upper - lower + 1
    if lower != upper and (len(v.shape) < 2 or v.shape[-2] != count):
        raise InvalidArgumentError("The number of diagonals provided in the input does not "
                                   "match the lower_diag_index and upper_diag_index range.")
    longest = v.shape[-1]
    min_rows, min_cols = longest - min(upper, 0), longest + max(lower, 0)
    rows = -1 if num_rows is None else int(num_rows)
    cols = -1 if num_cols is None else int(num_cols)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    rows = min_rows if rows == -1 else rows
    cols = min_cols if cols == -1 else cols
    if rows < min_rows:
        raise InvalidArgumentError("The number of rows is too small.")
    if cols < min_cols:
        raise InvalidArgumentError("The number of columns is too small.")
    if rows != min_rows and cols != min_cols:
        raise InvalidArgumentError("The number of rows or columns is not consistent with the "
                                   "specified d_lower, d_upper, and diagonal.")
    return _diag_matrices(v, lower, upper, rows, cols, align, _fill(v, padding_value))


def _diag_matrices(v, lower, upper, rows, cols, align, fill):
    """[..., rows, cols] matrices with the band of `v` (diag's layout) and `fill` off it."""
    slots, _ = _slots(rows, cols, lower, upper, align)
    lead = list(v.shape[:-1]) if lower == upper else list(v.shape[:-2])
    flat = reshape(v, lead + [int(np.prod(v.shape[len(lead):], dtype=np.int64))])
    taken = _take(flat, slots.reshape(-1), [rows, cols])
    return ew.where(from_numpy(slots >= 0), taken, fill)


@export("linalg")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """`input` [..., M, N] with diagonal `k`, or the band k=(lower, upper), replaced by
    `diagonal` (laid out as diag_part gives it).

    >>> tf.linalg.set_diag(tf.zeros([2, 3], tf.int32), [5, 6], k=1).numpy().tolist()
    [[0, 5, 0], [0, 0, 6]]
    """
    lower, upper = _band(k, align, "tf.linalg.set_diag")
    x, v = _matrices(input, "set_diag"), as_array(diagonal)
    m, n = x.shape[-2:]
    _check_bounds(lower, upper, m, n, "")
    longest = _longest(m, n, lower, upper)
    want = list(x.shape[:-2]) + ([] if lower == upper else [upper - lower + 1]) + [longest]
    if list(v.shape) != want:
        dims = ",".join
        raise InvalidArgumentError(
            "Either first dimensions of diagonal don't match input.shape[:-2], or "
            "diagonal.shape[:-1] is not equal to the longests diagonal in range "
            f"[lower_diag_index:upper_diag_index].\nInput shape: [{dims(map(str, x.shape))}]"
            f"\nDiagonal shape: [{dims(map(str, v.shape))}]\nExpected diagonal shape: "
            f"[{dims(map(str, want))}]")
    return _diag_matrices(v, lower, upper, m, n, align, x)


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
