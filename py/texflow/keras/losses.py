"""`tf.keras.losses`: losses as functions (per example) and as classes (reduced).

A function such as `mean_squared_error(y_true, y_pred)` returns one value per
example. A Loss object applies its function, weights the values by
`sample_weight`, and reduces them: 'sum_over_batch_size' (the default: the sum
divided by the number of values), 'sum', 'mean_with_sample_weight', or None /
'none' (per-example values). Keras 2's `Reduction` names are kept for old code.
"""

import math

import numpy as np

from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..ops import elementwise as ew
from ..ops import nn
from ..ops import reduce as rd
from ..ops.index_checks import all_within, every_call, host_values, labels_key
from ..ops.movement import expand_dims, squeeze
from . import backend
from .loss_shapes import check_same_shape, check_sparse_shapes
from ..engine.ndarray import from_numpy, to_numpy
from .serialization import (deserialize_keras_object, get_object, serializable,
                            serialize_keras_object)
from .tree import map_leaves, map_pairs

_MODULE = "keras.losses"
_REDUCTIONS = ("sum", "sum_over_batch_size", "mean", "mean_with_sample_weight", "none")


class Reduction:
    """Keras 2's reduction names (Keras 3 takes the strings, or None for 'none').

    >>> tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE
    'sum_over_batch_size'
    """

    AUTO = "sum_over_batch_size"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)


def standardize_reduction(reduction):
    if reduction is None:
        return "none"
    if reduction == "auto":
        return "sum_over_batch_size"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of "
                         f"{(*_REDUCTIONS, None)}. Received: reduction={reduction!r}")
    return reduction


def squeeze_or_expand_to_same_rank(x1, x2):
    """Makes ranks equal when they differ by one and the larger ends in a size-1 axis."""
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, -1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, -1)
    return x1, x2


def reduce_weighted_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """Weights per-example `values` by `sample_weight` and reduces them."""
    reduction = standardize_reduction(reduction)
    if sample_weight is not None:
        sample_weight = _float(as_tensor(sample_weight))
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = ew.mul(values, sample_weight)
    if reduction == "none" or values.shape == () or values.shape == (0,):
        return values
    total = rd.sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        divisor = rd.sum(sample_weight)
        return backend.scale_loss_for_distribution(
            ew.where(ew.equal(divisor, 0.0), 0.0, ew.div(total, divisor)))
    count = math.prod(values.shape)
    return backend.scale_loss_for_distribution(
        ew.div(total, float(count)) if count else ew.mul(total, 0.0))


def as_tensor(x):
    """`x` as an NDArray: lists and numpy data convert (float64 -> float32)."""
    return x if isinstance(x, NDArray) else from_numpy(to_numpy(x))


def _float(x):
    x = as_tensor(x)
    return x if x.dtype == "float32" else ew.cast(x, "float32")


# -- loss functions (one value per example) ---------------------------------------------

def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred) ** 2) over the last axis.

    >>> tf.keras.losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]]).tolist()
    [0.5]
    """
    y_pred, y_true = _float(y_pred), _float(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return rd.mean(ew.square(ew.sub(y_true, y_pred)), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """mean(|y_true - y_pred|) over the last axis."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return rd.mean(ew.abs(ew.sub(y_true, y_pred)), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|(y_true - y_pred) / max(|y_true|, epsilon)|) over the last axis."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    diff = ew.abs(ew.div(ew.sub(y_true, y_pred),
                         ew.maximum(ew.abs(y_true), backend.epsilon())))
    return ew.mul(rd.mean(diff, axis=-1), 100.0)


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(y_pred + 1) - log(y_true + 1)) ** 2), values floored at epsilon."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    eps = backend.epsilon()
    first = ew.log(ew.add(ew.maximum(y_pred, eps), 1.0))
    second = ew.log(ew.add(ew.maximum(y_true, eps), 1.0))
    return rd.mean(ew.square(ew.sub(first, second)), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """0.5 * e^2 where |e| <= delta, else delta * |e| - 0.5 * delta^2; mean over the
    last axis."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    error = ew.sub(y_pred, y_true)
    abs_error = ew.abs(error)
    quadratic = ew.mul(ew.square(error), 0.5)
    linear = ew.sub(ew.mul(abs_error, float(delta)), 0.5 * float(delta) ** 2)
    return rd.mean(ew.where(ew.less_equal(abs_error, float(delta)), quadratic, linear),
                   axis=-1)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, computed stably."""
    from .activations import softplus
    y_pred, y_true = _float(y_pred), _float(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    x = ew.sub(y_pred, y_true)
    return rd.mean(ew.sub(ew.add(x, softplus(ew.mul(x, -2.0))), math.log(2.0)), axis=-1)


def _hinge_labels(y_true):
    """0/1 labels become -1/1 (labels that are not all 0 or 1 stay as they are)."""
    zero_or_one = ew.add(ew.cast(ew.equal(y_true, 0.0), "float32"),
                         ew.cast(ew.equal(y_true, 1.0), "float32"))
    all_binary = ew.greater_equal(rd.min(zero_or_one), 1.0)
    return ew.where(all_binary, ew.sub(ew.mul(y_true, 2.0), 1.0), y_true)


def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis (0/1 labels become -1/1)."""
    y_pred, y_true = _float(y_pred), _hinge_labels(_float(y_true))
    return rd.mean(ew.maximum(ew.sub(1.0, ew.mul(y_true, y_pred)), 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0) ** 2) over the last axis."""
    y_pred, y_true = _float(y_pred), _hinge_labels(_float(y_true))
    return rd.mean(ew.square(ew.maximum(ew.sub(1.0, ew.mul(y_true, y_pred)), 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """max(0, max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1)."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    pos = rd.sum(ew.mul(y_true, y_pred), axis=-1)
    neg = rd.max(ew.mul(ew.sub(1.0, y_true), y_pred), axis=-1)
    return ew.maximum(ew.add(ew.sub(neg, pos), 1.0), 0.0)


def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [eps, 1]."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    eps = backend.epsilon()
    y_true = nn.clip_by_value(y_true, eps, 1.0)
    y_pred = nn.clip_by_value(y_pred, eps, 1.0)
    return rd.sum(ew.mul(y_true, ew.log(ew.div(y_true, y_pred))), axis=-1)


def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + epsilon)) over the last axis."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    return rd.mean(ew.sub(y_pred, ew.mul(y_true, ew.log(ew.add(y_pred, backend.epsilon())))),
                   axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """-sum(l2_normalize(y_true) * l2_normalize(y_pred)) along `axis`."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)

    def normalize(x):
        norm = ew.sqrt(ew.maximum(rd.sum(ew.square(x), axis=axis, keepdims=True), 1e-12))
        return ew.div(x, norm)

    return ew.neg(rd.sum(ew.mul(normalize(y_true), normalize(y_pred)), axis=axis))


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy averaged over the last axis; probabilities are clipped to
    [1e-7, 1 - 1e-7] (or `from_logits`); labels can be smoothed toward 0.5."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    check_same_shape(y_true, y_pred)
    if label_smoothing:
        y_true = ew.add(ew.mul(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    return nn.binary_crossentropy(y_true, y_pred, from_logits=from_logits)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0,
                             axis=-1):
    """Cross-entropy of one-hot (or soft) labels against predicted distributions."""
    y_pred, y_true = _float(y_pred), _float(y_true)
    check_same_shape(y_true, y_pred)
    if label_smoothing:
        classes = y_true.shape[-1]
        y_true = ew.add(ew.mul(y_true, 1.0 - label_smoothing), label_smoothing / classes)
    return nn.categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def check_class_labels(labels, num_classes, where="labels"):
    """Raises InvalidArgumentError (as TensorFlow does) for labels outside [0, classes),
    when their values are on the host (GPU data is not read back just to check); in
    tf.function at every call."""
    every_call(_check_class_labels, labels, num_classes, where, key=labels_key(num_classes))


def _check_class_labels(labels, num_classes, where):
    # host_values: the numpy backend keeps its host copy as the handle, not in `values`
    values = host_values(labels) if isinstance(labels, NDArray) else np.asarray(labels)
    if values is None or not values.size or all_within(values, num_classes):
        return
    bad = (values < 0) | (values >= num_classes) | (values != np.floor(values))
    if bad.any():
        shown = " ".join(str(v) for v in values.reshape(-1)[:32])
        raise InvalidArgumentError(
            f"Received a label value of {values.reshape(-1)[int(np.argmax(bad))]} which is "
            f"outside the valid range of [0, {num_classes}) in {where}.  Label values: {shown}")


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """Cross-entropy of integer class labels against predictions over the last axis.

    Labels outside [0, classes) raise InvalidArgumentError, as in TensorFlow.

    >>> labels, probs = tf.constant([1]), tf.constant([[0.5, 0.5]])
    >>> round(tf.keras.losses.sparse_categorical_crossentropy(labels, probs).tolist()[0], 4)
    0.6931
    """
    for value in (y_true, y_pred):  # Keras 3 reads their shapes before converting them
        if not hasattr(value, "shape"):
            raise AttributeError(f"'{type(value).__name__}' object has no attribute 'shape'")
    y_pred, y_true = _float(y_pred), as_tensor(y_true)
    if axis not in (-1, len(y_pred.shape) - 1):
        raise ValueError(f"texflow's sparse_categorical_crossentropy takes classes on the last "
                         f"axis, received axis={axis}")
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    check_sparse_shapes(y_true, y_pred)
    valid = None
    if ignore_class is not None:
        valid = ew.not_equal(y_true, ignore_class)
        y_true = ew.where(valid, y_true, 0)
    else:
        check_class_labels(y_true, y_pred.shape[-1], "sparse_categorical_crossentropy")
    res = nn.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits)
    if valid is not None:
        res = ew.where(valid, res, 0.0)
    return res


# -- Loss classes ---------------------------------------------------------------------

@serializable(_MODULE)
class Loss:
    """Base class: `loss(y_true, y_pred, sample_weight=None)` -> the reduced loss.

    Subclasses implement `call(y_true, y_pred)` returning per-example values.

    >>> class Squares(tf.keras.losses.Loss):
    ...     def call(self, y_true, y_pred):
    ...         return tf.square(y_pred - y_true)
    >>> float(Squares(reduction='sum')(tf.constant([1.0, 2.0]), tf.constant([0.0, 0.0])))
    5.0
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or backend.snake_case(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self._reduction_arg = reduction
        self.dtype = dtype or "float32"

    def __call__(self, y_true, y_pred, sample_weight=None):
        # As Keras 3: a Python list is a structure, converted leaf by leaf (see .tree) to
        # the loss's float dtype, float32 on every texflow device (host data only: a
        # tensor keeps its dtype, no cast op is added)
        def convert(leaf):
            return leaf if isinstance(leaf, NDArray) else from_numpy(to_numpy(leaf, "float32"))

        values = self.call(map_leaves(convert, y_true), map_leaves(convert, y_pred))
        return reduce_weighted_values(values, sample_weight, self.reduction)

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"{type(self).__name__} must implement call()")

    def get_config(self):
        return {"name": self.name, "reduction": self._reduction_arg}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@serializable(_MODULE)
class LossFunctionWrapper(Loss):
    """A Loss around a per-example function (extra keyword arguments go to it).

    >>> loss = tf.keras.losses.LossFunctionWrapper(tf.keras.losses.huber, delta=0.5)
    >>> loss([[0.0]], [[2.0]]).shape
    TensorShape([])
    """

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None), reduction=reduction,
                         dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        # leaf by leaf: lists of different layouts raise ValueError, as in Keras 3
        y_true, y_pred = map_pairs(squeeze_or_expand_to_same_rank, y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = super().get_config()
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config):
        if cls is LossFunctionWrapper:
            config = dict(config)
            fn = config.pop("fn", None)
            return cls(get(fn) if isinstance(fn, str) else fn, **config)
        return cls(**config)

    def __repr__(self):
        return f"<LossFunctionWrapper({self.fn.__name__}, {self._fn_kwargs})>"


def _loss_class(name, fn, default_name, doc, params=(),
                example=("[[0.0, 1.0], [1.0, 0.0]]", "[[0.2, 0.8], [0.6, 0.4]]")):
    """A Loss class around `fn` whose constructor takes `params` (name, default)."""
    if ">>>" not in doc:
        doc += (f"\n\n    >>> tf.keras.losses.{name}()({example[0]}, {example[1]}).shape"
                "\n    TensorShape([])\n")
    def __init__(self, *args, reduction="sum_over_batch_size", name=default_name, dtype=None,
                 **kwargs):
        values = dict(params)
        for (key, _), arg in zip(params, args):
            values[key] = arg
        for key in list(kwargs):
            if key not in values:
                raise TypeError(f"{type(self).__name__} got an unexpected keyword argument "
                                f"{key!r}")
            values[key] = kwargs.pop(key)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype,
                                     **values)

    cls = type(name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc,
                                              "__module__": __name__})
    return serializable(_MODULE)(cls)


MeanSquaredError = _loss_class(
    "MeanSquaredError", mean_squared_error, "mean_squared_error",
    "The mean of squares of errors.\n\n    >>> tf.keras.losses.MeanSquaredError()"
    "([[0.0, 1.0]], [[1.0, 1.0]]).numpy()\n    np.float32(0.5)\n")
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error,
                                "mean_absolute_error", "The mean of absolute errors.")
MeanAbsolutePercentageError = _loss_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error,
    "mean_absolute_percentage_error", "The mean absolute percentage error.")
MeanSquaredLogarithmicError = _loss_class(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", "The mean squared logarithmic error.")
Huber = _loss_class("Huber", huber, "huber_loss", "The Huber loss.", (("delta", 1.0),))
LogCosh = _loss_class("LogCosh", log_cosh, "log_cosh", "The log-cosh loss.")
Hinge = _loss_class("Hinge", hinge, "hinge", "The hinge loss.")  # 0/1 labels become -1/1
SquaredHinge = _loss_class("SquaredHinge", squared_hinge, "squared_hinge",
                           "The squared hinge loss.")
CategoricalHinge = _loss_class("CategoricalHinge", categorical_hinge, "categorical_hinge",
                               "The categorical hinge loss.")
KLDivergence = _loss_class("KLDivergence", kl_divergence, "kl_divergence",
                           "The Kullback-Leibler divergence.")
Poisson = _loss_class("Poisson", poisson, "poisson", "The Poisson loss.")
CosineSimilarity = _loss_class("CosineSimilarity", cosine_similarity, "cosine_similarity",
                               "The negative cosine similarity.", (("axis", -1),))
BinaryCrossentropy = _loss_class(
    "BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
    "Binary cross-entropy between labels and predicted probabilities (or logits).",
    (("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)))
CategoricalCrossentropy = _loss_class(
    "CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
    "Cross-entropy between one-hot labels and predicted distributions (or logits).",
    (("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)))
SparseCategoricalCrossentropy = _loss_class(
    "SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    "Cross-entropy between integer labels and predicted distributions (or logits).\n\n"
    "    >>> loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True,\n"
    "    ...     reduction=tf.keras.losses.Reduction.NONE)\n"
    "    >>> loss(np.array([0, 1]), np.array([[2.0, 2.0], [2.0, 2.0]])).shape\n"
    "    TensorShape([2])\n",
    (("from_logits", False), ("ignore_class", None), ("axis", -1)), ("[1, 0]", "[[0.2, 0.8]]"))

# Keras's short names.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh

_FUNCTIONS = {fn.__name__: fn for fn in (
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, huber, log_cosh, hinge, squared_hinge, categorical_hinge,
    kl_divergence, poisson, cosine_similarity, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy)}
_FUNCTIONS.update(mse=mse, mae=mae, mape=mape, msle=msle, kld=kld, logcosh=log_cosh,
                  kullback_leibler_divergence=kl_divergence, huber_loss=huber)
_CLASSES = {c.__name__: c for c in (
    MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, Huber, LogCosh, Hinge, SquaredHinge, CategoricalHinge,
    KLDivergence, Poisson, CosineSimilarity, BinaryCrossentropy, CategoricalCrossentropy,
    SparseCategoricalCrossentropy)}


def get(identifier):
    """A loss from a name ('mse', 'sparse_categorical_crossentropy', 'Huber'), a config
    dict, a Loss or a function.

    >>> tf.keras.losses.get("mse") is tf.keras.losses.mean_squared_error
    True
    """
    return get_object(identifier, "loss", Loss, _FUNCTIONS, _CLASSES)


def serialize(loss):
    if callable(loss) and getattr(loss, "__name__", None) in _FUNCTIONS:
        return loss.__name__
    return serialize_keras_object(loss)


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        return get(config)
    return deserialize_keras_object(config, custom_objects, what="loss")


from .losses_extra import (BinaryFocalCrossentropy, CategoricalFocalCrossentropy,  # noqa
                           CategoricalGeneralizedCrossEntropy, Circle, Dice, Tversky,
                           binary_focal_crossentropy, categorical_focal_crossentropy,
                           categorical_generalized_cross_entropy, circle, dice, tversky)

# Keras 3's losses.get knows these functions by name, but not the generalized cross-entropy
_FUNCTIONS.update({fn.__name__: fn for fn in (binary_focal_crossentropy,
                                              categorical_focal_crossentropy, dice, tversky,
                                              circle)})
_CLASSES.update({c.__name__: c for c in (BinaryFocalCrossentropy, CategoricalFocalCrossentropy,
                                         Dice, Tversky, CategoricalGeneralizedCrossEntropy,
                                         Circle)})
