"""GroupedQueryAttention (GQA): Keras 3's layer, where groups of query heads share one
key and value head; the same weights, names, config and numbers."""

import math

from ...ops import elementwise as ew
from ...ops.movement import expand_dims, reshape, tile
from .. import constraints, initializers, regularizers
from ..serialization import serializable
from .base import Layer, as_tensor, float_input
from .einsum_dense import weight_settings
from .multi_head_attention import (MultiHeadAttention, call_built, combined_mask,
                                   compute_attention, remember_shapes, sublayer)
from .regularization import Dropout

_MODULE = "keras.layers"


def _repeat_heads(x, repeats):
    """[B, S, N, H] -> [B, S, N * repeats, H], each head repeated in place (k0 k0 k1 k1)."""
    if repeats == 1:
        return x
    _, s, n, h = x.shape
    return reshape(tile(expand_dims(x, 3), [1, 1, 1, repeats, 1]), (-1, s, n * repeats, h))


@serializable(_MODULE)
class GroupedQueryAttention(Layer):
    """Grouped-query attention (Ainslie et al., 2023), as Keras 3's
    `tf.keras.layers.GroupQueryAttention` (class GroupedQueryAttention): a
    `num_query_heads`-head attention whose keys and values have `num_key_value_heads`
    heads, each shared by `num_query_heads // num_key_value_heads` query heads.

    Args:
        head_dim: the size of each head.
        num_query_heads: the number of query heads.
        num_key_value_heads: the number of key and value heads (divides num_query_heads).
        dropout, use_bias, sliding_window, use_gate, seed, and the kernel/bias
        initializers, regularizers and constraints: as in MultiHeadAttention.

    Call arguments as MultiHeadAttention's (query, value, key, attention_mask,
    value_mask, key_mask, return_attention_scores, training, use_causal_mask).

    >>> gqa = tf.keras.layers.GroupQueryAttention(4, num_query_heads=4,
    ...                                           num_key_value_heads=2)
    >>> x = np.ones((1, 3, 8), np.float32)
    >>> gqa(x, x).shape, gqa._key_dense.kernel.shape
    (TensorShape([1, 3, 8]), TensorShape([8, 2, 4]))
    """

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0,
                 use_bias=True, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        if flash_attention:
            raise ValueError("Flash attention is not supported in texflow "
                             "(flash_attention=True)")
        self.head_dim = head_dim
        self.num_query_heads, self.num_key_value_heads = num_query_heads, num_key_value_heads
        if num_query_heads % num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by "
                             "`num_key_value_heads`.")
        self.num_repeats = num_query_heads // num_key_value_heads
        self.dropout, self.use_bias, self.use_gate = dropout, use_bias, use_gate
        if sliding_window is not None and (not isinstance(sliding_window, int) or
                                           sliding_window <= 0):
            raise ValueError("`sliding_window` must be `None` or a positive integer. "
                             f"Received: sliding_window={sliding_window}")
        self.sliding_window = sliding_window
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        # Keras sets it on the layer too: its outputs are penalized, as the projections'
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self._inverse_sqrt_head_dim = 1.0 / math.sqrt(float(head_dim))

    def __call__(self, query, value, key=None, **kwargs):
        return call_built(self, Layer, query, value, key, **kwargs)

    def _dense(self, equation, heads, bias_axes, name, build_shape, **extra):
        return sublayer(self, "", equation, (None,) + heads, bias_axes, name, build_shape,
                        **extra)

    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = remember_shapes(self, query_shape, value_shape, key_shape)
        self.feature_dim = query_shape[-1]
        q_heads = (self.num_query_heads, self.head_dim)
        kv_heads = (self.num_key_value_heads, self.head_dim)
        self._query_dense = self._dense("bqm,muh->bquh", q_heads, "uh", "query", query_shape)
        self._key_dense = self._dense("bkm,mvh->bkvh", kv_heads, "vh", "key", key_shape)
        if self.use_gate:
            self._gate_dense = self._dense("bqm,muh->bquh", q_heads, "uh", "gate",
                                           query_shape, activation="sigmoid")
        self._value_dense = self._dense("bkm,mvh->bkvh", kv_heads, "vh", "value",
                                        value_shape)
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed, dtype=self.dtype)
        # Keras's "bquh,bkuh->buqk" with its operands swapped (key first, as MHA's)
        self._dot_product_equation = "bkuh,bquh->buqk"
        self._combine_equation = "buqk,bkuh->bquh"
        self._output_dense = self._dense("bquh,uhm->bqm", (self.feature_dim,), "m",
                                         "attention_output", (None, None) + q_heads)

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        query, value = float_input(as_tensor(query)), float_input(as_tensor(value))
        key = value if key is None else float_input(as_tensor(key))
        mask = combined_mask(query, value, value_mask, key_mask, attention_mask,
                             use_causal_mask, self.sliding_window)
        gate = self._gate_dense(query) if self.use_gate else None
        output, scores = compute_attention(
            self._query_dense(query), _repeat_heads(self._key_dense(key), self.num_repeats),
            _repeat_heads(self._value_dense(value), self.num_repeats), mask,
            (self._dot_product_equation, self._combine_equation), (1,), (3,),
            self._inverse_sqrt_head_dim, self.dropout, self._dropout_layer, training,
            return_attention_scores)
        if gate is not None:
            output = ew.mul(output, gate)
        output = self._output_dense(output)
        return (output, scores) if return_attention_scores else output

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        value_shape = query_shape if value_shape is None else value_shape
        key_shape = value_shape if key_shape is None else key_shape
        if query_shape[-1] != value_shape[-1]:
            raise ValueError("The last dimension of `query_shape` and `value_shape` must be "
                             f"equal, but are {query_shape[-1]}, {value_shape[-1]}. "
                             f"Received: query_shape={query_shape}, "
                             f"value_shape={value_shape}")
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError("All dimensions of `value` and `key`, except the last one, must "
                             f"be equal. Received: value_shape={value_shape} and "
                             f"key_shape={key_shape}")
        return tuple(query_shape)

    def compute_output_spec(self, query, value, key=None, return_attention_scores=False,
                            **kwargs):
        from .node import KerasTensor
        out = KerasTensor(self.compute_output_shape(
            query.shape, value.shape, None if key is None else key.shape), self.dtype)
        if not return_attention_scores:
            return out
        source = (value if key is None else key).shape[1]
        return out, KerasTensor((query.shape[0], self.num_query_heads, query.shape[1],
                                 source), self.dtype)

    def get_config(self):
        config = super().get_config()
        config.update({
            "head_dim": self.head_dim, "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads, "use_bias": self.use_bias,
            "use_gate": self.use_gate, "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            **weight_settings(self),
            "seed": self.seed})
        return config

    # built from its call's shapes, as MultiHeadAttention
    get_build_config = MultiHeadAttention.get_build_config
    build_from_config = MultiHeadAttention.build_from_config
