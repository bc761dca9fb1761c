"""Focal cross-entropies, Dice, Tversky, the generalized cross-entropy and Circle, with Keras 3's
formulas, arguments and names."""

import numpy as np

from ..ops import elementwise as ew
from ..ops import nn
from ..ops import reduce as rd
from ..ops.matmul import matmul
from ..ops.movement import reshape
from . import backend
from .losses import (LossFunctionWrapper, _float, _loss_class, as_tensor,
                     reduce_weighted_values, serializable)

_MODULE = "keras.losses"


def _clipped_bce(y_true, y_pred):
    """Per-value binary cross-entropy of probabilities clipped to [eps, 1 - eps]."""
    eps = backend.epsilon()
    p = nn.clip_by_value(y_pred, eps, 1.0 - eps)
    return ew.neg(ew.add(ew.mul(y_true, ew.log(p)),
                         ew.mul(ew.sub(1.0, y_true), ew.log(ew.sub(1.0, p)))))


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy scaled by (1 - p_t) ** gamma (and, with
    `apply_class_balancing`, by alpha for positives, 1 - alpha for negatives); the mean
    over `axis`.

    >>> tf.keras.losses.binary_focal_crossentropy([[0.0, 1.0]], [[0.4, 0.6]]).shape
    TensorShape([1])
    """
    y_pred, y_true = _float(y_pred), _float(y_true)
    if label_smoothing:
        y_true = ew.add(ew.mul(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    if from_logits:
        y_pred = ew.sigmoid(y_pred)
    bce = _clipped_bce(y_true, y_pred)
    not_true = ew.sub(1.0, y_true)
    p_t = ew.add(ew.mul(y_true, y_pred), ew.mul(not_true, ew.sub(1.0, y_pred)))
    focal = ew.mul(ew.pow(ew.sub(1.0, p_t), float(gamma)), bce)
    if apply_class_balancing:
        focal = ew.mul(ew.add(ew.mul(y_true, float(alpha)), ew.mul(not_true, 1.0 - alpha)),
                       focal)
    return rd.mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """Categorical cross-entropy with each class's term scaled by
    alpha * (1 - p) ** gamma, summed over `axis`.

    >>> tf.keras.losses.categorical_focal_crossentropy([[0.0, 1.0]], [[0.4, 0.6]]).shape
    TensorShape([1])
    """
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")
    y_pred, y_true = _float(y_pred), _float(y_true)
    if label_smoothing:
        classes = y_true.shape[-1]
        y_true = ew.add(ew.mul(y_true, 1.0 - label_smoothing), label_smoothing / classes)
    if from_logits:
        y_pred = nn.softmax(y_pred, axis=axis)
    eps = backend.epsilon()
    output = ew.div(y_pred, rd.sum(y_pred, axis=axis, keepdims=True))
    output = nn.clip_by_value(output, eps, 1.0 - eps)
    cce = ew.mul(ew.neg(y_true), ew.log(output))
    factor = ew.mul(ew.pow(ew.sub(1.0, output), float(gamma)), float(alpha))
    return rd.sum(ew.mul(factor, cce), axis=axis)


def dice(y_true, y_pred, axis=None):
    """1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred)), over `axis` (None: all).

    >>> round(float(tf.keras.losses.dice([[1.0, 0.0]], [[0.5, 0.5]])), 4)
    0.5
    """
    y_pred, y_true = _float(y_pred), _float(y_true)
    intersection = rd.sum(ew.mul(y_true, y_pred), axis=axis)
    total = ew.add(ew.add(rd.sum(y_true, axis=axis), rd.sum(y_pred, axis=axis)),
                   backend.epsilon())
    return ew.sub(1.0, ew.div(ew.mul(intersection, 2.0), total))


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """1 - tp / (tp + alpha * fp + beta * fn), the counts soft, over `axis` (None: all);
    as Keras 3 computes them, fp = sum((1 - y_pred) * y_true), fn = sum(y_pred * (1 - y_true)).

    >>> round(float(tf.keras.losses.tversky([[1.0, 0.0]], [[0.5, 0.5]])), 4)
    0.5
    """
    y_pred, y_true = _float(y_pred), _float(y_true)
    intersection = rd.sum(ew.mul(y_true, y_pred), axis=axis)
    fp = rd.sum(ew.mul(ew.sub(1.0, y_pred), y_true), axis=axis)
    fn = rd.sum(ew.mul(y_pred, ew.sub(1.0, y_true)), axis=axis)
    denominator = ew.add(ew.add(ew.add(intersection, ew.mul(fp, float(alpha))),
                                ew.mul(fn, float(beta))), backend.epsilon())
    return ew.sub(1.0, ew.div(intersection, denominator))


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """(1 - p ** q) / q, p the predicted probability of the integer label y_true.

    >>> tf.keras.losses.categorical_generalized_cross_entropy([1], [[0.2, 0.8]], q=0.5).shape
    TensorShape([1])
    """
    y_pred = _float(y_pred)
    labels = ew.cast(_float(y_true), "int32")
    p = rd.sum(ew.mul(y_pred, nn.one_hot(labels, y_pred.shape[-1])), axis=-1)
    return ew.div(ew.sub(1.0, ew.pow(p, float(q))), float(q))


BinaryFocalCrossentropy = _loss_class(
    "BinaryFocalCrossentropy", binary_focal_crossentropy, "binary_focal_crossentropy",
    "The binary focal cross-entropy (Lin et al., 2018): cross-entropy down-weighted on "
    "well classified examples.",
    (("apply_class_balancing", False), ("alpha", 0.25), ("gamma", 2.0),
     ("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)))
CategoricalFocalCrossentropy = _loss_class(
    "CategoricalFocalCrossentropy", categorical_focal_crossentropy,
    "categorical_focal_crossentropy",
    "The categorical focal cross-entropy of one-hot labels and predicted distributions.",
    (("alpha", 0.25), ("gamma", 2.0), ("from_logits", False), ("label_smoothing", 0.0),
     ("axis", -1)))


@serializable(_MODULE)
class Dice(LossFunctionWrapper):
    """The Dice loss, `dice` over `axis` (None: one value for the whole batch).

    >>> round(float(tf.keras.losses.Dice()([[1.0, 0.0]], [[0.5, 0.5]])), 4)
    0.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, reduction=reduction, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "reduction": self._reduction_arg, "axis": self.axis}


@serializable(_MODULE)
class Tversky(LossFunctionWrapper):
    """The Tversky loss, `tversky` over `axis` (None: one value for the whole batch).

    >>> round(float(tf.keras.losses.Tversky()([[1.0, 0.0]], [[0.5, 0.5]])), 4)
    0.5
    """

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None, dtype=None):
        super().__init__(tversky, reduction=reduction, name=name, dtype=dtype, alpha=alpha,
                         beta=beta, axis=axis)
        self.alpha, self.beta, self.axis = alpha, beta, axis

    def get_config(self):
        return {"name": self.name, "reduction": self._reduction_arg, "alpha": self.alpha,
                "beta": self.beta, "axis": self.axis}


@serializable(_MODULE)
class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """The generalized cross-entropy (Zhang and Sabuncu, 2018) of integer labels, robust to
    noisy labels: `q` in (0, 1) moves it from cross-entropy (q -> 0) toward MAE (q = 1).

    >>> loss = tf.keras.losses.CategoricalGeneralizedCrossEntropy()
    >>> loss(np.array([1]), np.array([[0.2, 0.8]])).shape
    TensorShape([])
    """

    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy", dtype=None):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(categorical_generalized_cross_entropy, reduction=reduction,
                         name=name, dtype=dtype, q=q)
        self.q = q

    def get_config(self):
        return {"name": self.name, "reduction": self._reduction_arg, "q": self.q}



def _masked_logsumexp(x, mask):
    """logsumexp over axis 1 of the entries where `mask` holds, and whether any does."""
    top = rd.max(ew.where(mask, x, -3.0e38), axis=1, keepdims=True)
    total = rd.sum(ew.where(mask, ew.exp(ew.sub(x, top)), 0.0), axis=1)
    some = rd.reduce_any(mask, axis=1)
    return ew.add(ew.log(ew.where(some, total, 1.0)), reshape(top, (-1,))), some


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True,
           gamma=80, margin=0.4):
    """The circle loss (Sun et al., 2020) of L2-normalized embeddings `y_pred` with
    integer labels `y_true`, against `ref_embeddings`/`ref_labels` (default: the batch
    itself, without each example's pair with itself): one value per example.

    >>> emb = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    >>> tf.keras.losses.circle(np.array([0, 0, 1]), emb).shape
    TensorShape([3])
    """
    y_pred = _float(y_pred)
    labels = ew.cast(_float(y_true), "int32")
    ref = y_pred if ref_embeddings is None else _float(ref_embeddings)
    ref_labels = labels if ref_labels is None else ew.cast(_float(ref_labels), "int32")
    distances = ew.maximum(ew.sub(1.0, matmul(y_pred, ref, transpose_b=True)), 0.0)
    positive = ew.equal(reshape(labels, (-1, 1)), reshape(ref_labels, (1, -1)))
    negative = ew.logical_not(positive)
    if remove_diagonal:
        n, m = distances.shape
        positive = ew.logical_and(positive, ~np.eye(n, m, dtype=bool))
    pos_weights = ew.relu(ew.mul(ew.add(distances, float(margin)),
                                 ew.cast(positive, "float32")))
    neg_weights = ew.relu(ew.mul(ew.sub(1.0 + margin, distances),
                                 ew.cast(negative, "float32")))
    pos = ew.mul(ew.mul(pos_weights, ew.sub(float(margin), distances)), -float(gamma))
    neg = ew.mul(ew.mul(neg_weights, ew.sub(1.0 - margin, distances)), float(gamma))
    p_loss, some_p = _masked_logsumexp(pos, positive)
    n_loss, some_n = _masked_logsumexp(neg, negative)
    # logsumexp over no entries is -inf, and softplus(-inf) is 0
    return ew.where(ew.logical_and(some_p, some_n), ew.softplus(ew.add(p_loss, n_loss)), 0.0)


@serializable(_MODULE)
class Circle(LossFunctionWrapper):
    """The circle loss of a batch of L2-normalized embeddings and their integer labels.
    As Keras 3, 'sum_over_batch_size' (and 'mean') average over the positive values only.

    >>> emb = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    >>> tf.keras.losses.Circle()(np.array([0, 0, 1]), emb).shape
    TensorShape([])
    """

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True,
                 reduction="sum_over_batch_size", name="circle", dtype=None):
        super().__init__(circle, reduction=reduction, name=name, dtype=dtype, gamma=gamma,
                         margin=margin, remove_diagonal=remove_diagonal)
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, remove_diagonal

    def __call__(self, y_true, y_pred, sample_weight=None):
        values = self.call(as_tensor(y_true), as_tensor(y_pred))
        # Keras masks the values that are not positive (its Loss applies the mask)
        valid = ew.cast(ew.greater(values, 0.0), "float32")
        if self.reduction in ("mean", "sum_over_batch_size"):
            count = rd.sum(valid)
            scale = ew.where(ew.equal(count, 0.0), 0.0,
                             ew.div(float(values.shape[0]), ew.maximum(count, 1.0)))
            valid = ew.mul(valid, scale)
        if sample_weight is not None:
            valid = ew.mul(valid, _float(sample_weight))
        return reduce_weighted_values(values, valid, self.reduction)

    def get_config(self):
        return {"name": self.name, "reduction": self._reduction_arg, "gamma": self.gamma,
                "margin": self.margin, "remove_diagonal": self.remove_diagonal}
