"""tf.image's value transforms: dtype conversion with TensorFlow's scaling and saturation,
brightness, contrast, gamma, grayscale and per-image standardization."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..framework import get_static_value
from ..ops.elementwise import add, cast, div, floordiv, maximum, minimum, mul, pow, sub
from ..ops.linalg import tensordot
from ..ops.movement import expand_dims, tile
from ..ops.reduce import mean, reduce_std
from ._checks import as_image, at_least_3d, number_dtype, shape_text

_STORED = (dtypes.float32, dtypes.float16)  # TensorFlow adjusts these without converting


def _saturate_cast(value, dtype):
    """Clamps to `dtype`'s range, then casts (tf.dtypes.saturate_cast for these dtypes)."""
    if value.dtype.is_floating and dtype.is_integer:
        # the largest float32 not above the integer maximum: 2**31 - 1 rounds up to 2**31
        high = np.float32(dtype.max)
        high = np.nextafter(high, np.float32(0)) if int(high) > dtype.max else high
        value = minimum(maximum(value, float(dtype.min)), float(high))
    elif value.dtype.is_integer and dtype.is_integer:
        value = minimum(maximum(value, max(dtype.min, value.dtype.min)),
                        min(dtype.max, value.dtype.max))
    return cast(value, dtype)


def convert_values(image, source, dtype, saturate):
    """convert_image_dtype of a tensor whose values are in `source`'s range."""
    number_dtype(source)
    if source == dtype:
        return image
    if source.is_integer and dtype.is_integer:
        if source.max > dtype.max:
            scaled = floordiv(image, (source.max + 1) // (dtype.max + 1))
            return _saturate_cast(scaled, dtype) if saturate else cast(scaled, dtype)
        widened = _saturate_cast(image, dtype) if saturate else cast(image, dtype)
        return mul(widened, (dtype.max + 1) // (source.max + 1))
    if source.is_floating and dtype.is_floating:
        return cast(image, dtype)
    if source.is_integer:
        return mul(cast(image, dtype), float(np.float32(1.0 / source.max)))
    scaled = mul(image, float(np.float32(dtype.max + 0.5)))
    return _saturate_cast(scaled, dtype) if saturate else cast(scaled, dtype)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts between image dtypes, scaling values: floats are in [0, 1], an integer
    dtype's values in [0, its max] (tf.image.convert_image_dtype).

    Integer to float multiplies by 1 / max; float to integer multiplies by max + 0.5 and
    truncates (`saturate=True` clamps first); integer to integer shifts by the ratio of
    the maxima. A numpy uint8 (int8, int16, uint16) image is scaled by its own dtype's
    maximum; texflow stores those dtypes as int32, so a *tensor* made from uint8 data is
    int32 here and is scaled by 2**31 - 1 (cast and divide by 255 instead).

    >>> tf.image.convert_image_dtype(np.array([0, 255], np.uint8), tf.float32).numpy()
    array([0., 1.], dtype=float32)
    """
    dtype = number_dtype(dtypes.as_dtype(dtype), "dtype")
    image, source = as_image(image)
    return convert_values(image, source, dtype, saturate)


def _as_float(image):
    """TensorFlow's first step of the adjust_* functions: floats stay, others convert."""
    image, source = as_image(image)
    if source in _STORED:
        return image, source
    return convert_values(image, source, dtypes.float32, False), source


def adjust_brightness(image, delta):
    """Adds `delta` to every value, in the float range (tf.image.adjust_brightness); an
    integer image converts to float32 and back, saturating.

    >>> tf.image.adjust_brightness(tf.constant([[[0.25]]]), 0.5).numpy().ravel()
    array([0.75], dtype=float32)
    """
    flt, source = _as_float(image)
    return convert_values(add(flt, cast(delta, flt.dtype)), dtypes.float32, source, True)


def adjust_contrast(images, contrast_factor):
    """Moves each channel of each image away from (or towards) its mean over height and
    width by `contrast_factor` (tf.image.adjust_contrast).

    >>> tf.image.adjust_contrast(tf.constant([[[1.0], [3.0]]]), 2.0).numpy().ravel()
    array([0., 4.], dtype=float32)
    """
    flt, source = _as_float(images)
    if flt.shape.rank < 3:
        dims = ",".join(str(n) for n in flt.shape.as_list())
        raise InvalidArgumentError(f"input must be at least 3-D, got shape[{dims}]")
    centre = mean(flt, axis=[-3, -2], keepdims=True)
    adjusted = add(mul(sub(flt, centre), cast(contrast_factor, dtypes.float32)), centre)
    return convert_values(adjusted, dtypes.float32, source, True)


def adjust_gamma(image, gamma=1, gain=1):
    """`gain * image ** gamma` in the float range (tf.image.adjust_gamma).

    >>> tf.image.adjust_gamma(tf.constant([[[0.5]]]), 2).numpy().ravel()
    array([0.25], dtype=float32)
    """
    flt, source = _as_float(image)
    known = get_static_value(gamma) if isinstance(gamma, NDArray) else gamma
    if known is not None and np.any(np.asarray(known) < 0):
        error = InvalidArgumentError if isinstance(gamma, NDArray) else ValueError
        raise error("Gamma should be a non-negative real number.")
    adjusted = mul(cast(gain, dtypes.float32), pow(flt, cast(gamma, dtypes.float32)))
    return convert_values(adjusted, dtypes.float32, source, True)


_RGB_WEIGHTS = [0.2989, 0.5870, 0.1140]


def rgb_to_grayscale(images, name=None):
    """The luma of RGB images, keeping a last axis of 1 (tf.image.rgb_to_grayscale):
    0.2989 R + 0.5870 G + 0.1140 B, in the float range.

    >>> tf.image.rgb_to_grayscale(tf.ones([1, 1, 3])).shape
    TensorShape([1, 1, 1])
    """
    images, source = as_image(images, "images")
    shape = images.shape.as_list()
    if not shape or shape[-1] != 3:
        raise InvalidArgumentError(f"rgb_to_grayscale: the last dimension of 'images' must be"
                                   f" 3 (red, green, blue); got shape {shape_text(shape)}")
    flt = convert_values(images, source, dtypes.float32, False)
    gray = tensordot(flt, np.array(_RGB_WEIGHTS, np.float32), [[-1], [-1]])
    return convert_values(expand_dims(gray, -1), dtypes.float32, source, False)


def grayscale_to_rgb(images, name=None):
    """Repeats a last axis of 1 three times (tf.image.grayscale_to_rgb).

    >>> tf.image.grayscale_to_rgb(tf.ones([2, 2, 1])).shape
    TensorShape([2, 2, 3])
    """
    images = as_image(images, "images")[0]
    shape = images.shape.as_list()
    if len(shape) < 2:
        raise ValueError(f"A grayscale image (shape {shape_text(shape)}) must be at least "
                         "two-dimensional.")
    if shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return tile(images, [1] * (len(shape) - 1) + [3])


def per_image_standardization(image):
    """Scales each image to mean 0 and variance 1 over height, width and channels, with
    the deviation at least 1 / sqrt(its number of values) (tf.image.per_image_standardization).

    >>> tf.image.per_image_standardization(tf.constant([[[1.0], [3.0]]])).numpy().ravel()
    array([-1.,  1.], dtype=float32)
    """
    image = as_image(image)[0]
    shape = at_least_3d(image)
    image = cast(image, dtypes.float32)
    axes = [-1, -2, -3]
    least = np.float32(1) / np.sqrt(np.float32(np.prod(shape[-3:])))
    deviation = maximum(reduce_std(image, axis=axes, keepdims=True), float(least))
    return div(sub(image, mean(image, axis=axes, keepdims=True)), deviation)


# TensorFlow's colour-space matrices (applied as images @ matrix over the last axis)
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _three_channels(images, matrix, fn):
    images = as_image(images, "images")[0]
    if not images.dtype.is_floating:
        raise TypeError(f"Cannot convert {matrix} to EagerTensor of dtype {images.dtype.name}"
                        f" (tf.image.{fn} takes float images)")
    shape = images.shape.as_list()
    if not shape or shape[-1] != 3:
        raise InvalidArgumentError(f"{fn}: the last dimension of 'images' must be 3; got "
                                   f"shape {shape_text(shape)}")
    return tensordot(images, np.array(matrix, np.float32), [[len(shape) - 1], [0]])


def rgb_to_yiq(images):
    """RGB to YIQ, a [..., 3] float image times TensorFlow's matrix (tf.image.rgb_to_yiq).

    >>> tf.image.rgb_to_yiq(tf.ones([1, 1, 3])).shape
    TensorShape([1, 1, 3])
    """
    return _three_channels(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    """YIQ to RGB (tf.image.yiq_to_rgb).

    >>> tf.image.yiq_to_rgb(tf.constant([[[1.0, 0.0, 0.0]]])).numpy().ravel()
    array([1., 1., 1.], dtype=float32)
    """
    return _three_channels(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images):
    """RGB to YUV (tf.image.rgb_to_yuv).

    >>> tf.image.rgb_to_yuv(tf.ones([1, 1, 3])).shape
    TensorShape([1, 1, 3])
    """
    return _three_channels(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """YUV to RGB (tf.image.yuv_to_rgb).

    >>> tf.image.yuv_to_rgb(tf.constant([[[1.0, 0.0, 0.0]]])).numpy().ravel()
    array([1., 1., 1.], dtype=float32)
    """
    return _three_channels(images, _YUV_TO_RGB, "yuv_to_rgb")
