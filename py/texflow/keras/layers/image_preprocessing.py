"""Image preprocessing layers: Resizing, CenterCrop, RandomFlip, RandomCrop, RandomContrast,
RandomBrightness, RandomHeight, RandomWidth (Keras 3's arguments, defaults and configs).

The random layers draw their parameters on the host (fresh at every call, also inside
tf.function) and are inactive outside training, as Keras's: `training=False`, `predict`
and `evaluate` return the input.
"""

import numpy as np

from ...dtypes import is_float
from ...engine.trace import traced
from ...image._sampling import resize
from ...ops import elementwise as ew
from ...ops.movement import gather, pad, reverse
from ...ops.movement import slice as slice_
from ...ops.reduce import mean
from .. import backend
from ..serialization import serializable
from .image_base import ImageLayer, as_float, factor_pair

_MODULE = "keras.layers"
_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _crop_box(height, width, target_height, target_width, pad_instead=False):
    """Keras's centred box of the target's aspect ratio: (start_h, start_w, h, w)."""
    box_h = int(np.float32(width * target_height) / np.float32(target_width))
    box_w = int(np.float32(height * target_width) / np.float32(target_height))
    if pad_instead:
        box_h, box_w = max(height, box_h), max(width, box_w)
        return int((box_h - height) / 2), int((box_w - width) / 2), box_h, box_w
    box_h, box_w = max(min(height, box_h), 1), max(min(width, box_w), 1)
    return int((height - box_h) / 2), int((width - box_w) / 2), box_h, box_w


def _crop(x, top, left, height, width):
    """NHWC `x` cropped to the box at (top, left) of height x width."""
    return slice_(x, [0, top, left, 0], [x.shape[0], height, width, x.shape[3]])


def _with_size(input_shape, axes, height, width):
    shape = list(input_shape)
    shape[axes[0]], shape[axes[1]] = height, width
    return tuple(shape)


@serializable(_MODULE)
class Resizing(ImageLayer):
    """Resizes images to `height` x `width` (tf.image.resize's methods), optionally
    cropping or padding them to the target's aspect ratio first.

    >>> tf.keras.layers.Resizing(2, 3)(np.zeros((1, 4, 4, 1), np.float32)).shape
    TensorShape([1, 2, 3, 1])
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(f"Invalid value for argument `interpolation`. Expected of one "
                             f"{_INTERPOLATIONS}. Received: interpolation={interpolation}")
        if fill_mode != "constant":
            raise ValueError(f"Invalid value for argument `fill_mode`. Only `'constant'` is "
                             f"supported. Received: fill_mode={fill_mode}")
        if pad_to_aspect_ratio and crop_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can "
                             "be `True`.")
        self.height, self.width = int(height), int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.antialias = antialias
        self.built = True

    def call(self, inputs):
        x, back = self._to_nhwc(inputs)
        h, w = x.shape[1:3]
        if self.crop_to_aspect_ratio:
            top, left, box_h, box_w = _crop_box(h, w, self.height, self.width)
            x = _crop(x, top, left, box_h, box_w)
        elif self.pad_to_aspect_ratio:
            top, left, _, _ = _crop_box(h, w, self.height, self.width, pad_instead=True)
            x = pad(x, ((0, 0), (top, top), (left, left), (0, 0)),
                    constant_values=self.fill_value)
        out = resize(x, (self.height, self.width), method=self.interpolation,
                     antialias=self.antialias)
        if out.dtype != inputs.dtype:  # Keras rounds back to an integer input's dtype
            if not is_float(inputs.dtype):
                out = ew.rint(out)
            out = ew.cast(out, inputs.dtype)
        return back(out)

    def compute_output_shape(self, input_shape):
        return _with_size(input_shape, self._hw_axes(len(input_shape)), self.height,
                          self.width)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width,
                       "interpolation": self.interpolation,
                       "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                       "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
                       "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                       "antialias": self.antialias})
        return config


def _smart_crop(x, height, width):
    """Keras's CenterCrop of NHWC `x`: the centre box when it fits, else the centred box
    of the target's aspect ratio resized (bilinear) to height x width."""
    h, w = x.shape[1:3]
    if h >= height and w >= width:
        return _crop(x, (h - height) // 2, (w - width) // 2, height, width)
    top, left, box_h, box_w = _crop_box(h, w, height, width)
    return resize(_crop(x, top, left, box_h, box_w), (height, width))


@serializable(_MODULE)
class CenterCrop(ImageLayer):
    """Crops the centre `height` x `width` of each image (float32); an image smaller than
    that is cropped to the target's aspect ratio and resized, as Keras's smart_resize.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    >>> tf.keras.layers.CenterCrop(2, 2)(x)[0, ..., 0].numpy().tolist()
    [[5.0, 6.0], [9.0, 10.0]]
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height, self.width = int(height), int(width)
        self.built = True

    def call(self, inputs):
        x, back = self._to_nhwc(as_float(inputs))
        return back(_smart_crop(x, self.height, self.width))

    def compute_output_shape(self, input_shape):
        return _with_size(input_shape, self._hw_axes(len(input_shape)), self.height,
                          self.width)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config


_FLIP_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


@serializable(_MODULE)
class RandomFlip(ImageLayer):
    """While training, flips each image with probability 1/2: left-right ("horizontal"),
    upside down ("vertical") or both at once ("horizontal_and_vertical", Keras's default:
    one draw decides both). The output is float32.

    >>> x = np.arange(3, dtype=np.float32).reshape(1, 1, 3, 1)
    >>> tf.keras.layers.RandomFlip("horizontal")(x, training=False)[0, 0, :, 0].numpy()
    array([0., 1., 2.], dtype=float32)
    """

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in _FLIP_MODES:
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode "
                             f"argument {mode!r}; expected one of {_FLIP_MODES}")
        self.mode = mode
        self.built = True

    def call(self, inputs, training=True):
        inputs = as_float(inputs)
        if not training:
            return inputs
        x, back = self._to_nhwc(inputs)
        flips = self._host(lambda rng, n: (rng.uniform(size=(n, 1, 1, 1)) <= 0.5),
                           x.shape[0])
        axes = {"horizontal": [2], "vertical": [1]}.get(self.mode, [1, 2])
        return back(ew.where(flips, reverse(x, axes), x))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"seed": self.seed, "mode": self.mode})
        return config


@serializable(_MODULE)
class RandomCrop(ImageLayer):
    """While training, crops a random `height` x `width` box (one for the whole batch)
    from images larger than that in both sizes; other images are cropped from a centred
    corner and resized, as Keras 3 does. Outside training it returns its input unchanged,
    as Keras 3's does (not the centre crop).

    >>> layer = tf.keras.layers.RandomCrop(2, 2, seed=1)
    >>> layer(np.zeros((1, 5, 5, 3), np.float32), training=True).shape
    TensorShape([1, 2, 2, 3])
    """

    def __init__(self, height, width, seed=None, data_format=None, **kwargs):
        if seed is None:  # Keras fixes a seed at construction, for the config
            seed = int(backend.global_generator().integers(1, 2**30))
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height, self.width = int(height), int(width)
        self.built = True

    def call(self, inputs, training=True):
        if not training:
            return inputs
        x, back = self._to_nhwc(as_float(inputs))
        h, w = x.shape[1:3]
        if h > self.height and w > self.width:
            rows, cols = self._host(self._offsets, h, w)
            x = gather(gather(x, rows, axis=1), cols, axis=2)
        else:
            # Keras slices height x width from the aspect box's corner (clipped by the
            # image), not the box itself
            top, left, _, _ = _crop_box(h, w, self.height, self.width)
            box_h, box_w = min(self.height, h - top), min(self.width, w - left)
            x = _crop(x, top, left, box_h, box_w)
            if (box_h, box_w) != (self.height, self.width):
                x = resize(x, (self.height, self.width))
        return back(x)

    def _offsets(self, rng, h, w):
        top = int(np.float32(rng.uniform(0, h - self.height + 1)))
        left = int(np.float32(rng.uniform(0, w - self.width + 1)))
        return (np.arange(top, top + self.height, dtype=np.int32),
                np.arange(left, left + self.width, dtype=np.int32))

    def compute_output_shape(self, input_shape):
        return _with_size(input_shape, self._hw_axes(len(input_shape)), self.height,
                          self.width)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "seed": self.seed})
        return config


class _ColorLayer(ImageLayer):
    def __init__(self, seed, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape

    def _factors(self, images, low, high):
        """One uniform draw in [low, high) per image, shaped to broadcast against it."""
        rank = len(images.shape)
        if rank not in (3, 4):
            raise ValueError(f"Expected the input image to be rank 3 or 4. Received "
                             f"inputs.shape={tuple(images.shape)}")
        shape = (1, 1, 1) if rank == 3 else (images.shape[0], 1, 1, 1)
        return self._host(lambda rng, s: rng.uniform(low, high, s).astype(np.float32), shape)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range,
                       "seed": self.seed})
        return config


@serializable(_MODULE)
class RandomContrast(_ColorLayer):
    """While training, scales each image's distance from its per-channel mean by a random
    factor in [1 - factor[0], 1 + factor[1]] (Keras 3 reads a number f as (0, f)), then
    clips to `value_range`.

    >>> layer = tf.keras.layers.RandomContrast(0.5, value_range=(0, 1))
    >>> x = np.array([[[[0.25]], [[0.75]]]], np.float32)
    >>> layer(x, training=False)[0, :, 0, 0].numpy().tolist()
    [0.25, 0.75]
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed, **kwargs)
        self.factor = factor_pair(factor, "factor", (0, 1))
        self.value_range = value_range

    def call(self, inputs, training=True):
        if not training:
            return inputs
        images = as_float(inputs)
        factor = self._factors(images, 1.0 - self.factor[0], 1.0 + self.factor[1])
        h, w = self._hw_axes(len(images.shape))
        centre = mean(mean(images, axis=h, keepdims=True), axis=w, keepdims=True)
        out = ew.add(ew.mul(ew.sub(images, centre), factor), centre)
        low, high = self.value_range
        return ew.minimum(ew.maximum(out, float(low)), float(high))


@serializable(_MODULE)
class RandomBrightness(_ColorLayer):
    """While training, adds to each image a random delta in [factor[0], factor[1]] times
    the width of `value_range` (a number f means [-f, f]), then clips to `value_range`.

    >>> layer = tf.keras.layers.RandomBrightness((0.5, 0.5), value_range=(0, 1))
    >>> layer(np.full((1, 1, 1, 1), 0.25, np.float32), training=True).numpy().ravel()
    array([0.75], dtype=float32)
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed, **kwargs)
        self.factor = factor_pair(factor, "factor")
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(f"The `value_range` argument should be a list of two numbers. "
                             f"Received: value_range={value_range}")
        self.value_range = sorted(value_range)

    def call(self, inputs, training=True):
        if not training:
            return inputs
        low, high = self.value_range
        delta = ew.mul(self._factors(inputs, *self.factor), float(high - low))
        if delta.dtype != inputs.dtype:
            delta = ew.cast(delta, inputs.dtype)
        out = ew.add(inputs, delta)
        if not is_float(inputs.dtype):
            return ew.minimum(ew.maximum(out, int(low)), int(high))
        return ew.minimum(ew.maximum(out, float(low)), float(high))


class _RandomSize(ImageLayer):
    _AXIS = None  # "height" or "width"

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        lower, upper = factor if isinstance(factor, (tuple, list)) else (-factor, factor)
        if upper < lower:
            raise ValueError(f"`factor` argument cannot have an upper bound lesser than the "
                             f"lower bound. Received: factor={factor}")
        if lower < -1.0 or upper < -1.0:
            raise ValueError(f"`factor` argument must have values larger than -1. "
                             f"Received: factor={factor}")
        self.lower, self.upper = lower, upper
        self.interpolation = interpolation
        self.built = True

    def call(self, inputs, training=True):
        inputs = as_float(inputs)
        if not training:
            return inputs
        if traced():
            raise NotImplementedError(
                f"{type(self).__name__} changes the {self._AXIS} of its output at every "
                f"call; texflow's tf.function traces static shapes, so it runs eagerly only "
                f"(a model using it: compile(run_eagerly=True))")
        axis = len(inputs.shape) - (3 if self._AXIS == "height" else 2)
        draw = np.float32(self._generator().uniform(1.0 + self.lower, 1.0 + self.upper))
        size = list(inputs.shape[-3:-1])
        size[axis - len(inputs.shape) + 3] = int(draw * np.float32(inputs.shape[axis]))
        return resize(inputs, size, method=self.interpolation)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[len(shape) - (3 if self._AXIS == "height" else 2)] = None
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        del config["data_format"]
        config.update({"factor": self.factor, "interpolation": self.interpolation,
                       "seed": self.seed})
        return config


@serializable(_MODULE)
class RandomHeight(_RandomSize):
    """While training, resizes the height by a random factor in [1 + lower, 1 + upper]
    (`factor` f means (-f, f)); eager only in texflow (the output's height varies).

    >>> tf.keras.layers.RandomHeight((1.0, 1.0))(np.zeros((1, 2, 3, 1)), training=True).shape
    TensorShape([1, 4, 3, 1])
    """

    _AXIS = "height"


@serializable(_MODULE)
class RandomWidth(_RandomSize):
    """While training, resizes the width by a random factor in [1 + lower, 1 + upper]
    (`factor` f means (-f, f)); eager only in texflow (the output's width varies).

    >>> tf.keras.layers.RandomWidth((1.0, 1.0))(np.zeros((1, 2, 3, 1)), training=True).shape
    TensorShape([1, 2, 6, 1])
    """

    _AXIS = "width"
