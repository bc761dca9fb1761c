"""Recurrent layers (LSTM, GRU, SimpleRNN, Bidirectional, RNN over a cell, the cells)
against what real Keras 3 computed with the same weights (tests/data/keras/rnn.json,
written by scripts/make_keras_rnn_fixtures.py): outputs, gradients with respect to
inputs, initial states and weights, weight paths, default configs, and a `.keras`
archive Keras saved; plus dropout against a numpy LSTM with the same masks and `fit`
compiled against eager, on every backend."""

import base64
import os
import re
import tempfile

import numpy as np

import keras_cases
import texflow as tf
from harness import each_backend, raises
from keras_cases import arr, close

CASES = keras_cases.cases("layers", "rnn.json")
CELLS = keras_cases.cases("cells", "rnn.json")
CONFIGS = [[k, v] for k, v in keras_cases.cases("configs", "rnn.json").items()] \
    if CASES else []
ARCHIVE = [keras_cases.cases("archive", "rnn.json")] if CASES else []
BIAS = [keras_cases.cases("lstm_initial_bias", "rnn.json")] if CASES else []


def _make(source):
    return eval(source, {}, vars(tf.keras.layers))  # noqa: S307 (the fixture's table)


def _unnumbered(path):
    return re.sub(r"_\d+(?=/|$)", "", path)


@each_backend(case=CASES)
def test_recurrent_layer_matches_keras(case):
    layer = _make(case["source"])
    x = tf.constant(arr(case["input"]))
    layer.build(tuple(x.shape))
    layer.set_weights([arr(w) for w in case["weights"]])
    assert [_unnumbered(w.path) for w in layer.weights] == \
        [_unnumbered(p) for p in case["weight_names"]]
    kwargs = {}
    states = [tf.constant(arr(s)) for s in case["state"] or []]
    if states:
        kwargs["initial_state"] = states
    if case["mask"] is not None:
        kwargs["mask"] = np.asarray(case["mask"], bool)
    with tf.GradientTape() as tape:
        tape.watch(x)
        for s in states:
            tape.watch(s)
        out = layer(x, **kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        loss = tf.add_n([tf.reduce_sum(o * arr(c)) for o, c in zip(outs, case["coefs"])])
    assert len(outs) == len(case["outputs"])
    for k, (mine, theirs) in enumerate(zip(outs, case["outputs"])):
        close(mine.numpy(), theirs, what=f"{case['source']} output {k}")
    grads = tape.gradient(loss, [x] + states + layer.weights)
    wanted = [case["grad_input"]] + case["grad_state"] + case["grad_weights"]
    for k, (mine, theirs) in enumerate(zip(grads, wanted)):
        close(mine.numpy(), theirs, what=f"{case['source']} gradient {k}")


@each_backend(case=CELLS)
def test_cell_step_matches_keras(case):
    cell = _make(case["source"])
    cell.build((2, 4))
    cell.set_weights([arr(w) for w in case["weights"]])
    y, new = cell(arr(case["input"]), [tf.constant(arr(s)) for s in case["state"]])
    close(y.numpy(), case["output"], what=f"{case['source']} output")
    new = new if isinstance(new, (list, tuple)) else [new]
    for mine, theirs in zip(new, case["new_state"]):
        close(mine.numpy(), theirs, what=f"{case['source']} state")


def _unnamed(config):
    if isinstance(config, dict):
        return {k: _unnamed(v) for k, v in config.items() if k != "name"}
    return config


@each_backend(case=CONFIGS)
def test_config_matches_keras_and_round_trips(case):
    source, theirs = case
    layer = _make(source)
    assert _unnamed(layer.get_config()) == _unnamed(theirs)
    again = type(layer).from_config(theirs)
    assert again.get_config() == theirs


@each_backend(bias=BIAS)
def test_lstm_forget_gate_bias_starts_at_one(bias):
    lstm = tf.keras.layers.LSTM(2)
    lstm.build((1, 3, 2))
    close(lstm.get_weights()[2], bias, what="initial bias")
    assert lstm.get_weights()[1].shape == (2, 8)
    w = lstm.get_weights()[1]  # orthogonal recurrent kernel: orthonormal rows
    close(w @ w.T, np.eye(2), atol=1e-5, what="W W^T")


@each_backend(case=ARCHIVE)
def test_loads_an_archive_keras_saved(case):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "rnn.keras")
        with open(path, "wb") as f:
            f.write(base64.b64decode(case["archive"]))
        model = tf.keras.models.load_model(path)
        close(model.predict(arr(case["input"]), verbose=0), case["output"], what="predict")
        assert [_unnumbered(w.path) for w in model.weights] == \
            [_unnumbered(p) for p in case["weight_paths"]]
        again = os.path.join(folder, "again.keras")
        model.save(again)
        close(tf.keras.models.load_model(again).predict(arr(case["input"]), verbose=0),
              case["output"], what="predict after texflow saved it")


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _numpy_lstm(x, kernel, recurrent, bias, dp, rec):
    """Keras's LSTM recurrence in numpy; dp/rec: per-gate masks (4, batch, n) or None."""
    batch, steps, _ = x.shape
    units = recurrent.shape[0]
    h = np.zeros((batch, units), np.float32)
    c = np.zeros((batch, units), np.float32)
    for t in range(steps):
        xt = x[:, t]
        blocks = []
        for k in range(4):
            cols = slice(k * units, (k + 1) * units)
            xk = xt if dp is None else xt * dp[k]
            hk = h if rec is None else h * rec[k]
            blocks.append(xk @ kernel[:, cols] + hk @ recurrent[:, cols])
        z = np.concatenate(blocks, axis=1) + bias
        i, f, g, o = np.split(z, 4, axis=1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
    return h


@each_backend
def test_lstm_dropout_uses_one_mask_per_gate_for_the_whole_sequence():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 4, 3)).astype(np.float32)
    lstm = tf.keras.layers.LSTM(2, dropout=0.4, recurrent_dropout=0.3, seed=5)
    lstm.build(x.shape)
    weights = [rng.uniform(-1, 1, w.shape).astype(np.float32) for w in lstm.get_weights()]
    lstm.set_weights(weights)
    close(lstm(x).numpy(), _numpy_lstm(x, *weights, None, None), what="inference")
    masks = np.random.default_rng(5)  # the layer's generator: input masks, then recurrent
    dp = (masks.random((4, 2, 3)) >= 0.4) / 0.6
    rec = (masks.random((4, 2, 2)) >= 0.3) / 0.7
    close(lstm(x, training=True).numpy(), _numpy_lstm(x, *weights, dp, rec),
          what="training")


def _model(weights=None):
    model = tf.keras.Sequential([tf.keras.Input((5, 3)), tf.keras.layers.LSTM(4),
                                 tf.keras.layers.Dense(1)])
    if weights is not None:
        model.set_weights(weights)
    return model


@each_backend
def test_lstm_fit_compiled_gives_eager_results():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (8, 5, 3)).astype(np.float32)
    y = x.sum(axis=(1, 2))[:, None]
    start = _model().get_weights()
    results = []
    for eager in (True, False):
        model = _model(start)
        model.compile(tf.keras.optimizers.Adam(0.05), "mse", run_eagerly=eager)
        history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
        results.append((history.history["loss"], model.get_weights()))
    close(results[1][0], results[0][0], what="losses")
    assert results[0][0][-1] < results[0][0][0]
    for mine, theirs in zip(results[1][1], results[0][1]):
        close(mine, theirs, atol=1e-5, what="weights")


@each_backend
def test_functional_model_with_states_saves_and_loads():
    inputs = tf.keras.Input((4, 2))
    seq, h, c = tf.keras.layers.LSTM(3, return_sequences=True, return_state=True)(inputs)
    assert seq.shape == (None, 4, 3) and h.shape == (None, 3) and c.shape == (None, 3)
    both = tf.keras.layers.Bidirectional(tf.keras.layers.GRU(2), merge_mode=None)(seq)
    assert [t.shape for t in both] == [(None, 2), (None, 2)]
    model = tf.keras.Model(inputs, [tf.keras.layers.Concatenate()(both), h])
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 4, 2)
    want = [o.numpy() for o in model(x)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.keras")
        model.save(path)
        again = tf.keras.models.load_model(path)
    for mine, theirs in zip(again(x), want):
        close(mine.numpy(), theirs, what="reloaded model")


@each_backend
def test_bad_arguments_are_named():
    with raises(ValueError, match="stateful"):
        tf.keras.layers.LSTM(2, stateful=True)
    with raises(ValueError, match="units"):
        tf.keras.layers.GRU(0)
    with raises(ValueError, match="merge mode"):
        tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), merge_mode="max")
    with raises(ValueError, match="mask"):
        tf.keras.layers.SimpleRNN(2)(np.ones((2, 3, 1), np.float32),
                                     mask=np.ones((2, 4), bool))
    with raises(ValueError, match="ndim|rank|dimension"):
        tf.keras.layers.LSTM(2)(np.ones((2, 3), np.float32))
