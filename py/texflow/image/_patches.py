"""tf.image.crop_and_resize and extract_patches. Boxes may be computed on a GPU (a
detector's output): their sample points, indices and weights are tensor arithmetic and
the pixels are read with gather_nd, so gradients reach both the image and the boxes."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError, OutOfRangeError, UnimplementedError
from ..ops.creation import convert_to_tensor
from ..ops.elementwise import (add, cast, ceil, floor, greater_equal, less_equal,
                               logical_and, mul, sub, where)
from ..ops.array_ops import gather_nd
from ..ops.index_checks import host_values
from ..ops.movement import broadcast_to, concat, pad, reshape, stack
from ..ops.nn import clip_by_value
from ._checks import as_image


def _sample_points(low, high, n_out, n_in):
    """TensorFlow's sample positions along one axis for boxes [B, 1] edges: [B, n_out]."""
    extent = float(n_in - 1)
    if n_out > 1:
        step = mul(sub(high, low), extent / (n_out - 1))
        return add(mul(low, extent), mul(step, np.arange(n_out, dtype=np.float32)))
    return broadcast_to(mul(mul(add(low, high), 0.5), extent), [low.shape[0], 1])


def _check_crop_args(image, boxes, box_indices, crop_size, method):
    shape = image.shape.as_list()
    if len(shape) != 4:
        raise InvalidArgumentError(f"input image must be 4-D, got shape {shape}")
    if boxes.shape.rank != 2 or boxes.shape[1] != 4:
        raise InvalidArgumentError("boxes must have 4 columns")
    if box_indices.shape.as_list() != [boxes.shape[0]]:
        raise InvalidArgumentError("box_index has incompatible shape")
    size = [int(n) for n in np.asarray(crop_size).reshape(-1)]
    if len(size) != 2 or min(size) <= 0:
        raise InvalidArgumentError("crop dimensions must be positive")
    if method not in ("bilinear", "nearest"):
        raise InvalidArgumentError(f"Value for attr 'method' of \"{method}\" is not in the "
                                   "list of allowed values: \"bilinear\", \"nearest\"")
    known = host_values(box_indices) if isinstance(box_indices, NDArray) else None
    if known is not None and known.size and (known.min() < 0 or known.max() >= shape[0]):
        raise OutOfRangeError("box_index has values outside [0, batch_size)")
    return size


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """Crops boxes [y1, x1, y2, x2] (normalized: 0 and 1 are the first and last pixel) of
    batch images `box_indices` and resizes each to `crop_size`, sampling the box's corners
    and evenly between; points outside the image read `extrapolation_value`
    (tf.image.crop_and_resize); float32.

    >>> img = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    >>> tf.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])[0, ..., 0].numpy()
    array([[ 0.,  3.],
           [12., 15.]], dtype=float32)
    """
    image = as_image(image)[0]
    boxes = convert_to_tensor(boxes, dtypes.float32)
    box_indices = convert_to_tensor(box_indices, dtypes.int32)
    height, width = _check_crop_args(image, boxes, box_indices, crop_size, method)
    h, w = image.shape.as_list()[1:3]
    image = cast(image, dtypes.float32)
    ys = _sample_points(boxes[:, 0:1], boxes[:, 2:3], height, h)  # [B, height]
    xs = _sample_points(boxes[:, 1:2], boxes[:, 3:4], width, w)  # [B, width]
    inside = logical_and(
        reshape(logical_and(greater_equal(ys, 0.0), less_equal(ys, h - 1.0)), [-1, height, 1]),
        reshape(logical_and(greater_equal(xs, 0.0), less_equal(xs, w - 1.0)), [-1, 1, width]))
    grid = [boxes.shape[0], height, width]

    def read(y_index, x_index):
        """Pixels at integer [B, height] rows and [B, width] columns (clipped to the image:
        the points outside read the extrapolation value instead)."""
        rows = cast(clip_by_value(y_index, 0.0, h - 1.0), dtypes.int32)
        cols = cast(clip_by_value(x_index, 0.0, w - 1.0), dtypes.int32)
        rows, cols = reshape(rows, [-1, height, 1]), reshape(cols, [-1, 1, width])
        which = reshape(box_indices, [-1, 1, 1])
        index = stack([broadcast_to(which, grid), broadcast_to(rows, grid),
                       broadcast_to(cols, grid)], axis=-1)
        return gather_nd(image, index)

    if method == "nearest":
        # TensorFlow rounds half away from zero; the points read are not negative
        crops = read(floor(add(ys, 0.5)), floor(add(xs, 0.5)))
    else:
        top, left = floor(ys), floor(xs)
        y_lerp = reshape(sub(ys, top), [-1, height, 1, 1])
        x_lerp = reshape(sub(xs, left), [-1, 1, width, 1])
        bottom, right = ceil(ys), ceil(xs)
        top_left, top_right = read(top, left), read(top, right)
        bottom_left, bottom_right = read(bottom, left), read(bottom, right)
        upper = add(top_left, mul(sub(top_right, top_left), x_lerp))
        lower = add(bottom_left, mul(sub(bottom_right, bottom_left), x_lerp))
        crops = add(upper, mul(sub(lower, upper), y_lerp))
    return where(reshape(inside, grid + [1]), crops, float(extrapolation_value))


def _four(values, what):
    values = [int(v) for v in values]
    if len(values) != 4:
        raise InvalidArgumentError(f"{what} must have 4 entries, got {values}")
    if values[0] != 1 or values[3] != 1:
        raise UnimplementedError(f"Only support {what} across space.")
    return values[1], values[2]


def _patch_axis(n, size, stride, rate, padding):
    """(output length, padding before, padding after) of one spatial axis."""
    span = size + (size - 1) * (rate - 1)
    if padding == "VALID":
        return max(0, -(-(n - span + 1) // stride)), 0, 0
    out = -(-n // stride)
    total = max((out - 1) * stride + span - n, 0)
    return out, total // 2, total - total // 2


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Each output pixel holds the `sizes` patch around it, flattened to
    [rows, columns, channels] order on the last axis (tf.image.extract_patches).

    >>> tf.image.extract_patches(tf.zeros([1, 4, 4, 2]), [1, 2, 2, 1], [1, 2, 2, 1],
    ...                          [1, 1, 1, 1], "VALID").shape
    TensorShape([1, 2, 2, 8])
    """
    images = as_image(images, "images")[0]
    shape = images.shape.as_list()
    if len(shape) != 4:
        raise InvalidArgumentError(f"input must be 4-dimensional, got shape {shape}")
    (kh, kw), (sh, sw), (rh, rw) = (_four(sizes, "ksizes"), _four(strides, "strides"),
                                    _four(rates, "rates"))
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"Value for attr 'padding' of \"{padding}\" is not in the "
                                   "list of allowed values: \"SAME\", \"VALID\"")
    out_h, top, bottom = _patch_axis(shape[1], kh, sh, rh, padding)
    out_w, left, right = _patch_axis(shape[2], kw, sw, rw, padding)
    padded = pad(images, [[0, 0], [top, bottom], [left, right], [0, 0]])
    if out_h == 0 or out_w == 0:
        return reshape(padded[:, :0, :0], [shape[0], out_h, out_w, kh * kw * shape[3]])
    pieces = [padded[:, i * rh:i * rh + (out_h - 1) * sh + 1:sh,
                     j * rw:j * rw + (out_w - 1) * sw + 1:sw]
              for i in range(kh) for j in range(kw)]
    return concat(pieces, axis=-1)
