"""tf.unique, tf.unique_with_counts, tf.searchsorted, tf.unravel_index and
tf.reverse_sequence, as TensorFlow 2's, composed of existing ops where the result's shape
is known (searchsorted: std::lower_bound's steps, one gather each; unravel_index and
reverse_sequence: arithmetic and a gather), on the host where it depends on the values
(unique, as tf.boolean_mask: ops/index_checks.py `values_for_shape`).
"""

from collections import namedtuple

import numpy as np

from .. import dtypes
from ..engine import scope, trace
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import OpDef, export
from ..errors import InvalidArgumentError
from . import elementwise as ew
from .index_checks import every_call, host_values, values_for_shape
from .movement import gather, reshape, stack, transpose

Unique = namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _tensor(x):
    return x if isinstance(x, NDArray) else from_numpy(to_numpy(x))


def _index_type(dtype, attr):
    """int32 for TensorFlow's int32 or int64 (stored as int32); another raises as TF's."""
    name = dtypes.as_dtype(dtype).name
    if name not in ("int32", "int64"):
        raise InvalidArgumentError(f"Value for attr '{attr}' of {name} is not in the list of "
                                   "allowed values: int32, int64")
    return "int32"


def _ints(x, attr, allowed="int32, int64"):
    t = _tensor(x)
    if t.dtype not in ("int32", "int64"):
        raise InvalidArgumentError(f"Value for attr '{attr}' of "
                                   f"{dtypes.as_dtype(t.dtype).name} is not in the list of "
                                   f"allowed values: {allowed}")
    return t


def _no_gradient(name):
    """An op TensorFlow registers no gradient for: a gradient reaching its outputs raises
    TensorFlow's LookupError (one that never reaches them, as through a gather's indices or
    a cast to float of an int, does not)."""
    def grad(*args, **kwargs):
        raise LookupError(f"gradient registry has no entry for: {name}")
    return OpDef(name, None, grad=grad, num_outputs=None)


_UNIQUE, _UNIQUE_WITH_COUNTS = _no_gradient("Unique"), _no_gradient("UniqueWithCounts")


def _taped(op, x, outputs):
    """`outputs`, computed on the host from `x`, recorded as `op` on the GradientTapes
    recording now (a trace's tracer takes the host result as a constant)."""
    for record in list(scope.recorders()):
        if not isinstance(getattr(record, "__self__", None), trace.Tracer):
            record(op, (x,), {}, outputs)
    return outputs


def _unique(x, out_idx, op):
    _index_type(out_idx, "out_idx")
    x = _tensor(x)
    if len(x.shape) != 1:
        raise InvalidArgumentError("unique expects a 1D vector.")
    values = values_for_shape(x, op)
    if not values.size:
        empty = np.zeros(0, np.int32)
        return from_numpy(values), from_numpy(empty), from_numpy(empty)
    nan = values != values  # every NaN is its own value, as TensorFlow's hash map has it
    spots, plain = np.flatnonzero(nan), np.flatnonzero(~nan)
    _, first, inverse = np.unique(values[plain], return_index=True, return_inverse=True)
    first = np.concatenate([plain[first], spots])
    groups = np.empty(values.size, np.int64)
    groups[plain] = inverse.reshape(-1)
    groups[spots] = len(first) - len(spots) + np.arange(len(spots))
    order = np.argsort(first, kind="stable")  # groups in first-occurrence order
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    idx = rank[groups].astype(np.int32)
    counts = np.bincount(idx, minlength=len(order)).astype(np.int32)
    return from_numpy(values[first[order]]), from_numpy(idx), from_numpy(counts)


@export("tf")
def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of 1-D `x` in the order they first appear and, for each entry of
    `x`, its value's position among them (TensorFlow's unique; each NaN is distinct, -0.0
    equals 0.0). `x` is read back to the host: the result's length depends on its values.

    >>> [t.numpy().tolist() for t in tf.unique([3, 1, 3, 2, 1])]
    [[3, 1, 2], [0, 1, 0, 2, 1]]
    """
    x = _tensor(x)
    y, idx, _ = _unique(x, out_idx, "tf.unique")
    return Unique(*_taped(_UNIQUE, x, (y, idx)))


@export("tf")
def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """tf.unique and how many times each distinct value occurs (TensorFlow's
    unique_with_counts).

    >>> [t.numpy().tolist() for t in tf.unique_with_counts([3, 1, 3])]
    [[3, 1], [0, 1, 0], [2, 1]]
    """
    x = _tensor(x)
    outputs = _unique(x, out_idx, "tf.unique_with_counts")
    return UniqueWithCounts(*_taped(_UNIQUE_WITH_COUNTS, x, outputs))


@export("tf")
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each of `values` (last axis), where it would go in the matching row of
    `sorted_sequence` (last axis) to keep it sorted: before equal entries (side='left') or
    after (side='right'), TensorFlow's searchsorted. Runs std::lower_bound's (upper_bound's)
    steps, one gather each, so an unsorted row gives TensorFlow's answer too.

    >>> tf.searchsorted([1, 3, 5, 7], [0, 3, 6, 8]).numpy().tolist()
    [0, 1, 3, 4]
    """
    if side not in ("left", "right"):
        raise ValueError("Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    op = "LowerBound" if side == "left" else "UpperBound"
    _index_type(out_type, "out_type")
    seq, vals = _tensor(sorted_sequence), _tensor(values)
    for t in (seq, vals):
        if not t.shape:
            raise InvalidArgumentError("slice index -1 of dimension 0 out of bounds.")
    if vals.dtype != seq.dtype:
        raise InvalidArgumentError(
            f"cannot compute {op} as input #1(zero-based) was expected to be a "
            f"{dtypes.as_dtype(seq.dtype).name} tensor but is a "
            f"{dtypes.as_dtype(vals.dtype).name} tensor")
    n, m = seq.shape[-1], vals.shape[-1]
    rows = int(np.prod(seq.shape[:-1], dtype=np.int64))
    if rows != int(np.prod(vals.shape[:-1], dtype=np.int64)):
        raise InvalidArgumentError("Leading dim_size of both tensors must match.")
    flat_seq = reshape(seq, (rows * n,))
    target = reshape(vals, (rows, m))
    offset = from_numpy((np.arange(rows, dtype=np.int32) * n).reshape(rows, 1))
    first = from_numpy(np.zeros((rows, m), np.int32))
    count = from_numpy(np.full((rows, m), n, np.int32))
    for _ in range(int(n).bit_length() if rows * m else 0):  # count at least halves a step
        step = ew.floordiv(count, 2)
        at = ew.add(first, step)
        entry = gather(flat_seq, ew.add(offset, ew.minimum(at, max(n - 1, 0))))
        below = ew.less(entry, target) if side == "left" else \
            ew.logical_not(ew.less(target, entry))
        live = ew.greater(count, 0)
        go = ew.logical_and(live, below)
        first = ew.where(go, ew.add(at, 1), first)
        count = ew.where(live, ew.where(go, ew.sub(ew.sub(count, step), 1), step), 0)
    return reshape(first, vals.shape)


@export("tf")
def unravel_index(indices, dims, name=None):
    """The coordinates in an array of shape `dims` of flat `indices` (scalar or 1-D): shape
    [len(dims)] + indices.shape, TensorFlow's unravel_index (C's truncating division for
    a negative index, as TensorFlow's kernel). `dims` is read on the host.

    >>> tf.unravel_index([1, 5, 7], [3, 4]).numpy().tolist()
    [[0, 1, 1], [1, 1, 3]]
    """
    idx = _ints(indices, "Tidx")
    dims_t = _ints(dims, "Tidx")
    if dims_t.dtype != idx.dtype:
        raise InvalidArgumentError(
            f"cannot compute UnravelIndex as input #1(zero-based) was expected to be a "
            f"{dtypes.as_dtype(idx.dtype).name} tensor but is a "
            f"{dtypes.as_dtype(dims_t.dtype).name} tensor")
    if len(idx.shape) > 1:
        raise InvalidArgumentError("The indices can only be scalar or vector, got "
                                   f"\"[{','.join(str(d) for d in idx.shape)}]\"")
    if len(dims_t.shape) != 1:
        raise InvalidArgumentError("The indices can only be 1-D, got "
                                   f"\"[{','.join(str(d) for d in dims_t.shape)}]\"")
    if not idx.size:
        raise InvalidArgumentError("received empty tensor indices: Tensor<type: "
                                   f"{dtypes.as_dtype(idx.dtype).name} shape: "
                                   f"[{','.join(str(d) for d in idx.shape)}] values: >")
    sizes = [int(d) for d in values_for_shape(dims_t, "tf.unravel_index's dims").tolist()]
    for i, d in enumerate(sizes):
        if d == 0:
            raise InvalidArgumentError("Input dims cannot contain a dim of zero, but dims "
                                       f"contains zero at index {i}")
        if d < 0:
            raise InvalidArgumentError(f"Input dims cannot be negative. Got dim = {d} at "
                                       f"index {i}")
    total = int(np.prod(sizes, dtype=np.int64))
    every_call(_check_unravel, idx, total, key=("unravel_index", total))
    idx = ew.cast(idx, "int32")
    strides = np.cumprod([1] + sizes[::-1])[:-1][::-1]
    negative = ew.less(idx, 0)
    out = []
    for stride, size in zip(strides.tolist(), sizes):  # truncating, as C's / and %
        q = ew.where(negative, ew.neg(ew.floordiv(ew.neg(idx), stride)),
                     ew.floordiv(idx, stride))
        out.append(ew.where(ew.less(q, 0), ew.neg(ew.floormod(ew.neg(q), size)),
                            ew.floormod(q, size)))
    return stack(out) if out else from_numpy(np.zeros((0,) + tuple(idx.shape), np.int32))


def _check_unravel(indices, total):
    host = host_values(indices)
    if host is not None and host.size and (host >= total).any():
        raise InvalidArgumentError("index is out of bound as with dims")


@export("tf")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None,  # noqa: A002
                     name=None):
    """`input` with, for each index b along batch_axis, its first seq_lengths[b] entries
    along seq_axis reversed and the rest kept (TensorFlow's reverse_sequence). Lengths on
    the host are checked as TensorFlow checks them; lengths only a GPU has that exceed
    the axis give tf.gather's out-of-range value there.

    >>> tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1).numpy().tolist()
    [[2, 1, 3], [6, 5, 4]]
    """
    x = _tensor(input)
    lengths = _ints(seq_lengths, "Tlen")
    rank = len(x.shape)
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    seq = int(seq_axis)
    batch = 0 if batch_axis is None else int(batch_axis)
    if seq == batch:
        raise InvalidArgumentError(f"batch_dim == seq_dim == {seq}")
    if not 0 <= seq < rank:
        raise InvalidArgumentError(f"seq_dim must be < input rank ( {seq} vs. {rank})"
                                   if seq >= 0 else f"Invalid seq_dim {seq}")
    if not 0 <= batch < rank:
        raise InvalidArgumentError(f"batch_dim must be < input rank ( {batch} vs. {rank})"
                                   if batch >= 0 else f"Invalid batch_dim {batch}")
    if len(lengths.shape) != 1 or lengths.shape[0] != x.shape[batch]:
        raise InvalidArgumentError(f"Length of seq_lengths != input.dims({batch}), "
                                   f"({lengths.shape[0] if lengths.shape else 0} vs. "
                                   f"{x.shape[batch]})")
    every_call(_check_lengths, lengths, seq, x.shape[seq], key=("seq_lengths", x.shape[seq]))
    rest = [a for a in range(rank) if a not in (batch, seq)]
    perm = [batch, seq] + rest
    moved = transpose(x, perm)
    b, t = x.shape[batch], x.shape[seq]
    inner = int(np.prod([x.shape[a] for a in rest], dtype=np.int64))
    steps = from_numpy(np.arange(t, dtype=np.int32).reshape(1, t))
    lens = reshape(ew.cast(lengths, "int32"), (b, 1))
    source = ew.where(ew.less(steps, lens), ew.sub(ew.sub(lens, 1), steps), steps)
    rows = ew.add(source, from_numpy((np.arange(b, dtype=np.int32) * t).reshape(b, 1)))
    picked = gather(reshape(moved, (b * t, inner)), reshape(rows, (b * t,)))
    back = reshape(picked, moved.shape)
    return transpose(back, list(np.argsort(perm)))


def _check_lengths(lengths, seq, limit):
    host = host_values(lengths)
    if host is None:
        return
    for i, n in enumerate(host.reshape(-1).tolist()):
        if n < 0:
            raise InvalidArgumentError(f"seq_lens({i}) < 0")
        if n > limit:
            raise InvalidArgumentError(f"seq_lens({i}) > input.dims({seq})")
