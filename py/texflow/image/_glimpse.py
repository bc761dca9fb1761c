"""tf.image.extract_glimpse as TensorFlow's ExtractGlimpseV2: a `size` window per image
whose place comes from `offsets` (float32 arithmetic, truncated toward zero), the part
outside the image filled with zeros or noise. The places are tensor arithmetic and the
pixels are read with gather_nd, so offsets computed on a GPU need no download."""

import numpy as np

from .. import dtypes, random
from ..errors import InvalidArgumentError
from ..ops.array_ops import gather_nd
from ..ops.creation import convert_to_tensor
from ..ops.elementwise import (add, cast, greater_equal, less, logical_and, maximum, minimum,
                               mul, sqrt, square, sub, where)
from ..ops.movement import broadcast_to, reshape, stack
from ..ops.nn import clip_by_value
from ..ops.reduce import max as reduce_max, mean, min as reduce_min
from ._checks import as_image


def _corner(offsets, axis, n, window, centered, normalized):
    """Each image's first row (axis 0) or column (axis 1) of the window, [B] int32."""
    at = offsets[:, axis]
    if normalized and centered:  # [-1, 1] about the centre to the window's first pixel
        at = sub(add(mul(mul(at, float(n)), 0.5), n / 2.0), window / 2.0)
    elif normalized:  # [0, 1] from the top-left corner
        at = mul(at, float(n))
    elif centered:  # pixels from the centre (TensorFlow's kernel moves the window's corner)
        at = add(at, n / 2.0)
    return cast(at, dtypes.int32)  # truncated toward zero, as the kernel's int conversion


def _noise(images, shape, noise):
    """TensorFlow's fill: uniform in the image's [min, max], or normal with each channel's
    mean and deviation, clipped to the channel's [min, max]."""
    if noise == "uniform":  # the image's range over all its channels
        low = reduce_min(images, axis=[1, 2, 3], keepdims=True)
        high = reduce_max(images, axis=[1, 2, 3], keepdims=True)
        return add(low, mul(random.uniform(shape), sub(high, low)))
    low = reduce_min(images, axis=[1, 2], keepdims=True)
    high = reduce_max(images, axis=[1, 2], keepdims=True)
    centre = mean(images, axis=[1, 2], keepdims=True)
    spread = sqrt(mean(square(sub(images, centre)), axis=[1, 2], keepdims=True))
    return minimum(maximum(add(centre, mul(random.normal(shape), spread)), low), high)


def extract_glimpse(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    noise="uniform", name=None):
    """A `size` = [height, width] window of each image of a batch, at `offsets` [batch, 2]
    (y, x): with `centered` and `normalized` the window's centre in [-1, 1] about the image's
    centre, with `normalized` alone its top-left corner in [0, 1], else in pixels (from the
    centre with `centered`); outside the image, `noise` "uniform",
    "gaussian" (texflow's random numbers) or "zero" (tf.image.extract_glimpse).

    >>> x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    >>> tf.image.extract_glimpse(x, [2, 2], [[0.0, 0.0]], noise="zero")[0, ..., 0].numpy()
    array([[ 5.,  6.],
           [ 9., 10.]], dtype=float32)
    """
    images = as_image(input, "input")[0]
    offsets = convert_to_tensor(offsets, dtypes.float32)
    shape = images.shape.as_list()
    if len(shape) != 4:
        dims = ",".join(str(n) for n in shape)
        raise InvalidArgumentError("input must be 4-dimensional (batch_size, height, width, "
                                   f"depth)[{dims}]")
    window = [int(n) for n in np.asarray(size).reshape(-1)]
    if len(window) != 2:
        raise InvalidArgumentError(f"input must be a vector of size 2 (height, width)"
                                   f"[{len(window)}]")
    dims = ",".join(str(n) for n in offsets.shape.as_list())
    if offsets.shape.rank != 2 or offsets.shape[0] != shape[0]:
        raise InvalidArgumentError(f"first dimension should be batch[{dims}]")
    if offsets.shape[1] != 2:
        raise InvalidArgumentError(f"second dimension should be of size 2 (y,x)[{dims}]")
    if noise not in ("uniform", "gaussian", "zero"):
        raise InvalidArgumentError(f"The noise could only be uniform, gaussian, or zero, "
                                   f"got{noise}")
    batch, h, w, depth = shape
    rows_n, cols_n = window
    images = cast(images, dtypes.float32)
    top = _corner(offsets, 0, h, rows_n, centered, normalized)
    left = _corner(offsets, 1, w, cols_n, centered, normalized)
    rows = add(reshape(top, [-1, 1, 1]), np.arange(rows_n, dtype=np.int32).reshape(1, -1, 1))
    cols = add(reshape(left, [-1, 1, 1]), np.arange(cols_n, dtype=np.int32).reshape(1, 1, -1))
    grid = [batch, rows_n, cols_n]
    inside = logical_and(logical_and(greater_equal(rows, 0), less(rows, h)),
                         logical_and(greater_equal(cols, 0), less(cols, w)))
    index = stack([broadcast_to(np.arange(batch, dtype=np.int32).reshape(-1, 1, 1), grid),
                   broadcast_to(clip_by_value(rows, 0, h - 1), grid),
                   broadcast_to(clip_by_value(cols, 0, w - 1), grid)], axis=-1)
    pixels = gather_nd(images, index)
    fill = 0.0 if noise == "zero" else _noise(images, grid + [depth], noise)
    return where(reshape(inside, grid + [1]), pixels, fill)
