"""Ops that move or reinterpret elements: reshape (a view), transpose, broadcast_to,
reverse, slice, pad, tile, concat/stack, gather and its gradient unsorted_segment_sum."""

import numpy as np

from ..engine.ndarray import NDArray, as_array, from_numpy, normalize_shape, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op, run_view
from ..errors import InvalidArgumentError, ShapeError
from .grad_util import unbroadcast
from .index_checks import check_gather, check_segment_ids, values_for_shape
from .shape_util import broadcast_shapes, normalize_axis


def infer_reshape(shape, size):
    """`shape` with one -1 filled in so it holds `size` elements, or ShapeError."""
    if isinstance(shape, int):
        shape = (shape,)
    if isinstance(shape, NDArray):  # inside tf.function: folded, or an error saying why
        shape = values_for_shape(shape, "reshape").reshape(-1).tolist()
    dims = [int(values_for_shape(d, "reshape")) if isinstance(d, NDArray) else d
            for d in shape]
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise ShapeError(f"reshape: only one dimension can be -1, received {dims}")
    known = normalize_shape([d for d in dims if d != -1])
    n = 1
    for d in known:
        n *= d
    if unknown:
        if n == 0 or size % n:
            raise ShapeError(f"reshape: cannot reshape {size} elements into {dims}")
        dims[unknown[0]] = size // n
    elif n != size:
        raise ShapeError(f"reshape: cannot reshape an array of {size} elements into shape "
                         f"{dims} ({n} elements)")
    return tuple(int(d) for d in dims)


_reshape = def_op("reshape", lambda inputs, attrs: (attrs["shape"], inputs[0].dtype),
                  grad=lambda dy, inputs, y, attrs: (reshape(dy, inputs[0].shape),))


@export("tf", "dl")
def reshape(tensor, shape, name=None):
    """`x` with a new shape holding the same elements; shares `x`'s data (no copy).

    One dimension may be -1 and is inferred.

    >>> tf.reshape(tf.array([1, 2, 3, 4, 5, 6]), [2, -1]).shape
    TensorShape([2, 3])
    """
    tensor = as_array(tensor)
    shape = infer_reshape(shape, tensor.size)
    return run_view(_reshape, tensor, shape, {"shape": shape})


@export("tf", "dl")
def flatten(x):
    """`x` as a rank-1 view."""
    return reshape(x, (-1,))


@export("tf", "dl")
def expand_dims(input, axis, name=None):
    """`x` with a new axis of size 1 inserted at `axis` (a view)."""
    input = as_array(input)
    rank = len(input.shape) + 1
    if not -rank <= axis < rank:
        raise ShapeError(f"expand_dims: axis {axis} is out of range for a result of rank {rank}")
    axis %= rank
    return reshape(input, input.shape[:axis] + (1,) + input.shape[axis:])


@export("tf", "dl")
def squeeze(input, axis=None, name=None):
    """`x` without axes of size 1 (only `axis` when given; a view)."""
    input = as_array(input)
    rank = len(input.shape)
    if axis is None:
        axes = [i for i, d in enumerate(input.shape) if d == 1]
    else:
        axes = [a % rank for a in ([axis] if isinstance(axis, int) else axis)]
        for a in axes:
            if input.shape[a] != 1:
                raise ShapeError(f"squeeze: axis {a} of shape {list(input.shape)} is not 1")
    return reshape(input, tuple(d for i, d in enumerate(input.shape) if i not in axes))


def _transpose_infer(inputs, attrs):
    x = inputs[0]
    perm = attrs["perm"]
    return tuple(x.shape[p] for p in perm), x.dtype


def _transpose_grad(dy, inputs, y, attrs):
    perm = attrs["perm"]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return (transpose(dy, inverse),)


_transpose = def_op("transpose", _transpose_infer, grad=_transpose_grad)


@export("tf", "dl")
def transpose(a, perm=None, conjugate=False, name=None):
    """`x` with its axes permuted: axis i of the result is axis perm[i] of `x`.

    The default reverses the axes.

    >>> tf.transpose(tf.zeros([2, 3, 4]), [1, 0, 2]).shape
    TensorShape([3, 2, 4])
    """
    a = as_array(a)
    rank = len(a.shape)
    if perm is None:
        perm = tuple(range(rank - 1, -1, -1))
    else:
        try:
            given = [int(p) for p in perm]
        except (TypeError, ValueError):
            raise ShapeError(f"transpose: perm must be a list of ints, received {perm!r}") from None
        perm = tuple(p % rank if -rank <= p < rank else p for p in given)
        if sorted(perm) != list(range(rank)):
            raise ShapeError(f"transpose: perm {given} is not a permutation of the "
                             f"{rank} axes of shape {list(a.shape)}")
    moved = [p for p in perm if a.shape[p] != 1]
    if moved == sorted(moved):  # only size-1 axes move: the same element order, a view
        return reshape(a, tuple(a.shape[p] for p in perm))
    return run_op(_transpose, (a,), {"perm": perm})


def _broadcast_to_infer(inputs, attrs):
    x = inputs[0]
    shape = attrs["shape"]
    if len(shape) < len(x.shape) or broadcast_shapes("broadcast_to", x.shape, shape) != shape:
        raise ShapeError(f"broadcast_to: shape {list(x.shape)} cannot be broadcast to "
                         f"{list(shape)}")
    return shape, x.dtype


_broadcast_to = def_op("broadcast_to", _broadcast_to_infer,
                       grad=lambda dy, inputs, y, attrs: (unbroadcast(dy, inputs[0].shape),))


@export("tf", "dl")
def broadcast_to(input, shape, name=None):
    """`x` repeated along broadcast axes to `shape` (numpy's broadcast_to, as a new array).

    >>> tf.broadcast_to(tf.array([1, 2]), [2, 2]).tolist()
    [[1, 2], [1, 2]]
    """
    input = as_array(input)
    shape = normalize_shape(shape)
    if shape == input.shape:
        return reshape(input, shape)  # nothing to repeat: a view
    return run_op(_broadcast_to, (input,), {"shape": shape})


_reverse = def_op("reverse", lambda inputs, attrs: (inputs[0].shape, inputs[0].dtype),
                  grad=lambda dy, inputs, y, attrs: (run_op(_reverse, (dy,), attrs),))


@export("tf")
def reverse(tensor, axis, name=None):
    """`tensor` with the order of its elements reversed along each axis in the list
    `axis` (TensorFlow's reverse; negative axes count from the end).

    >>> tf.reverse(tf.constant([[1, 2], [3, 4]]), [1]).tolist()
    [[2, 1], [4, 3]]
    """
    x = as_array(tensor)
    rank = len(x.shape)
    given = np.asarray(axis.numpy() if isinstance(axis, NDArray) else axis)
    if given.ndim != 1:
        raise InvalidArgumentError(f"reverse: 'axis' must be 1-dimension, not {given.ndim} "
                                   f"(received {axis!r})")
    axes = []
    for a in given.astype(np.int64).tolist():
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"reverse: 'axis' entry {a} is out of the valid range "
                                       f"[{-rank}, {rank}) for shape {list(x.shape)}")
        if a % rank in axes:
            raise InvalidArgumentError(f"reverse: axis {a % rank} specified more than once "
                                       f"in {given.tolist()}")
        axes.append(a % rank)
    return run_op(_reverse, (x,), {"axes": tuple(sorted(axes))})


# -- slice, pad, tile, concat -------------------------------------------------------

def _slice_grad(dy, inputs, y, attrs):
    x = inputs[0]
    pads = tuple((b, n - b - s) for b, s, n in zip(attrs["begin"], attrs["size"], x.shape))
    return (pad(dy, pads),)


_slice = def_op("slice", lambda inputs, attrs: (attrs["size"], inputs[0].dtype),
                grad=_slice_grad)


@export("tf", "dl")
def slice(input_, begin, size, name=None):  # noqa: A001  (tf.slice)
    """The block of `x` starting at `begin` with `size` (-1: to the end), tf.slice.

    >>> tf.slice(tf.reshape(tf.range(12), [3, 4]), [1, 1], [2, -1]).tolist()
    [[5, 6, 7], [9, 10, 11]]
    """
    input_ = as_array(input_)
    rank = len(input_.shape)
    from .indexing import slice_traced, traced_begin
    traced = traced_begin(begin)
    if traced:  # inside tf.function, a begin that differs per call
        return slice_traced(input_, traced, begin, size)
    begin, size = [int(b) for b in begin], [int(s) for s in size]
    if len(begin) != rank or len(size) != rank:
        raise ShapeError(f"slice: begin {begin} and size {size} need {rank} entries for "
                         f"shape {list(input_.shape)}")
    size = [n - b if s == -1 else s for b, s, n in zip(begin, size, input_.shape)]
    for axis, (b, s, n) in enumerate(zip(begin, size, input_.shape)):
        if not 0 <= b <= n:  # TensorFlow's checks and words
            raise ShapeError(f"Expected begin[{axis}] in [0, {n}], but got {b}")
        if not 0 <= s <= n - b:
            raise ShapeError(f"Expected size[{axis}] in [0, {n - b}], but got {s}")
    return run_op(_slice, (input_,), {"begin": tuple(begin), "size": tuple(size)})


def _pad_infer(inputs, attrs):
    x = inputs[0]
    return tuple(n + a + b for n, (a, b) in zip(x.shape, attrs["paddings"])), x.dtype


def _pad_grad(dy, inputs, y, attrs):
    return (slice(dy, [a for a, _ in attrs["paddings"]], inputs[0].shape),)


_pad = def_op("pad", _pad_infer, grad=_pad_grad)


@export("tf", "dl")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """`tensor` with `paddings[i] = (before, after)` elements added on each side of axis
    i (tf.pad): `constant_values` (mode 'CONSTANT'), or the tensor mirrored without
    ('REFLECT') or with ('SYMMETRIC') its edge, which gathers along each padded axis.

    >>> tf.pad(tf.array([1, 2]), [[1, 2]]).tolist()
    [0, 1, 2, 0, 0]
    """
    x = as_array(tensor)
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')
    try:
        pairs = tuple((int(a), int(b)) for a, b in paddings)
    except (TypeError, ValueError):
        raise ShapeError(f"pad: paddings must be [before, after] pairs, received "
                         f"{paddings!r}") from None
    if len(pairs) != len(x.shape) or any(a < 0 or b < 0 for a, b in pairs):
        raise ShapeError(f"pad: paddings {[list(p) for p in pairs]} need {len(x.shape)} "
                         f"non-negative pairs for shape {list(x.shape)}")
    if mode != "CONSTANT":
        from .composed import mirror_pad  # composed.py builds on this module
        return mirror_pad(x, pairs, mode)
    value = constant_values.item() if hasattr(constant_values, "item") else constant_values
    return run_op(_pad, (x,), {"paddings": pairs, "constant_values": value})


def _tile_infer(inputs, attrs):
    x = inputs[0]
    return tuple(n * m for n, m in zip(x.shape, attrs["multiples"])), x.dtype


def _tile_grad(dy, inputs, y, attrs):
    from .reduce import sum as reduce_sum
    x = inputs[0]
    split = []
    for n, m in zip(x.shape, attrs["multiples"]):
        split += [m, n]
    summed = reduce_sum(reshape(dy, split), axis=list(range(0, len(split), 2)))
    return (summed,)


_tile = def_op("tile", _tile_infer, grad=_tile_grad)


@export("tf", "dl")
def tile(input, multiples, name=None):
    """`x` repeated `multiples[i]` times along axis i (tf.tile).

    >>> tf.tile(tf.array([1, 2]), [2]).tolist()
    [1, 2, 1, 2]
    """
    input = as_array(input)
    multiples = tuple(int(m) for m in multiples)
    if len(multiples) != len(input.shape) or min(multiples, default=0) < 0:
        raise ShapeError(f"tile: multiples {list(multiples)} need {len(input.shape)} non-negative "
                         f"entries for shape {list(input.shape)}")
    return run_op(_tile, (input,), {"multiples": multiples})


def _concat_infer(inputs, attrs):
    axis = attrs["axis"]
    first = inputs[0]
    dtype = first.dtype
    for i, x in enumerate(inputs):
        if len(x.shape) != len(first.shape) or any(
                a != b for k, (a, b) in enumerate(zip(x.shape, first.shape)) if k != axis):
            raise ShapeError(f"concat: input {i} has shape {list(x.shape)}, which does not "
                             f"match {list(first.shape)} outside axis {axis}")
        if x.dtype != dtype:
            raise ShapeError(f"concat: input {i} is {x.dtype}, input 0 is {dtype}")
    shape = list(first.shape)
    shape[axis] = sum(x.shape[axis] for x in inputs)
    return tuple(shape), dtype


def _concat_grad(dy, inputs, y, attrs):
    axis, start, grads = attrs["axis"], 0, []
    for x in inputs:
        begin = [0] * len(x.shape)
        begin[axis] = start
        grads.append(slice(dy, begin, x.shape))
        start += x.shape[axis]
    return tuple(grads)


_concat = def_op("concat", _concat_infer, grad=_concat_grad)


@export("tf", "dl")
def concat(values, axis, name=None):
    """Arrays joined along an existing `axis` (tf.concat); shapes match elsewhere.

    >>> tf.concat([tf.zeros([2, 1]), tf.ones([2, 2])], axis=1).shape
    TensorShape([2, 3])
    """
    values = [as_array(v) for v in values]
    if not values:
        raise ShapeError("concat: needs at least one array")
    rank = len(values[0].shape)
    if rank == 0:
        raise ShapeError("concat: cannot concatenate rank-0 arrays; use stack")
    if not -rank <= axis < rank:
        raise ShapeError(f"concat: axis {axis} is out of range for rank {rank}")
    if len(values) == 1:
        return reshape(values[0], values[0].shape)
    return run_op(_concat, tuple(values), {"axis": axis % rank})


@export("tf", "dl")
def stack(values, axis=0, name=None):
    """Arrays of one shape joined along a new `axis` (tf.stack).

    >>> tf.stack([tf.zeros([2]), tf.ones([2])]).shape
    TensorShape([2, 2])
    """
    values = [as_array(v) for v in values]
    if not values:
        raise ShapeError("stack: needs at least one array")
    shape = values[0].shape
    for i, v in enumerate(values):
        if v.shape != shape:
            raise ShapeError(f"stack: input {i} has shape {list(v.shape)}, input 0 has "
                             f"{list(shape)}")
    rank = len(shape) + 1
    if not -rank <= axis < rank:
        raise ShapeError(f"stack: axis {axis} is out of range for a result of rank {rank}")
    return concat([expand_dims(v, axis % rank) for v in values], axis % rank)


@export("tf")
def unstack(value, num=None, axis=0, name=None):
    """The slices of `x` along `axis`, each without that axis (tf.unstack); `num`, when
    given, must be that axis's size."""
    value = as_array(value)
    if not value.shape:
        raise ShapeError("unstack: cannot unstack a rank-0 tensor (it has no axis)")
    axis = normalize_axis("unstack", axis, len(value.shape))
    if num is not None and int(num) != value.shape[axis]:
        raise InvalidArgumentError(f"Input shape axis {axis} must equal {int(num)}, got "
                                   f"shape {list(value.shape)}")
    out = []
    for i in range(value.shape[axis]):
        begin = [0] * len(value.shape)
        begin[axis] = i
        size = list(value.shape)
        size[axis] = 1
        out.append(squeeze(slice(value, begin, size), axis))
    return out


# -- gather ---------------------------------------------------------------------------

def _gather_infer(inputs, attrs):
    params, indices = inputs
    if indices.dtype != "int32":
        raise ShapeError(f"gather: indices must be int32, received {indices.dtype}")
    axis = attrs["axis"]
    return params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype


def _gather_grad(dy, inputs, y, attrs):
    params, indices = inputs
    axis, n = attrs["axis"], len(indices.shape)
    # dy is params[:axis] + indices + params[axis+1:]; bring the index axes first.
    lead = list(range(axis, axis + n))
    perm = lead + [i for i in range(len(dy.shape)) if i not in lead]
    moved = transpose(dy, perm)
    rest = moved.shape[n:]
    flat = reshape(moved, (indices.size,) + rest)
    summed = unsorted_segment_sum(flat, reshape(indices, (-1,)), params.shape[axis])
    # summed is [params[axis]] + params[:axis] + params[axis+1:]: move axis 0 back.
    order = list(range(1, axis + 1)) + [0] + list(range(axis + 1, len(summed.shape)))
    return transpose(summed, order), None


_gather = def_op("gather", _gather_infer, grad=_gather_grad)


@export("tf")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` along `axis` (default `batch_dims`) picked by int32 `indices`
    (tf.gather). With `batch_dims` b, the first b dimensions of params and indices are
    batch dimensions (`axis` must then be b: the common per-row pick).

    An index outside [0, params.shape[axis]) raises InvalidArgumentError, as in
    TensorFlow, whenever the indices are known on the host; indices that exist only
    on a GPU give NaN (floats) or the lowest int32 there (see the README).

    >>> tf.gather(tf.array([10, 20, 30]), tf.array([2, 0])).tolist()
    [30, 10]
    """
    params = as_array(params)
    indices = indices if isinstance(indices, NDArray) else from_numpy(to_numpy(indices, "int32"))
    rank = len(params.shape)
    batch_dims = int(batch_dims)
    axis = batch_dims if axis is None else int(axis)
    if batch_dims:
        from .composed import batch_gather  # composed.py builds on this module
        return batch_gather(params, indices, axis, batch_dims)
    if not -rank <= axis < rank:
        raise ShapeError(f"gather: axis {axis} is out of range for params of shape "
                         f"{list(params.shape)}")
    check_gather(indices, params.shape[axis % rank])
    return run_op(_gather, (params, indices), {"axis": axis % rank})


def _segment_infer(inputs, attrs):
    data, ids = inputs
    if ids.shape != data.shape[:len(ids.shape)] or len(ids.shape) != 1:
        raise ShapeError(f"unsorted_segment_sum: segment_ids of shape {list(ids.shape)} must "
                         f"be 1-D and match the first axis of data {list(data.shape)}")
    return (attrs["num_segments"],) + data.shape[1:], data.dtype


def _segment_grad(dy, inputs, y, attrs):
    # NOTE: rows with a negative id were dropped: their gradient is 0 (TensorFlow's
    # _GatherDropNegatives), so gather at max(id, 0) and mask.
    from . import elementwise as ew
    ids = inputs[1]
    keep = ew.greater_equal(ids, 0)
    rows = gather(dy, ew.maximum(ids, 0))
    mask = reshape(keep, keep.shape + (1,) * (len(rows.shape) - 1))
    return ew.where(mask, rows, ew.cast(0, rows.dtype)), None


_segment_sum = def_op("unsorted_segment_sum", _segment_infer, grad=_segment_grad)


@export("tf", "math", "dl")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the rows of `data` grouped by 1-D int32 `segment_ids`, TensorFlow's
    unsorted_segment_sum: negative ids are dropped, an id >= num_segments raises
    InvalidArgumentError (NaN outputs where the ids exist only on a GPU).

    >>> tf.unsorted_segment_sum(tf.array([1, 2, 3]), tf.array([1, 0, 1]), 2).tolist()
    [2, 4]
    """
    data = as_array(data)
    ids = segment_ids if isinstance(segment_ids, NDArray) else \
        from_numpy(to_numpy(segment_ids, "int32"))
    check_segment_ids(ids, int(num_segments))
    return run_op(_segment_sum, (data, ids), {"num_segments": int(num_segments)})
