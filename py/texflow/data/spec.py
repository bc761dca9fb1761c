"""Dataset.element_spec: TensorSpecs with TensorFlow's static shapes.

TensorFlow knows an element's type without running the pipeline: a batch's
leading dimension is None unless `drop_remainder=True`, a generator's spec is
its signature. texflow does not trace the functions of `map` and friends, so a
stage whose spec depends on one reads it from the first element the stage
produces (`from_data`), keeping dimensions that vary in its input unknown.
"""

import threading

import numpy as np

from ..engine.nest import assert_same_structure
from ..tensor_shape import TensorShape
from ..tensor_spec import TensorSpec
from . import structure
from .sparse import SparseTensor


def of_leaf(leaf):
    """The TensorSpec of one numpy leaf (bytes: a scalar string)."""
    if isinstance(leaf, SparseTensor):
        dtype = np.asarray(leaf.values).dtype
    else:
        dtype = object if isinstance(leaf, bytes) else np.asarray(leaf).dtype
    return TensorSpec(structure.shape_of(leaf), structure.dtype_name(dtype))


def of_element(element):
    return structure.map_structure(of_leaf, element)


class _NeedsData(Exception):
    pass


_mode = threading.local()


def static(dataset):
    """`dataset`'s spec where it needs no data (a check at construction, as TensorFlow's,
    must not run the pipeline: a shuffle buffer, a file), else None."""
    _mode.static = True
    try:
        return dataset._spec()
    except _NeedsData:
        return None
    finally:
        _mode.static = False


def first(dataset, count=1):
    """The first element `dataset` produces (None when it is empty), or with `count`, a
    list of its first `count` elements."""
    if getattr(_mode, "static", False):
        raise _NeedsData
    elements = list(dataset.take(count).as_numpy_iterator())
    if count != 1:
        return elements
    return elements[0] if elements else None


def from_data(dataset):
    """The spec of `dataset`'s first element (None for an empty dataset)."""
    element = first(dataset)
    return None if element is None else of_element(element)


def _dims(spec):
    return spec.shape.as_list() if spec.shape.rank is not None else None


def with_shape(spec, dims):
    return TensorSpec(dims, spec.dtype, spec.name)


def batched(spec, size):
    """`spec` with a leading batch dimension of `size` (None: unknown)."""
    return structure.map_structure(
        lambda s: with_shape(s, None if s.shape.rank is None else [size] + _dims(s)), spec)


def unbatched(spec):
    """`spec` without its leading dimension."""
    return structure.map_structure(
        lambda s: with_shape(s, None if s.shape.rank is None else _dims(s)[1:]), spec)


def common(a, b):
    """The spec of two datasets' elements side by side (concatenate, choose): the
    most specific compatible shapes; None when the structures or dtypes differ."""
    try:
        assert_same_structure(a, b)
    except (TypeError, ValueError):
        return None
    la, lb = structure.flatten(a), structure.flatten(b)
    out = []
    for x, y in zip(la, lb):
        if x.dtype != y.dtype:
            return None
        out.append(with_shape(x, x.shape.most_specific_compatible_shape(y.shape)))
    return structure.pack_as(a, out)


def mapped(in_spec, in_elements, out_elements):
    """The spec of a function's results on an input's first elements (one or two): the
    first result's shapes, with a dimension unknown where the results' sizes differ, or
    where the input's spec leaves the same dimension unknown and the result's size
    there is the input's (a batch dimension the function kept)."""
    varying = set()
    if in_spec is not None:
        for s, leaf in zip(structure.flatten(in_spec), structure.flatten(in_elements[0])):
            dims = _dims(s)
            if dims is None:
                continue
            shape = structure.shape_of(leaf)
            varying.update((i, shape[i]) for i, d in enumerate(dims)
                           if d is None and i < len(shape))
    others = [structure.flatten(e) for e in out_elements[1:]]

    def leaf_spec(k, leaf):
        spec = of_leaf(leaf)
        dims = _dims(spec)
        for other in others:
            shape = structure.shape_of(other[k]) if k < len(other) else None
            if shape is None or len(shape) != len(dims):
                return unknown_shape(spec.dtype)
            dims = [None if d != g else d for d, g in zip(dims, shape)]
        return with_shape(spec, [None if (i, d) in varying else d for i, d in enumerate(dims)])
    leaves = structure.flatten(out_elements[0])
    return structure.pack_as(out_elements[0], [leaf_spec(k, x) for k, x in enumerate(leaves)])


def string_scalar():
    return TensorSpec([], "string")


def unknown_shape(dtype):
    return TensorSpec(TensorShape(None), dtype)
