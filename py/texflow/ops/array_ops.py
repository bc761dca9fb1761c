"""TensorFlow's array functions over texflow's ops: shape, size, rank, identity, add_n,
split. They take TensorFlow's arguments and raise TensorFlow's errors; none has a
kernel of its own (identity is a view, the rest are host values or other ops)."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray, as_array, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_view
from ..errors import InvalidArgumentError
from . import elementwise as ew
from .index_checks import host_values, values_for_shape
from .movement import slice as slice_


def _shape_dtype(out_type):
    """int32 for tf.shape's out_type int32 or int64 (int64 narrows, see the README); any
    other raises TensorFlow's InvalidArgumentError."""
    text = "int32" if out_type is None else dtypes.as_dtype(out_type).name
    if text not in ("int32", "int64"):
        raise InvalidArgumentError(f"shape: Value for attr 'out_type' of {text} is not in "
                                   "the list of allowed values: int32, int64")
    return np.int32


@export("tf")
def shape(input, out_type=None, name=None):  # noqa: A002  (TensorFlow's argument name)
    """The shape of `input` as a 1-D int32 tensor (TensorFlow's tf.shape; `out_type`
    int32 or int64, which narrows to int32).

    >>> tf.shape(tf.zeros([2, 3])).tolist()
    [2, 3]
    """
    x = as_array(input)
    return from_numpy(np.asarray(x.shape, _shape_dtype(out_type)).reshape(-1))


@export("tf")
def size(input, out_type=None, name=None):  # noqa: A002
    """The number of elements of `input` as a scalar tensor: int32, or `out_type`, which
    may be any numeric type or bool as in TensorFlow (int64 narrows to int32, float64 to
    float32; float16 has no device storage and raises DTypeError).

    >>> tf.size(tf.zeros([2, 3])).get()
    6
    >>> tf.size(tf.zeros([2, 3]), out_type=tf.float32).get()
    6.0
    """
    x = as_array(input)
    dtype = dtypes.int32 if out_type is None else dtypes.device_dtype(out_type)
    return from_numpy(np.asarray(x.size, dtypes.NUMPY[dtype]))


@export("tf")
def rank(input, name=None):  # noqa: A002
    """The number of dimensions of `input` as an int32 scalar tensor.

    >>> tf.rank(tf.zeros([2, 3])).get()
    2
    """
    return from_numpy(np.asarray(len(as_array(input).shape), np.int32))


_identity = def_op("identity", lambda inputs, attrs: (inputs[0].shape, inputs[0].dtype),
                   grad=lambda dy, inputs, y, attrs: (dy,))


@export("tf")
def identity(input, name=None):  # noqa: A002
    """A tensor with `input`'s shape and values (a view: no copy; a Variable's identity
    keeps the value it had, as assign replaces a variable's storage).

    >>> tf.identity(tf.constant([1, 2])).tolist()
    [1, 2]
    """
    x = input.value() if hasattr(input, "assign") else as_array(input)
    return run_view(_identity, x, x.shape)


@export("tf")
def identity_n(input, name=None):  # noqa: A002
    """A list of identities of the tensors in `input` (a list, or a tensor's rows).

    >>> [x.tolist() for x in tf.identity_n([tf.constant(1.0), tf.constant([2, 3])])]
    [1.0, [2, 3]]
    """
    return [identity(x) for x in input]


@export("tf", "math")
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (TensorFlow's add_n).

    >>> tf.add_n([tf.constant([1, 2]), tf.constant([3, 4])]).tolist()
    [4, 6]
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("add_n: inputs must be an iterable of at least one tensor with the "
                         f"same dtype and shape, received {inputs!r:.80}")
    arrays = [as_array(x) for x in inputs]
    first = arrays[0]
    for i, x in enumerate(arrays):
        if x.dtype != first.dtype:
            raise InvalidArgumentError(f"add_n: input #{i} was expected to be a {first.dtype} "
                                       f"tensor but is a {x.dtype} tensor")
        if x.shape != first.shape:
            raise InvalidArgumentError(f"add_n: inputs must have the same size and shape; "
                                       f"input 0: {list(first.shape)} != input {i}: "
                                       f"{list(x.shape)}")
    while len(arrays) > 1:  # pairwise, as a tree: log2(n) rounds
        arrays = [ew.add(arrays[k], arrays[k + 1]) if k + 1 < len(arrays) else arrays[k]
                  for k in range(0, len(arrays), 2)]
    return arrays[0] if arrays[0] is not first else identity(first)


def _split_sizes(num_or_size_splits, dim, num):
    if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(
            num_or_size_splits, bool):
        n = int(num_or_size_splits)
        if n < 1:
            raise InvalidArgumentError(f"split: the number of splits must be at least 1, "
                                       f"received {n}")
        if dim % n:
            raise InvalidArgumentError(
                f"split: the number of ways to split should evenly divide the split dimension,"
                f" but got split_dim size {dim} and num_split {n}")
        return [dim // n] * n
    sizes = to_numpy(num_or_size_splits, "int32").reshape(-1).tolist()
    if num is not None and num != len(sizes):
        raise InvalidArgumentError(f"split: size_splits {sizes} has {len(sizes)} elements, "
                                   f"num is {num}")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(f"split: there can only be one -1 in size_splits {sizes}")
    known = sum(s for s in sizes if s != -1)
    if any(s < -1 for s in sizes) or (known != dim if not unknown else known > dim):
        raise InvalidArgumentError(
            f"split: size_splits {sizes} must sum to the size of the split dimension, {dim} "
            f"(or be less with a -1). Got: {known}")
    if unknown:
        sizes[unknown[0]] = dim - known
    return sizes


@export("tf")
def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """`value` cut along `axis` into `num_or_size_splits` equal parts, or into parts of the
    listed sizes (one may be -1: the rest), as a list (TensorFlow's split).

    >>> [t.tolist() for t in tf.split(tf.range(6), [1, -1, 2])]
    [[0], [1, 2, 3], [4, 5]]
    """
    x = as_array(value)
    rank = len(x.shape)
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"split: axis {axis} is out of range for a tensor of rank "
                                   f"{rank} (shape {list(x.shape)})")
    axis %= rank
    out, start = [], 0
    for n in _split_sizes(num_or_size_splits, x.shape[axis], num):
        begin = [0] * rank
        begin[axis] = start
        size = list(x.shape)
        size[axis] = n
        out.append(slice_(x, begin, size))
        start += n
    return out



# -- value-dependent selection: the shape of the result comes from the data -----------------

def _int_indices(indices, name):
    x = indices if isinstance(indices, NDArray) else from_numpy(to_numpy(indices))
    if x.dtype != "int32":
        raise InvalidArgumentError(f"{name}: indices must be int32 or int64, received "
                                   f"{x.dtype}")
    return x


def _first_invalid(host, limits):
    """The position of the first index tuple (last axis of `host`) outside [0, limits)."""
    rows = host.reshape(-1, len(limits))
    bad = np.flatnonzero(~((rows >= 0) & (rows < np.asarray(limits))).all(axis=1))
    return int(bad[0]) if bad.size else None


@export("tf")
def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of `params` picked by the index tuples in the last axis of `indices`
    (TensorFlow's gather_nd): the result has shape indices.shape[:-1] +
    params.shape[batch_dims + m:], m = indices.shape[-1]. An index outside params'
    shape raises InvalidArgumentError when the indices are known on the host; indices
    that exist only on a GPU give tf.gather's out-of-range value for that tuple (no
    download: see "TensorFlow 2 compatibility").

    >>> tf.gather_nd(tf.reshape(tf.range(6), [2, 3]), [[0, 1], [1, 2]]).tolist()
    [1, 5]
    """
    from .movement import gather, reshape
    from .reduce import reduce_all, sum as reduce_sum
    params = as_array(params)
    indices = _int_indices(indices, "gather_nd")
    b = int(batch_dims)
    if not indices.shape:
        raise InvalidArgumentError("gather_nd: indices must be at least 1-D, received a scalar")
    m = indices.shape[-1]
    if b < 0 or b >= len(indices.shape) or params.shape[:b] != indices.shape[:b]:
        raise InvalidArgumentError(f"gather_nd: batch_dims={b} must be less than the rank of "
                                   f"indices {list(indices.shape)} and its first dims must "
                                   f"match params {list(params.shape)}")
    if m > len(params.shape) - b:
        raise InvalidArgumentError(f"gather_nd: index innermost dimension length must be <= "
                                   f"params rank; saw: {m} vs. {len(params.shape) - b}")
    dims = params.shape[b:b + m]
    host = host_values(indices)
    bad = _first_invalid(host, dims) if host is not None and indices.size and m else None
    if bad is not None:
        value = host.reshape(-1, m)[bad].tolist()
        raise InvalidArgumentError(f"gather_nd: indices[{bad}] = {value} does not index into "
                                   f"param shape {list(params.shape)} (batch_dims={b})")
    strides = np.cumprod((1,) + dims[::-1])[:-1][::-1].astype(np.int32)
    flat = reduce_sum(ew.mul(indices, from_numpy(strides.reshape(-1))), axis=-1)
    block = int(np.prod(dims, dtype=np.int64))
    batch = int(np.prod(params.shape[:b], dtype=np.int64))
    if b:  # each batch entry's rows follow the previous entries' in the flat params
        offsets = np.arange(batch, dtype=np.int32) * block
        flat = ew.add(flat, from_numpy(offsets.reshape(params.shape[:b] + (1,) * (
            len(flat.shape) - b))))
    if host is None and m:  # a tuple out of range must not land on another entry: -1
        limits = from_numpy(np.asarray(dims, np.int32).reshape(-1))
        inside = reduce_all(ew.logical_and(ew.greater_equal(indices, 0),
                                           ew.less(indices, limits)), axis=-1)
        flat = ew.where(inside, flat, -1)
    rows = reshape(params, (batch * block,) + params.shape[b + m:])
    return gather(rows, flat)


@export("tf")
def boolean_mask(tensor, mask, axis=None, name=None):
    """The entries of `tensor` where `mask` is true: `mask` covers axes axis..axis + k - 1,
    which become one axis of the true positions (TensorFlow's boolean_mask). The mask is
    read back to the host: the result's shape depends on its values.

    >>> tf.boolean_mask(tf.constant([1, 2, 3]), [True, False, True]).tolist()
    [1, 3]
    """
    from .movement import gather, reshape
    x = as_array(tensor)
    m = values_for_shape(mask, "tf.boolean_mask") if isinstance(mask, NDArray) else \
        np.asarray(mask)
    if m.ndim == 0:
        raise ValueError("boolean_mask: mask cannot be scalar.")
    axis = 0 if axis is None else int(axis)
    if axis < 0:
        axis += len(x.shape)
    covered = x.shape[axis:axis + m.ndim]
    if not 0 <= axis or covered != m.shape:
        raise ValueError(f"boolean_mask: shapes {tuple(covered)} and {m.shape} are "
                         f"incompatible (tensor {list(x.shape)}, axis {axis})")
    flat = reshape(x, x.shape[:axis] + (int(np.prod(m.shape, dtype=np.int64)),) +
                   x.shape[axis + m.ndim:])
    picked = from_numpy(np.flatnonzero(m.reshape(-1)).astype(np.int32))
    return gather(flat, picked, axis=axis)


def where_nonzero(condition):
    """tf.where with one argument: the coordinates of the true (non-zero) entries of
    `condition`, [num_true, rank] int32 (TensorFlow's int64, narrowed), in row-major
    order. The condition is read back to the host: the result's shape depends on it."""
    c = values_for_shape(condition, "tf.where with one argument") \
        if isinstance(condition, NDArray) else to_numpy(condition)
    if c.ndim == 0:
        raise InvalidArgumentError("where: unhandled input dimensions: 0 (the condition "
                                   "must have rank >= 1)")
    return from_numpy(np.argwhere(c != 0).astype(np.int32).reshape(-1, c.ndim))
