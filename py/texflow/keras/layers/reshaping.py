"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector, Cropping1D/2D/3D,
ZeroPadding1D/2D/3D."""

import math

import numpy as np

from ...ops.movement import expand_dims, pad, reshape, tile, transpose
from ...ops.movement import slice as slice_
from ..serialization import serializable
from .base import InputSpec, Layer
from .conv import normalize_data_format
from .image_base import data_format_of

_MODULE = "keras.layers"


@serializable(_MODULE)
class Flatten(Layer):
    """Flattens every axis but the batch axis: (N, 13, 13, 32) -> (N, 5408).

    >>> tf.keras.layers.Flatten()(np.zeros((2, 3, 4), np.float32)).shape
    TensorShape([2, 12])
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        return reshape(inputs, (inputs.shape[0], int(np.prod(inputs.shape[1:]))))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        size = None if any(d is None for d in rest) else int(np.prod(rest))
        return (input_shape[0], size)

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


@serializable(_MODULE)
class Reshape(Layer):
    """Reshapes each example to `target_shape` (one entry may be -1).

    >>> tf.keras.layers.Reshape((3, 4))(np.zeros((2, 12), np.float32)).shape
    TensorShape([2, 3, 4])
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        target = tuple(int(d) for d in target_shape)
        if target.count(-1) > 1 or any(d < -1 for d in target):
            raise ValueError(f"Reshape: target_shape may hold one -1 and otherwise "
                             f"non-negative sizes, received {target_shape!r}")
        self.target_shape = target
        self.built = True

    def _resolve(self, input_shape):
        rest = input_shape[1:]
        if -1 not in self.target_shape:
            if None not in rest and math.prod(rest) != math.prod(self.target_shape):
                raise ValueError(self._mismatch(input_shape))
            return self.target_shape
        if None in rest:
            return tuple(None if d == -1 else d for d in self.target_shape)
        known = math.prod(d for d in self.target_shape if d != -1)
        total = math.prod(rest)
        if known == 0 or total % known:
            raise ValueError(self._mismatch(input_shape))
        return tuple(total // known if d == -1 else d for d in self.target_shape)

    def _mismatch(self, input_shape):
        return (f'Layer "{self.name}": total size of the new array must be unchanged: '
                f"input_shape = {list(input_shape[1:])}, output_shape = "
                f"{list(self.target_shape)}")

    def call(self, inputs):
        return reshape(inputs, (inputs.shape[0],) + self._resolve(inputs.shape))

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + self._resolve(input_shape)

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config


@serializable(_MODULE)
class Permute(Layer):
    """Permutes the non-batch axes: `dims` are 1-based, as in Keras.

    >>> tf.keras.layers.Permute((2, 1))(np.zeros((2, 3, 4), np.float32)).shape
    TensorShape([2, 4, 3])
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set "
                             f"of indices in `dims` must be consecutive and start from 1. "
                             f"Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)
        self.built = True

    def call(self, inputs):
        return transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self):
        config = super().get_config()
        config["dims"] = self.dims
        return config


@serializable(_MODULE)
class RepeatVector(Layer):
    """Repeats a (N, features) input n times: (N, n, features).

    >>> tf.keras.layers.RepeatVector(3)(np.ones((2, 4), np.float32)).shape
    TensorShape([2, 3, 4])
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)
        self.input_spec = InputSpec(ndim=2)
        self.built = True

    def call(self, inputs):
        return tile(expand_dims(inputs, 1), (1, self.n, 1))

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config


def _pairs(value, rank, name, layer):
    """`value` (an int, `rank` ints or `rank` pairs) as `rank` (before, after) pairs."""
    if isinstance(value, int):
        pairs = ((value, value),) * rank
    elif isinstance(value, (tuple, list)) and len(value) == rank:
        pairs = tuple((v, v) if isinstance(v, int) else tuple(v) for v in value)
    elif isinstance(value, (tuple, list)) and rank == 1 and len(value) == 2:
        pairs = (tuple(value),)
    else:
        raise ValueError(f"`{name}` should have {2 if rank == 1 else rank} elements. "
                         f"Received: {name}={value}.")
    if any(len(p) != 2 or not all(isinstance(v, int) for v in p) for p in pairs):
        raise ValueError(f"{layer}: `{name}` must be an int, {rank} ints or {rank} pairs of "
                         f"ints. Received: {name}={value}.")
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
    return tuple(tuple(int(v) for v in p) for p in pairs)


class _Spatial(Layer):
    """Cropping or zero padding of the `_RANK` spatial axes of channels_last or
    channels_first inputs."""

    _RANK = None
    _ARG = None

    def __init__(self, amounts, data_format=None, **kwargs):
        super().__init__(**kwargs)
        setattr(self, self._ARG, _pairs(amounts, self._RANK, self._ARG, type(self).__name__))
        self.data_format = data_format_of(data_format)
        self.input_spec = InputSpec(ndim=self._RANK + 2)
        self.built = True

    def _spatial_axes(self):
        first = 2 if self.data_format == "channels_first" else 1
        return range(first, first + self._RANK)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, (before, after) in zip(self._spatial_axes(), getattr(self, self._ARG)):
            if shape[axis] is not None:
                shape[axis] += self._SIGN * (before + after)
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config[self._ARG] = getattr(self, self._ARG)
        if self._RANK > 1 or self._ARG == "padding":
            config["data_format"] = self.data_format
        return config


class _Cropping(_Spatial):
    _ARG, _SIGN = "cropping", -1

    def call(self, inputs):
        begin, size = [0] * len(inputs.shape), list(inputs.shape)
        for axis, (before, after) in zip(self._spatial_axes(), self.cropping):
            if before + after >= inputs.shape[axis]:
                raise ValueError(
                    f"Values in `cropping` argument should be smaller than the corresponding "
                    f"spatial dimension of the input. Received: inputs.shape="
                    f"{tuple(inputs.shape)}, cropping={self.cropping}")
            begin[axis], size[axis] = before, inputs.shape[axis] - before - after
        return slice_(inputs, begin, size)


class _ZeroPadding(_Spatial):
    _ARG, _SIGN = "padding", 1

    def call(self, inputs):
        paddings = [(0, 0)] * len(inputs.shape)
        for axis, pair in zip(self._spatial_axes(), self.padding):
            paddings[axis] = pair
        return pad(inputs, paddings)


@serializable(_MODULE)
class Cropping1D(_Cropping):
    """Crops (start, end) steps of (batch, steps, features) inputs.

    >>> tf.keras.layers.Cropping1D((1, 2))(np.zeros((1, 5, 3), np.float32)).shape
    TensorShape([1, 2, 3])
    """

    _RANK = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, **kwargs)

    def get_config(self):
        config = super().get_config()
        config["cropping"] = self.cropping[0]
        return config


@serializable(_MODULE)
class Cropping2D(_Cropping):
    """Crops images: `cropping` is an int, (rows, cols) or ((top, bottom), (left, right)).

    >>> tf.keras.layers.Cropping2D(((1, 0), (1, 1)))(np.zeros((1, 4, 4, 1))).shape
    TensorShape([1, 3, 2, 1])
    """

    _RANK = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


@serializable(_MODULE)
class Cropping3D(_Cropping):
    """Crops volumes (batch, d1, d2, d3, channels): an int, 3 ints or 3 pairs.

    >>> tf.keras.layers.Cropping3D(1)(np.zeros((1, 3, 4, 5, 2))).shape
    TensorShape([1, 1, 2, 3, 2])
    """

    _RANK = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


@serializable(_MODULE)
class ZeroPadding1D(_ZeroPadding):
    """Pads (batch, steps, features) inputs with zero steps: an int or (start, end).

    >>> tf.keras.layers.ZeroPadding1D((1, 2))(np.ones((1, 2, 1), np.float32)).shape
    TensorShape([1, 5, 1])
    """

    _RANK = 1

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)

    def get_config(self):
        config = super().get_config()
        config["padding"] = self.padding[0]
        return config


@serializable(_MODULE)
class ZeroPadding2D(_ZeroPadding):
    """Pads images with zeros: `padding` is an int, (rows, cols) or
    ((top, bottom), (left, right)).

    >>> tf.keras.layers.ZeroPadding2D(1)(np.ones((1, 2, 2, 1), np.float32)).shape
    TensorShape([1, 4, 4, 1])
    """

    _RANK = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


@serializable(_MODULE)
class ZeroPadding3D(_ZeroPadding):
    """Pads volumes (batch, d1, d2, d3, channels) with zeros: an int, 3 ints or 3 pairs.

    >>> tf.keras.layers.ZeroPadding3D(1)(np.ones((1, 1, 2, 3, 1), np.float32)).shape
    TensorShape([1, 3, 4, 5, 1])
    """

    _RANK = 3

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)
