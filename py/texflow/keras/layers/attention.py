"""Attention (Luong-style dot product) and AdditiveAttention (Bahdanau-style): Keras 3's
layers, their weights, configs and numbers."""

import numpy as np

from ...ops import elementwise as ew
from ...ops import reduce as rd
from ...ops.matmul import matmul
from ...ops.movement import expand_dims
from ...ops.nn import softmax
from ..serialization import serializable
from .base import Layer, as_tensor
from .regularization import Dropout

_MODULE = "keras.layers"


def _bool(mask):
    mask = as_tensor(mask)
    return mask if mask.dtype == "bool" else ew.not_equal(mask, 0)


@serializable(_MODULE)
class Attention(Layer):
    """Dot-product attention: `softmax(query @ key^T) @ value`, called on
    `[query, value]` or `[query, value, key]` (key defaults to value).

    Args:
        use_scale: learn a scalar `scale` that multiplies the scores.
        score_mode: 'dot' (query-key dot products) or 'concat' (the sum of
            tanh(query + key), times a learned `concat_score_weight`).
        dropout: the dropout rate on the attention distribution while training.
        seed: the dropout seed.

    Call arguments: `inputs` ([query [B, Tq, dim], value [B, Tv, dim], key]), `mask`
    ([query_mask [B, Tq], value_mask [B, Tv]]: masked queries give zeros, masked values
    get no attention), `return_attention_scores`, `training`, `use_causal_mask`.

    >>> q, v = np.ones((1, 2, 3), np.float32), np.ones((1, 4, 3), np.float32)
    >>> tf.keras.layers.Attention()([q, v]).shape
    TensorShape([1, 2, 3])
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of "
                             f"{{'dot', 'concat'}}. Received: score_mode={score_mode}")
        self.use_scale, self.score_mode, self.dropout, self.seed = \
            use_scale, score_mode, dropout, seed
        self._dropout_layer = Dropout(dropout, seed=seed) if dropout > 0 else None

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones") \
            if self.use_scale else None
        self.concat_score_weight = self.add_weight(
            name="concat_score_weight", shape=(), initializer="ones") \
            if self.score_mode == "concat" else None

    def _calculate_scores(self, query, key):
        """Scores [B, Tq, Tv] of queries against keys."""
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            return scores if self.scale is None else ew.mul(scores, self.scale)
        pairs = ew.add(expand_dims(query, -2), expand_dims(key, -3))
        if self.scale is not None:
            pairs = ew.mul(self.scale, pairs)
        return ew.mul(self.concat_score_weight, rd.sum(ew.tanh(pairs), axis=-1))

    def _apply_scores(self, scores, value, scores_mask=None, training=False):
        """(softmax(scores) @ value, the distribution), masked scores pushed down 1e9."""
        if scores_mask is not None:
            if len(scores_mask.shape) == 2:
                scores_mask = expand_dims(scores_mask, -2)
            scores = ew.where(scores_mask, scores, ew.sub(scores, 1.0e9))
        weights = softmax(scores, axis=-1)
        if training and self._dropout_layer is not None:
            weights = self._dropout_layer(weights, training=True)
        return matmul(weights, value), weights

    def call(self, inputs, mask=None, training=False, return_attention_scores=False,
             use_causal_mask=False):
        self._validate_inputs(inputs, mask)
        query, value = as_tensor(inputs[0]), as_tensor(inputs[1])
        key = as_tensor(inputs[2]) if len(inputs) > 2 else value
        q_mask = _bool(mask[0]) if mask and mask[0] is not None else None
        v_mask = _bool(mask[1]) if mask and mask[1] is not None else None
        scores = self._calculate_scores(query, key)
        if use_causal_mask:
            t, s = scores.shape[-2:]
            causal = as_tensor((np.arange(t)[:, None] >= np.arange(s)[None, :])[None])
            v_mask = causal if v_mask is None else ew.logical_and(expand_dims(v_mask, -2),
                                                                  causal)
        output, weights = self._apply_scores(scores, value, v_mask, training)
        if q_mask is not None:
            output = ew.where(expand_dims(q_mask, -1), output, 0.0)
        return (output, weights) if return_attention_scores else output

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0][:-1]) + (input_shape[1][-1],)

    def compute_output_spec(self, inputs, mask=None, return_attention_scores=False,
                            **kwargs):
        from .node import KerasTensor
        self._validate_inputs(inputs, mask)
        key = inputs[2] if len(inputs) > 2 else inputs[1]
        out = KerasTensor(self.compute_output_shape([t.shape for t in inputs]), self.dtype)
        if not return_attention_scores:
            return out
        return out, KerasTensor(tuple(inputs[0].shape[:-1]) + (key.shape[-2],), self.dtype)

    def _validate_inputs(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely "
                             f"[query, value] or [query, value, key]. Received: "
                             f"inputs={inputs}.")
        if not 2 <= len(inputs) <= 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely "
                             "[query, value] or [query, value, key]. Received length: "
                             f"{len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, list):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, "
                                 f"value_mask]. Received: mask={mask}.")
            if not 2 <= len(mask) <= 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. "
                                 f"Received: inputs={inputs}, mask={mask}.")

    def get_config(self):
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "score_mode": self.score_mode,
                       "dropout": self.dropout, "seed": self.seed})
        return config


@serializable(_MODULE)
class AdditiveAttention(Attention):
    """Additive attention: scores `sum(scale * tanh(query + key))` over features, with a
    learned `scale` [dim] (glorot_uniform) when `use_scale` (the default).

    >>> q, v = np.ones((1, 2, 3), np.float32), np.ones((1, 4, 3), np.float32)
    >>> tf.keras.layers.AdditiveAttention()([q, v]).shape
    TensorShape([1, 2, 3])
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = self.add_weight(name="scale", shape=(input_shape[0][-1],),
                                     initializer="glorot_uniform") if self.use_scale else None
        self.concat_score_weight = None

    def _calculate_scores(self, query, key):
        pairs = ew.tanh(ew.add(expand_dims(query, -2), expand_dims(key, -3)))
        return rd.sum(pairs if self.scale is None else ew.mul(self.scale, pairs), axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config
