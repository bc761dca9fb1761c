"""tf.image.draw_bounding_boxes as TensorFlow's DrawBoundingBoxesV2 draws: each box's
one-pixel outline, in order (a later box over an earlier), its corners at
trunc(coordinate * (size - 1)), the sides outside the image left out. Written with
comparisons against row and column indices and where, so boxes may be computed on a
GPU and the drawing runs in tf.function."""

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..ops.creation import convert_to_tensor
from ..ops.elementwise import (cast, equal, greater_equal, less, less_equal, logical_and,
                               logical_or, maximum, minimum, mul, where)
from ..ops.movement import reshape
from ._checks import as_image

# TensorFlow's colours when `colors` is None (RGBA)
_DEFAULT_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                            [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1],
                            [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _colors(colors, depth):
    table = _DEFAULT_COLORS
    if colors is not None:
        given = np.asarray(colors.numpy() if hasattr(colors, "numpy") else colors, np.float32)
        if given.ndim != 2:
            dims = ",".join(str(n) for n in given.shape)
            raise InvalidArgumentError(f"colors must be a 2-D matrix[{dims}]")
        if given.shape[1] < depth:
            raise InvalidArgumentError("colors must have equal or more channels than the "
                                       f"image provided: [{given.shape[0]},{given.shape[1]}]")
        if given.size:
            return given[:, :depth]
    table = table[:, :depth].copy()
    if depth == 1:
        table[:, 0] = 1  # TensorFlow's own colours are all white on a grey image
    return table


def _all(*conditions):
    out = conditions[0]
    for c in conditions[1:]:
        out = logical_and(out, c)
    return out


def draw_bounding_boxes(images, boxes, colors, name=None):
    """Draws the outlines of `boxes` [batch, num_boxes, 4] (y1, x1, y2, x2 in [0, 1]) on
    float `images` [batch, height, width, depth] with depth 1, 3 or 4, box i in colour
    `colors[i % len(colors)]` (RGBA rows; None: TensorFlow's ten colours)
    (tf.image.draw_bounding_boxes).

    >>> tf.image.draw_bounding_boxes(tf.zeros([1, 3, 3, 1]), [[[0.0, 0.0, 1.0, 1.0]]],
    ...                              [[1.0, 0, 0, 1]])[0, ..., 0].numpy()
    array([[1., 1., 1.],
           [1., 0., 1.],
           [1., 1., 1.]], dtype=float32)
    """
    images = as_image(images, "images")[0]
    boxes = convert_to_tensor(boxes, dtypes.float32)
    if not images.dtype.is_floating:
        raise InvalidArgumentError(f"Value for attr 'T' of {images.dtype.name} is not in the "
                                   "list of allowed values: float, half")
    shape = images.shape.as_list()
    if len(shape) != 4:
        raise InvalidArgumentError("The rank of the images should be 4")
    batch, h, w, depth = shape
    if depth not in (1, 3, 4):
        raise InvalidArgumentError("Channel depth should be either 1 (GRY), 3 (RGB), or 4 "
                                   "(RGBA)")
    if boxes.shape.rank != 3:
        raise InvalidArgumentError("The rank of the boxes tensor should be 3")
    if boxes.shape[2] != 4:
        raise InvalidArgumentError("The size of the third dimension of the box must be 4. "
                                   f"Received: {boxes.shape[2]}")
    if boxes.shape[0] != batch:
        raise InvalidArgumentError("The batch sizes should be the same")
    table = _colors(colors, depth)
    rows = np.arange(h, dtype=np.int32).reshape(1, h, 1)
    cols = np.arange(w, dtype=np.int32).reshape(1, 1, w)
    canvas = images
    for k in range(boxes.shape[1]):
        # corners truncated toward zero, as TensorFlow's int64 conversion
        top, left, bottom, right = (
            reshape(cast(mul(boxes[:, k, i], float(size - 1)), dtypes.int32), [-1, 1, 1])
            for i, size in ((0, h), (1, w), (2, h), (3, w)))
        valid = _all(less_equal(top, bottom), less_equal(left, right), less(top, h),
                     greater_equal(bottom, 0), less(left, w), greater_equal(right, 0))
        across = _all(greater_equal(cols, maximum(left, 0)),
                      less_equal(cols, minimum(right, w - 1)))
        down = _all(greater_equal(rows, maximum(top, 0)),
                    less_equal(rows, minimum(bottom, h - 1)))
        outline = logical_or(
            logical_or(logical_and(equal(rows, top), across),
                       logical_and(equal(rows, bottom), across)),
            logical_or(logical_and(equal(cols, left), down),
                       logical_and(equal(cols, right), down)))
        mask = reshape(logical_and(valid, outline), [batch, h, w, 1])
        canvas = where(mask, cast(table[k % len(table)], canvas.dtype), canvas)
    return canvas
