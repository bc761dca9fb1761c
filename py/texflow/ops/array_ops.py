"""TensorFlow's array functions over texflow's ops: shape, size, rank, identity, add_n,
split. They take TensorFlow's arguments and raise TensorFlow's errors; none has a
kernel of its own (identity is a view, the rest are host values or other ops)."""

import numpy as np

from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op
from ..engine.run import run_view
from ..errors import InvalidArgumentError
from . import elementwise as ew
from .movement import slice as slice_


def _as_array(x):
    return x if isinstance(x, NDArray) else from_numpy(to_numpy(x))


def _index_dtype(out_type, name):
    """int32 for TensorFlow's out_type int32 or int64 (int64 narrows, see the README)."""
    text = str(getattr(out_type, "name", out_type))
    if text not in ("int32", "int64"):
        raise InvalidArgumentError(f"{name}: out_type must be int32 or int64, received "
                                   f"{text}")
    return np.int32


def shape(input, out_type="int32"):  # noqa: A002  (TensorFlow's argument name)
    """The shape of `input` as a 1-D int32 tensor (TensorFlow's tf.shape).

    >>> tf.shape(tf.zeros([2, 3])).tolist()
    [2, 3]
    """
    x = _as_array(input)
    return from_numpy(np.asarray(x.shape, _index_dtype(out_type, "shape")).reshape(-1))


def size(input, out_type="int32"):  # noqa: A002
    """The number of elements of `input` as an int32 scalar tensor.

    >>> tf.size(tf.zeros([2, 3])).get()
    6
    """
    x = _as_array(input)
    return from_numpy(np.asarray(x.size, _index_dtype(out_type, "size")))


def rank(input):  # noqa: A002
    """The number of dimensions of `input` as an int32 scalar tensor.

    >>> tf.rank(tf.zeros([2, 3])).get()
    2
    """
    return from_numpy(np.asarray(len(_as_array(input).shape), np.int32))


_identity = def_op("identity", lambda inputs, attrs: (inputs[0].shape, inputs[0].dtype),
                   grad=lambda dy, inputs, y, attrs: (dy,))


def identity(input):  # noqa: A002
    """A tensor with `input`'s shape and values (a view: no copy; a Variable's identity
    keeps the value it had, as assign replaces a variable's storage).

    >>> tf.identity(tf.constant([1, 2])).tolist()
    [1, 2]
    """
    x = input.value() if hasattr(input, "assign") else _as_array(input)
    return run_view(_identity, x, x.shape)


def add_n(inputs):
    """The elementwise sum of a list of tensors of one shape and dtype (TensorFlow's add_n).

    >>> tf.add_n([tf.constant([1, 2]), tf.constant([3, 4])]).tolist()
    [4, 6]
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("add_n: inputs must be an iterable of at least one tensor with the "
                         f"same dtype and shape, received {inputs!r:.80}")
    arrays = [_as_array(x) for x in inputs]
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


def split(value, num_or_size_splits, axis=0, num=None):
    """`value` cut along `axis` into `num_or_size_splits` equal parts, or into parts of the
    listed sizes (one may be -1: the rest), as a list (TensorFlow's split).

    >>> [t.tolist() for t in tf.split(tf.range(6), [1, -1, 2])]
    [[0], [1, 2, 3], [4, 5]]
    """
    x = _as_array(value)
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

