"""Thresholded metrics: Precision, Recall and AUC (confusion counts per threshold)."""

import numpy as np

from ..ops import elementwise as ew
from ..ops import reduce as rd
from ..ops.movement import reshape, slice as slice_
from .losses import as_tensor
from .metrics import Metric, _float
from .serialization import serializable

_MODULE = "keras.metrics"


def _divide_no_nan(a, b):
    return ew.where(ew.equal(b, 0.0), 0.0, ew.div(a, ew.where(ew.equal(b, 0.0), 1.0, b)))


class _Confusion(Metric):
    """Counts of true/false positives/negatives of `y_pred > threshold`, per threshold."""

    def _make_counts(self, thresholds, names):
        self.thresholds = [float(t) for t in thresholds]
        self._thresholds = np.asarray(self.thresholds, np.float32)
        for name in names:
            setattr(self, name, self.add_variable((len(self.thresholds),), name=name))
        self._names = names

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = reshape(_float(y_pred), (-1, 1))
        y_true = reshape(_float(y_true), (-1, 1))
        if y_true.shape[0] != y_pred.shape[0]:
            raise ValueError(f"{self.name}: y_true and y_pred hold {y_true.shape[0]} and "
                             f"{y_pred.shape[0]} values")
        above = ew.cast(ew.greater(y_pred, self._thresholds), "float32")  # (n, thresholds)
        pos = ew.cast(ew.greater(y_true, 0.5), "float32")
        neg = ew.sub(1.0, pos)
        if sample_weight is not None:
            w = reshape(_float(as_tensor(sample_weight)), (-1, 1))
            if w.shape[0] == 1 and y_true.shape[0] != 1:
                w = ew.mul(ew.add(ew.mul(pos, 0.0), 1.0), w)
            pos, neg = ew.mul(pos, w), ew.mul(neg, w)
        below = ew.sub(1.0, above)
        counts = {"true_positives": (above, pos), "false_positives": (above, neg),
                  "true_negatives": (below, neg), "false_negatives": (below, pos)}
        for name in self._names:
            mask, weight = counts[name]
            getattr(self, name).assign_add(rd.sum(ew.mul(mask, weight), axis=0))


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
        if top_k is not None or class_id is not None:
            raise ValueError(f"texflow's {type(self).__name__} has no top_k or class_id")
        self._thresholds_arg = thresholds
        values = [0.5] if thresholds is None else (
            [thresholds] if isinstance(thresholds, (int, float)) else list(thresholds))
        self._make_counts(values, ("true_positives", "false_positives"))

    def result(self):
        value = _divide_no_nan(self.true_positives,
                               ew.add(self.true_positives, self.false_positives))
        return reshape(value, ()) if len(self.thresholds) == 1 else value

    def get_config(self):
        config = super().get_config()
        config.update({"thresholds": self._thresholds_arg, "top_k": None, "class_id": None})
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
        if top_k is not None or class_id is not None:
            raise ValueError(f"texflow's {type(self).__name__} has no top_k or class_id")
        self._thresholds_arg = thresholds
        values = [0.5] if thresholds is None else (
            [thresholds] if isinstance(thresholds, (int, float)) else list(thresholds))
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
