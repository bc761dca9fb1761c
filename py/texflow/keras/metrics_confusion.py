"""Thresholded metrics: Precision, Recall and AUC (confusion counts per threshold)."""

import numpy as np

from ..ops import elementwise as ew
from ..ops import reduce as rd
from ..ops import nn
from ..ops.movement import broadcast_to, expand_dims, reshape, slice as slice_, squeeze
from .losses import squeeze_or_expand_to_same_rank
from .metrics import Metric, _float
from .serialization import serializable

_MODULE = "keras.metrics"


def _divide_no_nan(a, b):
    return ew.where(ew.equal(b, 0.0), 0.0, ew.div(a, ew.where(ew.equal(b, 0.0), 1.0, b)))


def _evenly_spaced(thresholds):
    """Whether Keras counts these thresholds by buckets (3 or more, evenly over [0, 1])."""
    n = len(thresholds)
    return n >= 3 and np.allclose(thresholds, np.arange(n) / (n - 1), atol=1e-7)


def parse_thresholds(thresholds, default=0.5):
    if thresholds is None:
        return [default]
    return [float(thresholds)] if isinstance(thresholds, (int, float)) else \
        [float(t) for t in thresholds]


class _Confusion(Metric):
    """Counts of true/false positives/negatives of `y_pred > threshold`, per threshold."""

    class_id = None
    _conditions = {}  # variable name -> the count it holds, where they differ

    def _make_counts(self, thresholds, names):
        self.thresholds = [float(t) for t in thresholds]
        n = len(self.thresholds)
        if _evenly_spaced(self.thresholds):
            # As Keras: evenly spaced thresholds count predictions clipped to [0, 1] by
            # bucket, ceil(p * (n - 1)) - 1 >= i, that is p * (n - 1) > i in float32;
            # thresholds beyond [0, 1] (AUC's -epsilon) count every prediction at 0.
            edges = np.arange(n, dtype=np.float32)
            if self.thresholds[0] < 0.0 or self.thresholds[-1] > 1.0:
                edges[0] = -1.0
            self._edges = edges
        else:
            self._edges = None
            self._thresholds = np.asarray(self.thresholds, np.float32)
        for name in names:
            setattr(self, name, self.add_variable((n,), name=name))
        self._names = names

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred, y_true = squeeze_or_expand_to_same_rank(_float(y_pred), _float(y_true))
        if sample_weight is not None:
            # Keras: a weight per example (or per value), broadcast to y_pred's shape
            w = expand_dims(_float(sample_weight), -1)
            if len(w.shape) == len(y_true.shape) + 1 and w.shape[-1] == 1:
                w = squeeze(w, -1)
            w = broadcast_to(w, y_pred.shape)
        if self.class_id is not None:
            if len(y_pred.shape) == 1:
                raise ValueError("When class_id is provided, y_pred must be a 2D array with "
                                 f"shape (num_samples, num_classes), found shape: "
                                 f"{tuple(y_pred.shape)}")
            y_true, y_pred = _column(y_true, self.class_id), _column(y_pred, self.class_id)
            if sample_weight is not None:
                w = _column(w, self.class_id)
        y_pred, y_true = reshape(y_pred, (-1, 1)), reshape(y_true, (-1, 1))
        if y_true.shape[0] != y_pred.shape[0]:
            raise ValueError(f"{self.name}: y_true and y_pred hold {y_true.shape[0]} and "
                             f"{y_pred.shape[0]} values")
        if self._edges is None:
            above = ew.greater(y_pred, self._thresholds)  # (n, thresholds)
        else:
            scaled = ew.mul(nn.clip_by_value(y_pred, 0.0, 1.0), float(len(self._edges) - 1))
            above = ew.greater(scaled, self._edges)
        above = ew.cast(above, "float32")
        pos = ew.cast(ew.not_equal(y_true, 0.0), "float32")  # Keras casts labels to bool
        neg = ew.sub(1.0, pos)
        if sample_weight is not None:
            w = reshape(w, (-1, 1))
            pos, neg = ew.mul(pos, w), ew.mul(neg, w)
        below = ew.sub(1.0, above)
        counts = {"true_positives": (above, pos), "false_positives": (above, neg),
                  "true_negatives": (below, neg), "false_negatives": (below, pos)}
        for name in self._names:
            mask, weight = counts[self._conditions.get(name, name)]
            getattr(self, name).assign_add(rd.sum(ew.mul(mask, weight), axis=0))


def _column(x, index):
    """x[..., index, None]."""
    begin = [0] * (len(x.shape) - 1) + [int(index)]
    return slice_(x, begin, list(x.shape[:-1]) + [1])


@serializable(_MODULE)
class Precision(_Confusion):
    """true_positives / (true_positives + false_positives) at `thresholds` (0.5).

    >>> m = tf.keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1.0, 1.0, 1.0, 0.0])
    >>> round(float(m.result()), 4)
    0.6667
    """

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if top_k is not None:
            raise ValueError(f"texflow's {type(self).__name__} has no top_k")
        self._thresholds_arg, self.class_id = thresholds, class_id
        values = parse_thresholds(thresholds)
        self._make_counts(values, ("true_positives", "false_positives"))

    def result(self):
        value = _divide_no_nan(self.true_positives,
                               ew.add(self.true_positives, self.false_positives))
        return reshape(value, ()) if len(self.thresholds) == 1 else value

    def get_config(self):
        config = super().get_config()
        config.update({"thresholds": self._thresholds_arg, "top_k": None,
                       "class_id": self.class_id})
        return config


@serializable(_MODULE)
class Recall(Precision):
    """true_positives / (true_positives + false_negatives) at `thresholds` (0.5).

    >>> m = tf.keras.metrics.Recall()
    >>> m.update_state([0, 1, 1, 1], [1.0, 0.0, 1.0, 1.0])
    >>> round(float(m.result()), 4)
    0.6667
    """

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        Metric.__init__(self, name=name, dtype=dtype)
        if top_k is not None:
            raise ValueError(f"texflow's {type(self).__name__} has no top_k")
        self._thresholds_arg, self.class_id = thresholds, class_id
        values = parse_thresholds(thresholds)
        self._make_counts(values, ("true_positives", "false_negatives"))

    def result(self):
        value = _divide_no_nan(self.true_positives,
                               ew.add(self.true_positives, self.false_negatives))
        return reshape(value, ()) if len(self.thresholds) == 1 else value


@serializable(_MODULE)
class AUC(_Confusion):
    """The area under the ROC (or precision-recall) curve, from confusion counts at
    `num_thresholds` evenly spaced thresholds, as Keras computes it (Riemann sums with
    'interpolation', 'minoring' or 'majoring' heights).

    >>> m = tf.keras.metrics.AUC(num_thresholds=3)
    >>> m.update_state([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9])
    >>> round(float(m.result()), 4)
    0.75
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        super().__init__(name=name, dtype=dtype)
        if multi_label or label_weights is not None:
            raise ValueError("texflow's AUC has no multi_label or label_weights")
        curve, summation_method = curve.upper(), summation_method.lower()
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are '
                             "['ROC', 'PR']")
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". '
                             "Expected values are ['interpolation', 'majoring', 'minoring']")
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. "
                                 f"Received: num_thresholds={num_thresholds}")
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds, self.curve = num_thresholds, curve
        self.summation_method, self.from_logits = summation_method, from_logits
        eps = 1e-7
        self._make_counts([0.0 - eps] + inner + [1.0 + eps],
                          ("true_positives", "true_negatives", "false_positives",
                           "false_negatives"))

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self.from_logits:
            y_pred = ew.sigmoid(_float(y_pred))
        super().update_state(y_true, y_pred, sample_weight)

    def _pairs(self, x):
        n = len(self.thresholds)
        return slice_(x, [0], [n - 1]), slice_(x, [1], [n - 1])

    def result(self):
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolated_pr(tp, fp, fn)
        recall = _divide_no_nan(tp, ew.add(tp, fn))
        if self.curve == "ROC":
            x, y = _divide_no_nan(fp, ew.add(fp, tn)), recall
        else:
            x, y = recall, _divide_no_nan(tp, ew.add(tp, fp))
        y0, y1 = self._pairs(y)
        if self.summation_method == "interpolation":
            heights = ew.mul(ew.add(y0, y1), 0.5)
        elif self.summation_method == "minoring":
            heights = ew.minimum(y0, y1)
        else:
            heights = ew.maximum(y0, y1)
        x0, x1 = self._pairs(x)
        return rd.sum(ew.mul(ew.sub(x0, x1), heights))

    def _interpolated_pr(self, tp, fp, fn):
        """Davis and Goadrich's interpolation of the precision-recall curve."""
        tp0, tp1 = self._pairs(tp)
        p = ew.add(tp, fp)
        p0, p1 = self._pairs(p)
        dtp = ew.sub(tp0, tp1)
        slope = _divide_no_nan(dtp, ew.maximum(ew.sub(p0, p1), 0.0))
        intercept = ew.sub(tp1, ew.mul(slope, p1))
        both = ew.greater(ew.minimum(p0, p1), 0.0)
        ratio = ew.where(both, _divide_no_nan(p0, ew.maximum(p1, 0.0)), 1.0)
        _, fn1 = self._pairs(fn)
        increment = _divide_no_nan(ew.mul(slope, ew.add(dtp, ew.mul(intercept, ew.log(ratio)))),
                                   ew.maximum(ew.add(tp1, fn1), 0.0))
        return rd.sum(increment)

    def get_config(self):
        config = super().get_config()
        config.update({"num_thresholds": self.num_thresholds, "curve": self.curve,
                       "summation_method": self.summation_method,
                       "multi_label": False, "num_labels": None, "label_weights": None,
                       "from_logits": self.from_logits})
        return config


class _ConditionCount(_Confusion):
    """The weighted count of one confusion condition at each of `thresholds` (0.5)."""

    _condition = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self._conditions = {"accumulator": self._condition}
        self._make_counts(parse_thresholds(thresholds), ("accumulator",))

    def result(self):
        if len(self.thresholds) == 1:
            return reshape(self.accumulator, ())
        return ew.mul(self.accumulator, 1.0)

    def get_config(self):
        config = super().get_config()
        config["thresholds"] = self.init_thresholds
        return config


def _count_class(name, condition, example):
    doc = (f"The weighted number of {condition.replace('_', ' ')}: examples where "
           f"`y_pred > threshold` is {example[0]}, at each of `thresholds` (0.5); one "
           f"threshold gives a scalar, a list a vector.\n\n"
           f"    >>> m = tf.keras.metrics.{name}()\n"
           f"    >>> m.update_state([0, 1, 1, 1], [1.0, 0.0, 1.0, 1.0])\n"
           f"    >>> float(m.result())\n    {example[1]}\n")
    cls = type(name, (_ConditionCount,), {"_condition": condition, "__doc__": doc,
                                          "__module__": __name__})
    return serializable(_MODULE)(cls)


TruePositives = _count_class("TruePositives", "true_positives", ("true, label 1", 2.0))
FalsePositives = _count_class("FalsePositives", "false_positives", ("true, label 0", 1.0))
TrueNegatives = _count_class("TrueNegatives", "true_negatives", ("false, label 0", 0.0))
FalseNegatives = _count_class("FalseNegatives", "false_negatives", ("false, label 1", 1.0))


class _SensitivitySpecificity(_Confusion):
    """Confusion counts at `num_thresholds` thresholds evenly over [0, 1]; `result` is the
    best of one rate where another reaches `value` (0.0 where none does)."""

    _value_name = None

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if value < 0 or value > 1:
            raise ValueError(f"Argument `{self._value_name}` must be in the range [0, 1]. "
                             f"Received: {self._value_name}={value}")
        if num_thresholds <= 0:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        self.value, self.num_thresholds, self.class_id = value, num_thresholds, class_id
        setattr(self, self._value_name, value)
        thresholds = [0.5] if num_thresholds == 1 else \
            [0.0] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1.0]
        self._make_counts(thresholds, ("true_positives", "false_positives",
                                       "true_negatives", "false_negatives"))

    def _rates(self):
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        return {"sensitivity": _divide_no_nan(tp, ew.add(tp, fn)),
                "specificity": _divide_no_nan(tn, ew.add(tn, fp)),
                "precision": _divide_no_nan(tp, ew.add(tp, fp))}

    def _best(self, wanted, constrained):
        rates = self._rates()
        feasible = ew.greater_equal(rates[constrained], float(self.value))
        return rd.max(ew.where(feasible, rates[wanted], 0.0))

    def get_config(self):
        config = super().get_config()
        config.update({"class_id": self.class_id, "num_thresholds": self.num_thresholds,
                       self._value_name: self.value})
        return config


@serializable(_MODULE)
class SensitivityAtSpecificity(_SensitivitySpecificity):
    """The best sensitivity (recall) at a threshold where specificity >= `specificity`.

    >>> m = tf.keras.metrics.SensitivityAtSpecificity(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0.0, 0.3, 0.8, 0.3, 0.8])
    >>> float(m.result())
    0.5
    """

    _value_name = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None,
                 dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("sensitivity", "specificity")


@serializable(_MODULE)
class SpecificityAtSensitivity(_SensitivitySpecificity):
    """The best specificity at a threshold where sensitivity >= `sensitivity`.

    >>> m = tf.keras.metrics.SpecificityAtSensitivity(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0.0, 0.3, 0.8, 0.3, 0.8])
    >>> round(float(m.result()), 4)
    0.6667
    """

    _value_name = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None,
                 dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("specificity", "sensitivity")


@serializable(_MODULE)
class PrecisionAtRecall(_SensitivitySpecificity):
    """The best precision at a threshold where recall >= `recall`.

    >>> m = tf.keras.metrics.PrecisionAtRecall(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0.0, 0.3, 0.8, 0.3, 0.8])
    >>> float(m.result())
    0.5
    """

    _value_name = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("precision", "sensitivity")


@serializable(_MODULE)
class RecallAtPrecision(_SensitivitySpecificity):
    """The best recall at a threshold where precision >= `precision`.

    >>> m = tf.keras.metrics.RecallAtPrecision(0.8)
    >>> m.update_state([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9])
    >>> float(m.result())
    0.5
    """

    _value_name = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("sensitivity", "precision")
