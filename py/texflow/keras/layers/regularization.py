"""Regularization layers: Dropout."""

import numpy as np

from ...engine.ndarray import from_numpy
from ...engine.trace import dry, fresh_each_call
from ...ops import elementwise as ew
from .. import backend
from ..serialization import serializable
from .base import Layer

_MODULE = "keras.layers"


@serializable(_MODULE)
class Dropout(Layer):
    """While training, zeroes inputs with probability `rate` and scales the rest by
    1 / (1 - rate); otherwise returns its input.

    Masks are drawn with numpy on the host from the layer's own generator (seeded by
    `seed`, or from `tf.keras.utils.set_random_seed`'s generator), so a seed gives the
    same masks on every backend.

    Args:
        rate: the fraction of inputs to drop, in [0, 1).
        noise_shape: the mask's shape (broadcast against the input; None entries take
            the input's size), e.g. (batch, 1, features) to drop whole features.
        seed: an int seed for the masks.

    >>> layer = tf.keras.layers.Dropout(0.5, seed=1)
    >>> layer(np.ones((2, 4), np.float32), training=True).shape
    TensorShape([2, 4])
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float "
                             f"value between 0 and 1. Received: rate={rate}")
        self.rate = float(rate)
        self.noise_shape = tuple(noise_shape) if noise_shape is not None else None
        self.seed = seed
        self._rng = None
        self.built = True

    def _generator(self):
        if self._rng is None:
            seed = self.seed if self.seed is not None else \
                int(backend.global_generator().integers(2**31))
            self._rng = np.random.default_rng(seed)
        return self._rng

    def call(self, inputs, training=False):
        if not training or self.rate == 0.0:
            return inputs
        if self.rate == 1.0:
            return ew.mul(inputs, 0.0)
        shape = inputs.shape if self.noise_shape is None else tuple(
            n if d is None else d for d, n in zip(self.noise_shape, inputs.shape))
        return ew.mul(inputs, self._mask(shape))

    @fresh_each_call  # tf.function draws a new mask at every call
    def _mask(self, shape):
        if dry():  # get_concrete_function: the mask is discarded, the generator unused
            return from_numpy(np.ones(shape, np.float32))
        keep = self._generator().random(shape) >= self.rate
        return from_numpy(keep.astype(np.float32) / (1.0 - self.rate))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape})
        return config
