"""TensorFlow's auto-packing: a list holding tensors given where a tensor goes."""

from .. import dtypes
from ..engine.ndarray import NDArray, from_numpy, to_numpy


def packed(values, dtype=None):
    """TensorFlow's auto-packing: a (nested) list or tuple holding NDArrays as one NDArray,
    its entries stacked on the device, so nothing is read back to the host (inside
    tf.function nothing could be); Python numbers in it take the NDArrays' dtype (or
    `dtype`). None when `values` holds no NDArray."""
    found = _first_array(values)
    if found is None:
        return None
    from .movement import stack
    target = dtypes.device_dtype(dtype) if dtype is not None else found.dtype

    def pack(v):
        if isinstance(v, NDArray):
            if v.dtype != target:
                raise TypeError(f"Cannot pack a list holding tensors of dtypes {target} and "
                                f"{v.dtype} into one tensor: cast them to one dtype first")
            return v
        if isinstance(v, (list, tuple)) and v:
            return stack([pack(e) for e in v])
        return from_numpy(to_numpy(v, target))
    return pack(values)


def as_packed(values):
    """A list or tuple `values` as one NDArray: `packed`, or its numbers as they are."""
    stacked = packed(values)
    return stacked if stacked is not None else from_numpy(to_numpy(values))


def _first_array(values):
    """The first NDArray inside nested lists and tuples `values`, or None (the element
    types gathered by one C-level pass per list: a long list of numbers costs little)."""
    if isinstance(values, NDArray):
        return values
    if not isinstance(values, (list, tuple)):
        return None
    kinds = set(map(type, values))
    if not any(issubclass(k, (NDArray, list, tuple)) for k in kinds):
        return None
    for v in values:
        found = _first_array(v)
        if found is not None:
            return found
    return None
