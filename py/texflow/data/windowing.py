"""Windows and groups: window, group_by_window, bucket_by_sequence_length."""

import numpy as np

from ..errors import InternalError, InvalidArgumentError
from . import spec, structure
from .dataset import INFINITE, UNKNOWN, Dataset, Failure, TensorSpec, call
from .transforms import _positive, _Unary


class DatasetSpec:
    """The type of a dataset element that is itself a dataset (`tf.data.DatasetSpec`)."""

    def __init__(self, element_spec, dataset_shape=()):
        from ..tensor_shape import TensorShape
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)

    def __eq__(self, other):
        return (type(other) is DatasetSpec and self.element_spec == other.element_spec
                and self.shape == other.shape)

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, {self.shape!r})"


class Elements(Dataset):
    """A dataset of elements already computed (a window, a group); `spec_fn()` gives
    their spec (the input's, computed when asked for)."""

    def __init__(self, elements, spec_fn):
        self.elements, self.spec_fn = elements, spec_fn

    def _gen(self, ctx):
        yield from self.elements

    def _cardinality(self):
        return len(self.elements)

    def _spec(self):
        return self.spec_fn()


class Window(_Unary):
    def __init__(self, inp, size, shift, stride, drop_remainder):
        super().__init__(inp)
        self.size = _window_arg("Window size", size)
        self.shift = self.size if shift is None else _window_arg("Window shift", shift)
        self.stride = _window_arg("Window stride", stride)
        self.drop = bool(drop_remainder)

    def _window(self, elements):
        """One window: a dataset per component of the input's elements."""
        columns = zip(*(structure.flatten(e) for e in elements))
        flat = [Elements(list(col), self._component_spec(k)) for k, col in enumerate(columns)]
        return structure.pack_as(elements[0], flat)

    def _component_spec(self, k):
        return lambda: structure.flatten(self.inp._spec())[k]

    def _gen(self, ctx):
        span = (self.size - 1) * self.stride + 1
        buf, first, start = [], 0, 0  # buf[i] is position first + i; start: the next window's
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            buf.append(e)
            while start + span <= first + len(buf):
                yield self._window(buf[start - first:start - first + span:self.stride])
                start += self.shift
                drop = min(start - first, len(buf))
                del buf[:drop]
                first += drop
        while not self.drop and start < first + len(buf):
            yield self._window(buf[start - first::self.stride][:self.size])
            start += self.shift
            drop = min(start - first, len(buf))
            del buf[:drop]
            first += drop

    def _cardinality(self):
        n = self.inp._cardinality()
        if n < 0:
            return n
        if not self.drop:
            return -(-n // self.shift)
        span = (self.size - 1) * self.stride + 1
        return 0 if n < span else (n - span) // self.shift + 1

    def _spec(self):
        inner = self.inp._spec()
        return None if inner is None else structure.map_structure(DatasetSpec, inner)


def _window_arg(what, value):
    value = int(value)
    if value <= 0:
        raise InvalidArgumentError(f"{what} must be greater than zero.")
    return value


def _key(value, what):
    key = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if key.shape != () or key.dtype.kind not in "iu":
        raise InvalidArgumentError(f"`{what}` must return a scalar int64 tensor, returned "
                                   f"dtype {key.dtype} and shape {list(key.shape)}")
    return int(key)


class GroupByWindow(_Unary):
    """Groups elements by `key_func`; a group that reaches its window size (and at the
    end, each group left, in the order of their keys) is handed to `reduce_func`."""

    def __init__(self, inp, key_func, reduce_func, window_size, window_size_func):
        super().__init__(inp)
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        if window_size is not None:
            size = _positive("window_size", window_size)
            window_size_func = lambda key: size  # noqa: E731
        self.key_func, self.reduce_func = key_func, reduce_func
        self.size_func = window_size_func

    def _reduce(self, key, elements):
        out = self.reduce_func(np.int64(key), Elements(elements, self.inp._spec))
        if not isinstance(out, Dataset):
            raise TypeError(f"`reduce_func` must return a Dataset, returned "
                            f"{type(out).__name__}")
        return out

    def _gen(self, ctx):
        groups, sizes = {}, {}
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            try:
                key = _key(call(self.key_func, e), "key_func")
                if key not in sizes:
                    sizes[key] = _key(self.size_func(np.int64(key)), "window_size_func")
                    if sizes[key] <= 0:
                        raise InvalidArgumentError(f"Window size must be greater than zero, "
                                                   f"but got {sizes[key]}.")
                group = groups.setdefault(key, [])
                group.append(e)
                if len(group) == sizes[key]:
                    del groups[key]
                    yield from self._reduce(key, group)._gen(ctx)
            except Exception as x:  # noqa: BLE001  (travels in the element's place)
                yield Failure(x)
        for key in sorted(groups):
            try:
                yield from self._reduce(key, groups[key])._gen(ctx)
            except Exception as x:  # noqa: BLE001
                yield Failure(x)

    def _cardinality(self):
        n = self.inp._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN

    def _spec(self):
        element = spec.first(self.inp)
        if element is None:
            return None
        key = _key(call(self.key_func, element), "key_func")
        return self._reduce(key, [element])._spec()


def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries,
                              bucket_batch_sizes, padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Dataset.bucket_by_sequence_length: TensorFlow's buckets [-inf, b0), [b0, b1), ...,
    [b_last, inf), batched by group_by_window."""
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` "
                         f"but `len(bucket_batch_sizes)={len(sizes)}` and "
                         f"`len(bucket_boundaries)={len(boundaries)}`.")
    if any(b >= a for a, b in zip(boundaries[1:], boundaries)):
        raise ValueError(f"bucket_boundaries must be sorted in increasing order, received "
                         f"{boundaries}")

    def bucket_id(*args):
        length = _key(element_length_func(*args), "element_length_func")
        return np.int64(sum(b <= length for b in boundaries))

    def batching(key, group):
        key = int(key)
        if no_padding:
            return group.batch(sizes[key], drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            if key == len(boundaries):
                raise InternalError("assertion failed: [When pad_to_bucket_boundary=True, "
                                    "elements must have length < max(bucket_boundaries).]")
            shapes = _fill_unknown(padded_shapes, group.element_spec, boundaries[key] - 1)
        return group.padded_batch(sizes[key], shapes, padding_values,
                                  drop_remainder=drop_remainder)
    return GroupByWindow(dataset, bucket_id, batching, None,
                         lambda key: np.int64(sizes[int(key)]))


def _fill_unknown(padded_shapes, element_spec, filler):
    """padded_shapes (or the element's shapes) with unknown dimensions `filler`; the
    element's known ones are left to the batch's longest (they are its size)."""
    from .batching import _shapes_tree
    if padded_shapes is None:
        return structure.map_structure(
            lambda s: [filler if d is None else None for d in s.shape.as_list()], element_spec)
    tree = _shapes_tree(padded_shapes)
    return structure.map_structure(
        lambda s: [filler if d is None or d == -1 else d for d in s.dims], tree)


__all__ = ["DatasetSpec", "Elements", "GroupByWindow", "TensorSpec", "Window",
           "bucket_by_sequence_length"]
