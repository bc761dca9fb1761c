"""Regularization layers: Dropout, SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout,
AlphaDropout, ActivityRegularization."""

import math

import numpy as np

from ...engine.ndarray import from_numpy
from ...engine.trace import dry, fresh_each_call
from ...ops import elementwise as ew
from .. import regularizers
from ..serialization import serializable
from .base import InputSpec, Layer
from .image_base import SeededLayer, data_format_of

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

    _generator = SeededLayer._generator  # its `seed`, else set_random_seed's generator

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


class _SpatialDropout(Dropout):
    """Dropout of whole feature maps: one draw per example and channel."""

    _NDIM = None

    def __init__(self, rate, seed=None, name=None, dtype=None, data_format=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = data_format_of(data_format)
        self.input_spec = InputSpec(ndim=self._NDIM)

    def call(self, inputs, training=False):
        n, shape = inputs.shape[0], inputs.shape
        if self.data_format == "channels_first":
            self.noise_shape = (n, shape[1]) + (1,) * (len(shape) - 2)
        else:
            self.noise_shape = (n,) + (1,) * (len(shape) - 2) + (shape[-1],)
        return super().call(inputs, training)

    def get_config(self):
        config = {"rate": self.rate, "seed": self.seed, "name": self.name,
                  "dtype": self.dtype}
        if self._NDIM > 3:
            config["data_format"] = self.data_format
        return config


@serializable(_MODULE)
class SpatialDropout1D(_SpatialDropout):
    """Dropout of whole channels of (batch, steps, channels) inputs while training.

    >>> out = tf.keras.layers.SpatialDropout1D(0.5, seed=0)(np.ones((1, 3, 4)), training=True)
    >>> bool((out.numpy() == out.numpy()[:, :1]).all())
    True
    """

    _NDIM = 3

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)


@serializable(_MODULE)
class SpatialDropout2D(_SpatialDropout):
    """Dropout of whole feature maps of images while training (one draw per example and
    channel).

    >>> tf.keras.layers.SpatialDropout2D(0.5)(np.ones((1, 2, 2, 3))).shape
    TensorShape([1, 2, 2, 3])
    """

    _NDIM = 4

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype, data_format=data_format)


@serializable(_MODULE)
class SpatialDropout3D(_SpatialDropout):
    """Dropout of whole feature volumes of 5-D inputs while training (one draw per example
    and channel).

    >>> tf.keras.layers.SpatialDropout3D(0.5)(np.ones((1, 2, 2, 2, 3))).shape
    TensorShape([1, 2, 2, 2, 3])
    """

    _NDIM = 5

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype, data_format=data_format)


def _check_unit(name, value):
    if not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"Invalid value received for argument `{name}`. Expected a float "
                         f"value between 0 and 1. Received: {name}={value}")


class _Noise(SeededLayer):
    def __init__(self, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape


@serializable(_MODULE)
class GaussianNoise(_Noise):
    """While training, adds zero-centred Gaussian noise of standard deviation `stddev`.

    >>> tf.keras.layers.GaussianNoise(0.1)(np.ones((1, 2)), training=False).numpy()
    array([[1., 1.]], dtype=float32)
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        _check_unit("stddev", stddev)
        self.stddev = stddev

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        noise = self._host(lambda rng, shape: rng.normal(0.0, self.stddev, shape)
                           .astype(np.float32), tuple(inputs.shape))
        return ew.add(inputs, noise)

    def get_config(self):
        config = super().get_config()
        config.update({"stddev": self.stddev, "seed": self.seed})
        return config


@serializable(_MODULE)
class GaussianDropout(_Noise):
    """While training, multiplies by Gaussian noise of mean 1 and standard deviation
    sqrt(rate / (1 - rate)).

    >>> tf.keras.layers.GaussianDropout(0.2)(np.ones((1, 2)), training=False).numpy()
    array([[1., 1.]], dtype=float32)
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        _check_unit("rate", rate)
        self.rate = rate

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = self._host(lambda rng, shape: rng.normal(1.0, stddev, shape)
                           .astype(np.float32), tuple(inputs.shape))
        return ew.mul(inputs, noise)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@serializable(_MODULE)
class AlphaDropout(_Noise):
    """While training, sets inputs to SELU's negative saturation value with probability
    `rate`, then applies the affine map that keeps SELU's mean and variance (Keras 3's
    formula).

    >>> tf.keras.layers.AlphaDropout(0.2)(np.ones((1, 2)), training=False).numpy()
    array([[1., 1.]], dtype=float32)
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        _check_unit("rate", rate)
        self.rate = rate
        self.noise_shape = noise_shape

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        shape = tuple(inputs.shape) if self.noise_shape is None else tuple(
            n if d is None else d for d, n in zip(self.noise_shape, inputs.shape))
        kept = self._host(lambda rng, s: (rng.random(s) >= self.rate).astype(np.float32),
                          shape)
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = ew.add(ew.mul(inputs, kept), ew.mul(ew.sub(1.0, kept), alpha_p))
        return ew.add(ew.mul(x, a), b)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})  # Keras 3 leaves noise_shape out
        return config


@serializable(_MODULE)
class ActivityRegularization(Layer):
    """Returns its input and adds `l1 * sum(|x|) + l2 * sum(x ** 2)` (divided by the batch
    size, as every activity regularizer) to the layer's losses.

    >>> layer = tf.keras.layers.ActivityRegularization(l1=0.5)
    >>> _ = layer(np.array([[1.0, -3.0]], np.float32))
    >>> float(layer.losses[0])
    2.0
    """

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1, self.l2 = l1, l2
        self.built = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"l1": self.l1, "l2": self.l2})
        return config
