"""MultiHeadAttention: Keras 3's layer (its weights, names, config and numbers), computed
with einsum, softmax and where."""

import math
import string

import numpy as np

from ...ops import elementwise as ew
from ...ops import reduce as rd
from ...ops.einsum import einsum
from ...ops.movement import expand_dims
from ...ops.nn import softmax
from .. import constraints, initializers, regularizers
from ..serialization import serializable
from .base import Layer, as_tensor, float_input
from .einsum_dense import EinsumDense, weight_settings
from .regularization import Dropout

_MODULE = "keras.layers"
# Masked scores: Keras's Softmax layer fills -1e9 (and zeroes masked probabilities); its
# fused dot_product_attention (TensorFlow backend) fills -0.7 * float32's max and does not.
_SOFTMAX_FILL = -1e9
_FUSED_FILL = -0.7 * 3.38953e38


def _letters(n, start=0):
    return string.ascii_lowercase[start:start + n]


def projection_equation(free_dims, bound_dims, output_dims):
    """'abc,cde->abde'-style: free input axes kept, bound ones contracted, output ones
    made; returns (equation, bias axes, output rank)."""
    free, bound = _letters(free_dims), _letters(bound_dims, free_dims)
    out = _letters(output_dims, free_dims + bound_dims)
    return f"{free}{bound},{bound}{out}->{free}{out}", out, free_dims + output_dims


def attention_equations(rank, attention_axes):
    """The score (key, query -> scores) and combine (scores, value -> output) equations
    for projected tensors of `rank` (batch, ..., heads, channels)."""
    target = _letters(rank)
    batch = [i for i in range(rank) if i not in attention_axes and i != rank - 1]
    source, extra = list(target), rank
    for i in attention_axes:
        source[i] = _letters(1, extra)
        extra += 1
    source = "".join(source)
    scores = "".join([target[i] for i in batch] + [target[i] for i in attention_axes] +
                     [source[i] for i in attention_axes])
    return f"{source},{target}->{scores}", f"{scores},{source}->{target}", len(scores)


def partial_shape(rank, known):
    return [None] * (rank - len(known)) + list(known)


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _bool(mask):
    mask = as_tensor(mask)
    return mask if mask.dtype == "bool" else ew.not_equal(mask, 0)


def _and(a, b):
    return b if a is None else ew.logical_and(a, b)


def band_mask(t, s, causal, window):
    """A [1, T, S] bool mask: causal (query i sees keys j <= i) and/or |i - j| < window."""
    i, j = np.arange(t)[:, None], np.arange(s)[None, :]
    keep = np.ones((t, s), bool)
    if causal:
        keep &= i >= j
    if window is not None:
        keep &= np.abs(i - j) < window
    return as_tensor(keep[None])


def masked_softmax(scores, mask, axes, fill, zero_masked):
    """softmax over `axes` with masked scores set to `fill` (and, optionally, masked
    probabilities zeroed, so a row with no visible key gives zeros, not uniform)."""
    if mask is not None:
        scores = ew.where(mask, scores, fill)
    if len(axes) == 1:
        probs = softmax(scores, axis=axes[0])
    else:
        probs = ew.exp(ew.sub(scores, rd.logsumexp(scores, axis=list(axes), keepdims=True)))
    return ew.where(mask, probs, 0.0) if mask is not None and zero_masked else probs


def combined_mask(query, value, value_mask, key_mask, attention_mask, causal, window):
    """The [B, T, S] (or broadcastable) bool mask of Keras's MultiHeadAttention, or None.

    Keras reads query_mask from the query's Keras mask (texflow arrays carry none) and
    ignores the argument; value_mask and key_mask are used as given."""
    mask = None
    for m in (value_mask, key_mask):
        if m is not None:
            mask = _and(mask, expand_dims(_bool(m), -2))
    if causal or window is not None:
        mask = _and(mask, band_mask(query.shape[1], value.shape[1], causal, window))
    if attention_mask is not None:
        mask = _and(mask, _bool(attention_mask))
    return mask


def compute_attention(query, key, value, mask, equations, attention_axes, norm_axes, scale,
                      rate, dropout_layer, training, return_scores):
    """Scaled dot-product attention of projected tensors as Keras 3 computes it on
    TensorFlow: (output, probabilities or None)."""
    dot_equation, combine_equation = equations
    rank = len(query.shape) + len(attention_axes) - 1
    if mask is not None:  # broadcast over heads (and the leading axes it lacks)
        while len(mask.shape) < rank:
            mask = expand_dims(mask, -2 * len(attention_axes) - 1)
    # Keras 3 runs the fused dot_product_attention when it can, which scales after the
    # product and leaves a row with no visible key uniform
    if not (rate > 0.0 or return_scores or len(query.shape) != 4):
        scores = ew.mul(einsum(dot_equation, key, query), scale)
        probs = masked_softmax(scores, mask, norm_axes, _FUSED_FILL, False)
        return einsum(combine_equation, probs, value), None
    scores = einsum(dot_equation, key, ew.mul(query, scale))
    probs = masked_softmax(scores, mask, norm_axes, _SOFTMAX_FILL, True)
    dropped = dropout_layer(probs, training=training) if rate > 0.0 else probs
    return einsum(combine_equation, dropped, value), probs


@serializable(_MODULE)
class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al., 2017), as Keras 3's MultiHeadAttention.

    `query`, `value` and `key` (default `value`) are projected to `num_heads` heads
    (EinsumDense sublayers 'query', 'key', 'value': kernels [dim, heads, key_dim]),
    scaled dot-product attention runs over `attention_axes`, and the heads are projected
    back ('attention_output': kernel [heads, value_dim, dim]).

    Args:
        num_heads: the number of heads.
        key_dim: the size of each head for query and key.
        value_dim: the size of each head for value (default key_dim).
        dropout: the dropout rate on the attention probabilities.
        use_bias: whether the projections have biases.
        output_shape: the output's last axes (default the query's last size).
        attention_axes: the axes attention runs over (default all but batch, heads and
            features).
        sliding_window: attend only to keys within `sliding_window - 1` positions.
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
        activity_regularizer, kernel_constraint, bias_constraint: for the projections.
        use_gate: gate the heads with a sigmoid projection of the query ('gate').
        seed: the dropout seed.

    Call arguments: `query` [B, T, dim], `value` [B, S, dim], `key` [B, S, dim],
    `attention_mask` (bool, [B, T, S], True attends), `value_mask`/`key_mask` ([B, S]),
    `return_attention_scores`, `training`, `use_causal_mask`.

    >>> mha = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> x = np.ones((1, 5, 8), np.float32)
    >>> out, scores = mha(x, x, return_attention_scores=True)
    >>> out.shape, scores.shape
    (TensorShape([1, 5, 8]), TensorShape([1, 2, 5, 5]))
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, sliding_window=None,
                 flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 use_gate=False, seed=None, **kwargs):
        for what, value, optional in (("num_heads", num_heads, False),
                                      ("key_dim", key_dim, False),
                                      ("value_dim", value_dim, True)):
            if (value is not None or not optional) and (
                    not isinstance(value, int) or isinstance(value, bool) or value <= 0):
                raise ValueError(f"Received an invalid value for argument `{what}`, "
                                 f"expected a positive integer. Received: {what}={value}")
        super().__init__(**kwargs)
        if flash_attention:
            raise ValueError("Flash attention is not supported in texflow "
                             "(flash_attention=True)")
        self._num_heads, self._key_dim = num_heads, key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout, self._use_bias, self._use_gate = dropout, use_bias, use_gate
        if output_shape:
            output_shape = (output_shape,) if isinstance(output_shape, int) else output_shape
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, "
                                 "the `output_shape` should be of type tuple, list, or "
                                 "int.") from None
        self._output_shape = output_shape
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer = regularizers.get(activity_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError("`attention_axes` must be an int, list, or tuple."
                             f"Received: attention_axes={attention_axes}")
        self._attention_axes = attention_axes
        if sliding_window is not None and (not isinstance(sliding_window, int) or
                                           sliding_window <= 0):
            raise ValueError("`sliding_window` must be `None` or a positive integer. "
                             f"Received: sliding_window={sliding_window}")
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(key_dim))

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)
    # Keras keeps the projections as _query_dense...; its weights files name them by these
    # public properties, which texflow's saving reads from the attributes themselves
    _query_dense = property(lambda self: self.query_dense)
    _key_dense = property(lambda self: self.key_dense)
    _value_dense = property(lambda self: self.value_dense)
    _output_dense = property(lambda self: self.output_dense)

    def __call__(self, query, value, key=None, **kwargs):
        return call_built(self, Layer, query, value, key, **kwargs)

    def _projection(self, free, bound, in_shape, known, name, **extra):
        """An EinsumDense sublayer with Keras's equation, built for `in_shape`."""
        equation, bias_axes, rank = projection_equation(free, bound, len(known))
        return sublayer(self, "_", equation, partial_shape(rank - 1, known), bias_axes, name,
                        in_shape, **extra)

    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = remember_shapes(self, query_shape, value_shape, key_shape)
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError("All dimensions of `value` and `key`, except the last one, must "
                             f"be equal. Received: value_shape={tuple(value_shape)} and "
                             f"key_shape={tuple(key_shape)}")
        qk, v = [self._num_heads, self._key_dim], [self._num_heads, self._value_dim]
        q_free = len(query_shape) - 1
        self.query_dense = self._projection(q_free, 1, query_shape, qk, "query")
        self.key_dense = self._projection(len(key_shape) - 1, 1, key_shape, qk, "key")
        if self._use_gate:
            self._gate_dense = self._projection(q_free, 1, query_shape, v, "gate",
                                                activation="sigmoid")
        self.value_dense = self._projection(len(value_shape) - 1, 1, value_shape, v, "value")
        rank = len(value_shape) + 1  # of the projected tensors: (batch, ..., heads, dim)
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(a if a >= 0 else rank - 1 + a
                                         for a in self._attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = \
            attention_equations(rank, self._attention_axes)
        self._norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))
        self._dropout_layer = Dropout(rate=self._dropout, seed=self.seed, dtype=self.dtype)
        out = self._output_shape or [query_shape[-1]]
        heads_shape = list(self.query_dense.compute_output_shape(tuple(query_shape)))
        heads_shape[-1] = self._value_dim
        self.output_dense = self._projection(q_free, 2, heads_shape, list(out),
                                             "attention_output")

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        query, value = float_input(as_tensor(query)), float_input(as_tensor(value))
        key = value if key is None else float_input(as_tensor(key))
        mask = combined_mask(query, value, value_mask, key_mask, attention_mask,
                             use_causal_mask, self._sliding_window)
        gate = self._gate_dense(query) if self._use_gate else None
        output, scores = self._compute_attention(
            self.query_dense(query), self.key_dense(key), self.value_dense(value), mask,
            training, return_attention_scores)
        if gate is not None:
            output = ew.mul(output, gate)
        output = self.output_dense(output)
        return (output, scores) if return_attention_scores else output

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           return_attention_scores=False):
        """(output [B, T, N, H], probabilities [B, N, T, S]) of projected tensors."""
        return compute_attention(
            query, key, value, attention_mask, (self._dot_product_equation,
                                                self._combine_equation),
            self._attention_axes, self._norm_axes, self._inverse_sqrt_key_dim,
            self._dropout, self._dropout_layer, training, return_attention_scores)

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape = tuple(query_shape)
        if value_shape is not None and key_shape is not None and \
                tuple(value_shape)[1:-1] != tuple(key_shape)[1:-1]:
            raise ValueError("All dimensions of `value` and `key`, except the last one, must "
                             f"be equal. Received: value_shape={tuple(value_shape)} and "
                             f"key_shape={tuple(key_shape)}")
        return query_shape[:-1] + tuple(self._output_shape) if self._output_shape \
            else query_shape

    def compute_output_spec(self, query, value, key=None, return_attention_scores=False,
                            **kwargs):
        from .node import KerasTensor
        out = KerasTensor(self.compute_output_shape(
            query.shape, value.shape, None if key is None else key.shape), self.dtype)
        if not return_attention_scores:
            return out
        # (Keras 3 declares (B, heads, T, T); the scores it computes are (B, heads, T, S))
        return out, KerasTensor((query.shape[0], self._num_heads) + tuple(query.shape[1:-1])
                                + tuple(value.shape[1:-1]), self.dtype)

    def get_config(self):
        config = super().get_config()
        config.update({
            "num_heads": self._num_heads, "key_dim": self._key_dim,
            "value_dim": self._value_dim, "dropout": self._dropout,
            "use_bias": self._use_bias, "use_gate": self._use_gate,
            "output_shape": self._output_shape, "attention_axes": self._attention_axes,
            "sliding_window": self._sliding_window,
            **weight_settings(self, "_"),
            "seed": self.seed})
        return config

    def get_build_config(self):
        return {"shapes_dict": dict(self._shapes)} if self.built else None

    def build_from_config(self, config):
        if config and not self.built:
            self.build(**{k: tuple(v) if v is not None else None
                          for k, v in config["shapes_dict"].items()})


def call_built(layer, base, query, value, key=None, **kwargs):
    """An attention layer's call, built from its inputs' shapes on the first one."""
    if not layer.built:
        layer.build(_shape(query), _shape(value), None if key is None else _shape(key))
    return base.__call__(layer, query, value, key, **kwargs)


def remember_shapes(layer, query_shape, value_shape, key_shape):
    """Keeps the build shapes (the layer's build config) and returns the key's."""
    layer._shapes = {"query_shape": tuple(query_shape), "value_shape": tuple(value_shape)}
    if key_shape is not None:
        layer._shapes["key_shape"] = tuple(key_shape)
    return value_shape if key_shape is None else key_shape


def sublayer(layer, prefix, equation, output_shape, bias_axes, name, in_shape, **extra):
    """An EinsumDense projection of attention layer `layer`, with its settings (read as
    `<prefix>use_bias`, `<prefix>kernel_initializer`, ...), built for `in_shape`."""
    def get(setting):
        return getattr(layer, prefix + setting)
    dense = EinsumDense(
        equation, output_shape=output_shape,
        bias_axes=bias_axes if get("use_bias") else None, name=name,
        kernel_initializer=get("kernel_initializer").clone(),
        bias_initializer=get("bias_initializer").clone(),
        kernel_regularizer=get("kernel_regularizer"), bias_regularizer=get("bias_regularizer"),
        activity_regularizer=get("activity_regularizer"),
        kernel_constraint=get("kernel_constraint"), bias_constraint=get("bias_constraint"),
        dtype=layer.dtype, **extra)
    dense.build(tuple(in_shape))
    return dense
