"""Preprocessing layers: Rescaling."""

import numpy as np

from ...engine.ndarray import NDArray
from ...ops import elementwise as ew
from ..serialization import serializable
from .base import Layer

_MODULE = "keras.layers"


@serializable(_MODULE)
class Rescaling(Layer):
    """`inputs * scale + offset` (e.g. `Rescaling(1 / 255)` maps bytes to [0, 1]).

    `scale` and `offset` may be numbers or arrays broadcast against the input.

    >>> tf.keras.layers.Rescaling(1 / 255)(np.full((1, 2), 255.0, np.float32)).tolist()
    [[1.0, 1.0]]
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset
        self.built = True

    @staticmethod
    def _operand(value):
        if isinstance(value, (int, float, np.integer, np.floating)):
            return float(value)
        return value if isinstance(value, NDArray) else np.asarray(value, np.float32)

    def call(self, inputs):
        if inputs.dtype != "float32":
            inputs = ew.cast(inputs, "float32")
        out = ew.mul(inputs, self._operand(self.scale))
        return ew.add(out, self._operand(self.offset))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale, "offset": self.offset})
        return config
