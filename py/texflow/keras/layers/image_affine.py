"""Random affine augmentation layers: RandomRotation, RandomZoom, RandomTranslation.

Each draws its per-image parameters on the host (fresh at every call, also inside
tf.function), makes Keras 3's affine matrices in float32 there, and samples the images on
the device with `affine_transform` (TensorFlow's ImageProjectiveTransformV3: fill modes
reflect, wrap, constant, nearest; bilinear or nearest interpolation). Outside training they
return their input as float32.
"""

import numpy as np

from ..serialization import serializable
from .image_base import ImageLayer, affine_transform, as_float, check_modes, factor_pair

_MODULE = "keras.layers"


class _AffineLayer(ImageLayer):
    def __init__(self, fill_mode, interpolation, seed, fill_value, data_format, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        check_modes(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.fill_value = fill_value
        self.built = True

    def call(self, inputs, training=True):
        inputs = as_float(inputs)
        if not training:
            return inputs
        x, back = self._to_nhwc(inputs)
        batch, height, width = x.shape[:3]
        coefficients = self._host(self._matrices, batch, height, width)
        return back(affine_transform(x, coefficients, self.interpolation, self.fill_mode,
                                     self.fill_value))

    def _matrices(self, rng, batch, height, width):
        """(a0, a1, a2, b0, b1, b2), each float32 of shape (batch, 1, 1)."""
        raise NotImplementedError

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"fill_mode": self.fill_mode, "fill_value": self.fill_value,
                       "interpolation": self.interpolation, "seed": self.seed})
        return config


def _columns(*values):
    return tuple(np.asarray(v, np.float32).reshape(-1, 1, 1) for v in values)


@serializable(_MODULE)
class RandomRotation(_AffineLayer):
    """Rotates each image by a random angle in [factor[0], factor[1]] turns (a number f
    means [-f, f]) about its centre while training; positive turns counter-clockwise.

    >>> layer = tf.keras.layers.RandomRotation((0.5, 0.5))  # half a turn
    >>> out = layer(np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1), training=True)
    >>> out[0, ..., 0].numpy().round(4).tolist()
    [[3.0, 2.0], [1.0, 0.0]]
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor_pair(factor, "factor")

    def _matrices(self, rng, batch, height, width):
        lower, upper = self.factor
        angle = rng.uniform(lower * 360.0, upper * 360.0, batch).astype(np.float32)
        angle = angle * np.float32(np.pi / 180.0)
        cx = np.float32(0.5) * np.float32(width - 1)
        cy = np.float32(0.5) * np.float32(height - 1)
        cos, sin = np.cos(angle), np.sin(angle)
        a0, a1, b0, b1 = cos, -sin, sin, cos
        return _columns(a0, a1, cx - cx * a0 - cy * a1, b0, b1, cy - cx * b0 - cy * b1)

    def get_config(self):
        config = super().get_config()
        config["factor"] = self.factor
        return config


def _zoom_pair(factor, name, closed_low):
    message = (f"The `{name}` argument should be a number (or a list of two numbers) in the "
               f"range {'[' if closed_low else '('}-1.0, 1.0]. Received: {name}={factor}")

    def check(v):
        if not isinstance(v, (int, float)) or v > 1.0 or v < -1.0 or \
                (v == -1.0 and not closed_low):
            raise ValueError(message)
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(message)
        check(factor[0])
        check(factor[1])
        lower, upper = sorted(factor)
        return lower, upper
    check(factor)
    return -abs(factor), abs(factor)


@serializable(_MODULE)
class RandomZoom(_AffineLayer):
    """Zooms each image by a random amount while training: `height_factor` (a number f
    means [-f, f]) of 0.2 zooms out by 20%, -0.2 in by 20%; `width_factor=None` keeps the
    aspect ratio.

    >>> layer = tf.keras.layers.RandomZoom((-0.5, -0.5), fill_mode="constant")
    >>> layer(np.ones((1, 4, 4, 1), np.float32), training=True).shape
    TensorShape([1, 4, 4, 1])
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _zoom_pair(height_factor, "height_factor",
                                                          False)
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _zoom_pair(width_factor, "width_factor",
                                                            False)

    def _matrices(self, rng, batch, height, width):
        zy = rng.uniform(1.0 + self.height_lower, 1.0 + self.height_upper, batch)
        zx = zy if self.width_factor is None else \
            rng.uniform(1.0 + self.width_lower, 1.0 + self.width_upper, batch)
        zx, zy = zx.astype(np.float32), zy.astype(np.float32)
        x_offset = (np.float32(width) - 1) / 2 * (1 - zx)
        y_offset = (np.float32(height) - 1) / 2 * (1 - zy)
        zero = np.zeros(batch, np.float32)
        return _columns(zx, zero, x_offset, zero, zy, y_offset)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor,
                       "width_factor": self.width_factor})
        return config


@serializable(_MODULE)
class RandomTranslation(_AffineLayer):
    """Shifts each image by a random fraction of its height and width while training
    (a number f means [-f, f]; positive moves down and right).

    >>> layer = tf.keras.layers.RandomTranslation((0.5, 0.5), 0, fill_mode="constant")
    >>> layer(np.ones((1, 2, 1, 1), np.float32), training=True)[0, :, 0, 0].numpy().tolist()
    [0.0, 1.0]
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _zoom_pair(height_factor, "height_factor",
                                                          True)
        self.width_factor = width_factor
        self.width_lower, self.width_upper = _zoom_pair(width_factor, "width_factor", True)

    def _matrices(self, rng, batch, height, width):
        dy = rng.uniform(self.height_lower, self.height_upper, batch).astype(np.float32)
        dy = dy * np.float32(height)
        dx = rng.uniform(self.width_lower, self.width_upper, batch).astype(np.float32)
        dx = dx * np.float32(width)
        one, zero = np.ones(batch, np.float32), np.zeros(batch, np.float32)
        return _columns(one, zero, -dx, zero, one, -dy)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor,
                       "width_factor": self.width_factor})
        return config
