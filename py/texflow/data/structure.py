"""Elements of a Dataset: nested tuples and dicts whose leaves are numpy values.

Leaves are numpy arrays, numpy scalars, `bytes` (a scalar string, as
TensorFlow's `as_numpy_iterator` gives them) or SparseTensors. Python values
become numpy as TensorFlow converts them: ints int32 (int64 when they do not
fit), floats float32, str and bytes strings (object arrays of bytes).
"""

import numpy as np

from ..engine.nest import flatten, pack_as  # noqa: F401  (this module's API)
from ..engine.ndarray import from_numpy, to_numpy
from ..errors import DTypeError, InvalidArgumentError
from .sparse import SparseTensor
from .sparse import stack as stack_sparse

STRING = "string"
_NAMES = {"string": STRING, "str": STRING, "bytes": STRING, "object": STRING}


def host_dtype(dtype):
    """numpy dtype for a data-layer dtype: 'string' (object), numpy names and types.

    >>> host_dtype("int64"), host_dtype("string")
    (dtype('int64'), dtype('O'))
    """
    if isinstance(dtype, str) and _NAMES.get(dtype) == STRING or dtype in (bytes, str):
        return np.dtype(object)
    if dtype is float:
        return np.dtype(np.float32)
    if dtype is int:
        return np.dtype(np.int32)
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"unsupported dtype {dtype!r}: use a numpy dtype name such as "
                        "'float32', 'int64', 'uint8', or 'string'") from None


def dtype_name(dtype):
    """TensorFlow's name of a numpy dtype ('float' for float32 in messages is TF's)."""
    dtype = np.dtype(dtype)
    return "string" if dtype == object else dtype.name


def is_leaf(value):
    return not isinstance(value, (tuple, list, dict))


def map_structure(fn, structure):
    return pack_as(structure, [fn(leaf) for leaf in flatten(structure)])


def as_tensor(leaf):
    """A numeric numpy leaf as a tf.Tensor holding it on the host (an op uploads it when
    it first needs it); other leaves (bytes, SparseTensors, int64 values beyond int32,
    which a device cannot hold) as they are."""
    if isinstance(leaf, (np.ndarray, np.generic)) and leaf.dtype.kind in "fiub":
        try:
            return from_numpy(to_numpy(leaf))
        except DTypeError:
            return leaf
    return leaf


def convert(value):
    """A leaf as numpy, with TensorFlow's conversions of Python values.

    Scalars come out as numpy scalars and strings as bytes (what iteration gives).
    """
    arr = _convert(value)
    if isinstance(arr, np.ndarray) and arr.ndim == 0:
        return arr[()]
    return arr


def _convert(value):
    if isinstance(value, (np.ndarray, np.generic, SparseTensor, bytes)):
        return value
    if hasattr(value, "numpy") and callable(value.numpy):  # an NDArray
        return np.asarray(value.numpy())
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int32(value) if -2**31 <= value < 2**31 else np.int64(value)
    if isinstance(value, float):
        return np.float32(value)
    arr = np.asarray(value)
    if arr.dtype.kind in "US":
        out = np.empty(arr.shape, object)
        out[...] = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s,
                                otypes=[object])(arr) if arr.size else out
        return out
    if arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        return arr.astype(np.float32)
    if arr.dtype == np.int64 and not isinstance(value, np.ndarray):
        if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
            return arr.astype(np.int32)
    return arr


def normalize(value, lists_are_tuples):
    """A user-given element as nested tuples/dicts of numpy leaves.

    Lists are one tensor for `from_tensors`/`from_tensor_slices` (as in
    tf.data) and tuples for the results of `map` functions.
    """
    if isinstance(value, dict):
        return {k: normalize(v, lists_are_tuples) for k, v in value.items()}
    if isinstance(value, tuple) or (lists_are_tuples and isinstance(value, list)):
        items = [normalize(v, lists_are_tuples) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return convert(value)


def output(value):
    """A leaf as the iterator gives it: 0-d arrays become numpy scalars (or bytes)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def shape_of(leaf):
    if isinstance(leaf, SparseTensor):
        return leaf.shape
    return () if isinstance(leaf, bytes) else np.shape(leaf)


def stack(leaves, component=0):
    """Batches the leaves of one component; raises naming the component and shapes."""
    first = leaves[0]
    if isinstance(first, SparseTensor):
        return stack_sparse(leaves)
    if isinstance(first, bytes) or (isinstance(first, np.ndarray) and first.dtype == object):
        shapes = {shape_of(x) for x in leaves}
        if len(shapes) > 1:
            _shape_error(leaves, component)
        out = np.empty((len(leaves), *shape_of(first)), object)
        for i, x in enumerate(leaves):
            out[i] = x
        return out
    try:
        return np.stack(leaves)
    except ValueError:
        _shape_error(leaves, component)


def _shape_error(leaves, component):
    first = shape_of(leaves[0])
    for i, x in enumerate(leaves):
        if shape_of(x) != first:
            raise InvalidArgumentError(
                f"Cannot batch tensors with different shapes in component {component}. "
                f"First element had shape {list(first)} and element {i} had shape "
                f"{list(shape_of(x))}.")
    raise InvalidArgumentError(f"Cannot batch the values of component {component}")


def batch(elements):
    """Stacks a list of elements (same structure) into one batched element."""
    structure = elements[0]
    columns = zip(*(flatten(e) for e in elements))
    return pack_as(structure, [stack(list(col), i) for i, col in enumerate(columns)])


def unbatch(element):
    """The rows of a batched element."""
    leaves = flatten(element)
    sizes = set()
    rows = []
    for leaf in leaves:
        if isinstance(leaf, SparseTensor):
            from .sparse import unstack
            part = unstack(leaf)
        else:
            if np.ndim(leaf) == 0:
                raise InvalidArgumentError("unbatch needs elements of rank >= 1, received a "
                                           "scalar component")
            part = list(np.asarray(leaf))
        sizes.add(len(part))
        rows.append(part)
    if len(sizes) > 1:
        raise InvalidArgumentError(f"unbatch: components have different batch sizes "
                                   f"{sorted(sizes)}")
    return [pack_as(element, list(r)) for r in zip(*rows)]


def slices(value):
    """The slices along the first dimension of every leaf (from_tensor_slices)."""
    leaves = flatten(value)
    if not leaves:
        raise InvalidArgumentError("from_tensor_slices needs at least one component")
    sizes = []
    for leaf in leaves:
        if isinstance(leaf, bytes) or np.ndim(leaf) == 0:
            raise InvalidArgumentError("from_tensor_slices needs components of rank >= 1, "
                                       f"received a scalar {leaf!r}")
        sizes.append(len(leaf))
    if len(set(sizes)) > 1:
        raise InvalidArgumentError(f"Dimensions 0 of the components differ: {sizes}")
    return leaves, sizes[0]
