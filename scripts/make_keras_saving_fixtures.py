#!/usr/bin/env python3
"""Writes tests/data/keras/saving.json: what Keras 3 writes when it saves models.

Run by hand in a separate virtual environment with TensorFlow 2.21 / Keras 3 (never a
test dependency):

    /path/to/tf-venv/bin/python scripts/make_keras_saving_fixtures.py

For each model below (source valid with `keras` being Keras 3 or texflow's
tf.keras), it records the keys and shapes of the `.weights.h5` file Keras writes
after one step of training, and the top-level layout of its `.keras` archive
(file names, config.json's keys, compile_config's keys). tests/unit/
test_keras_saving.py builds the same models in texflow and compares.
"""

import json
import os
import tempfile
import zipfile
from pathlib import Path

import h5py
import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "saving.json"

MODELS = {
    "sequential": """
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                          keras.layers.BatchNormalization(), keras.layers.Dense(2),
                          keras.layers.Dense(2)])
model.compile(keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
x, y = np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)
""",
    "functional": """
a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
h = keras.layers.Concatenate()([keras.layers.Dense(4, activation="relu")(a), b])
model = keras.Model([a, b], [keras.layers.Dense(1, name="reg")(h),
                             keras.layers.Dense(3, activation="softmax", name="cls")(h)])
model.compile(keras.optimizers.RMSprop(0.01, momentum=0.9),
              loss=["mse", "sparse_categorical_crossentropy"])
x = [np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)]
y = [np.ones((4, 1), np.float32), np.zeros((4,), np.int32)]
""",
    "subclassed": """
class Blocks(keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [keras.layers.Dense(2), keras.layers.Dense(2)]
        self.norm = keras.layers.BatchNormalization()
        self.head = keras.layers.Dense(1)

    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))

model = Blocks()
model(np.ones((1, 2), np.float32))
model.compile(keras.optimizers.SGD(0.1, momentum=0.5), "mse",
              metrics=[keras.metrics.MeanAbsoluteError()])
x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
""",
    "attention": """
q, v = keras.Input((5, 6)), keras.Input((3, 4))
h = keras.layers.MultiHeadAttention(2, 3, use_gate=True)(q, v, use_causal_mask=True)
h = keras.layers.MultiHeadAttention(2, 4, use_bias=False, output_shape=2)(h, h)
h = keras.layers.GroupQueryAttention(2, 2, 1, use_gate=True)(h, h)
model = keras.Model([q, v], keras.layers.EinsumDense("abc,cd->abd", (None, 1),
                                                    bias_axes="d")(h))
model.compile(keras.optimizers.Adam(0.01), "mse")
x = [np.ones((4, 5, 6), np.float32), np.ones((4, 3, 4), np.float32)]
y = np.ones((4, 5, 1), np.float32)
""",
}


def h5_keys(path):
    out = {}

    def walk(group, prefix):
        for key, value in group.items():
            if hasattr(value, "items"):
                walk(value, prefix + key + "/")
            else:
                out[prefix + key] = list(value.shape)
    with h5py.File(path, "r") as f:
        walk(f, "")
    return out


def main():
    result = {}
    directory = tempfile.mkdtemp()
    for name, source in MODELS.items():
        scope = {"keras": keras, "np": np}
        exec(source, scope)
        model = scope["model"]
        model.fit(scope["x"], scope["y"], epochs=1, batch_size=4, verbose=0)
        weights = os.path.join(directory, f"{name}.weights.h5")
        model.save_weights(weights)
        archive = os.path.join(directory, f"{name}.keras")
        model.save(archive)
        with zipfile.ZipFile(archive) as z:
            config = json.loads(z.read("config.json"))
            files = z.namelist()
        result[name] = {"source": source, "weights": h5_keys(weights), "files": files,
                        "config_keys": sorted(config),
                        "compile_config_keys": sorted(config["compile_config"])}
    result["_made_by"] = f"keras {keras.__version__}"
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
