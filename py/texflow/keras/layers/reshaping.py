"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector, ZeroPadding2D."""

import math

import numpy as np

from ...ops.movement import expand_dims, pad, reshape, tile, transpose
from ..serialization import serializable
from .base import InputSpec, Layer
from .conv import normalize_data_format

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


@serializable(_MODULE)
class ZeroPadding2D(Layer):
    """Pads NHWC images with zeros: `padding` is an int, (rows, cols) or
    ((top, bottom), (left, right)).

    >>> tf.keras.layers.ZeroPadding2D(1)(np.ones((1, 2, 2, 1), np.float32)).shape
    TensorShape([1, 4, 4, 1])
    """

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = ((padding, padding), (padding, padding))
        elif all(isinstance(p, int) for p in padding):
            padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        self.padding = tuple(tuple(int(v) for v in p) for p in padding)
        if len(self.padding) != 2 or any(len(p) != 2 or min(p) < 0 for p in self.padding):
            raise ValueError(f"ZeroPadding2D: padding must be an int, 2 ints or 2 pairs of "
                             f"non-negative ints, received {padding!r}")
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=4)
        self.built = True

    def call(self, inputs):
        return pad(inputs, ((0, 0),) + self.padding + ((0, 0),))

    def compute_output_shape(self, input_shape):
        (t, b), (l, r) = self.padding
        h, w = input_shape[1], input_shape[2]
        return (input_shape[0], None if h is None else h + t + b,
                None if w is None else w + l + r, input_shape[3])

    def get_config(self):
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config
