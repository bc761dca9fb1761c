"""Dataset.from_generator."""

import numpy as np

from ..errors import InvalidArgumentError
from . import spec, structure
from .batching import _Shape, _safe, _shapes_tree
from .dataset import Dataset, Failure, TensorSpec


class Generator(Dataset):
    _tf_name = "_FlatMapDataset"
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError(f"`generator` must be callable, received {generator!r}")
        self.generator, self.args = generator, tuple(args or ())
        if output_signature is None and output_types is None:
            raise TypeError("To specify the output signature you need to provide either the "
                            "`output_signature` argument or the `output_types` argument.")
        if output_signature is not None:
            output_types = structure.map_structure(lambda s: s.dtype, output_signature)
            output_shapes = structure.map_structure(lambda s: _Shape(s.shape),
                                                    output_signature)
        elif output_shapes is not None:
            output_shapes = _shapes_tree(output_shapes)
        self.types, self.shapes = output_types, output_shapes
        self.signature = output_signature

    def _spec(self):
        if self.signature is not None:
            return structure.map_structure(
                lambda s: TensorSpec(s.shape, s.dtype), self.signature)
        if self.types is None:
            return super()._spec()
        if self.shapes is None:
            return structure.map_structure(spec.unknown_shape, self.types)
        return structure.pack_as(self.types, [
            TensorSpec([None if d == -1 else d for d in shape], t) for t, shape in
            zip(structure.flatten(self.types), structure.flatten(self.shapes))])

    def _convert(self, value):
        value = structure.normalize(value, False)  # a yielded list is one tensor
        leaves = structure.flatten(value)
        if self.types is not None:
            types = structure.flatten(self.types)
            if len(types) != len(leaves):
                raise InvalidArgumentError(
                    f"`generator` yielded an element with {len(leaves)} components, but "
                    f"{len(types)} were expected")
            leaves = [_cast(x, t) for x, t in zip(leaves, types)]
        if self.shapes is not None:
            for x, shape in zip(leaves, structure.flatten(self.shapes)):
                got = structure.shape_of(x)
                if len(got) != len(shape) or any(
                        s is not None and s != -1 and s != g for s, g in zip(shape, got)):
                    raise InvalidArgumentError(
                        f"`generator` yielded an element of shape {got} where an element of "
                        f"shape {tuple(shape.dims)} was expected.")
        return structure.pack_as(value, leaves)

    def _gen(self, ctx):
        try:
            it = iter(self.generator(*self.args))
        except Exception as e:
            yield Failure(_wrapped(e))
            return
        while True:
            try:
                value = next(it)
            except StopIteration:
                return
            except Exception as e:  # the generator is finished after raising
                yield Failure(_wrapped(e))
                return
            yield _safe(self._convert, value)


def _wrapped(exc):
    """An exception of the generator's as TensorFlow raises it: InvalidArgumentError
    naming it (texflow's is a ValueError too), the original as its cause."""
    if isinstance(exc, InvalidArgumentError):
        return exc
    wrapped = InvalidArgumentError(f"{type(exc).__name__}: {exc}")
    wrapped.__cause__ = exc
    return wrapped


def _cast(value, dtype):
    target = structure.host_dtype(dtype)
    if target == object:
        if isinstance(value, bytes) or getattr(value, "dtype", None) == object:
            return value
        _not_convertible(value, target)
    arr = np.asarray(value)
    if arr.dtype.kind in "OSU" or (arr.dtype.kind == "f" and target.kind in "iub" and arr.size):
        _not_convertible(value, target)
    return structure.convert(arr.astype(target))


def _not_convertible(value, target):
    shown = value.decode(errors="replace") if isinstance(value, bytes) else value
    raise InvalidArgumentError(
        "TypeError: `generator` yielded an element that could not be converted to the "
        f"expected type. The expected type was {structure.dtype_name(target)}, but the "
        f"yielded element was {shown}.")
