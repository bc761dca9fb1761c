"""TensorFlow Keras's side of the `fit` benchmark, run in ANOTHER interpreter.

`texflow bench --tf-python /path/to/tf-venv/bin/python` starts this file with that
interpreter (texflow never imports TensorFlow itself) and drives it over stdin/stdout:

    python keras_reference.py DATA.npz    ->  "ready <TensorFlow version>" after warm-up
    "steps N"  ->  "<ms per step>"         (fit over N batches of 64, shuffle off)
    "epoch"    ->  "<ms>"                  (fit over all the training images, shuffled)
    "quit" (or end of input)

It imports nothing from texflow: the same model, optimizer, batch and data as
texflow/bench/fit.py, written with TensorFlow's Keras.
"""

import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

BATCH = 64
WARM_UP = 2 * BATCH + 40


def seed_cnn(tf):
    """Seed 000's CNN in TensorFlow's Keras (`tf` is TensorFlow), compiled as the demo's."""
    model = tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(loss="sparse_categorical_crossentropy",
                  optimizer=tf.keras.optimizers.Adam(learning_rate=1e-3), metrics=["accuracy"])
    return model


def main(path):
    import numpy as np
    import tensorflow as tf

    with np.load(path) as data:
        x = (data["x_train"][..., None] / np.float32(255)).astype(np.float32)
        y = data["y_train"].astype(np.int32)
    tf.keras.utils.set_random_seed(0)
    model = seed_cnn(tf)

    def fit(n, shuffle):
        start = time.perf_counter()
        model.fit(x[:n], y[:n], batch_size=BATCH, epochs=1, verbose=0, shuffle=shuffle)
        return (time.perf_counter() - start) * 1e3

    fit(WARM_UP, False)
    print("ready", tf.__version__, flush=True)
    for line in sys.stdin:
        command = line.split()
        if not command or command[0] == "quit":
            break
        if command[0] == "steps":
            n = int(command[1])
            print(fit(BATCH * n, False) / n, flush=True)
        elif command[0] == "epoch":
            print(fit(len(x), True), flush=True)
        else:
            print(f"error: unknown command {line.strip()!r}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
