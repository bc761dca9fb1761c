"""tf.image's random augmentations. The stateful ones are seeded as tf.random.uniform is
(tf.random.set_seed and the `seed` argument); the stateless ones draw from their
`seed` = [a, b] alone, the same numbers at every call. The shapes, ranges and choices
are TensorFlow's; the numbers are texflow's own (numpy's generator, see tf.random), not
TensorFlow's Philox streams."""

import functools

import numpy as np

from .. import dtypes, random
from .._stateless import stateless_rng
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..framework import get_static_value
from ..ops.creation import constant
from ..ops.elementwise import add, floormod, less, where
from ..ops.math_extra import round  # noqa: A004
from ..ops.movement import gather, reshape, reverse
from ._checks import as_image, rank_3_or_4
from ._color import adjust_brightness, adjust_contrast
from ._hsv import adjust_hue, adjust_saturation


def _stateless_rng(seed, fn):
    """A numpy generator of `seed` alone (a [2] int tensor or list, known when a function
    is traced), as tf.random's stateless draws make it."""
    return stateless_rng(seed, f"image.{fn}")


def _stateless(seed, fn):
    """uniform(shape, minval, maxval) drawing from `seed` alone."""
    rng = _stateless_rng(seed, fn)

    def uniform(shape, minval, maxval):
        draw = rng.uniform(minval, maxval, shape).astype(np.float32)
        return constant(draw, dtypes.float32)
    return uniform


def _random_flip(image, axis, uniform):
    image = as_image(image)[0]
    shape = rank_3_or_4(image, True, gap="")
    if len(shape) == 3:
        # one draw: flipped when it is below 0.5
        return where(less(uniform([], 0, 1.0), 0.5), reverse(image, [axis]), image)
    # one draw per image: flipped when it rounds to 1
    flips = round(reshape(uniform([shape[0]], 0, 1.0), [-1, 1, 1, 1]))
    return where(flips > 0.5, reverse(image, [axis + 1]), image)


def _seeded(seed):
    return functools.partial(random.uniform, seed=seed)


def _check_delta(max_delta):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_hue(max_delta):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    _check_delta(max_delta)


def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_flip_left_right(image, seed=None):
    """Flips each image left to right with probability 1/2 (tf.image.random_flip_left_right).

    >>> tf.image.random_flip_left_right(tf.zeros([2, 3, 3, 1]), seed=1).shape
    TensorShape([2, 3, 3, 1])
    """
    return _random_flip(image, 1, _seeded(seed))


def random_flip_up_down(image, seed=None):
    """Flips each image upside down with probability 1/2 (tf.image.random_flip_up_down).

    >>> tf.image.random_flip_up_down(tf.zeros([3, 3, 1]), seed=1).shape
    TensorShape([3, 3, 1])
    """
    return _random_flip(image, 0, _seeded(seed))


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)
    (tf.image.random_brightness).

    >>> tf.image.random_brightness(tf.zeros([2, 2, 1]), 0.2, seed=1).shape
    TensorShape([2, 2, 1])
    """
    _check_delta(max_delta)
    return adjust_brightness(image, random.uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)
    (tf.image.random_contrast).

    >>> tf.image.random_contrast(tf.zeros([2, 2, 1]), 0.5, 1.5, seed=1).shape
    TensorShape([2, 2, 1])
    """
    _check_range(lower, upper)
    return adjust_contrast(image, random.uniform([], lower, upper, seed=seed))


def stateless_random_flip_left_right(image, seed):
    """random_flip_left_right drawing from `seed` = [a, b] alone: the same seed flips the
    same images (tf.image.stateless_random_flip_left_right).

    >>> tf.image.stateless_random_flip_left_right(tf.zeros([2, 3, 3, 1]), [1, 2]).shape
    TensorShape([2, 3, 3, 1])
    """
    return _random_flip(image, 1, _stateless(seed, "stateless_random_flip_left_right"))


def stateless_random_flip_up_down(image, seed):
    """random_flip_up_down drawing from `seed` = [a, b] alone
    (tf.image.stateless_random_flip_up_down).

    >>> tf.image.stateless_random_flip_up_down(tf.zeros([3, 3, 1]), [1, 2]).shape
    TensorShape([3, 3, 1])
    """
    return _random_flip(image, 0, _stateless(seed, "stateless_random_flip_up_down"))


def stateless_random_brightness(image, max_delta, seed):
    """random_brightness drawing from `seed` = [a, b] alone
    (tf.image.stateless_random_brightness).

    >>> tf.image.stateless_random_brightness(tf.zeros([2, 2, 1]), 0.2, [1, 2]).shape
    TensorShape([2, 2, 1])
    """
    _check_delta(max_delta)
    uniform = _stateless(seed, "stateless_random_brightness")
    return adjust_brightness(image, uniform([], -max_delta, max_delta))


def stateless_random_contrast(image, lower, upper, seed):
    """random_contrast drawing from `seed` = [a, b] alone (tf.image.stateless_random_contrast).

    >>> tf.image.stateless_random_contrast(tf.zeros([2, 2, 1]), 0.5, 1.5, [1, 2]).shape
    TensorShape([2, 2, 1])
    """
    _check_range(lower, upper)
    uniform = _stateless(seed, "stateless_random_contrast")
    return adjust_contrast(image, uniform([], lower, upper))


def _crop_at_random(value, size, draw_offsets):
    """TensorFlow's random_crop: an offset per axis drawn as a uniform int32 modulo the
    room left, the slice read with gathers (so offsets drawn on a GPU need no download)."""
    value = as_image(value, "value")[0]
    shape = value.shape.as_list()
    size = [int(n) for n in np.asarray(get_static_value(size) if isinstance(size, NDArray)
                                       else size).reshape(-1)]
    if len(size) != len(shape):
        raise InvalidArgumentError(f"Incompatible shapes: [{len(shape)}] vs. [{len(size)}] "
                                   "(random_crop: `size` needs one entry per axis of `value`)")
    if any(s > n for s, n in zip(size, shape)):
        raise InvalidArgumentError(f"Need value.shape >= size, got {shape} {size}")
    room = constant(np.array([n - s + 1 for n, s in zip(shape, size)], np.int32))
    offsets = floormod(draw_offsets(len(shape)), room)
    for axis, (n, s) in enumerate(zip(shape, size)):
        if s < n:
            value = gather(value, add(offsets[axis], np.arange(s, dtype=np.int32)), axis=axis)
    return value


def random_crop(value, size, seed=None, name=None):
    """A `size`-shaped slice of `value` at a random offset (tf.image.random_crop); `size`
    must be known when a function is traced.

    >>> tf.image.random_crop(tf.zeros([4, 4, 3]), [2, 2, 3], seed=1).shape
    TensorShape([2, 2, 3])
    """
    def draw(n):
        return random.uniform([n], 0, dtypes.int32.max, dtype=dtypes.int32, seed=seed)
    return _crop_at_random(value, size, draw)


def stateless_random_crop(value, size, seed, name=None):
    """random_crop drawing its offsets from `seed` = [a, b] alone
    (tf.image.stateless_random_crop).

    >>> tf.image.stateless_random_crop(tf.zeros([4, 4, 3]), [2, 2, 3], [1, 2]).shape
    TensorShape([2, 2, 3])
    """
    def draw(n):
        rng = _stateless_rng(seed, "stateless_random_crop")
        return constant(rng.integers(0, dtypes.int32.max, n, dtype=np.int32))
    return _crop_at_random(value, size, draw)


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta), max_delta at most
    0.5 (tf.image.random_hue).

    >>> tf.image.random_hue(tf.zeros([2, 2, 3]), 0.2, seed=1).shape
    TensorShape([2, 2, 3])
    """
    _check_hue(max_delta)
    return adjust_hue(image, random.uniform([], -max_delta, max_delta, seed=seed))


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper)
    (tf.image.random_saturation).

    >>> tf.image.random_saturation(tf.zeros([2, 2, 3]), 0.5, 1.5, seed=1).shape
    TensorShape([2, 2, 3])
    """
    _check_range(lower, upper)
    return adjust_saturation(image, random.uniform([], lower, upper, seed=seed))


def stateless_random_hue(image, max_delta, seed):
    """random_hue drawing from `seed` = [a, b] alone (tf.image.stateless_random_hue).

    >>> tf.image.stateless_random_hue(tf.zeros([2, 2, 3]), 0.2, [1, 2]).shape
    TensorShape([2, 2, 3])
    """
    _check_hue(max_delta)
    uniform = _stateless(seed, "stateless_random_hue")
    return adjust_hue(image, uniform([], -max_delta, max_delta))


def stateless_random_saturation(image, lower, upper, seed=None):
    """random_saturation drawing from `seed` = [a, b] alone
    (tf.image.stateless_random_saturation).

    >>> tf.image.stateless_random_saturation(tf.zeros([2, 2, 3]), 0.5, 1.5, [1, 2]).shape
    TensorShape([2, 2, 3])
    """
    _check_range(lower, upper)
    uniform = _stateless(seed, "stateless_random_saturation")
    return adjust_saturation(image, uniform([], lower, upper))
