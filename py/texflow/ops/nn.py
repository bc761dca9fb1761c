"""Neural-network ops built from primitives (no kernels of their own): softmax,
cross-entropies, activations, clipping, one-hot, moments, batch normalization,
dropout. Their gradients come from the primitives'.
"""

import numpy as np

from .. import dtypes
from ..dtypes import float32, int32
from ..engine import seeds
from ..engine.ndarray import NDArray, as_array, from_numpy, to_numpy
from ..engine.registry import export
from ..engine.seeds import drawn_each_call
from ..engine.trace import dry, traced
from ..errors import InvalidArgumentError, OpDTypeError, ShapeError
from . import elementwise as ew
from . import reduce as rd
from .creation import range_
from .index_checks import check_labels, host_values
from .movement import expand_dims, reshape


def _float(x, name):
    x = as_array(x)
    if x.dtype != float32:
        raise OpDTypeError(f"{name} needs float32 input, received {x.dtype}")
    return x


@export("tf", "math", "nn", "dl")
def log_softmax(logits, axis=-1, name=None):
    """log(softmax(logits)) along `axis`, computed stably.

    >>> [round(v, 4) for v in tf.log_softmax(tf.array([0.0, 0.0])).tolist()]
    [-0.6931, -0.6931]
    """
    logits = _float(logits, "log_softmax")
    # TensorFlow's LogSoftmax kernel: shifted by the raw max (an infinite or NaN logit
    # makes the whole row NaN, unlike logsumexp's finite shift), the shift a constant
    # to the gradient (d/dx is exactly one minus softmax)
    shifted = ew.sub(logits, ew.stop_gradient(rd.max(logits, axis=axis, keepdims=True)))
    return ew.sub(shifted, ew.log(rd.sum(ew.exp(shifted), axis=axis, keepdims=True)))


@export("tf", "math", "nn", "dl")
def softmax(logits, axis=-1, name=None):
    """exp(logits) normalized to sum to 1 along `axis`.

    >>> tf.softmax(tf.array([1.0, 1.0])).tolist()
    [0.5, 0.5]
    """
    return ew.exp(log_softmax(_float(logits, "softmax"), axis))


@export("tf", "nn", "dl")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) along `axis` (labels: a distribution)."""
    labels, logits = _float(labels, "softmax_cross_entropy"), _float(logits,
                                                                     "softmax_cross_entropy")
    if labels.shape != logits.shape:
        raise ShapeError(f"softmax_cross_entropy_with_logits: labels shape "
                         f"{list(labels.shape)} and logits shape {list(logits.shape)} differ")
    return ew.neg(rd.sum(ew.mul(labels, log_softmax(logits, axis)), axis=axis))


@export("tf", "nn", "dl")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Cross-entropy of int32 class `labels` [batch...] against `logits` [batch..., classes].

    A label outside [0, classes) raises InvalidArgumentError, as in TensorFlow, when the
    labels are known on the host (data usually is); labels that exist only on a GPU
    give a NaN loss for that example there (TensorFlow's GPU kernels do the same).
    """
    logits = _float(logits, "sparse_softmax_cross_entropy")
    labels = as_array(labels)
    if labels.dtype != int32:
        raise OpDTypeError(f"sparse_softmax_cross_entropy_with_logits: labels must be int32 "
                         f"class indices, received {labels.dtype}")
    if labels.shape != logits.shape[:-1]:
        raise ShapeError(f"sparse_softmax_cross_entropy_with_logits: labels shape "
                         f"{list(labels.shape)} must be logits shape {list(logits.shape)} "
                         "without its last axis")
    classes = logits.shape[-1]
    # the label's log-probability selected, not multiplied by a one-hot: a -inf logit
    # elsewhere gives no 0 * -inf (TensorFlow's kernel: a loss of 0, not NaN); the
    # comparison with the class index is elementwise, so a compiled step fuses it into
    # the kernels that read it instead of writing a one-hot
    picked = ew.equal(expand_dims(labels, -1), range_(classes))
    loss = ew.neg(rd.sum(ew.where(picked, log_softmax(logits), 0.0), axis=-1))
    if check_labels(labels, classes):
        return loss
    # NOTE: device-only labels: no class is picked for a bad label; NaN marks it.
    valid = ew.logical_and(ew.greater_equal(labels, 0), ew.less(labels, classes))
    return ew.where(valid, loss, float("nan"))


@export("tf", "nn", "dl")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Binary cross-entropy on logits: max(x, 0) - x * z + log(1 + exp(-|x|)); both are
    required (TensorFlow's keyword defaults, None, raise its ValueError)."""
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for "
                         f"sigmoid_cross_entropy_with_logits. Received: labels={labels} and "
                         f"logits={logits}")
    labels = _float(labels, "sigmoid_cross_entropy")
    logits = _float(logits, "sigmoid_cross_entropy")
    if labels.shape != logits.shape:
        raise ShapeError(f"sigmoid_cross_entropy_with_logits: labels shape "
                         f"{list(labels.shape)} and logits shape {list(logits.shape)} differ")
    softplus_neg_abs = ew.log(ew.add(ew.exp(ew.neg(ew.abs(logits))), 1.0))
    return ew.add(ew.sub(ew.relu(logits), ew.mul(logits, labels)), softplus_neg_abs)


@export("tf", "nn", "dl")
def leaky_relu(features, alpha=0.2, name=None):
    """features if features > 0 else alpha * features (TensorFlow's default alpha is 0.2)."""
    features = as_array(features)
    return ew.where(ew.greater(features, 0), features, ew.mul(features, float(alpha)))


@export("nn", "nn.swish")
def silu(features, beta=1.0):
    """features * sigmoid(beta * features) (TensorFlow's silu, also `tf.nn.swish`).

    >>> round(tf.nn.silu(tf.constant([1.0])).get(0), 4)
    0.7311
    """
    x = ew.expect_dtype(features, "silu", ew.FLOAT)
    return ew.mul(x, ew.sigmoid(x if beta == 1.0 else ew.mul(x, beta)))


swish = silu


@export("nn")
def gelu(features, approximate=False, name=None):
    """The Gaussian error linear unit, TensorFlow's formulas: 0.5 x erfc(-x / sqrt(2)),
    or with `approximate` 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).

    >>> round(tf.nn.gelu(tf.constant([1.0])).get(0), 4)
    0.8413
    """
    x = ew.expect_dtype(features, "gelu", ew.FLOAT, ValueError)
    if approximate:
        inner = ew.mul(ew.add(x, ew.mul(ew.pow(x, 3.0), 0.044715)), 0.7978845608028654)
        return ew.mul(ew.mul(x, 0.5), ew.add(ew.tanh(inner), 1.0))
    return ew.mul(ew.mul(x, 0.5), ew.erfc(ew.mul(x, -0.7071067811865476)))


@export("nn")
def l2_loss(t, name=None):
    """sum(t ** 2) / 2, TensorFlow's l2_loss (float32 only).

    >>> tf.nn.l2_loss(tf.constant([1.0, 2.0])).get()
    2.5
    """
    t = ew.expect_dtype(t, "l2_loss", ew.FLOAT)
    return ew.mul(rd.sum(ew.square(t)), 0.5)


@export("nn")
def bias_add(value, bias, data_format=None, name=None):
    """`value` plus a 1-D `bias` along its channel axis: the last one, or axis 1 for a
    data_format starting 'NC' (TensorFlow's bias_add).

    >>> tf.nn.bias_add(tf.zeros([2, 3]), [1.0, 2.0, 3.0]).tolist()[0]
    [1.0, 2.0, 3.0]
    """
    value = as_array(value)
    bias = bias if isinstance(bias, NDArray) else from_numpy(to_numpy(bias, value.dtype))
    if len(value.shape) < 2:
        raise InvalidArgumentError(f"bias_add: the input tensor must be at least 2D: "
                                   f"{list(value.shape)}")
    if len(bias.shape) != 1:
        raise InvalidArgumentError(f"bias_add: biases must be 1D: {list(bias.shape)}")
    channels_first = data_format is not None and str(data_format).startswith("NC")
    axis = 1 if channels_first else len(value.shape) - 1
    if bias.shape[0] != value.shape[axis]:
        raise InvalidArgumentError(
            f"bias_add: must provide as many biases as the channel dimension of the input "
            f"tensor: {list(bias.shape)} vs. {list(value.shape)}")
    if channels_first:
        bias = reshape(bias, (bias.shape[0],) + (1,) * (len(value.shape) - 2))
    return ew.add(value, bias)


# The number of replicas a distribution strategy runs in sync: a strategy installs its
# own counter with `set_replica_counter` (layers above ops may not be imported here).
_replicas = [lambda caller: 1]


def set_replica_counter(fn):
    """Makes `compute_average_loss` and `scale_regularization_loss` ask `fn(caller)` (the
    caller's name, for its error outside a replica) for the number of replicas in sync."""
    _replicas[0] = fn


@export("nn")
def scale_regularization_loss(regularization_loss):
    """The sum of `regularization_loss` divided by the number of replicas in sync
    (TensorFlow's tf.nn.scale_regularization_loss): added to each replica's loss, the
    replicas' gradients sum to it once. Raises RuntimeError in a strategy's cross-replica
    context (call it in `strategy.run`), as TensorFlow does.

    >>> tf.nn.scale_regularization_loss(tf.constant([1.0, 2.0])).get()
    3.0
    """
    total = rd.sum(as_array(regularization_loss))
    return ew.div(total, float(_replicas[0]("scale_regularization_loss")))


@export("nn")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size, TensorFlow's
    tf.nn.compute_average_loss: the global batch size defaults to the first dimension
    times the number of replicas in sync (1 without a strategy; in a strategy's
    cross-replica context it raises RuntimeError, as TensorFlow does); a zero batch size
    gives 0 (div_no_nan).

    >>> tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0, 4.0])).get()
    2.5
    """
    loss = as_array(per_example_loss)
    if not loss.shape:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor "
                         f"with at least rank 1. Received per_example_loss={loss.get()} with "
                         "rank 0")
    dtype = loss.dtype
    if sample_weight is not None:
        weight = ew.cast(as_array(sample_weight), float32)
        lossf = ew.cast(loss, float32)
        if len(weight.shape) == len(lossf.shape) + 1 and weight.shape[-1] == 1:
            weight = reshape(weight, weight.shape[:-1])
        elif len(weight.shape) == len(lossf.shape) - 1 and len(weight.shape):
            weight = expand_dims(weight, -1)
        loss = ew.cast(ew.mul(lossf, weight), dtype)
    if global_batch_size is None:
        global_batch_size = loss.shape[0] * _replicas[0]("compute_average_loss")
    elif isinstance(global_batch_size, np.integer):
        global_batch_size = int(global_batch_size)
    if isinstance(global_batch_size, NDArray):
        global_batch_size = global_batch_size.item()
    if isinstance(global_batch_size, bool) or not isinstance(global_batch_size,
                                                             (int, np.integer)):
        raise TypeError(f"compute_average_loss: global_batch_size must be an integer, "
                        f"received {global_batch_size!r}")
    if global_batch_size < 0:
        raise InvalidArgumentError(f"compute_average_loss: global_batch_size must be "
                                   f"non-negative, received {global_batch_size}")
    total = rd.sum(loss)
    if global_batch_size == 0:
        return ew.mul(ew.cast(total, float32), 0.0)
    return ew.div(total, float(global_batch_size))


@export("tf", "dl")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """`x` limited to [clip_value_min, clip_value_max]."""
    return ew.minimum(ew.maximum(as_array(t), clip_value_min), clip_value_max)


@export("tf", "dl")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """`on_value` (default 1) where the new axis equals the int32 index, else `off_value`
    (default 0); out-of-range indices give a row of `off_value`, as in TensorFlow. The
    dtype is `dtype`, else on_value's or off_value's, else float32.

    >>> tf.one_hot(tf.array([0, 2]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    indices = as_array(indices)
    if indices.dtype != int32:
        raise OpDTypeError(f"one_hot: indices must be int32, received {indices.dtype}")
    dtype = _one_hot_dtype(on_value, off_value, dtype)
    on_value = 1 if on_value is None else on_value
    off_value = 0 if off_value is None else off_value
    axis = -1 if axis is None else axis
    rank = len(indices.shape) + 1
    if not -rank <= axis < rank:
        raise ShapeError(f"one_hot: axis {axis} is out of range for a result of rank {rank}")
    axis %= rank
    classes = [1] * rank
    classes[axis] = int(depth)
    mask = ew.equal(expand_dims(indices, axis), reshape(range_(int(depth)), classes))
    np_dtype = dtypes.NUMPY[dtypes.device_dtype(dtype)]
    on = from_numpy(np.asarray(on_value, dtype=np_dtype))
    off = from_numpy(np.asarray(off_value, dtype=np_dtype))
    return ew.where(mask, on, off)


def _one_hot_dtype(on_value, off_value, dtype):
    given = [dtypes.device_dtype(v.dtype) if isinstance(v, NDArray) else dtypes.scalar_dtype(v)
             for v in (on_value, off_value) if v is not None]
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    if len(given) == 2 and given[0] != given[1]:
        raise TypeError(f"dtype {given[0]} of on_value does not match dtype {given[1]} of "
                        f"off_value")
    return given[0] if given else float32


@export("tf", "nn", "dl")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes` (the variance about the mean, biased; `shift`
    is unused, as in TensorFlow)."""
    x = _float(x, "moments")
    mean = rd.mean(x, axis=axes, keepdims=True)
    # NOTE: as in TensorFlow, the variance treats the mean as a constant for gradients.
    centred = ew.sub(x, ew.stop_gradient(mean))
    variance = rd.mean(ew.square(centred), axis=axes, keepdims=keepdims)
    if not keepdims:
        mean = rd.mean(x, axis=axes)
    return mean, variance


@export("tf", "nn", "dl")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset; offset/scale may be None."""
    inv = ew.rsqrt(ew.add(variance, float(variance_epsilon)))
    if scale is not None:
        inv = ew.mul(inv, scale)
    out = ew.mul(ew.sub(x, mean), inv)
    return ew.add(out, offset) if offset is not None else out


@export("tf", "nn", "dl")
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes elements with probability `rate` and scales the rest by 1 / (1 - rate).

    The mask is seeded as `tf.random`'s ops are (engine/seeds.py: the global seed and
    `seed`, one stream per pair eagerly, one per traced op inside tf.function), the
    same on every backend: it is drawn with numpy's seeded generator and uploaded.
    """
    x = _float(x, "dropout")
    rate = float(rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1), received {rate}")
    if rate == 0.0:
        return ew.mul(x, 1.0)
    shape = tuple(noise_shape) if noise_shape is not None else x.shape
    return ew.mul(x, _dropout_mask(shape, rate, seed))


@drawn_each_call  # a new mask at every tf.function call, a stream per traced op
def _dropout_mask(shape, rate, seed):
    if dry():  # get_concrete_function: the mask is discarded, no stream advances
        return from_numpy(np.ones(shape, np.float32))
    # TensorFlow draws the mask with tf.random.uniform's kernel: one eager stream
    rng = seeds.generator(seed, int(np.prod(shape, dtype=np.int64)), kernel="uniform")
    return from_numpy((rng.random(shape) >= rate).astype(np.float32) / (1.0 - rate))


# -- Keras-style losses on probabilities or logits ---------------------------------------

EPSILON = 1e-7  # Keras's backend epsilon: probabilities are clipped to [eps, 1 - eps]


def _class_labels(labels, logits, name):
    labels = as_array(labels)
    if labels.shape == logits.shape[:-1] + (1,):
        labels = reshape(labels, labels.shape[:-1])
    if labels.dtype != int32:
        # keep host-known labels checkable on the host; not while a tf.function traces:
        # a new array made from the traced call's values would be frozen into the trace
        host = None if traced() else host_values(labels)
        labels = ew.cast(labels, int32) if host is None else from_numpy(to_numpy(host, int32))
    if labels.shape != logits.shape[:-1]:
        raise ShapeError(f"{name}: labels of shape {list(labels.shape)} do not match "
                         f"predictions of shape {list(logits.shape)} (classes on the last axis)")
    return labels


@export("tf", "dl")
def categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """Cross-entropy between distributions `y_true` and predictions (Keras's loss):
    per example, summed over `axis`. Probabilities are normalised to sum to 1 and
    clipped to [1e-7, 1 - 1e-7]; with `from_logits` the stable log-softmax is used.

    >>> round(tf.categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]]).get(0), 4)
    0.6931
    """
    y_true, y_pred = _float(y_true, "categorical_crossentropy"), _float(
        y_pred, "categorical_crossentropy")
    if y_true.shape != y_pred.shape:
        raise ShapeError(f"categorical_crossentropy: y_true shape {list(y_true.shape)} and "
                         f"y_pred shape {list(y_pred.shape)} differ")
    if from_logits:
        return softmax_cross_entropy_with_logits(y_true, y_pred, axis)
    p = ew.div(y_pred, rd.sum(y_pred, axis=axis, keepdims=True))
    p = clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return ew.neg(rd.sum(ew.mul(y_true, ew.log(p)), axis=axis))


@export("tf", "dl")
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    """Cross-entropy of integer class labels against predictions over the last axis
    (Keras's loss); labels may be [batch] or [batch, 1], ints or integral floats.

    >>> round(tf.sparse_categorical_crossentropy([1], [[2.0, 2.0]], from_logits=True).get(0), 4)
    0.6931
    """
    y_pred = _float(y_pred, "sparse_categorical_crossentropy")
    labels = _class_labels(y_true, y_pred, "sparse_categorical_crossentropy")
    if from_logits:
        return sparse_softmax_cross_entropy_with_logits(labels, y_pred)
    logp = ew.log(clip_by_value(y_pred, EPSILON, 1.0 - EPSILON))
    return sparse_softmax_cross_entropy_with_logits(labels, logp)


@export("tf", "dl")
def binary_crossentropy(y_true, y_pred, from_logits=False):
    """Binary cross-entropy averaged over the last axis (Keras's loss); probabilities are
    clipped to [1e-7, 1 - 1e-7], logits go through the stable sigmoid form.

    >>> round(tf.binary_crossentropy([[1.0]], [[0.5]]).get(0), 4)
    0.6931
    """
    y_true = _float(y_true, "binary_crossentropy")
    y_pred = _float(y_pred, "binary_crossentropy")
    if from_logits:
        return rd.mean(sigmoid_cross_entropy_with_logits(y_true, y_pred), axis=-1)
    if y_true.shape != y_pred.shape:
        raise ShapeError(f"binary_crossentropy: y_true shape {list(y_true.shape)} and y_pred "
                         f"shape {list(y_pred.shape)} differ")
    p = clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    per = ew.add(ew.mul(y_true, ew.log(p)), ew.mul(ew.sub(1.0, y_true), ew.log(ew.sub(1.0, p))))
    return ew.neg(rd.mean(per, axis=-1))
