#!/usr/bin/env python3
"""Writes tests/data/keras/attention.json: what real Keras 3 computes with its attention
layers (MultiHeadAttention, EinsumDense, Attention, AdditiveAttention,
GroupQueryAttention), for texflow's tests.

Run by hand with TensorFlow 2.21 / Keras 3.15 in a separate virtual environment (never a
test dependency):

    $TF_PYTHON scripts/make_keras_attention_fixtures.py

Each case stores a layer's config, its inputs (numpy draws from a fixed seed), its weights
(drawn the same way and set with set_weights), the call's keyword arguments (masks
included), the outputs, the gradients of sum(output * cotangent) with respect to the float
inputs and to every weight, and the built layer's get_config().
"""

import json
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

keras = tf.keras
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "attention.json"
RNG = np.random.default_rng(11)


def rand(*shape, scale=1.0):
    return (RNG.uniform(-1.0, 1.0, shape) * scale).astype(np.float32)


def plain(value):
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if hasattr(value, "numpy"):
        return np.asarray(value).tolist()
    return value


def with_hole(shape, hole):
    """A random bool mask, True mostly; `hole` (an index) masked entirely."""
    mask = RNG.uniform(size=shape) > 0.3
    mask[..., 0] = True
    if hole is not None:
        mask[hole] = False
    return mask


# (config, shapes of query, value, key (None: key is value), call kwargs builder)
MHA = [
    ({"num_heads": 2, "key_dim": 4}, (2, 5, 8), "self", None, {}),
    ({"num_heads": 2, "key_dim": 4}, (2, 5, 8), "self", None,
     {"attention_mask": lambda: with_hole((2, 5, 5), (0, 1))}),
    ({"num_heads": 2, "key_dim": 4}, (2, 5, 8), "self", None,
     {"attention_mask": lambda: with_hole((2, 5, 5), (0, 1)),
      "return_attention_scores": True}),
    ({"num_heads": 3, "key_dim": 2, "value_dim": 3, "output_shape": 5},
     (2, 4, 6), (2, 3, 5), (2, 3, 7), {"use_causal_mask": True}),
    ({"num_heads": 2, "key_dim": 3, "use_bias": False}, (2, 4, 6), (2, 3, 6), None,
     {"value_mask": lambda: np.array([[1, 0, 1], [1, 1, 0]], bool)}),
    ({"num_heads": 2, "key_dim": 3}, (2, 4, 6), (2, 3, 6), None,
     {"attention_mask": lambda: with_hole((4, 3), None).astype(np.float32),
      "key_mask": lambda: np.array([[1, 1, 0], [1, 1, 1]], bool)}),
    ({"num_heads": 2, "key_dim": 2, "attention_axes": (2,)}, (2, 3, 4, 5), "self", None,
     {"return_attention_scores": True}),
    ({"num_heads": 2, "key_dim": 2, "attention_axes": (1, 2), "output_shape": (2, 3)},
     (1, 3, 2, 4), (1, 2, 2, 4), None, {}),
    ({"num_heads": 2, "key_dim": 3, "use_gate": True, "sliding_window": 2},
     (2, 5, 6), "self", None, {"use_causal_mask": True}),
    ({"num_heads": 2, "key_dim": 3, "dropout": 0.5}, (2, 4, 6), "self", None,
     {"training": False, "use_causal_mask": True}),
]

EINSUM = [
    ({"equation": "ab,bc->ac", "output_shape": 4, "bias_axes": "c"}, (3, 5)),
    ({"equation": "abc,cde->abde", "output_shape": (None, 2, 3), "bias_axes": "de"},
     (2, 4, 5)),
    ({"equation": "abc,cd->abd", "output_shape": (None, 3), "activation": "relu"},
     (2, 4, 5)),
    ({"equation": "...b,bc->...c", "output_shape": 3, "bias_axes": "c"}, (2, 3, 4, 5)),
    ({"equation": "ab...,bc->ac...", "output_shape": 3, "bias_axes": "c"}, (2, 4, 5)),
    ({"equation": "abcd,cde->abe", "output_shape": (None, 4), "bias_axes": "e"},
     (2, 3, 2, 5)),
]


# (class, config, shapes [query, value, key?], call kwargs builder)
DOT = [
    ("Attention", {}, [(2, 3, 4), (2, 5, 4)], {}),
    ("Attention", {"use_scale": True}, [(2, 3, 4), (2, 5, 4), (2, 5, 4)],
     {"mask": lambda: [np.array([[1, 0, 1], [1, 1, 1]], bool),
                       np.array([[1, 1, 0, 1, 0], [1, 0, 0, 0, 0]], bool)],
      "return_attention_scores": True}),
    ("Attention", {"score_mode": "concat"}, [(2, 4, 3), (2, 4, 3)],
     {"use_causal_mask": True, "return_attention_scores": True}),
    ("Attention", {"score_mode": "concat", "use_scale": True}, [(1, 3, 2), (1, 4, 2)],
     {"mask": lambda: [None, np.array([[1, 1, 0, 1]], bool)], "use_causal_mask": True}),
    ("Attention", {"dropout": 0.5}, [(2, 3, 4), (2, 5, 4)], {"training": False}),
    ("AdditiveAttention", {}, [(2, 3, 4), (2, 5, 4)],
     {"mask": lambda: [None, np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], bool)]}),
    ("AdditiveAttention", {"use_scale": False}, [(2, 4, 3), (2, 4, 3), (2, 4, 3)],
     {"use_causal_mask": True, "return_attention_scores": True}),
]


GQA = [
    ({"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2}, (2, 5, 6), "self",
     None, {}),
    ({"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1}, (2, 4, 6),
     (2, 3, 6), (2, 3, 5), {"attention_mask": lambda: with_hole((2, 4, 3), (1, 2)),
                            "return_attention_scores": True}),
    ({"head_dim": 2, "num_query_heads": 4, "num_key_value_heads": 4, "use_bias": False,
      "use_gate": True, "sliding_window": 2}, (1, 5, 4), "self", None,
     {"use_causal_mask": True}),
    ({"head_dim": 3, "num_query_heads": 2, "num_key_value_heads": 1}, (2, 4, 6), (2, 3, 6),
     None, {"attention_mask": lambda: with_hole((2, 4, 3), (0, 3)),
            "value_mask": lambda: np.array([[1, 1, 0], [1, 1, 1]], bool)}),
]


def gqa_cases():
    cases = []
    for config, q_shape, v_shape, k_shape, kwargs in GQA:
        layer = keras.layers.GroupQueryAttention(**config)
        query = rand(*q_shape)
        inputs = [query] if v_shape == "self" else [query, rand(*v_shape)]
        if k_shape is not None:
            inputs.append(rand(*k_shape))
        layer.build(q_shape, q_shape if v_shape == "self" else v_shape, k_shape)
        weights = [rand(*w.shape) for w in layer.weights]
        layer.set_weights(weights)
        call_kwargs = {k: v() if callable(v) else v for k, v in kwargs.items()}

        def call(tensors):
            args = tensors if len(tensors) > 1 else tensors * 2
            return layer(*args, **call_kwargs)
        outputs, cotangents, grads = grads_of(layer, inputs, call)
        cases.append({"layer": "GroupedQueryAttention", "config": config, "inputs": inputs,
                      "weights": weights, "kwargs": call_kwargs, "outputs": outputs,
                      "cotangents": cotangents, "grads": grads,
                      "weight_paths": [w.path for w in layer.weights],
                      "built_config": layer.get_config()})
    return cases


def dot_cases():
    cases = []
    for name, config, shapes, kwargs in DOT:
        layer = getattr(keras.layers, name)(**config)
        inputs = [rand(*s) for s in shapes]
        layer.build(shapes)
        weights = [rand(*w.shape) for w in layer.weights]
        layer.set_weights(weights)
        call_kwargs = {k: v() if callable(v) else v for k, v in kwargs.items()}
        outputs, cotangents, grads = grads_of(layer, inputs,
                                              lambda t: layer(list(t), **call_kwargs))
        cases.append({"layer": name, "config": config, "inputs": inputs,
                      "weights": weights, "kwargs": call_kwargs, "outputs": outputs,
                      "cotangents": cotangents, "grads": grads,
                      "weight_paths": [w.path for w in layer.weights],
                      "built_config": layer.get_config()})
    return cases


def grads_of(layer, inputs, call):
    """Outputs, and gradients of sum(outputs * cotangents) wrt inputs and weights."""
    tensors = [tf.constant(x) for x in inputs]
    with tf.GradientTape() as tape:
        tape.watch(tensors)
        outputs = call(tensors)
        flat = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        cotangents = [rand(*o.shape) for o in flat]
        total = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(flat, cotangents)])
    grads = tape.gradient(total, tensors + list(layer.trainable_weights))
    grads = [np.zeros(v.shape, np.float32) if g is None else g for g, v in
             zip(grads, tensors + list(layer.trainable_weights))]
    return flat, cotangents, grads


def mha_cases():
    cases = []
    for config, q_shape, v_shape, k_shape, kwargs in MHA:
        layer = keras.layers.MultiHeadAttention(**config)
        query = rand(*q_shape)
        inputs = [query] if v_shape == "self" else [query, rand(*v_shape)]
        if k_shape is not None:
            inputs.append(rand(*k_shape))
        layer.build(q_shape, q_shape if v_shape == "self" else v_shape, k_shape)
        weights = [rand(*w.shape) for w in layer.weights]
        layer.set_weights(weights)
        call_kwargs = {k: v() if callable(v) else v for k, v in kwargs.items()}

        def call(tensors):
            args = tensors if len(tensors) > 1 else tensors * 2
            return layer(*args, **call_kwargs)
        outputs, cotangents, grads = grads_of(layer, inputs, call)
        cases.append({"layer": "MultiHeadAttention", "config": config, "inputs": inputs,
                      "weights": weights, "kwargs": call_kwargs, "outputs": outputs,
                      "cotangents": cotangents, "grads": grads,
                      "weight_paths": [w.path for w in layer.weights],
                      "built_config": layer.get_config()})
    return cases


def einsum_cases():
    cases = []
    for config, shape in EINSUM:
        layer = keras.layers.EinsumDense(**config)
        x = rand(*shape)
        layer.build(shape)
        weights = [rand(*w.shape) for w in layer.weights]
        layer.set_weights(weights)
        outputs, cotangents, grads = grads_of(layer, [x], lambda t: layer(t[0]))
        cases.append({"layer": "EinsumDense", "config": config, "inputs": [x],
                      "weights": weights, "kwargs": {}, "outputs": outputs,
                      "cotangents": cotangents, "grads": grads,
                      "weight_paths": [w.path for w in layer.weights],
                      "built_config": layer.get_config()})
    return cases


def main():
    result = {"_made_by": f"keras {keras.__version__}", "mha": mha_cases(),
              "einsum_dense": einsum_cases(), "dot": dot_cases(),
              "gqa": gqa_cases()}
    OUT.write_text(json.dumps(plain(result), separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
