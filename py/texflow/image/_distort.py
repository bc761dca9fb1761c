"""tf.image.sample_distorted_bounding_box and its stateless form, as TensorFlow's
SampleDistortedBoundingBoxV2 kernel samples: up to `max_attempts` crops of a random aspect
ratio and area (in pixels, rounded as the kernel rounds) at a random place, the first
covering at least `min_object_covered` of some box; else the whole image. Host code
drawing from texflow's random streams (a new draw at every tf.function call); the numbers
are texflow's, not TensorFlow's."""

import collections

import numpy as np

from ..engine.ndarray import NDArray
from ..engine.seeds import drawn_each_call, generator
from ..errors import InvalidArgumentError
from ..ops.creation import constant
from ._random_ops import _stateless_rng


SampleDistortedBoundingBoxV2 = collections.namedtuple("SampleDistortedBoundingBoxV2",
                                                      ["begin", "size", "bboxes"])
StatelessSampleDistortedBoundingBox = collections.namedtuple(
    "StatelessSampleDistortedBoundingBox", ["begin", "size", "bboxes"])


def _round(x):
    return int(np.rint(np.float32(x)))  # lrintf: to nearest, ties to even


def _random_crop(rng, width, height, min_area, max_area, ratio):
    """A [x, y, x2, y2] crop of `ratio` with an area in [min_area, max_area] of the image,
    or None (GenerateRandomCrop's rule)."""
    if max_area <= 0 or ratio <= 0 or min_area > max_area:
        return None
    f32 = np.float32
    low, high = f32(min_area) * width * height, f32(max_area) * width * height
    rows = _round(np.sqrt(low / ratio))
    most = _round(np.sqrt(high / ratio))
    if _round(most * ratio) > width:
        most = int((width + 0.5 - 1e-7) / ratio)
        if _round(most * ratio) > width:
            most -= 1
    most = min(most, height)
    rows = min(rows, most)
    if rows < most:
        rows += int(rng.integers(0, most - rows + 1))
    cols = _round(rows * ratio)
    area = cols * rows
    if area < low:
        rows += 1
        cols = _round(rows * ratio)
        area = cols * rows
    if area > high:
        rows -= 1
        cols = _round(rows * ratio)
        area = cols * rows
    if area < low or area > high or cols > width or rows > height or cols <= 0 or rows <= 0:
        return None
    y = int(rng.integers(0, height - rows)) if rows < height else 0
    x = int(rng.integers(0, width - cols)) if cols < width else 0
    return x, y, x + cols, y + rows


def _covers(crop, boxes, least):
    """Whether `crop` covers at least `least` of some box of at least one pixel."""
    x, y, x2, y2 = crop
    if (x2 - x) * (y2 - y) < 1:
        return False
    for bx, by, bx2, by2 in boxes:
        area = (bx2 - bx) * (by2 - by)
        if area < 1:
            continue
        inner = max(min(x2, bx2) - max(x, bx), 0) * max(min(y2, by2) - max(y, by), 0)
        if inner / area >= least:
            return True
    return False


def _sample(rng, image_size, boxes, least, ratios, areas, attempts, whole_image):
    height, width = int(image_size[0]), int(image_size[1])
    # boxes in pixels, truncated as the kernel's int conversion
    pixels = [(int(np.float32(b[1]) * width), int(np.float32(b[0]) * height),
               int(np.float32(b[3]) * width), int(np.float32(b[2]) * height))
              for b in np.asarray(boxes, np.float32).reshape(-1, 4)]
    if not pixels:
        if not whole_image:
            raise InvalidArgumentError(
                "No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.")
        pixels = [(0, 0, width, height)]
    crop = None
    for _ in range(attempts):
        ratio = np.float32(rng.random()) * np.float32(ratios[1] - ratios[0]) + np.float32(
            ratios[0])
        candidate = _random_crop(rng, width, height, areas[0], areas[1], ratio)
        if candidate is not None and _covers(candidate, pixels, least):
            crop = candidate
            break
    x, y, x2, y2 = crop or (0, 0, width, height)
    begin = constant(np.array([y, x, 0], np.int32))
    size = constant(np.array([y2 - y, x2 - x, -1], np.int32))
    box = constant(np.array([[[y / height, x / width, y2 / height, x2 / width]]], np.float32))
    return begin, size, box


def _numbers(values):
    return "[" + ", ".join(f"{float(v):g}" for v in values) + "]"


def _options(image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range,
             max_attempts):
    """The arguments checked with TensorFlow's messages, as host values."""
    size = np.asarray(image_size.numpy() if isinstance(image_size, NDArray) else image_size)
    if size.shape != (3,):
        dims = ",".join(str(n) for n in size.shape)
        raise InvalidArgumentError(f"image_size must contain 3 elements[{dims}]")
    boxes = np.asarray(bounding_boxes.numpy() if isinstance(bounding_boxes, NDArray)
                       else bounding_boxes, np.float32)
    if boxes.ndim != 3 or boxes.shape[-1] != 4:
        dims = ",".join(str(n) for n in boxes.shape)
        raise InvalidArgumentError("input boxes must be 3-dimensional [batch, num_boxes, "
                                   f"coords]: [{dims}]")
    if min_object_covered < 0:
        raise InvalidArgumentError("Min object covered must be non-negative: "
                                   f"{float(min_object_covered):g}")
    ratios = [0.75, 1.33] if aspect_ratio_range is None else list(aspect_ratio_range)
    areas = [0.05, 1.0] if area_range is None else list(area_range)
    if len(ratios) != 2:
        raise InvalidArgumentError("Aspect ratio field must specify 2 dimensions")
    if len(areas) != 2:
        raise InvalidArgumentError("Area range field must specify 2 dimensions")
    if not (ratios[0] > 0 and ratios[1] > 0):
        raise InvalidArgumentError(f"Aspect ratio range must be non-negative: "
                                   f"{_numbers(ratios)}")
    if not (areas[0] > 0 and areas[1] <= 1):
        raise InvalidArgumentError(f"Area range must be non-negative: {_numbers(areas)}")
    attempts = 100 if max_attempts is None else int(max_attempts)
    if attempts <= 0:
        raise InvalidArgumentError(f"Max attempts must be non-negative: {attempts}")
    return size, boxes, float(min_object_covered), ratios, areas, attempts


@drawn_each_call  # a new draw at every tf.function call, a stream per traced op
def _sample_drawn(image_size, bounding_boxes, seed, options, whole_image):
    size, boxes, least, ratios, areas, attempts = _options(image_size, bounding_boxes,
                                                           *options)
    # each attempt reads up to four numbers from one stream of 4 * max_attempts
    rng = generator(seed, 4 * attempts)
    return _sample(rng, size, boxes, least, ratios, areas, attempts, whole_image)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None,
                                  max_attempts=None, use_image_if_no_bounding_boxes=None,
                                  name=None):
    """A random crop for augmentation (tf.image.sample_distorted_bounding_box): (begin,
    size, bboxes) for tf.slice and draw_bounding_boxes, the crop having an aspect ratio in
    `aspect_ratio_range` (default [0.75, 1.33]), an area in `area_range` of the image
    (default [0.05, 1]) and covering at least `min_object_covered` of one of
    `bounding_boxes` [batch, N, 4]; after `max_attempts` (100) misses, the whole image.

    >>> begin, size, box = tf.image.sample_distorted_bounding_box(
    ...     [40, 30, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=1)
    >>> size.shape, box.shape
    (TensorShape([3]), TensorShape([1, 1, 4]))
    """
    options = (min_object_covered, aspect_ratio_range, area_range, max_attempts)
    return SampleDistortedBoundingBoxV2(*_sample_drawn(
        image_size, bounding_boxes, seed or None, options, bool(use_image_if_no_bounding_boxes)))


def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """sample_distorted_bounding_box drawing from `seed` = [a, b] alone: the same crop at
    every call (tf.image.stateless_sample_distorted_bounding_box).

    >>> a = tf.image.stateless_sample_distorted_bounding_box([40, 30, 3], [[[0, 0, 1, 1.0]]],
    ...                                                      [1, 2])
    >>> b = tf.image.stateless_sample_distorted_bounding_box([40, 30, 3], [[[0, 0, 1, 1.0]]],
    ...                                                      [1, 2])
    >>> a[1].numpy().tolist() == b[1].numpy().tolist()
    True
    """
    size, boxes, least, ratios, areas, attempts = _options(
        image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range,
        max_attempts)
    rng = _stateless_rng(seed, "stateless_sample_distorted_bounding_box")
    return StatelessSampleDistortedBoundingBox(*_sample(
        rng, size, boxes, least, ratios, areas, attempts, bool(use_image_if_no_bounding_boxes)))
