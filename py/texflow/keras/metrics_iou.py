"""Intersection-over-union metrics from an accumulated confusion matrix (Keras 3's IoU
family: IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU)."""

import numpy as np

from ..ops import elementwise as ew
from ..ops import reduce as rd
from ..ops.matmul import matmul
from ..ops.movement import broadcast_to, gather, reshape
from ..ops.nn import one_hot
from . import backend
from .losses import as_tensor
from .metrics import Metric, _float
from .serialization import serializable

_MODULE = "keras.metrics"


def _flat(x):
    return reshape(x, (-1,)) if len(x.shape) != 1 else x


@serializable(_MODULE)
class IoU(Metric):
    """The mean intersection-over-union, tp / (tp + fp + fn), of the classes in
    `target_class_ids`, from a confusion matrix accumulated over every example.

    As Keras 3, the matrix's dtype is an integer one unless `dtype` says otherwise (int32
    here, Keras's int64 being stored as int32), so fractional sample weights truncate.

    >>> m = tf.keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> round(float(m.result()), 4)
    0.3333
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int32")
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, "
                             f"which is [0, {num_classes}).")
        self.num_classes, self.ignore_class = num_classes, ignore_class
        self.sparse_y_true, self.sparse_y_pred, self.axis = sparse_y_true, sparse_y_pred, axis
        self.target_class_ids = list(target_class_ids)
        self.total_cm = self.add_variable((num_classes, num_classes),
                                          name="total_confusion_matrix")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = as_tensor(y_true), as_tensor(y_pred)
        if not self.sparse_y_true:
            y_true = rd.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = rd.argmax(y_pred, axis=self.axis)
        y_true, y_pred = _flat(ew.cast(y_true, "int32")), _flat(ew.cast(y_pred, "int32"))
        weight = as_tensor(1.0 if sample_weight is None else sample_weight)
        if "int" in str(self.dtype):
            weight = ew.cast(weight, "int32")  # as Keras: fractions truncate
        weight = broadcast_to(_flat(_float(weight)) if weight.shape else _float(weight),
                              y_true.shape)
        n = self.num_classes
        valid = ew.logical_and(
            ew.logical_and(ew.greater_equal(y_true, 0), ew.less(y_true, n)),
            ew.logical_and(ew.greater_equal(y_pred, 0), ew.less(y_pred, n)))
        if self.ignore_class is not None:
            valid = ew.logical_and(valid, ew.not_equal(y_true, int(self.ignore_class)))
        weight = ew.where(valid, weight, 0.0)
        y_true, y_pred = ew.where(valid, y_true, 0), ew.where(valid, y_pred, 0)
        # cm[true, pred] += weight, as one matmul of one-hot rows
        rows = one_hot(y_true, n)
        cols = ew.mul(one_hot(y_pred, n), reshape(weight, (-1, 1)))
        cm = matmul(rows, cols, transpose_a=True)
        if self.total_cm.dtype != "float32":
            cm = ew.cast(cm, self.total_cm.dtype)
        self.total_cm.assign_add(cm)

    def result(self):
        cm = _float(self.total_cm)
        eye = np.eye(self.num_classes, dtype=np.float32)
        tp = rd.sum(ew.mul(cm, eye), axis=1)
        denominator = ew.sub(ew.add(rd.sum(cm, axis=0), rd.sum(cm, axis=1)), tp)
        ids = np.asarray(self.target_class_ids, np.int32)
        tp, denominator = gather(tp, ids), gather(denominator, ids)
        valid = ew.greater(denominator, 1e-9)
        eps = backend.epsilon()
        iou = ew.where(valid, ew.div(tp, ew.add(denominator, eps)), 0.0)
        count = rd.sum(ew.cast(valid, "float32"))
        return ew.div(rd.sum(iou), ew.add(count, eps))

    def get_config(self):
        config = super().get_config()
        config.update({"num_classes": self.num_classes,
                       "target_class_ids": self.target_class_ids,
                       "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                       "sparse_y_pred": self.sparse_y_pred, "axis": self.axis})
        return config


@serializable(_MODULE)
class BinaryIoU(IoU):
    """IoU of two classes, predictions being class 1 where `y_pred >= threshold`.

    >>> m = tf.keras.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
    >>> m.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])
    >>> round(float(m.result()), 4)
    0.3333
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name,
                         dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = ew.cast(ew.greater_equal(_float(y_pred), float(self.threshold)), "int32")
        super().update_state(y_true, y_pred, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@serializable(_MODULE)
class MeanIoU(IoU):
    """IoU averaged over every class.

    >>> m = tf.keras.metrics.MeanIoU(num_classes=2)
    >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> round(float(m.result()), 4)
    0.3333
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@serializable(_MODULE)
class OneHotIoU(IoU):
    """IoU with one-hot labels (and, unless `sparse_y_pred`, scores: argmax on `axis`).

    >>> m = tf.keras.metrics.OneHotIoU(num_classes=2, target_class_ids=[1])
    >>> m.update_state([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]])
    >>> round(float(m.result()), 4)
    0.5
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self.dtype, "ignore_class": self.ignore_class,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@serializable(_MODULE)
class OneHotMeanIoU(MeanIoU):
    """MeanIoU with one-hot labels (and, unless `sparse_y_pred`, scores).

    >>> m = tf.keras.metrics.OneHotMeanIoU(num_classes=2)
    >>> m.update_state([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]])
    >>> round(float(m.result()), 4)
    0.25
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        IoU.__init__(self, num_classes, list(range(num_classes)), name=name, dtype=dtype,
                     ignore_class=ignore_class, sparse_y_true=False,
                     sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}
