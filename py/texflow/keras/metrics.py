"""`tf.keras.metrics`: stateful metrics accumulated on the device.

A metric's state lives in non-trainable variables updated with ops, so
`update_state` never reads data back; `result()` returns a scalar array and
reading it (`float(m.result())`) is the one synchronisation. `fit` reads its
metrics once per epoch (and per batch only when something displays or needs
them).
"""

import numpy as np

from ..ops import elementwise as ew
from ..ops import reduce as rd
from ..ops.movement import squeeze
from . import backend, losses
from .losses import as_tensor, squeeze_or_expand_to_same_rank
from .serialization import (deserialize_keras_object, get_object, serializable,
                            serialize_keras_object)
from .variables import KerasVariable

_MODULE = "keras.metrics"


def _float(x):
    x = as_tensor(x)
    return x if x.dtype == "float32" else ew.cast(x, "float32")


@serializable(_MODULE)
class Metric:
    """Base class: `update_state(...)` accumulates, `result()` reports, `reset_state()`
    starts over. Calling a metric updates it and returns the result.

    >>> m = tf.keras.metrics.Mean()
    >>> m.update_state([1.0, 3.0])
    >>> float(m.result())
    2.0
    """

    def __init__(self, name=None, dtype=None):
        self.name = name or backend.snake_case(type(self).__name__)
        self.dtype = dtype or "float32"
        self._variables = []
        self._initial_values = []

    def add_variable(self, shape=(), initializer="zeros", dtype=None, aggregation="sum",
                     name=None):
        from . import initializers
        with backend.name_scope(self.name):
            v = KerasVariable(initializers.get(initializer), shape=tuple(shape),
                              dtype=dtype or self.dtype, trainable=False,
                              name=name or f"variable_{len(self._variables)}")
        self._variables.append(v)
        self._initial_values.append(np.array(v.numpy()))
        return v

    add_weight = add_variable

    @property
    def variables(self):
        return list(self._variables)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement update_state()")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must implement result()")

    def reset_state(self):
        """Sets every state variable back to its initial value."""
        for v, value in zip(self._variables, self._initial_values):
            v.assign(value)

    def reset_states(self):
        """Keras 2's name of `reset_state`."""
        self.reset_state()

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def reduce_to_samplewise_values(values, sample_weight):
    """Per-example values (means over the other axes), weighted; and the weights."""
    values = _float(values)
    if sample_weight is not None:
        if isinstance(sample_weight, (int, float, np.integer, np.floating)):
            sw = float(sample_weight)
            if len(values.shape) > 1:
                values = rd.mean(values, axis=list(range(1, len(values.shape))))
            return ew.mul(values, sw), sw
        sample_weight = _float(sample_weight)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        w_rank, v_rank = len(sample_weight.shape), len(values.shape)
        if v_rank > w_rank:
            values = rd.mean(values, axis=list(range(w_rank, v_rank)))
        from ..ops.movement import broadcast_to
        sample_weight = broadcast_to(sample_weight, values.shape)
        values = ew.mul(values, sample_weight)
        if w_rank > 1:
            sample_weight = rd.mean(sample_weight, axis=list(range(1, w_rank)))
    if len(values.shape) > 1:
        values = rd.mean(values, axis=list(range(1, len(values.shape))))
    return values, sample_weight


@serializable(_MODULE)
class Mean(Metric):
    """The (weighted) mean of the values given to `update_state`."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight)
        self.total.assign_add(rd.sum(values) if values.shape else values)
        if sample_weight is None:
            count = float(values.shape[0]) if values.shape else 1.0
        elif isinstance(sample_weight, float):
            count = sample_weight * (values.shape[0] if values.shape else 1)
        else:
            count = rd.sum(sample_weight)
        self.count.assign_add(count)

    def result(self):
        return ew.where(ew.equal(self.count, 0.0), 0.0, ew.div(self.total, self.count))


@serializable(_MODULE)
class Sum(Metric):
    """The (weighted) sum of the values given to `update_state`.

    >>> m = tf.keras.metrics.Sum()
    >>> m.update_state([1.0, 2.0])
    >>> float(m.result())
    3.0
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(values, sample_weight)
        self.total.assign_add(rd.sum(values) if values.shape else values)

    def result(self):
        return ew.mul(self.total, 1.0)


@serializable(_MODULE)
class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred, **kwargs)` over every example seen.

    >>> m = tf.keras.metrics.MeanMetricWrapper(tf.keras.losses.mean_squared_error)
    >>> m.update_state([[0.0]], [[2.0]])
    >>> float(m.result())
    4.0
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        # as Keras 3: the function converts its arguments (sparse_categorical_crossentropy
        # does not take Python lists)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        config = super().get_config()
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config):
        if cls is MeanMetricWrapper:
            config = dict(config)
            return cls(get(config.pop("fn")), **config)
        return cls(**config)


# -- metric functions ---------------------------------------------------------------

def accuracy(y_true, y_pred):
    """1.0 where y_true equals y_pred exactly, else 0.0."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(as_tensor(y_true), as_tensor(y_pred))
    return ew.cast(ew.equal(_float(y_true), _float(y_pred)), "float32")


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where (y_pred > threshold) equals y_true, element by element (Keras 3 no longer
    averages the last axis; the metric class does, as for any per-element values).

    >>> tf.keras.metrics.binary_accuracy([[1.0], [0.0]], [[0.7], [0.6]]).shape
    TensorShape([2, 1])
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true), _float(y_pred))
    predicted = ew.cast(ew.greater(y_pred, float(threshold)), "float32")
    return ew.cast(ew.equal(y_true, predicted), "float32")


def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_true) equals argmax(y_pred) (one-hot labels)."""
    y_true, y_pred = as_tensor(y_true), as_tensor(y_pred)
    return ew.cast(ew.equal(rd.argmax(y_true, axis=-1), rd.argmax(y_pred, axis=-1)),
                   "float32")


def _sparse_labels(y_true, y_pred):
    y_true = as_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    if y_true.dtype != "int32":
        y_true = ew.cast(y_true, "int32")
    return y_true


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals argmax(y_pred).

    >>> tf.keras.metrics.sparse_categorical_accuracy([1, 0], [[0.1, 0.9], [0.2, 0.8]]).tolist()
    [1.0, 0.0]
    """
    y_pred = as_tensor(y_pred)
    y_true = _sparse_labels(y_true, y_pred)
    return ew.cast(ew.equal(y_true, rd.argmax(y_pred, axis=-1)), "float32")


def _in_top_k(scores, labels, k):
    """Whether each label's score is among the k largest (fewer than k are larger)."""
    from ..ops.nn import one_hot
    picked = rd.sum(ew.mul(one_hot(labels, scores.shape[-1]), scores), axis=-1, keepdims=True)
    larger = rd.sum(ew.cast(ew.greater(scores, picked), "float32"), axis=-1)
    return ew.cast(ew.less(larger, float(k)), "float32")


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot label's class is among the k highest predictions."""
    y_true, y_pred = as_tensor(y_true), _float(y_pred)
    return _in_top_k(y_pred, rd.argmax(y_true, axis=-1), k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the k highest predictions."""
    y_pred = _float(y_pred)
    return _in_top_k(y_pred, _sparse_labels(y_true, y_pred), k)


def _wrapper(name, fn, default_name, doc, params=(),
             example=("[[0.0, 1.0], [1.0, 0.0]]", "[[0.2, 0.8], [0.6, 0.4]]")):
    if ">>>" not in doc:
        doc += (f"\n\n    >>> m = tf.keras.metrics.{name}()\n    >>> m.update_state("
                f"{example[0]}, {example[1]})\n    >>> m.result().shape\n    TensorShape([])\n")

    def __init__(self, name=default_name, dtype=None, **kwargs):
        values = dict(params)
        for key in list(kwargs):
            if key not in values:
                raise TypeError(f"{type(self).__name__} got an unexpected keyword argument "
                                f"{key!r}")
            values[key] = kwargs.pop(key)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)

    cls = type(name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc,
                                            "__module__": __name__})
    return serializable(_MODULE)(cls)


Accuracy = _wrapper("Accuracy", accuracy, "accuracy", "How often predictions equal labels.")
BinaryAccuracy = _wrapper("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                          "How often (y_pred > threshold) matches binary labels.",
                          (("threshold", 0.5),))
CategoricalAccuracy = _wrapper("CategoricalAccuracy", categorical_accuracy,
                               "categorical_accuracy",
                               "How often argmax(y_pred) matches one-hot labels.")
SparseCategoricalAccuracy = _wrapper(
    "SparseCategoricalAccuracy", sparse_categorical_accuracy, "sparse_categorical_accuracy",
    "How often argmax(y_pred) matches integer labels.\n\n"
    "    >>> m = tf.keras.metrics.SparseCategoricalAccuracy()\n"
    "    >>> m.update_state([1, 0], [[0.1, 0.9], [0.2, 0.8]])\n"
    "    >>> float(m.result())\n    0.5\n")
TopKCategoricalAccuracy = _wrapper("TopKCategoricalAccuracy", top_k_categorical_accuracy,
                                   "top_k_categorical_accuracy",
                                   "How often the label is among the top k predictions.",
                                   (("k", 5),))
SparseTopKCategoricalAccuracy = _wrapper(
    "SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy",
    "How often the integer label is among the top k predictions.", (("k", 5),),
    ("[1, 0]", "[[0.2, 0.8], [0.6, 0.4]]"))
MeanSquaredError = _wrapper("MeanSquaredError", losses.mean_squared_error,
                            "mean_squared_error", "The mean squared error.")
MeanAbsoluteError = _wrapper("MeanAbsoluteError", losses.mean_absolute_error,
                             "mean_absolute_error", "The mean absolute error.")
MeanAbsolutePercentageError = _wrapper(
    "MeanAbsolutePercentageError", losses.mean_absolute_percentage_error,
    "mean_absolute_percentage_error", "The mean absolute percentage error.")
MeanSquaredLogarithmicError = _wrapper(
    "MeanSquaredLogarithmicError", losses.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", "The mean squared logarithmic error.")
BinaryCrossentropy = _wrapper("BinaryCrossentropy", losses.binary_crossentropy,
                              "binary_crossentropy", "The mean binary cross-entropy.",
                              (("from_logits", False), ("label_smoothing", 0.0)))
CategoricalCrossentropy = _wrapper("CategoricalCrossentropy", losses.categorical_crossentropy,
                                   "categorical_crossentropy",
                                   "The mean categorical cross-entropy.",
                                   (("from_logits", False), ("label_smoothing", 0.0)))
SparseCategoricalCrossentropy = _wrapper(
    "SparseCategoricalCrossentropy", losses.sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy", "The mean sparse categorical cross-entropy.",
    (("from_logits", False),), ("np.array([1, 0])", "np.array([[0.2, 0.8], [0.6, 0.4]])"))
Hinge = _wrapper("Hinge", losses.hinge, "hinge", "The mean hinge loss.")
KLDivergence = _wrapper("KLDivergence", losses.kl_divergence, "kl_divergence",
                        "The mean Kullback-Leibler divergence.")
SquaredHinge = _wrapper("SquaredHinge", losses.squared_hinge, "squared_hinge",
                        "The mean squared hinge loss.")
CategoricalHinge = _wrapper("CategoricalHinge", losses.categorical_hinge, "categorical_hinge",
                            "The mean categorical hinge loss.")
Poisson = _wrapper("Poisson", losses.poisson, "poisson", "The mean Poisson loss.")
LogCoshError = _wrapper("LogCoshError", losses.log_cosh, "logcosh",
                        "The mean logarithm of the hyperbolic cosine of the error.")


def _cosine_similarity(y_true, y_pred, axis=-1):
    return ew.neg(losses.cosine_similarity(y_true, y_pred, axis=axis))


@serializable(_MODULE)
class CosineSimilarity(MeanMetricWrapper):
    """The mean cosine similarity of y_true and y_pred along `axis` (positive: the loss
    of the same name is its negative).

    >>> m = tf.keras.metrics.CosineSimilarity()
    >>> m.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]])
    >>> round(float(m.result()), 4)
    0.5
    """

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(_cosine_similarity, name=name, dtype=dtype, axis=axis)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}  # as Keras 3: no axis

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@serializable(_MODULE)
class RootMeanSquaredError(Mean):
    """sqrt(mean((y_true - y_pred) ** 2)).

    >>> m = tf.keras.metrics.RootMeanSquaredError()
    >>> m.update_state([[0.0], [0.0]], [[3.0], [4.0]])
    >>> round(float(m.result()), 4)
    3.5355
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true), _float(y_pred))
        super().update_state(ew.square(ew.sub(y_pred, y_true)), sample_weight)

    def result(self):
        return ew.sqrt(super().result())


mse = MSE = losses.mean_squared_error
mae = MAE = losses.mean_absolute_error
mape = MAPE = losses.mean_absolute_percentage_error
msle = MSLE = losses.mean_squared_logarithmic_error
mean_squared_error = losses.mean_squared_error
mean_absolute_error = losses.mean_absolute_error
binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy
hinge, squared_hinge, categorical_hinge = losses.hinge, losses.squared_hinge, \
    losses.categorical_hinge
poisson, kl_divergence, log_cosh, huber = losses.poisson, losses.kl_divergence, \
    losses.log_cosh, losses.huber
binary_focal_crossentropy = losses.binary_focal_crossentropy
KLD = kld = kullback_leibler_divergence = losses.kl_divergence  # tf.keras's aliases
logcosh = losses.log_cosh
categorical_focal_crossentropy = losses.categorical_focal_crossentropy

_FUNCTIONS = {fn.__name__: fn for fn in (
    accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy,
    losses.mean_squared_error, losses.mean_absolute_error,
    losses.mean_absolute_percentage_error, losses.mean_squared_logarithmic_error,
    losses.binary_crossentropy, losses.categorical_crossentropy,
    losses.sparse_categorical_crossentropy, losses.hinge, losses.kl_divergence,
    losses.poisson, losses.log_cosh)}
_FUNCTIONS.update(mse=mse, mae=mae, mape=mape, msle=msle, acc=accuracy)


def _classes():
    classes = {c.__name__: c for c in (
        Metric, Mean, Sum, Accuracy, BinaryAccuracy, CategoricalAccuracy,
        SparseCategoricalAccuracy, TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
        MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError, BinaryCrossentropy, CategoricalCrossentropy,
        SparseCategoricalCrossentropy, Hinge, KLDivergence, RootMeanSquaredError, AUC,
        Precision, Recall, SquaredHinge, CategoricalHinge, Poisson, LogCoshError,
        CosineSimilarity, TruePositives, FalsePositives, TrueNegatives, FalseNegatives,
        PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity,
        SpecificityAtSensitivity, FBetaScore, F1Score, R2Score, PearsonCorrelation,
        ConcordanceCorrelation, IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU)}
    # as Keras 3: every class also by its snake_case name ('f1_score', 'binary_io_u')
    classes.update({backend.snake_case(name): cls for name, cls in list(classes.items())
                    if backend.snake_case(name) not in _FUNCTIONS})
    return classes


def get(identifier):
    """A metric from a name ('mse', 'sparse_categorical_accuracy', 'AUC'), a config dict,
    a Metric, a class or a function.

    >>> tf.keras.metrics.get("mae") is tf.keras.metrics.mean_absolute_error
    True
    """
    return get_object(identifier, "metric", Metric, _FUNCTIONS, _classes())


def serialize(metric):
    return serialize_keras_object(metric)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, custom_objects, what="metric")



# Thresholded, score and IoU metrics live in their own modules (they build on Metric).
from .metrics_confusion import (AUC, FalseNegatives, FalsePositives,  # noqa: E402
                                Precision, PrecisionAtRecall, Recall, RecallAtPrecision,
                                SensitivityAtSpecificity, SpecificityAtSensitivity,
                                TrueNegatives, TruePositives)
from .metrics_iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU  # noqa: E402
from .metrics_scores import (ConcordanceCorrelation, F1Score, FBetaScore,  # noqa: E402
                             PearsonCorrelation, R2Score, concordance_correlation,
                             pearson_correlation)
