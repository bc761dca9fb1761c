"""What the image preprocessing layers share: a seeded host generator whose draws are fresh
at every call (also inside tf.function), channels_first handled by transposing to NHWC, and
`affine_transform`, TensorFlow's ImageProjectiveTransformV3 (Keras's
`ops.image.affine_transform`) for affine matrices, written with gathers and arithmetic."""

import numpy as np

from ...engine.ndarray import from_numpy
from ...engine.trace import dry, fresh_each_call
from ...ops import elementwise as ew
from ...ops.movement import expand_dims, gather, reshape, squeeze, transpose
from .. import backend
from .base import Layer

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("nearest", "bilinear")


def data_format_of(data_format):
    if data_format in (None, "channels_last", "channels_first"):
        return data_format or "channels_last"
    raise ValueError(f"The `data_format` argument must be one of 'channels_first', "
                     f"'channels_last'. Received: data_format={data_format!r}")


class SeededLayer(Layer):
    """A layer drawing random numbers on the host from its own numpy generator (seeded by
    `seed`, else from `tf.keras.utils.set_random_seed`'s generator), as Dropout does."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self._rng = None

    def _generator(self):
        if self._rng is None:
            seed = self.seed if self.seed is not None else \
                int(backend.global_generator().integers(2**31))
            self._rng = np.random.default_rng(seed)
        return self._rng

    @fresh_each_call  # tf.function draws anew at every call
    def _host(self, draw, *shape_args):
        """`draw(generator, *shape_args)` -> numpy arrays, uploaded; zeros in a dry trace
        (get_concrete_function must not advance the generator)."""
        if dry():
            out = draw(np.random.default_rng(0), *shape_args)
        else:
            out = draw(self._generator(), *shape_args)
        if isinstance(out, tuple):
            return tuple(from_numpy(np.ascontiguousarray(a)) for a in out)
        return from_numpy(np.ascontiguousarray(out))


class ImageLayer(SeededLayer):
    """An image layer: rank 3 or 4 inputs, channels_last or channels_first."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.data_format = data_format_of(data_format)

    def _to_nhwc(self, images):
        """(NHWC images, a function that undoes the batching and layout)."""
        rank = len(images.shape)
        if rank not in (3, 4):
            raise ValueError(f"Expected the input image to be rank 3 or 4. Received "
                             f"inputs.shape={tuple(images.shape)}")
        x = images if rank == 4 else expand_dims(images, 0)
        first = self.data_format == "channels_first"
        if first:
            x = transpose(x, (0, 2, 3, 1))

        def back(y):
            if first:
                y = transpose(y, (0, 3, 1, 2))
            return y if rank == 4 else squeeze(y, 0)
        return x, back

    def _hw_axes(self, rank):
        return (rank - 2, rank - 1) if self.data_format == "channels_first" else \
            (rank - 3, rank - 2)

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


def factor_pair(factor, name, bounds=(-1.0, 1.0)):
    """Keras's (lower, upper) from a number or a pair, checked against `bounds`."""
    message = (f"The `{name}` argument should be a number (or a list of two numbers) in the "
               f"range [{bounds[0]}, {bounds[1]}]. Received: {name}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(message)
        lower, upper = sorted(factor)
        return lower, upper
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor < bounds[0] or factor > bounds[1]:
            raise ValueError(message)
        factor = abs(factor)
        return max(-factor, bounds[0]), factor
    raise ValueError(message)


def check_modes(fill_mode, interpolation):
    if fill_mode not in FILL_MODES:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one "
                                  f"{FILL_MODES}.")
    if interpolation not in INTERPOLATIONS:
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                  f"{INTERPOLATIONS}.")


# -- affine_transform ----------------------------------------------------------------------

def _map_coordinate(c, size, fill_mode):
    """TensorFlow's MapCoordinate: an input coordinate outside [0, size - 1] moved inside
    by `fill_mode` ("constant" leaves it, reads outside then give the fill value)."""
    if fill_mode == "constant":
        return c
    top = float(size - 1)
    if fill_mode == "nearest" or size <= 1:
        return ew.minimum(ew.maximum(c, 0.0), top)
    if fill_mode == "reflect":
        span = 2.0 * size
        low = ew.add(c, ew.mul(ew.floor(ew.div(ew.neg(c), span)), span))  # in (-span, 0]
        low = ew.where(ew.less(low, -float(size)), ew.add(low, span), ew.sub(-1.0, low))
        high = ew.sub(c, ew.mul(ew.floor(ew.div(c, span)), span))  # in [0, span)
        high = ew.where(ew.greater_equal(high, float(size)), ew.sub(span - 1.0, high), high)
    else:  # wrap, with TensorFlow's size - 1 divisor
        low = ew.add(c, ew.mul(ew.add(ew.floor(ew.div(ew.neg(c), top)), 1.0), float(size)))
        high = ew.sub(c, ew.mul(ew.floor(ew.div(c, top)), float(size)))
    c = ew.where(ew.less(c, 0.0), low, ew.where(ew.greater(c, top), high, c))
    return ew.minimum(ew.maximum(c, 0.0), top)


def _read(flat, y, x, batch_base, height, width, fill_value):
    """Pixels (y, x) (float, integral) of each image; `fill_value` outside the image."""
    inside = ew.logical_and(
        ew.logical_and(ew.greater_equal(y, 0.0), ew.less(y, float(height))),
        ew.logical_and(ew.greater_equal(x, 0.0), ew.less(x, float(width))))
    yi = ew.minimum(ew.maximum(y, 0.0), float(height - 1))
    xi = ew.minimum(ew.maximum(x, 0.0), float(width - 1))
    index = ew.cast(ew.add(ew.add(ew.mul(yi, float(width)), xi), batch_base), "int32")
    values = gather(flat, index)
    return ew.where(expand_dims(inside, -1), values, float(fill_value))


def _round_half_away(x):
    return ew.mul(ew.sign(x), ew.floor(ew.add(ew.abs(x), 0.5)))


def affine_transform(images, coefficients, interpolation="bilinear", fill_mode="constant",
                     fill_value=0.0):
    """Samples NHWC float32 `images` at input (x', y') = (a0 x + a1 y + a2, b0 x + b1 y + b2)
    for each output pixel (x, y), TensorFlow's ImageProjectiveTransformV3 with c0 = c1 = 0.

    `coefficients` are six NDArrays (a0, a1, a2, b0, b1, b2) of shape (batch, 1, 1).
    """
    batch, height, width, channels = images.shape
    a0, a1, a2, b0, b1, b2 = coefficients
    xs = from_numpy(np.arange(width, dtype=np.float32).reshape(1, 1, width))
    ys = from_numpy(np.arange(height, dtype=np.float32).reshape(1, height, 1))
    x_in = ew.add(ew.add(ew.mul(a0, xs), ew.mul(a1, ys)), a2)
    y_in = ew.add(ew.add(ew.mul(b0, xs), ew.mul(b1, ys)), b2)
    x_in = _map_coordinate(x_in, width, fill_mode)
    y_in = _map_coordinate(y_in, height, fill_mode)
    flat = reshape(images, (batch * height * width, channels))
    base = from_numpy((np.arange(batch, dtype=np.float32) * (height * width))
                      .reshape(batch, 1, 1))

    def read(y, x):
        return _read(flat, y, x, base, height, width, fill_value)
    if interpolation == "nearest":
        return read(_round_half_away(y_in), _round_half_away(x_in))
    x0, y0 = ew.floor(x_in), ew.floor(y_in)
    x1, y1 = ew.add(x0, 1.0), ew.add(y0, 1.0)
    wx1 = expand_dims(ew.sub(x_in, x0), -1)
    wx0 = expand_dims(ew.sub(x1, x_in), -1)
    wy1 = expand_dims(ew.sub(y_in, y0), -1)
    wy0 = expand_dims(ew.sub(y1, y_in), -1)
    top = ew.add(ew.mul(wx0, read(y0, x0)), ew.mul(wx1, read(y0, x1)))
    bottom = ew.add(ew.mul(wx0, read(y1, x0)), ew.mul(wx1, read(y1, x1)))
    return ew.add(ew.mul(wy0, top), ew.mul(wy1, bottom))


def as_float(images, dtype="float32"):
    return images if images.dtype == dtype else ew.cast(images, dtype)

