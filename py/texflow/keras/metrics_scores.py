"""F-scores, the R2 score and correlation metrics, with Keras 3's formulas."""

from ..ops import elementwise as ew
from ..ops import reduce as rd
from ..ops.movement import broadcast_to, expand_dims
from . import backend
from .losses import squeeze_or_expand_to_same_rank
from .metrics import MeanMetricWrapper, Metric, _float
from .serialization import serializable

_MODULE = "keras.metrics"


def _needs_2d(what, y_true, y_pred):
    if len(y_pred.shape) != 2 or len(y_true.shape) != 2:
        raise ValueError(f"{what} expects 2D inputs with shape (batch_size, output_dim). "
                         f"Received input shapes: y_pred.shape={tuple(y_pred.shape)} and "
                         f"y_true.shape={tuple(y_true.shape)}.")


@serializable(_MODULE)
class FBetaScore(Metric):
    """(1 + beta^2) * precision * recall / (beta^2 * precision + recall), per class
    (`average=None`), or averaged: 'micro' (over all values), 'macro' or 'weighted' (by
    each class's label count). Predictions count as positive above `threshold`, or where
    they are a row's largest (nonzero) value when `threshold` is None.

    >>> m = tf.keras.metrics.FBetaScore(beta=2.0, threshold=0.5, average="micro")
    >>> m.update_state(np.array([[1, 1], [0, 1]]), np.array([[0.9, 0.2], [0.7, 0.8]]))
    >>> round(float(m.result()), 4)
    0.6667
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score",
                 dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, "
                             f"'micro', 'macro', 'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError("Invalid `beta` argument value. It should be a Python float. "
                             f"Received: beta={beta} of type '{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. "
                             f"Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError("Invalid `threshold` argument value. It should be a Python "
                                 f"float. Received: threshold={threshold} of type "
                                 f"'{type(threshold)}'")
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError("Invalid `threshold` argument value. It should verify "
                                 f"0 < threshold <= 1. Received: threshold={threshold}")
        self.average, self.beta, self.threshold = average, beta, threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, num_classes):
        shape = () if self.average == "micro" else (num_classes,)
        for name in ("true_positives", "false_positives", "false_negatives",
                     "intermediate_weights"):
            setattr(self, name, self.add_variable(shape, name=name))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _float(y_true), _float(y_pred)
        _needs_2d(type(self).__name__, y_true, y_pred)
        if not self._built:
            self._build(y_pred.shape[-1])
        if self.threshold is None:
            # the row's largest value, where it is not zero ([0, 0] stays [0, 0])
            top = ew.greater_equal(y_pred, rd.max(y_pred, axis=-1, keepdims=True))
            y_pred = ew.logical_and(top, ew.greater(ew.abs(y_pred), 1e-9))
        else:
            y_pred = ew.greater(y_pred, self.threshold)
        y_pred = ew.cast(y_pred, "float32")
        weight = None if sample_weight is None else \
            expand_dims(_float(sample_weight), 1)

        def weighted_sum(values):
            if weight is not None:
                values = ew.mul(values, weight)
            return rd.sum(values, axis=self.axis)

        not_true, not_pred = ew.sub(1.0, y_true), ew.sub(1.0, y_pred)
        self.true_positives.assign_add(weighted_sum(ew.mul(y_pred, y_true)))
        self.false_positives.assign_add(weighted_sum(ew.mul(y_pred, not_true)))
        self.false_negatives.assign_add(weighted_sum(ew.mul(not_pred, y_true)))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self):
        if not self._built:
            raise ValueError(f"{self.name}: result() before any update_state()")
        eps = backend.epsilon()
        tp = self.true_positives
        precision = ew.div(tp, ew.add(ew.add(tp, self.false_positives), eps))
        recall = ew.div(tp, ew.add(ew.add(tp, self.false_negatives), eps))
        beta2 = self.beta ** 2
        mean = ew.div(ew.mul(precision, recall),
                      ew.add(ew.add(ew.mul(precision, beta2), recall), eps))
        score = ew.mul(mean, 1.0 + beta2)
        if self.average == "weighted":
            w = self.intermediate_weights
            weights = ew.div(w, ew.add(rd.sum(w), eps))
            return rd.sum(ew.mul(score, weights))
        if self.average is not None:
            return rd.mean(score)
        return score

    def get_config(self):
        config = super().get_config()
        config.update({"average": self.average, "beta": self.beta,
                       "threshold": self.threshold})
        return config


@serializable(_MODULE)
class F1Score(FBetaScore):
    """FBetaScore with beta = 1: the harmonic mean of precision and recall.

    >>> m = tf.keras.metrics.F1Score(threshold=0.5)
    >>> m.update_state(np.array([[1, 1], [0, 1]]), np.array([[0.9, 0.2], [0.7, 0.8]]))
    >>> [round(v, 4) for v in m.result().tolist()]
    [0.6667, 0.6667]
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config


@serializable(_MODULE)
class R2Score(Metric):
    """The coefficient of determination, 1 - residual sum of squares / total sum of
    squares, per output column, then averaged ('uniform_average', or
    'variance_weighted_average', or None for the per-column scores); adjusted for
    `num_regressors` when that is nonzero.

    >>> m = tf.keras.metrics.R2Score()
    >>> m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    >>> round(float(m.result()), 4)
    0.5714
    """

    def __init__(self, class_aggregation="uniform_average", num_regressors=0,
                 name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one "
                             f"of {valid}. Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value "
                             f">= 0. Received: num_regressors={num_regressors}")
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_variable(name="num_samples")
        self._built = False

    def _build(self, num_classes):
        self.squared_sum = self.add_variable((num_classes,), name="squared_sum")
        self.sum = self.add_variable((num_classes,), name="sum")
        self.total_mse = self.add_variable((num_classes,), name="residual")
        self.count = self.add_variable((num_classes,), name="count")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true), _float(y_pred))
        _needs_2d("R2Score", y_true, y_pred)
        if not self._built:
            self._build(y_pred.shape[-1])
        weight = _float(1.0 if sample_weight is None else sample_weight)
        if len(weight.shape) == 1:
            weight = expand_dims(weight, 1)
        weight = broadcast_to(weight, y_true.shape)
        weighted = ew.mul(y_true, weight)
        self.sum.assign_add(rd.sum(weighted, axis=0))
        self.squared_sum.assign_add(rd.sum(ew.mul(y_true, weighted), axis=0))
        self.total_mse.assign_add(
            rd.sum(ew.mul(ew.square(ew.sub(y_true, y_pred)), weight), axis=0))
        self.count.assign_add(rd.sum(weight, axis=0))
        size = 1
        for d in y_true.shape:
            size *= d
        self.num_samples.assign_add(float(size))

    def result(self):
        if not self._built:
            raise ValueError(f"{self.name}: result() before any update_state()")
        mean = ew.div(self.sum, self.count)
        total = ew.sub(self.squared_sum, ew.mul(self.sum, mean))
        raw = ew.sub(1.0, ew.div(self.total_mse, total))
        raw = ew.where(ew.equal(ew.abs(raw), float("inf")), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = rd.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = ew.div(rd.sum(ew.mul(total, raw)), rd.sum(total))
        else:
            score = raw
        if self.num_regressors:
            # adjusted R2 where there are more samples than regressors + 1 (Keras warns and
            # keeps the plain score otherwise)
            n, p = self.num_samples, float(self.num_regressors)
            adjusted = ew.sub(1.0, ew.div(ew.mul(ew.sub(1.0, score), ew.sub(n, 1.0)),
                                          ew.sub(ew.sub(n, p), 1.0)))
            score = ew.where(ew.greater(ew.sub(n, 1.0), p), adjusted, score)
        return score

    def get_config(self):
        config = super().get_config()
        config.update({"class_aggregation": self.class_aggregation,
                       "num_regressors": self.num_regressors})
        return config


def _std(x, axis):
    mean = rd.mean(x, axis=axis, keepdims=True)
    return ew.sqrt(rd.mean(ew.square(ew.sub(x, mean)), axis=axis, keepdims=True))


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson's correlation coefficient of y_true and y_pred along `axis`.

    >>> tf.keras.metrics.pearson_correlation([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]]).shape
    TensorShape([1])
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true), _float(y_pred))
    t = ew.sub(y_true, rd.mean(y_true, axis=axis, keepdims=True))
    p = ew.sub(y_pred, rd.mean(y_pred, axis=axis, keepdims=True))
    t, p = ew.div(t, _std(t, axis)), ew.div(p, _std(p, axis))
    return rd.mean(ew.mul(t, p), axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation coefficient along `axis`, as Keras 3 computes it
    (its covariance term centres y_true on y_pred's mean).

    >>> tf.keras.metrics.concordance_correlation([[1.0, 2.0]], [[1.0, 2.0]]).shape
    TensorShape([1])
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true), _float(y_pred))
    t_mean = rd.mean(y_true, axis=axis, keepdims=True)
    p_mean = rd.mean(y_pred, axis=axis, keepdims=True)
    t_var = ew.square(_std(ew.sub(y_true, t_mean), axis))
    p_var = ew.square(_std(ew.sub(y_pred, p_mean), axis))
    covar = ew.mul(ew.sub(y_true, p_mean), ew.sub(y_pred, p_mean))
    norm = ew.add(ew.add(t_var, p_var), ew.square(ew.sub(t_mean, p_mean)))
    return rd.mean(ew.div(ew.mul(covar, 2.0), ew.add(norm, backend.epsilon())), axis=axis)


class _Correlation(MeanMetricWrapper):
    _fn = None

    def __init__(self, name=None, dtype=None, axis=-1):
        super().__init__(type(self)._fn, name=name or self._default_name, dtype=dtype,
                         axis=axis)
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@serializable(_MODULE)
class PearsonCorrelation(_Correlation):
    """The mean of `pearson_correlation` over the examples seen.

    >>> m = tf.keras.metrics.PearsonCorrelation()
    >>> m.update_state([[1.0, 2.0, 3.0]], [[2.0, 4.0, 6.0]])
    >>> round(float(m.result()), 4)
    1.0
    """

    _fn = staticmethod(pearson_correlation)
    _default_name = "pearson_correlation"


@serializable(_MODULE)
class ConcordanceCorrelation(_Correlation):
    """The mean of `concordance_correlation` over the examples seen.

    >>> m = tf.keras.metrics.ConcordanceCorrelation()
    >>> m.update_state([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])
    >>> round(float(m.result()), 4)
    1.0
    """

    _fn = staticmethod(concordance_correlation)
    _default_name = "concordance_correlation"
