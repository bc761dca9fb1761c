"""TensorFlow names a first script reaches for, made of texflow's own ops (no kernels of
their own, so they run and differentiate on every backend): tf.roll, tf.repeat,
tf.sequence_mask, tf.meshgrid, tf.ensure_shape, tf.math.is_inf, tf.math.count_nonzero,
tf.math.confusion_matrix, tf.nn.selu, tf.nn.embedding_lookup.

Index arrays (a roll's or repeat's source positions, a mask's lengths) are made on the
host from values the caller passes, as TensorFlow's shape-determining inputs are."""

import numpy as np

from .. import dtypes
from ..dtypes import int32
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import export
from ..errors import InvalidArgumentError
from ..tensor_shape import TensorShape
from . import elementwise as ew
from .array_ops import gather_nd
from .declare import FLOAT, expect_dtype
from .index_checks import check_gather, values_for_shape
from .linalg import clip_by_norm
from .movement import (broadcast_to, expand_dims, gather, reshape, transpose,
                       unsorted_segment_sum)
from .reduce import max as reduce_max
from .reduce import sum as reduce_sum


def _tensor(x):
    return x if isinstance(x, NDArray) else from_numpy(to_numpy(x))


def _host_ints(x, what):
    """`x` (a number, list or tensor) as a numpy int array read on the host."""
    values = np.asarray(x.numpy() if isinstance(x, NDArray) else x)
    if values.dtype.kind not in "iu":
        raise InvalidArgumentError(f"{what} must be integers, received {values.dtype} "
                                   f"values {values.tolist()}")
    return values.astype(np.int64)


def _positions(indices):
    return from_numpy(np.ascontiguousarray(indices, np.int32))


@export("tf")
def roll(input, shift, axis, name=None):  # noqa: A002  (TensorFlow's argument names)
    """The elements of `input` shifted by `shift` places along `axis`, wrapping around
    (tf.roll); `shift` and `axis` may be lists (a repeated axis adds its shifts).

    >>> tf.roll(tf.range(5), 2, 0).numpy().tolist()
    [3, 4, 0, 1, 2]
    """
    x = _tensor(input)
    shifts, axes = _host_ints(shift, "roll: shift"), _host_ints(axis, "roll: axis")
    if shifts.shape != axes.shape or shifts.ndim > 1:
        raise InvalidArgumentError(f"roll: shift and axis must be scalars or 1-D of one "
                                   f"length, received shift {shifts.tolist()} and axis "
                                   f"{axes.tolist()}")
    rank = len(x.shape)
    total = {}
    for s, a in zip(shifts.reshape(-1).tolist(), axes.reshape(-1).tolist()):
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"roll: axis {a} is out of range for a tensor of "
                                       f"shape {list(x.shape)}")
        total[a % rank] = total.get(a % rank, 0) + s
    for a, s in sorted(total.items()):
        n = x.shape[a]
        if n and s % n:
            x = gather(x, _positions((np.arange(n) - s) % n), axis=a)
    return x


@export("tf")
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each element (or slice along `axis`) of `input` repeated `repeats` times; with
    axis None, of the flattened input (tf.repeat).

    >>> tf.repeat(tf.constant([1, 2]), [2, 1]).numpy().tolist()
    [1, 1, 2]
    """
    x = _tensor(input)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"repeat: axis {axis} is out of range for a tensor of "
                                   f"shape {list(x.shape)}")
    n = x.shape[axis]
    counts = _host_ints(repeats, "repeat: repeats")
    if counts.ndim > 1 or (counts.ndim == 1 and counts.size not in (1, n)):
        raise ValueError(f"Dimensions {n} and {counts.size} are not compatible")
    if (counts < 0).any():
        raise InvalidArgumentError(f"repeat: repeats must be >= 0, received "
                                   f"{counts.tolist()}")
    return gather(x, _positions(np.repeat(np.arange(n), counts.astype(np.intp))), axis=axis)


@export("tf")
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_, name=None):
    """mask[..., j] = j < lengths[...] (tf.sequence_mask); `maxlen` defaults to the
    largest length.

    >>> tf.sequence_mask([1, 3], 4).numpy().astype(int).tolist()
    [[1, 0, 0, 0], [1, 1, 1, 0]]
    """
    lengths = _tensor(lengths)
    if lengths.dtype != int32:
        raise InvalidArgumentError(f"sequence_mask: lengths must be integers, received "
                                   f"{lengths.dtype}")
    if maxlen is None:
        maxlen = int(values_for_shape(reduce_max(lengths), "tf.sequence_mask without "
                                      "maxlen")) if lengths.size else 0
    maxlen = int(_host_ints(maxlen, "sequence_mask: maxlen"))
    steps = from_numpy(np.arange(max(maxlen, 0), dtype=np.int32))
    mask = ew.less(steps, reshape(lengths, list(lengths.shape) + [1]))
    return mask if dtypes.as_dtype(dtype) == dtypes.bool_ else ew.cast(mask, dtype)


@export("tf")
def meshgrid(*args, **kwargs):
    """N-D coordinate grids from N 1-D tensors (tf.meshgrid); `indexing` 'xy' (default,
    the first two axes swapped, as numpy) or 'ij'.

    >>> [g.shape for g in tf.meshgrid([1, 2, 3], [4, 5])]
    [TensorShape([2, 3]), TensorShape([2, 3])]
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid() got unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` must be either 'xy' or 'ij', received "
                         f"{indexing!r}")
    vectors = [reshape(_tensor(a), [-1]) for a in args]
    sizes = [v.shape[0] for v in vectors]
    if indexing == "xy" and len(vectors) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, v in enumerate(vectors):
        place = 1 - i if indexing == "xy" and i < 2 and len(vectors) > 1 else i
        shape = [1] * len(vectors)
        shape[place] = -1
        grids.append(broadcast_to(reshape(v, shape), sizes))
    return grids


@export("tf")
def ensure_shape(x, shape, name=None):
    """`x` itself when its shape fits `shape` (None for any size), else
    InvalidArgumentError (tf.ensure_shape).

    >>> tf.ensure_shape(tf.zeros([2, 3]), [None, 3]).shape
    TensorShape([2, 3])
    """
    x = _tensor(x)
    want = TensorShape(shape)
    if not want.is_compatible_with(x.shape):
        got = ",".join(str(d) for d in x.shape)
        expected = ",".join("?" if d is None else str(d) for d in want.as_list())
        raise InvalidArgumentError(f"Shape of tensor x [{got}] is not compatible with "
                                   f"expected shape [{expected}].")
    return x


@export("math")
def is_inf(x, name=None):
    """True where `x` is +inf or -inf (tf.math.is_inf; float32 only, as TensorFlow).

    >>> tf.math.is_inf([1.0, float('inf')]).numpy().tolist()
    [False, True]
    """
    x = expect_dtype(x, "is_inf", FLOAT)
    return ew.logical_not(ew.logical_or(ew.is_finite(x), ew.is_nan(x)))


@export("math")
def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64,  # noqa: A002
                  name=None):
    """How many elements of `input` are not zero (False, ''), over `axis` (all when
    None): tf.math.count_nonzero; int64 counts come out int32 (see the README).

    >>> int(tf.math.count_nonzero([[0, 1], [2, 0]]))
    2
    """
    x = _tensor(input)
    counts = reduce_sum(ew.cast(ew.not_equal(x, ew.cast(0, x.dtype)), int32), axis=axis,
                        keepdims=bool(keepdims))
    return counts if dtypes.as_dtype(dtype) in (dtypes.int64, int32) else \
        ew.cast(counts, dtype)


@export("math")
def confusion_matrix(labels, predictions, num_classes=None, weights=None,
                     dtype=dtypes.int32, name=None):
    """counts[i, j]: how many examples of label i were predicted j, weighted by
    `weights` (tf.math.confusion_matrix); num_classes defaults to the largest value + 1.

    >>> tf.math.confusion_matrix([0, 1, 1], [0, 1, 0]).numpy().tolist()
    [[1, 0], [1, 1]]
    """
    lab = _host_ints(labels, "confusion_matrix: labels").reshape(-1)
    pred = _host_ints(predictions, "confusion_matrix: predictions").reshape(-1)
    for what, v in (("labels", lab), ("predictions", pred)):
        if v.size and v.min() < 0:
            raise InvalidArgumentError(f"`{what}` contains negative values: {v.tolist()}")
    if lab.shape != pred.shape:
        raise ValueError(f"labels and predictions must have the same shape, received "
                         f"{list(lab.shape)} and {list(pred.shape)}")
    if num_classes is None:
        n = int(max(lab.max(initial=-1), pred.max(initial=-1))) + 1
    else:
        n = int(num_classes)
        for what, v in (("labels", lab), ("predictions", pred)):
            if v.size and v.max() >= n:
                raise InvalidArgumentError(f"`{what}` out of bound: {v.tolist()} must be "
                                           f"< num_classes {n}")
    dtype = dtypes.as_dtype(dtype)
    if weights is None:
        values = from_numpy(np.ones(lab.size, dtypes.NUMPY[dtypes.device_dtype(dtype)]))
    else:
        values = ew.cast(reshape(_tensor(weights), [-1]), dtype)
    cells = unsorted_segment_sum(values, _positions(lab * n + pred), n * n)
    return reshape(cells, [n, n])


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


@export("nn")
def selu(features, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)) (tf.nn.selu; float32 only).

    >>> round(float(tf.nn.selu(tf.constant(1.0))), 4)
    1.0507
    """
    x = expect_dtype(features, "selu", FLOAT)
    negative = ew.mul(ew.elu(x), _SELU_ALPHA)
    return ew.mul(ew.where(ew.greater(x, 0.0), x, negative), _SELU_SCALE)


@export("nn")
def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of `params` picked by `ids` (tf.nn.embedding_lookup: tf.gather on axis 0; a
    list of one tensor is that tensor). `max_norm` clips each row's L2 norm.

    >>> tf.nn.embedding_lookup(tf.eye(3), [2]).numpy().tolist()
    [[0.0, 0.0, 1.0]]
    """
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise InvalidArgumentError(f"embedding_lookup: texflow takes one params tensor, "
                                       f"not {len(params)} shards; concatenate them")
        params = params[0]
    rows = gather(params, ids)
    if max_norm is not None:
        rows = clip_by_norm(rows, max_norm, axes=[-1])
    return rows


# -- movement.py's gather with batch_dims and pad's mirror modes ---------------------------

def batch_gather(params, indices, axis, batch_dims):
    """tf.gather with batch_dims (movement.gather's): gather_nd over the batch
    dimensions, the gathered axis moved next to them and back."""
    rank, irank = len(params.shape), len(indices.shape)
    b = batch_dims + irank if batch_dims < 0 else batch_dims
    a = axis + rank if axis < 0 else axis
    if not 0 <= b <= irank or not b <= a < rank:
        raise InvalidArgumentError(f"gather: batch_dims={batch_dims} must be in [-{irank}, "
                                   f"{irank}] and <= axis={axis} < {rank} (params shape "
                                   f"{list(params.shape)}, indices shape "
                                   f"{list(indices.shape)})")
    check_gather(indices, params.shape[a])
    if a > b:  # bring the gathered axis next to the batch dimensions, and back after
        params = transpose(params, list(range(b)) + [a] + list(range(b, a)) +
                           list(range(a + 1, rank)))
    out = gather_nd(params, expand_dims(indices, -1), b)
    if a > b:
        k = irank - b
        out = transpose(out, list(range(b)) + list(range(b + k, a + k)) +
                        list(range(b, b + k)) + list(range(a + k, len(out.shape))))
    return out


def mirror_pad(x, pairs, mode):
    """tf.pad's REFLECT and SYMMETRIC modes (movement.pad's): a gather along each padded
    axis of the positions numpy's pad of an index range gives."""
    edge = 0 if mode == "SYMMETRIC" else 1  # REFLECT leaves the edge out
    for axis, (before, after) in enumerate(pairs):
        n = x.shape[axis]
        if max(before, after) > n - edge:
            must, got = ("no greater than", "greater than") if edge == 0 else \
                ("less than", "not less than")
            raise InvalidArgumentError(f"paddings must be {must} the dimension size: "
                                       f"{before}, {after} {got} {n}")
        if before or after:
            source = np.pad(np.arange(n, dtype=np.int32), (before, after), mode=mode.lower())
            x = gather(x, from_numpy(source), axis=axis)
    return x
