"""tf.image's non-max suppression: TensorFlow's greedy selection (NonMaxSuppressionV3/V5,
Overlaps and CombinedNonMaxSuppression), run on the host as TensorFlow's CPU kernels are.
Where the result's length depends on the values (non_max_suppression, _with_scores,
_overlaps, unpadded _padded) the inputs must be known when a tf.function traces (see
ops/index_checks.py values_for_shape); the fixed-shape ones (combined, padded) run as host
code at every call of the function (engine/trace.py host_call)."""

import collections
import heapq
import math

import numpy as np

from .. import dtypes
from ..engine import trace
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..ops.creation import constant, convert_to_tensor
from ..ops.index_checks import values_for_shape
from ._checks import static_int


def _host(x, op):
    data = values_for_shape(x, op) if isinstance(x, NDArray) else x
    return np.asarray(data, np.float32)


def _iou(boxes):
    """fn(i, j): intersection over union of boxes i and j, either corner order (0 when one
    has no area), in float32 as TensorFlow's kernel."""
    low = np.minimum(boxes[:, :2], boxes[:, 2:])
    high = np.maximum(boxes[:, :2], boxes[:, 2:])
    area = (high[:, 0] - low[:, 0]) * (high[:, 1] - low[:, 1])

    def iou(i, j):
        if area[i] <= 0 or area[j] <= 0:
            return np.float32(0)
        inner = np.maximum(np.minimum(high[i], high[j]) - np.maximum(low[i], low[j]),
                           np.float32(0))
        both = inner[0] * inner[1]
        return both / (area[i] + area[j] - both)
    return iou


def _select(similarity, scores, size, threshold, score_threshold, sigma):
    """TensorFlow's greedy loop: the best remaining candidate is compared with the boxes
    selected since it was last compared; hard suppression above `threshold`, soft
    (score * exp(-0.5 * sim**2 / sigma)) when sigma > 0, requeued if still above
    `score_threshold`."""
    soft = sigma > 0
    scale = np.float32(-0.5 / sigma) if soft else np.float32(0)
    # heapq is a min-heap: the best score first, the lower index first among equals
    queue = [(-s, i, 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(queue)
    selected, kept = [], []
    while len(selected) < size and queue:
        negative, index, begin = heapq.heappop(queue)
        score = original = np.float32(-negative)
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = np.float32(similarity(index, selected[j]))
            if soft or sim <= threshold:
                score = np.float32(score * np.exp(scale * sim * sim))
            else:
                score = np.float32(0)
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            kept.append(score)
        elif score > score_threshold:
            heapq.heappush(queue, (-score, index, len(selected)))
    return selected, kept


def _dims(array):
    return "[" + ",".join(str(n) for n in array.shape) + "]"


def _check(boxes, scores, size, threshold, what="iou_threshold", columns=4):
    if boxes.ndim != 2:
        raise InvalidArgumentError(f"boxes must be 2-D{_dims(boxes)}")
    if columns and boxes.shape[1] != columns:
        raise InvalidArgumentError("boxes must have 4 columns")
    if scores.ndim != 1:
        raise InvalidArgumentError(f"scores must be 1-D{_dims(scores)}")
    if scores.shape[0] != boxes.shape[0]:
        raise InvalidArgumentError("scores has incompatible shape")
    if size < 0:
        raise InvalidArgumentError("output size must be non-negative")
    if not 0 <= threshold <= 1:
        raise InvalidArgumentError(f"{what} must be in [0, 1]")


def _run(boxes, scores, max_output_size, threshold, score_threshold, sigma, op,
         overlaps=False):
    boxes, scores = _host(boxes, op), _host(scores, op)
    size = static_int(max_output_size, "max_output_size", op)
    threshold = float(np.float32(threshold))
    _check(boxes, scores, size, threshold, "overlap_threshold" if overlaps else
           "iou_threshold", 0 if overlaps else 4)
    similarity = (lambda i, j: boxes[i, j]) if overlaps else _iou(boxes)
    score_threshold = np.float32(-math.inf if score_threshold is None else score_threshold)
    return _select(similarity, scores, size, np.float32(threshold), score_threshold, sigma)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Indices of up to `max_output_size` boxes [y1, x1, y2, x2], best score first, none
    overlapping a better one by more than `iou_threshold` (tf.image.non_max_suppression).

    >>> tf.image.non_max_suppression([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]],
    ...                              [0.9, 0.8, 0.7], 3).numpy()
    array([0, 2], dtype=int32)
    """
    selected, _ = _run(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                       "non_max_suppression")
    return constant(np.array(selected, np.int32), dtypes.int32)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """(indices, scores) of non-max suppression; with `soft_nms_sigma` > 0 an overlapping
    box's score decays by exp(-0.5 iou**2 / sigma) instead of the box being dropped
    (tf.image.non_max_suppression_with_scores).

    >>> tf.image.non_max_suppression_with_scores([[0, 0, 1, 1]], [0.5], 1)[1].numpy()
    array([0.5], dtype=float32)
    """
    if soft_nms_sigma < 0:
        raise InvalidArgumentError("soft_nms_sigma_val must be >= 0")
    selected, kept = _run(boxes, scores, max_output_size, iou_threshold, score_threshold,
                          float(soft_nms_sigma), "non_max_suppression_with_scores")
    return (constant(np.array(selected, np.int32), dtypes.int32),
            constant(np.array(kept, np.float32), dtypes.float32))


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """non_max_suppression with the overlap of boxes i and j given as `overlaps[i, j]`
    (tf.image.non_max_suppression_overlaps).

    >>> tf.image.non_max_suppression_overlaps([[1.0, 0.7], [0.7, 1.0]], [0.4, 0.6], 2).numpy()
    array([1], dtype=int32)
    """
    selected, _ = _run(overlaps, scores, max_output_size, overlap_threshold, score_threshold,
                       0.0, "non_max_suppression_overlaps", overlaps=True)
    return constant(np.array(selected, np.int32), dtypes.int32)


CombinedNonMaxSuppression = collections.namedtuple(
    "CombinedNonMaxSuppression",
    ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"])


def _check_combined(boxes, scores, per_class, total, threshold):
    if boxes.ndim != 4 or scores.ndim != 3 or boxes.shape[0] != scores.shape[0]:
        raise InvalidArgumentError("boxes and scores must have same batch size")
    if boxes.shape[3] != 4:
        raise InvalidArgumentError("boxes must have 4 columns")
    if scores.shape[1] != boxes.shape[1]:
        raise InvalidArgumentError("scores has incompatible shape")
    if boxes.shape[2] not in (1, scores.shape[2]):
        raise InvalidArgumentError("third dimension of boxes must be either 1 or num classes")
    if per_class <= 0:
        raise InvalidArgumentError("max_size_per_class must be positive")
    if total <= 0:
        raise InvalidArgumentError("max_total_size must be > 0")
    if not 0 <= threshold <= 1:
        raise InvalidArgumentError("iou_threshold must be in [0, 1]")


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """Per image and class, non-max suppression of `boxes` [batch, num_boxes, 1 or
    num_classes, 4] by `scores` [batch, num_boxes, num_classes]; then each image's best
    `max_total_size` detections over all classes, zero-padded
    (tf.image.combined_non_max_suppression). Returns (nmsed_boxes, nmsed_scores,
    nmsed_classes, valid_detections); boxes are clipped to [0, 1] unless `clip_boxes` is
    False; with `pad_per_class` the padding stops at max_output_size_per_class * classes.

    >>> out = tf.image.combined_non_max_suppression([[[[0, 0, 1, 1]]]], [[[0.9]]], 1, 2)
    >>> out.valid_detections.numpy()
    array([1], dtype=int32)
    """
    op = "combined_non_max_suppression"
    per_class = static_int(max_output_size_per_class, "max_output_size_per_class", op)
    total = static_int(max_total_size, "max_total_size", op)
    settings = (per_class, total, np.float32(iou_threshold), np.float32(score_threshold),
                bool(pad_per_class), bool(clip_boxes))
    # host code, run again at every tf.function call with that call's values (its result's
    # shapes do not depend on them)
    return CombinedNonMaxSuppression(*trace.host_call(
        lambda b, s: _combined(b.numpy(), s.numpy(), *settings),
        convert_to_tensor(boxes, dtypes.float32), convert_to_tensor(scores, dtypes.float32)))


def _combined(boxes, scores, per_class, total, threshold, score_threshold, pad_per_class,
              clip_boxes):
    _check_combined(boxes, scores, per_class, total, float(threshold))
    batch, num_boxes, q, _ = boxes.shape
    classes = scores.shape[2]
    size = min(total, per_class * classes) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []  # (score, class, box) of every class's selection
        for c in range(classes):
            class_boxes = boxes[b, :, c if q > 1 else 0]
            chosen, kept = _select(_iou(class_boxes), scores[b, :, c],
                                   min(per_class, num_boxes), threshold, score_threshold, 0.0)
            found += [(s, c, class_boxes[i]) for i, s in zip(chosen, kept)]
        found.sort(key=lambda item: -item[0])
        found = found[:size]
        valid[b] = len(found)
        for k, (s, c, box) in enumerate(found):
            out_boxes[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, k], out_classes[b, k] = s, c
    return constant(out_boxes), constant(out_scores), constant(out_classes), constant(valid)


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """(indices, number valid) of non-max suppression, for one image or a batch [...,
    num_boxes, 4]; with `pad_to_max_output_size` (required for a batch) the indices are
    zero-padded to `max_output_size` (tf.image.non_max_suppression_padded). The same
    selection as non_max_suppression; `sorted_input`, `canonicalized_coordinates` and
    `tile_size` are TensorFlow's speed hints and change nothing here.

    >>> idx, n = tf.image.non_max_suppression_padded(
    ...     tf.constant([[0, 0, 1, 1.0], [0, 0.1, 1, 1.1]]), [0.9, 0.8], 3,
    ...     pad_to_max_output_size=True)
    >>> idx.numpy(), int(n)
    (array([0, 0, 0], dtype=int32), 1)
    """
    op = "non_max_suppression_padded"
    size = static_int(max_output_size, "max_output_size", op)
    settings = (size, np.float32(iou_threshold), np.float32(score_threshold))
    if pad_to_max_output_size:  # shapes fixed: host code run again at every call
        return trace.host_call(lambda b, s: _padded(b.numpy(), s.numpy(), *settings),
                               convert_to_tensor(boxes, dtypes.float32),
                               convert_to_tensor(scores, dtypes.float32))
    boxes, scores = _host(boxes, op), _host(scores, op)
    if boxes.ndim > 2:
        raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be "
                         "True for batched input")
    indices, valid = _padded(boxes, scores, *settings)
    count = int(valid.numpy())
    return constant(indices.numpy()[:count]), valid


def _padded(boxes, scores, size, threshold, score_threshold):
    boxes, scores = np.asarray(boxes, np.float32), np.asarray(scores, np.float32)
    batch = boxes.shape[:-2]
    flat_boxes = boxes.reshape((-1,) + boxes.shape[-2:])
    flat_scores = scores.reshape((-1, scores.shape[-1]))
    indices = np.zeros((len(flat_boxes), size), np.int32)
    valid = np.zeros(len(flat_boxes), np.int32)
    for k, (b, s) in enumerate(zip(flat_boxes, flat_scores)):
        _check(b, s, size, float(threshold))
        chosen, _ = _select(_iou(b), s, size, threshold, score_threshold, 0.0)
        indices[k, :len(chosen)] = chosen
        valid[k] = len(chosen)
    return constant(indices.reshape(batch + (size,))), constant(valid.reshape(batch))
