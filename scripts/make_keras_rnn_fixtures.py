#!/usr/bin/env python3
"""Writes tests/data/keras/rnn.json: what real Keras 3 computes with its recurrent layers.

Run by hand with TensorFlow 2.21 / Keras 3 in a separate virtual environment (never a
test dependency):

    $TF_PYTHON scripts/make_keras_rnn_fixtures.py

For each case (LSTM, GRU, SimpleRNN, Bidirectional, RNN over a cell, a cell alone) it
stores the inputs, the weights given to `set_weights`, the outputs in inference mode,
and the gradients of `sum(output_k * coef_k)` with respect to the inputs and every
weight. It also records the layers' default `get_config()` and a small `.keras` archive
saved by Keras (base64) with the output its model gives, so texflow's loader is checked
against a file Keras wrote. texflow reads safetensors weights (h5py does not run in
Pyodide), so the archive's `model.weights.h5` is rewritten, key for key and value for
value, as `model.weights.safetensors`; everything else is Keras's.
"""

import base64
import json
import os
import tempfile
import zipfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

keras = tf.keras
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "rnn.json"
RNG = np.random.default_rng(11)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


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


MASK = [[1, 1, 1, 0, 0], [1, 0, 1, 1, 1], [0, 1, 1, 1, 0]]
# (source making the layer, input shape, extras: "state" (initial states), "mask")
CASES = [
    ("LSTM(3)", (2, 5, 4), ()),
    ("LSTM(3, return_sequences=True, return_state=True)", (2, 5, 4), ()),
    ("LSTM(2, go_backwards=True, return_sequences=True, use_bias=False, "
     "activation='relu', recurrent_activation='hard_sigmoid')", (3, 4, 2), ()),
    ("LSTM(3, return_sequences=True, return_state=True, unroll=True)", (2, 5, 4),
     ("state", "mask")),
    ("LSTM(3, go_backwards=True, return_state=True)", (2, 5, 4), ("mask",)),
    ("GRU(3)", (2, 5, 4), ()),
    ("GRU(3, return_sequences=True, return_state=True)", (2, 5, 4), ("state",)),
    ("GRU(2, reset_after=False, go_backwards=True, return_sequences=True)", (3, 4, 2), ()),
    ("GRU(3, reset_after=False, use_bias=False, activation='relu')", (2, 5, 4), ()),
    ("GRU(3, return_sequences=True)", (2, 5, 4), ("mask",)),
    ("SimpleRNN(3)", (2, 5, 4), ()),
    ("SimpleRNN(3, return_sequences=True, return_state=True, activation='relu')",
     (2, 5, 4), ("state",)),
    ("SimpleRNN(2, go_backwards=True, return_sequences=True, use_bias=False)", (3, 4, 2),
     ("mask",)),
    ("Bidirectional(LSTM(3, return_sequences=True))", (2, 5, 4), ()),
    ("Bidirectional(GRU(2), merge_mode='sum')", (2, 5, 4), ()),
    ("Bidirectional(SimpleRNN(2, return_sequences=True), merge_mode='mul')", (2, 5, 4), ()),
    ("Bidirectional(LSTM(2), merge_mode='ave')", (2, 5, 4), ()),
    ("Bidirectional(GRU(2, return_sequences=True), merge_mode=None)", (2, 5, 4), ()),
    ("Bidirectional(LSTM(2, return_state=True))", (2, 5, 4), ()),
    ("Bidirectional(LSTM(2, return_sequences=True))", (2, 5, 4), ("mask",)),
    ("RNN(LSTMCell(3), return_sequences=True)", (2, 5, 4), ()),
    ("RNN(GRUCell(3, reset_after=False))", (2, 5, 4), ()),
    ("RNN(SimpleRNNCell(3), return_sequences=True, zero_output_for_mask=True)", (2, 5, 4),
     ("mask",)),
]


def state_shapes(layer, batch):
    cells = [layer.forward_layer.cell, layer.backward_layer.cell] if hasattr(
        layer, "forward_layer") else [layer.cell]
    return [(batch, s) for c in cells for s in np.atleast_1d(c.state_size)]


def layer_case(source, shape, extras):
    layer = eval(source, {}, vars(keras.layers))  # noqa: S307 (our own table)
    x = rand(*shape)
    layer.build(shape)
    weights = [rand(*w.shape) for w in layer.weights]
    layer.set_weights(weights)
    kwargs = {}
    state = [rand(*s) for s in state_shapes(layer, shape[0])] if "state" in extras else None
    mask = [row[:shape[1]] for row in MASK[:shape[0]]] if "mask" in extras else None
    if mask:
        kwargs["mask"] = tf.constant(np.array(mask, bool))
    xt = tf.constant(x)
    st = [tf.constant(s) for s in state] if state else None
    with tf.GradientTape() as tape:
        tape.watch(xt)
        if st:
            tape.watch(st)
        out = layer(xt, initial_state=st, **kwargs) if st else layer(xt, **kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        coefs = [rand(*o.shape) for o in outs]
        loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outs, coefs)])
    grads = tape.gradient(loss, [xt] + (st or []) + layer.weights)
    return {"source": source, "input": x, "weights": weights, "state": state,
            "mask": mask, "outputs": outs,
            "coefs": coefs, "grad_input": grads[0],
            "grad_state": grads[1:1 + len(st or [])],
            "grad_weights": grads[1 + len(st or []):],
            "weight_names": [w.path for w in layer.weights]}


def cell_cases():
    out = []
    for source, states in (("LSTMCell(3)", 2), ("GRUCell(3)", 1), ("SimpleRNNCell(3)", 1)):
        cell = eval(source, {}, vars(keras.layers))  # noqa: S307
        x = rand(2, 4)
        cell.build((2, 4))
        weights = [rand(*w.shape) for w in cell.weights]
        cell.set_weights(weights)
        state = [rand(2, 3) for _ in range(states)]
        y, new = cell(x, state)
        out.append({"source": source, "input": x, "weights": weights, "state": state,
                    "output": y, "new_state": list(new)})
    return out


CONFIGS = ["LSTM(4)", "GRU(4)", "SimpleRNN(4)", "LSTMCell(4)", "GRUCell(4)",
           "SimpleRNNCell(4)", "RNN(LSTMCell(4))", "Bidirectional(LSTM(4))",
           "LSTM(4, dropout=0.25, recurrent_dropout=0.5, seed=3, go_backwards=True)"]


def initial_bias():
    lstm = keras.layers.LSTM(2)
    lstm.build((1, 3, 2))
    return [w.numpy() for w in lstm.weights][2]


def h5_to_safetensors(data):
    """The bytes of a safetensors file holding every dataset of an HDF5 file (keys are the
    datasets' paths, as texflow names weights)."""
    import io

    import h5py
    tensors = {}
    with h5py.File(io.BytesIO(data), "r") as f:
        f.visititems(lambda name, obj: tensors.__setitem__(name, np.asarray(obj))
                     if isinstance(obj, h5py.Dataset) else None)
    header, blobs, offset = {}, [], 0
    for key in sorted(tensors):
        value = np.ascontiguousarray(tensors[key])
        kind = {"float32": "F32", "int64": "I64", "int32": "I32"}[value.dtype.name]
        header[key] = {"dtype": kind, "shape": list(value.shape),
                       "data_offsets": [offset, offset + value.nbytes]}
        blobs.append(value.tobytes())
        offset += value.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + b"".join(blobs)


def safetensors_archive(path):
    out = io_bytes = __import__("io").BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            if name == "model.weights.h5":
                dst.writestr("model.weights.safetensors", h5_to_safetensors(src.read(name)))
            else:
                dst.writestr(name, src.read(name))
    return io_bytes.getvalue()


def archive_case():
    model = keras.Sequential([keras.Input((5, 4)),
                              keras.layers.LSTM(3, return_sequences=True),
                              keras.layers.Bidirectional(keras.layers.GRU(2)),
                              keras.layers.Dense(1)])
    model.set_weights([rand(*w.shape) for w in model.weights])
    x = rand(2, 5, 4)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "rnn.keras")
        model.save(path)
        data = safetensors_archive(path)
    return {"archive": base64.b64encode(data).decode(), "input": x,
            "output": model.predict(x, verbose=0),
            "weight_paths": [w.path for w in model.weights]}


def main():
    fixtures = {
        "layers": [layer_case(*c) for c in CASES],
        "cells": cell_cases(),
        "configs": {s: eval(s, {}, vars(keras.layers)).get_config()  # noqa: S307
                    for s in CONFIGS},
        "lstm_initial_bias": initial_bias(),
        "archive": archive_case(),
    }
    OUT.write_text(json.dumps(plain(fixtures)))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
