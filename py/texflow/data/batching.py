"""Batching transformations: batch, padded_batch, unbatch, rebatch."""

import math

import numpy as np

from ..errors import DataLossError, InvalidArgumentError
from . import spec, structure
from .dataset import TensorSpec, UNKNOWN, Failure
from .transforms import _Unary, _positive


class Batch(_Unary):
    def __init__(self, inp, batch_size, drop_remainder):
        super().__init__(inp)
        self.size = _positive("batch_size", batch_size)
        self.drop = bool(drop_remainder)

    def _stack(self, items):
        return structure.batch(items)

    def _gen(self, ctx):
        fused = getattr(self.inp, "_batches", None)
        if fused is not None and type(self) is Batch:  # the input batches itself, faster
            yield from fused(self.size, self.drop, ctx)
            return
        items = []
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                items = []  # the partial batch is lost with the error, as in TensorFlow
                yield e
                continue
            items.append(e)
            if len(items) == self.size:
                yield _safe(self._stack, items)
                items = []
        if items and not self.drop:
            yield _safe(self._stack, items)

    def _cardinality(self):
        n = self.inp._cardinality()
        if n < 0:
            return n
        return n // self.size if self.drop else math.ceil(n / self.size)

    def _spec(self):
        inner = self.inp._spec()
        return None if inner is None else spec.batched(inner, self.size if self.drop else None)


def _safe(fn, *args):
    try:
        return fn(*args)
    except Exception as e:
        return Failure(e)


class PaddedBatch(Batch):
    def __init__(self, inp, batch_size, padded_shapes, padding_values, drop_remainder):
        super().__init__(inp, batch_size, drop_remainder)
        self.padded_shapes = padded_shapes
        self.padding_values = padding_values

    def _stack(self, items):
        structure_ = items[0]
        n = len(structure.flatten(structure_))
        shapes = [None] * n if self.padded_shapes is None else structure.flatten(
            _shapes_tree(self.padded_shapes))
        pads = self.padding_values
        pads = [None] * n if pads is None else (
            structure.flatten(pads) if not np.isscalar(pads) and not isinstance(pads, bytes)
            else [pads] * n)
        columns = list(zip(*(structure.flatten(e) for e in items)))
        out = []
        for c, (col, shape, pad) in enumerate(zip(columns, shapes, pads)):
            arrays = [np.asarray(x) if not isinstance(x, bytes) else np.array(x, object)
                      for x in col]
            rank = arrays[0].ndim
            if shape is not None and len(shape) != rank:
                raise ValueError(f"The padded shape {tuple(shape)} is not compatible with the "
                                 f"shape {arrays[0].shape} of the corresponding input component.")
            longest = [max(a.shape[d] for a in arrays) for d in range(rank)]
            target = list(longest) if shape is None else [
                longest[d] if s is None or s == -1 else int(s) for d, s in enumerate(shape)]
            for a in arrays:
                if a.ndim != rank or any(a.shape[d] > target[d] for d in range(rank)):
                    raise (DataLossError if a.ndim == rank else InvalidArgumentError)(
                        f"Attempted to pad to a smaller size than the input element: "
                        f"component {c} has shape {list(a.shape)}, padded shape {target}")
            if pad is None:
                pad = b"" if arrays[0].dtype == object else 0
            batch = np.full((len(arrays), *target), pad, dtype=arrays[0].dtype)
            for i, a in enumerate(arrays):
                batch[(i, *(slice(0, d) for d in a.shape))] = a
            out.append(batch)
        return structure.pack_as(structure_, out)

    def _spec(self):
        inner = self.inp._spec()
        if inner is None:
            return None
        shapes = [None] * len(structure.flatten(inner)) if self.padded_shapes is None else \
            structure.flatten(_shapes_tree(self.padded_shapes))
        padded = [s if shape is None else spec.with_shape(s, [
            None if d is None or d == -1 else int(d) for d in shape])
            for s, shape in zip(structure.flatten(inner), shapes)]
        return spec.batched(structure.pack_as(inner, padded),
                            self.size if self.drop else None)


def _shapes_tree(shapes):
    """padded_shapes as a tree whose leaves are shape tuples (lists are shapes)."""
    if isinstance(shapes, dict):
        return {k: _shapes_tree(v) for k, v in shapes.items()}
    if isinstance(shapes, tuple) and shapes and not all(
            s is None or isinstance(s, (int, np.integer)) for s in shapes):
        return tuple(_shapes_tree(s) for s in shapes)
    return _Shape(shapes)


class _Shape:
    """A shape kept whole by structure.flatten (a leaf, not a sequence)."""

    def __init__(self, dims):
        if isinstance(dims, TensorSpec):
            dims = dims.shape
        self.dims = () if dims is None else tuple(dims)

    def __iter__(self):
        return iter(self.dims)

    def __len__(self):
        return len(self.dims)


class Unbatch(_Unary):
    def _gen(self, ctx):
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            rows = _safe(structure.unbatch, e)
            if type(rows) is Failure:
                yield rows
            else:
                yield from rows

    def _cardinality(self):
        return UNKNOWN

    def _spec(self):
        inner = self.inp._spec()
        return None if inner is None else spec.unbatched(inner)


class Rebatch(_Unary):
    def __init__(self, inp, batch_size, drop_remainder):
        super().__init__(inp)
        sizes = [batch_size] if np.isscalar(batch_size) else list(batch_size)
        self.sizes = [_positive("batch_size", s) for s in sizes]
        self.drop = drop_remainder

    def _gen(self, ctx):
        k, items = 0, []
        for e in Unbatch(self.inp)._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            items.append(e)
            if len(items) == self.sizes[k % len(self.sizes)]:
                yield _safe(structure.batch, items)
                items, k = [], k + 1
        if items and not self.drop:
            yield _safe(structure.batch, items)

    def _cardinality(self):
        return UNKNOWN

    def _spec(self):
        inner = self.inp._spec()
        fixed = self.drop and len(set(self.sizes)) == 1
        return None if inner is None else spec.batched(
            spec.unbatched(inner), self.sizes[0] if fixed else None)
