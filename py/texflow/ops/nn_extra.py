"""tf.nn and tf.* names composed of other ops, with TensorFlow 2's signatures, results
and errors (checked against TensorFlow 2.21): in_top_k, space_to_depth/depth_to_space,
space_to_batch(_nd)/batch_to_space, crelu, lrn, log_poisson_loss,
weighted_cross_entropy_with_logits, the moments helpers, zero_fraction; shape_n,
scalar_mul, realdiv, parallel_stack, saturate_cast, the broadcast shape helpers,
grad_pass_through; dynamic_partition and dynamic_stitch, whose result shapes depend on
values (host ops: inside tf.function only on values the same at every call)."""

import math

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray, as_array, from_numpy
from ..engine.registry import export
from ..errors import InvalidArgumentError
from ..tensor_shape import TensorShape
from . import elementwise as ew
from . import movement as mv
from . import reduce as rd
from .index_checks import values_for_shape
from .shape_util import broadcast_shapes


def _float(x):
    x = as_array(x)
    return x if x.dtype == dtypes.float32 else ew.cast(x, dtypes.float32)


def _ints(value, what):
    value = values_for_shape(as_array(value), what) if isinstance(value, NDArray) else value
    return [int(v) for v in np.asarray(value).reshape(-1)]


@export("nn", "math")
def in_top_k(targets, predictions, k, name=None):
    """Whether each row's target class is among its `k` largest predictions; ties at the
    boundary count as in (TensorFlow's InTopK); a row with a non-finite prediction or a
    target outside [0, classes) gives False."""
    predictions, targets = _float(predictions), as_array(targets)
    classes = predictions.shape[-1]
    picked = ew.equal(mv.expand_dims(targets, -1), ew.cast(_arange(classes), targets.dtype))
    target_value = rd.sum(ew.where(picked, predictions, 0.0), axis=-1)
    above = rd.sum(ew.cast(ew.greater(predictions, mv.expand_dims(target_value, -1)),
                           dtypes.int32), axis=-1)
    finite = rd.reduce_all(ew.is_finite(predictions), axis=-1)
    valid = ew.logical_and(ew.greater_equal(targets, 0), ew.less(targets, classes))
    return ew.logical_and(ew.logical_and(ew.less(above, int(k)), finite), valid)


def _arange(n):
    return from_numpy(np.arange(n, dtype=np.int32))


def _check_nhwc(data_format, what):
    if data_format != "NHWC":
        raise InvalidArgumentError(f"{what}: texflow takes data_format 'NHWC' only, "
                                   f"received {data_format!r}")


@export("nn")
def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Blocks of block_size x block_size pixels moved into the channels (NHWC)."""
    _check_nhwc(data_format, "space_to_depth")
    x, bs = as_array(input), int(block_size)
    if bs < 2:
        raise InvalidArgumentError(f"Value for attr 'block_size' of {bs} must be at least 2")
    b, h, w, c = x.shape
    if h % bs or w % bs:
        raise InvalidArgumentError(f"Image width {w} and height {h} should be divisible by "
                                   f"block_size: {bs}")
    y = mv.reshape(x, [b, h // bs, bs, w // bs, bs, c])
    return mv.reshape(mv.transpose(y, [0, 1, 3, 2, 4, 5]), [b, h // bs, w // bs, bs * bs * c])


@export("nn")
def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """The inverse of space_to_depth: channels moved into block_size x block_size blocks."""
    _check_nhwc(data_format, "depth_to_space")
    x, bs = as_array(input), int(block_size)
    if bs < 2:
        raise InvalidArgumentError(f"Value for attr 'block_size' of {bs} must be at least 2")
    b, h, w, c = x.shape
    if c % (bs * bs):
        raise InvalidArgumentError(f"Input depth dimension {c} should be divisible by: "
                                   f"{bs * bs}")
    y = mv.reshape(x, [b, h, w, bs, bs, c // (bs * bs)])
    return mv.reshape(mv.transpose(y, [0, 1, 3, 2, 4, 5]), [b, h * bs, w * bs, c // (bs * bs)])


@export("tf", "nn")
def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    """Spatial blocks moved into the batch (tf.space_to_batch, SpaceToBatchND): the M
    spatial dimensions after the batch padded by `paddings` [M, 2], then split by
    `block_shape` [M] into the batch."""
    return space_to_batch_nd(input, block_shape, paddings)


@export("tf")
def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    x = as_array(input)
    block = _ints(block_shape, "space_to_batch")
    pads = np.asarray(_ints(paddings, "space_to_batch")).reshape(len(block), 2).tolist()
    m, shape = len(block), list(x.shape)
    x = mv.pad(x, [[0, 0]] + pads + [[0, 0]] * (len(shape) - m - 1))
    padded = list(x.shape)
    for i, (p, b) in enumerate(zip(padded[1:m + 1], block)):
        if b < 1 or p % b:
            raise InvalidArgumentError(f"padded_shape[{i}]={p} is not divisible by "
                                       f"block_shape[{i}]={b}")
    rest = padded[m + 1:]
    split = [padded[0]] + [d for p, b in zip(padded[1:m + 1], block) for d in (p // b, b)] + rest
    x = mv.reshape(x, split)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    x = mv.transpose(x, perm)
    return mv.reshape(x, [padded[0] * math.prod(block)] +
                      [p // b for p, b in zip(padded[1:m + 1], block)] + rest)


@export("tf")
def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of space_to_batch (tf.batch_to_space, BatchToSpaceND): the batch split
    into `block_shape` [M] blocks interleaved into the spatial dimensions, then cropped by
    `crops` [M, 2]."""
    x = as_array(input)
    block = _ints(block_shape, "batch_to_space")
    crop = np.asarray(_ints(crops, "batch_to_space")).reshape(len(block), 2).tolist()
    m, shape = len(block), list(x.shape)
    n = math.prod(block)
    if shape[0] % n:
        raise InvalidArgumentError(f"Input batch dimension ({shape[0]}) is not divisible by "
                                   f"product of block sizes ({n})")
    spatial, rest = shape[1:m + 1], shape[m + 1:]
    x = mv.reshape(x, block + [shape[0] // n] + spatial + rest)
    perm = [m] + [i for k in range(m) for i in (m + 1 + k, k)] + \
        list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = mv.reshape(mv.transpose(x, perm), [shape[0] // n] +
                   [d * b for d, b in zip(spatial, block)] + rest)
    full = list(x.shape)
    for i, ((lo, hi), d) in enumerate(zip(crop, full[1:m + 1])):
        if lo < 0 or hi < 0 or lo + hi > d:
            raise InvalidArgumentError(f"Crops must be non-negative and not exceed the "
                                       f"dimension: crops[{i}] = {[lo, hi]}, size {d}")
    return mv.slice(x, [0] + [lo for lo, _ in crop] + [0] * len(rest),
                    [full[0]] + [d - lo - hi for (lo, hi), d in zip(crop, full[1:m + 1])] + rest)


@export("nn")
def crelu(features, axis=-1, name=None):
    """relu(x) and relu(-x) concatenated along `axis`."""
    x = _float(features)
    return mv.concat([ew.relu(x), ew.relu(ew.neg(x))], axis)


@export("nn")
def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0,  # noqa: A002
                                 beta=0.5, name=None):
    """x / (bias + alpha * sum of x^2 over the channels within depth_radius)^beta (NHWC,
    TensorFlow's LRN)."""
    x = _float(input)
    r = int(depth_radius)
    squares = mv.pad(ew.square(x), [[0, 0]] * (len(x.shape) - 1) + [[r, r]])
    c = x.shape[-1]
    total = None
    for k in range(2 * r + 1):  # the window's 2r + 1 shifted slices (one fused sum)
        part = mv.slice(squares, [0] * (len(x.shape) - 1) + [k], list(x.shape[:-1]) + [c])
        total = part if total is None else ew.add(total, part)
    return ew.div(x, ew.pow(ew.add(ew.mul(total, float(alpha)), float(bias)), float(beta)))


export("nn.lrn")(local_response_normalization)


@export("nn")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - targets * log_input, plus Stirling's approximation of log(z!) for
    targets > 1 with compute_full_loss."""
    z, c = _float(targets), _float(log_input)
    loss = ew.sub(ew.exp(c), ew.mul(z, c))
    if not compute_full_loss:
        return loss
    stirling = ew.add(ew.sub(ew.mul(z, ew.log(z)), z),
                      ew.mul(ew.log(ew.mul(z, 2 * math.pi)), 0.5))
    return ew.add(loss, ew.where(ew.greater(z, 1.0), stirling, 0.0))


@export("nn")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`:
    (1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0))."""
    z, x = _float(labels), _float(logits)
    q = _float(pos_weight)
    log_weight = ew.add(ew.mul(ew.sub(q, 1.0), z), 1.0)
    softplus = ew.add(ew.log1p(ew.exp(ew.neg(ew.abs(x)))), ew.relu(ew.neg(x)))
    return ew.add(ew.mul(ew.sub(1.0, z), x), ew.mul(log_weight, softplus))


@export("nn")
def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over `axes`."""
    x = _float(x)
    axes = [a % len(x.shape) for a in _ints(axes, "sufficient_statistics")]
    count = from_numpy(np.array(math.prod(x.shape[a] for a in axes), np.float32))
    centered = x if shift is None else ew.sub(x, shift)
    return (count, rd.sum(centered, axis=axes, keepdims=keepdims),
            rd.sum(ew.square(centered), axis=axes, keepdims=keepdims),
            None if shift is None else as_array(shift))


@export("nn")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics."""
    divisor = ew.div(1.0, _float(counts))
    shifted_mean = ew.mul(_float(mean_ss), divisor)
    mean = shifted_mean if shift is None else ew.add(shifted_mean, shift)
    variance = ew.sub(ew.mul(_float(variance_ss), divisor), ew.square(shifted_mean))
    return mean, variance


@export("nn")
def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """(mean, variance) over `axes` with each element weighted by `frequency_weights`
    (broadcast against x)."""
    x, w = _float(x), _float(frequency_weights)
    axes = [a % len(x.shape) for a in _ints(axes, "weighted_moments")]
    w = ew.add(w, ew.mul(x, 0.0))  # broadcast to x's shape
    total = rd.sum(w, axis=axes, keepdims=True)
    divisor = ew.div(1.0, total)
    mean = ew.mul(rd.sum(ew.mul(w, x), axis=axes, keepdims=True), divisor)
    variance = ew.mul(rd.sum(ew.mul(w, ew.square(ew.sub(x, mean))), axis=axes,
                             keepdims=True), divisor)
    if not keepdims:
        mean, variance = mv.squeeze(mean, axes), mv.squeeze(variance, axes)
    return mean, variance


@export("nn", "math")
def zero_fraction(value, name=None):
    """The fraction of `value`'s elements that are zero (float32)."""
    return rd.mean(ew.cast(ew.equal(as_array(value), 0), dtypes.float32))


@export("tf")
def shape_n(input, out_type=None, name=None):  # noqa: A002
    """tf.shape of each tensor of the list `input`."""
    from .array_ops import shape
    return [shape(x, out_type) for x in input]


@export("tf", "math")
def scalar_mul(scalar, x, name=None):
    """scalar * x for a scalar (a number or a 0-d tensor)."""
    s = as_array(scalar)
    if s.shape:
        raise ValueError(f"Only scalar multiply works, got shape {tuple(s.shape)}")
    return ew.mul(s, x)


@export("tf", "math")
def realdiv(x, y, name=None):
    """x / y (floats)."""
    return ew.div(x, y)


@export("tf")
def parallel_stack(values, name="parallel_stack"):
    """tf.stack along a new first axis, inside tf.function only (as TensorFlow's)."""
    from ..engine.trace import inside_function
    if not inside_function():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return mv.stack(values, 0)


@export("tf", "dtypes")
def saturate_cast(value, dtype, name=None):
    """`value` clamped to `dtype`'s range, then cast (no wrap-around)."""
    target = dtypes.as_dtype(dtype)
    x = as_array(value)
    info = np.iinfo(np.dtype(target.name)) if target.is_integer else None
    if info is not None:
        lo, hi = max(info.min, -2 ** 31), min(info.max, 2 ** 31 - 1)
        if x.dtype == dtypes.float32:  # the float32 values nearest inside the range
            lo = float(np.nextafter(np.float32(lo), np.float32(0))) \
                if float(np.float32(lo)) < lo else float(np.float32(lo))
            hi = float(np.nextafter(np.float32(hi), np.float32(0))) \
                if float(np.float32(hi)) > hi else float(np.float32(hi))
        x = ew.minimum(ew.maximum(x, lo), hi)
    return ew.cast(x, target)


@export("tf")
def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape both TensorShapes broadcast to (ValueError if they do not)."""
    try:
        return TensorShape(broadcast_shapes("broadcast_static_shape", tuple(shape_x),
                                            tuple(shape_y)))
    except InvalidArgumentError:
        raise ValueError(f"Incompatible shapes for broadcasting: {TensorShape(shape_x)} and "
                         f"{TensorShape(shape_y)}") from None


@export("tf")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (an int32 tensor) both shapes broadcast to."""
    x, y = _ints(shape_x, "broadcast_dynamic_shape"), _ints(shape_y, "broadcast_dynamic_shape")
    return from_numpy(np.array(broadcast_shapes("broadcast_dynamic_shape", tuple(x),
                                                tuple(y)), np.int32))


@export("tf")
def grad_pass_through(f):
    """A function computing f(x) whose gradient is the identity's (straight-through)."""
    from ..autodiff.custom_gradient import custom_gradient

    @custom_gradient
    def passed(x):
        return f(x), lambda dy: dy
    return passed


@export("tf", "math")
def dynamic_partition(data, partitions, num_partitions, name=None):
    """The slices of `data` grouped by `partitions` (ints in [0, num_partitions), the
    shape of data's leading dimensions), one tensor per partition, in order."""
    data = as_array(data)
    parts = np.asarray(values_for_shape(as_array(partitions), "dynamic_partition"))
    n = int(num_partitions)
    if parts.shape != tuple(data.shape[:parts.ndim]):
        raise InvalidArgumentError(f"data.shape must start with partitions.shape, got "
                                   f"data.shape = {list(data.shape)}, partitions.shape = "
                                   f"{list(parts.shape)}")
    bad = (parts < 0) | (parts >= n)
    if bad.any():
        where = np.argwhere(bad)[0].tolist()
        raise InvalidArgumentError(f"partitions{where} = {parts[tuple(where)]} is not in "
                                   f"[0, {n})")
    flat = mv.reshape(data, [-1] + list(data.shape[parts.ndim:]))
    order = parts.reshape(-1)
    return [mv.gather(flat, from_numpy(np.flatnonzero(order == i).astype(np.int32)))
            for i in range(n)]


@export("tf", "math")
def dynamic_stitch(indices, data, name=None):
    """Interleaves the `data` tensors into one by `indices` (a later index wins)."""
    ids = [np.asarray(values_for_shape(as_array(i), "dynamic_stitch")).reshape(-1)
           for i in indices]
    data = [as_array(d) for d in data]
    every = np.concatenate(ids) if ids else np.zeros(0, np.int64)
    if (every < 0).any():
        raise InvalidArgumentError(f"indices must be non-negative, got {int(every.min())}")
    size = int(every.max()) + 1 if every.size else 0
    source = np.full(size, -1, np.int64)
    source[every] = np.arange(every.size)  # numpy assigns in order: the last one wins
    rows = [mv.reshape(d, [len(i)] + list(d.shape[len(as_array(idx).shape):]))
            for d, i, idx in zip(data, ids, indices)]
    if (source < 0).any():
        raise InvalidArgumentError(f"dynamic_stitch: index {int(np.argmin(source))} is "
                                   "missing from indices")
    return mv.gather(mv.concat(rows, 0), from_numpy(source.astype(np.int32)))
