"""tf.image's HSV functions: rgb_to_hsv, hsv_to_rgb, adjust_hue and adjust_saturation as
TensorFlow's kernels compute them, written with where, min/max and clipping."""

from .. import dtypes
from ..errors import FailedPreconditionError, InvalidArgumentError
from ..ops.elementwise import (abs, add, div, equal, floormod, greater, less, maximum,  # noqa: A004
                               minimum, mul, sub, where)
from ..ops.movement import stack
from ..ops.nn import clip_by_value
from ._checks import as_image, number_dtype
from ._color import convert_values


def _float_rgb(images, op):
    images = as_image(images, "images")[0]
    if not images.dtype.is_floating:
        raise InvalidArgumentError(f"Value for attr 'T' of {images.dtype.name} is not in the "
                                   "list of allowed values: half, bfloat16, float, double "
                                   f"({op})")
    channels = images.shape.as_list()[-1] if images.shape.rank else 0
    if channels != 3:
        raise FailedPreconditionError(f"input must have 3 channels but input only has "
                                      f"{channels} channels.")
    return images


def _channels(images):
    return images[..., 0], images[..., 1], images[..., 2]


def _hue_and_range(r, g, b):
    """Hue in [0, 1) (0 for grey), the largest channel and max - min (RGBToHSV's rule)."""
    high = maximum(r, maximum(g, b))
    spread = sub(high, minimum(r, minimum(g, b)))
    # 1 / spread where there is a spread: the unused branch of where stays finite, so no
    # NaN reaches the gradient
    norm = mul(div(1.0, where(greater(spread, 0.0), spread, 1.0)), 1.0 / 6.0)
    hue = where(equal(r, high), mul(norm, sub(g, b)),
                where(equal(g, high), add(mul(norm, sub(b, r)), 2.0 / 6.0),
                      add(mul(norm, sub(r, g)), 4.0 / 6.0)))
    hue = where(greater(spread, 0.0), hue, 0.0)
    return where(less(hue, 0.0), add(hue, 1.0), hue), high, spread


def _ramps(sixths):
    """Each channel's share of (max - min) at a hue given in sixths of the circle."""
    def clip(x):
        return clip_by_value(x, 0.0, 1.0)
    return (clip(sub(abs(sub(sixths, 3.0)), 1.0)), clip(sub(2.0, abs(sub(sixths, 2.0)))),
            clip(sub(2.0, abs(sub(sixths, 4.0)))))


def _from_hsv(hue, saturation, value):
    grey = sub(1.0, saturation)
    return stack([mul(add(grey, mul(saturation, d)), value) for d in _ramps(mul(hue, 6.0))],
                 axis=-1)


def rgb_to_hsv(images, name=None):
    """RGB to hue, saturation, value, each in [0, 1], on the last axis (tf.image.rgb_to_hsv;
    float images).

    >>> tf.image.rgb_to_hsv(tf.constant([[0.0, 0.5, 1.0]])).numpy()
    array([[0.5833334, 1.       , 1.       ]], dtype=float32)
    """
    r, g, b = _channels(_float_rgb(images, "rgb_to_hsv"))
    hue, high, spread = _hue_and_range(r, g, b)
    positive = greater(high, 0.0)
    saturation = where(positive, div(spread, where(positive, high, 1.0)), 0.0)
    return stack([hue, saturation, high], axis=-1)


def hsv_to_rgb(images, name=None):
    """Hue, saturation, value to RGB (tf.image.hsv_to_rgb; float images).

    >>> tf.image.hsv_to_rgb(tf.constant([[0.5, 1.0, 1.0]])).numpy()
    array([[0., 1., 1.]], dtype=float32)
    """
    return _from_hsv(*_channels(_float_rgb(images, "hsv_to_rgb")))


def _adjusted(image, fn, op):
    """fn(r, g, b) -> rgb on the image in float, converted back to its dtype."""
    image, source = as_image(image)
    number_dtype(source)
    shape = image.shape.as_list()
    if len(shape) < 3:
        dims = ",".join(str(n) for n in shape)
        raise InvalidArgumentError(f"input must be at least 3-D, got shape[{dims}]")
    if shape[-1] != 3:
        raise InvalidArgumentError(f"input must have 3 channels but instead has {shape[-1]} "
                                   f"channels. ({op})")
    flt = convert_values(image, source, dtypes.float32, False)
    return convert_values(fn(*_channels(flt)), dtypes.float32, source, False)


def adjust_hue(image, delta, name=None):
    """Turns the hue of an RGB image by `delta` of the circle, in [-1, 1]
    (tf.image.adjust_hue).

    >>> tf.image.adjust_hue(tf.constant([[[1.0, 0.0, 0.0]]]), 1 / 3).numpy().ravel()
    array([0., 1., 0.], dtype=float32)
    """
    if not hasattr(delta, "shape") and not -1 <= delta <= 1:
        raise ValueError("delta must be in the interval [-1, 1]")

    def turn(r, g, b):
        hue, high, spread = _hue_and_range(r, g, b)
        sixths = floormod(add(mul(hue, 6.0), mul(delta, 6.0)), 6.0)
        low = sub(high, spread)
        return stack([add(low, mul(spread, d)) for d in _ramps(sixths)], axis=-1)
    return _adjusted(image, turn, "adjust_hue")


def adjust_saturation(image, saturation_factor, name=None):
    """Scales the saturation of an RGB image by `saturation_factor`, clipped to [0, 1]
    (tf.image.adjust_saturation).

    >>> tf.image.adjust_saturation(tf.constant([[[1.0, 0.5, 0.5]]]), 0.0).numpy().ravel()
    array([1., 1., 1.], dtype=float32)
    """
    def scale(r, g, b):
        hue, high, spread = _hue_and_range(r, g, b)
        positive = greater(high, 0.0)
        saturation = where(positive, div(spread, where(positive, high, 1.0)), 0.0)
        saturation = clip_by_value(mul(saturation, saturation_factor), 0.0, 1.0)
        return _from_hsv(hue, saturation, high)
    return _adjusted(image, scale, "adjust_saturation")
