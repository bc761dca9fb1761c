"""Keras attention layers (MultiHeadAttention, EinsumDense, Attention,
AdditiveAttention, GroupQueryAttention) against real Keras 3.15 with
the same inputs and weights (tests/data/keras/attention.json, written by
scripts/make_keras_attention_fixtures.py): outputs, masks, attention scores, the
gradients with respect to inputs and weights, weight paths and get_config, on every
backend."""

import numpy as np

import keras_cases
import texflow as tf
from harness import each_backend
from keras_cases import arr, close

MHA_CASES = keras_cases.cases("mha", "attention.json")
EINSUM_CASES = keras_cases.cases("einsum_dense", "attention.json")
DOT_CASES = keras_cases.cases("dot", "attention.json")
GQA_CASES = keras_cases.cases("gqa", "attention.json")


def _kwargs(case):
    out = {}
    for name, value in case["kwargs"].items():
        if name == "mask":  # Attention's [query_mask, value_mask]
            value = [None if m is None else np.asarray(m) for m in value]
        elif name.endswith("mask"):
            value = np.asarray(value)
            value = value.astype(np.float32) if value.dtype.kind == "f" else value
        out[name] = value
    return out


def _replay(case, make):
    """Builds the layer, sets Keras's weights, and checks outputs and gradients."""
    layer = make()
    inputs = [arr(x) for x in case["inputs"]]
    kwargs = _kwargs(case)
    if isinstance(layer, (tf.keras.layers.MultiHeadAttention,
                          tf.keras.layers.GroupQueryAttention)):
        shapes = [x.shape for x in inputs]
        layer.build(shapes[0], shapes[1] if len(shapes) > 1 else shapes[0],
                    shapes[2] if len(shapes) > 2 else None)
    elif isinstance(layer, tf.keras.layers.Attention):
        layer.build([x.shape for x in inputs])
    else:
        layer.build(inputs[0].shape)
    # the layer's own name is numbered by what ran before; the rest is Keras's path
    assert [w.path.split("/", 1)[1] for w in layer.weights] == \
        [p.split("/", 1)[1] for p in case["weight_paths"]]
    layer.set_weights([arr(w) for w in case["weights"]])
    tensors = [tf.constant(x) for x in inputs]
    with tf.GradientTape() as tape:
        tape.watch(tensors)
        if isinstance(layer, tf.keras.layers.Attention):
            outputs = layer(list(tensors), **kwargs)
        elif len(tensors) == 1 and not isinstance(layer, tf.keras.layers.EinsumDense):
            outputs = layer(tensors[0], tensors[0], **kwargs)
        else:
            outputs = layer(*tensors, **kwargs)
        flat = list(outputs) if isinstance(outputs, tuple) else [outputs]
        total = tf.add_n([tf.reduce_sum(o * arr(c)) for o, c in zip(flat, case["cotangents"])])
    grads = tape.gradient(total, tensors + layer.trainable_weights)
    what = f"{case['layer']} {case['config']} {sorted(case['kwargs'])}"
    for mine, theirs in zip(flat, case["outputs"]):
        close(mine.numpy(), theirs, what=f"{what}: output")
    names = [f"input {i}" for i in range(len(tensors))] + case["weight_paths"]
    for name, mine, theirs in zip(names, grads, case["grads"]):
        close(mine.numpy(), theirs, what=f"{what}: gradient of {name}")
    config = layer.get_config()
    assert _plain(dict(config, name=None)) == dict(case["built_config"], name=None), what
    again = type(layer).from_config(config)
    assert again.get_config() == config


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@each_backend(case=MHA_CASES)
def test_multi_head_attention_matches_keras(case):
    _replay(case, lambda: tf.keras.layers.MultiHeadAttention(**case["config"]))


@each_backend(case=EINSUM_CASES)
def test_einsum_dense_matches_keras(case):
    _replay(case, lambda: tf.keras.layers.EinsumDense(**case["config"]))


@each_backend(case=DOT_CASES)
def test_attention_and_additive_attention_match_keras(case):
    _replay(case, lambda: getattr(tf.keras.layers, case["layer"])(**case["config"]))


@each_backend(case=GQA_CASES)
def test_group_query_attention_matches_keras(case):
    _replay(case, lambda: tf.keras.layers.GroupQueryAttention(**case["config"]))


def _transformer_block(seed):
    tf.keras.utils.set_random_seed(seed)
    x = tf.keras.Input((6, 8))
    h = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x, use_causal_mask=True)
    h = tf.keras.layers.LayerNormalization()(tf.keras.layers.Add()([x, h]))
    h = tf.keras.layers.Dense(8, activation="relu")(h)
    y = tf.keras.layers.Dense(1)(tf.keras.layers.GlobalAveragePooling1D()(h))
    return tf.keras.Model(x, y)


@each_backend
def test_a_transformer_block_trains_the_same_compiled_and_eagerly():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 6, 8)).astype(np.float32)
    y = x[:, :, :1].mean(axis=1)
    results = []
    for eager in (False, True):
        model = _transformer_block(5)
        model.compile(tf.keras.optimizers.Adam(0.01), "mse", run_eagerly=eager)
        history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
        results.append((history.history["loss"], model.get_weights()))
    (loss_c, w_c), (loss_e, w_e) = results
    assert loss_c[-1] < loss_c[0]  # it learns
    close(loss_c, loss_e, rtol=1e-4, atol=1e-5, what="loss, compiled vs eager")
    for a, b in zip(w_c, w_e):
        close(a, b, rtol=1e-3, atol=1e-4, what="weights, compiled vs eager")


@each_backend
def test_attention_layers_save_and_load():
    import os
    import tempfile

    tf.keras.utils.set_random_seed(1)
    q = tf.keras.Input((6, 8))
    h = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(q, q, use_causal_mask=True)
    h = tf.keras.layers.GroupQueryAttention(2, 4, 2, use_gate=True)(h, h)
    h = tf.keras.layers.Attention(use_scale=True, score_mode="concat")([h, q])
    h = tf.keras.layers.AdditiveAttention()([h, q])
    model = tf.keras.Model(q, tf.keras.layers.EinsumDense("abc,cd->abd", (None, 2))(h))
    for layer in model.layers:  # away from the initial values (AdditiveAttention's ones)
        layer.set_weights([w + 0.1 for w in layer.get_weights()])
    x = np.random.default_rng(0).normal(size=(2, 6, 8)).astype(np.float32)
    path = os.path.join(tempfile.mkdtemp(), "block.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    mha = [la for la in loaded.layers if isinstance(la, tf.keras.layers.MultiHeadAttention)]
    assert mha and mha[0].query_dense.kernel.shape == (8, 2, 4)
    close(loaded.predict(x, verbose=0), model.predict(x, verbose=0), what="reloaded model")
