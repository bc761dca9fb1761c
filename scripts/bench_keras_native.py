#!/usr/bin/env python3
"""Times one `fit` step of seed 000's MNIST CNN (batch 64, Adam) natively: texflow on
its numpy (and wgpu, when available) backend against TensorFlow Keras in the same run.

    PYTHONPATH=py /path/to/tf-venv/bin/python scripts/bench_keras_native.py
    .venv/bin/python scripts/bench_keras_native.py          # texflow only

Both train on the same 9,000 MNIST images (texflow's set-up caches them); each side runs
one warm-up epoch of `steps` steps, then the rounds alternate between the frameworks
(so load on the machine hits both alike) and the median ms/step of the rounds is kept.
Also prints the per-op split of texflow's numpy step (where the time goes).
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def seed_cnn(keras):
    return keras.Sequential([
        keras.layers.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10, activation="softmax")])


def mnist():
    import texflow as tf
    (x, y), _ = tf.keras.datasets.mnist.load_data()
    return (x[..., None] / np.float32(255)).astype(np.float32), y.astype(np.int32)


class Side:
    """One framework's model, compiled, with a `round()` that times `steps` fit steps."""

    def __init__(self, name, keras, x, y, steps, backend=None):
        self.name, self.keras, self.steps = name, keras, steps
        self.x, self.y = x[:64 * steps], y[:64 * steps]
        self.backend = backend
        self._use()
        self.model = seed_cnn(keras)
        self.model.compile(optimizer=keras.optimizers.Adam(1e-3),
                           loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        self.round()  # warm-up: builds, compiles kernels, traces (TensorFlow)
        self.times = []

    def _use(self):
        if self.backend is not None:
            import texflow as tf
            tf.set_backend(self.backend)

    def round(self):
        self._use()
        start = time.perf_counter()
        self.model.fit(self.x, self.y, batch_size=64, epochs=1, verbose=0, shuffle=False)
        return (time.perf_counter() - start) / self.steps * 1e3

    def measure(self):
        self.times.append(self.round())


def op_split(x, y, steps):
    """Where texflow's numpy step spends its time, by op (ms per step)."""
    import texflow as tf
    from texflow.backends import numpy as numpy_backend
    tf.set_backend("numpy")
    totals = {}
    original = numpy_backend.NumpyBackend.execute

    def timed(self, fn, inputs, out_shape, out_dtype, attrs, key):
        start = time.perf_counter()
        result = original(self, fn, inputs, out_shape, out_dtype, attrs, key)
        name = key[0].name
        totals[name] = totals.get(name, 0.0) + time.perf_counter() - start
        return result

    model = seed_cnn(tf.keras)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x[:64 * 2], y[:64 * 2], batch_size=64, verbose=0)
    numpy_backend.NumpyBackend.execute = timed
    try:
        start = time.perf_counter()
        model.fit(x[:64 * steps], y[:64 * steps], batch_size=64, verbose=0, shuffle=False)
        total = (time.perf_counter() - start) / steps * 1e3
    finally:
        numpy_backend.NumpyBackend.execute = original
    kernels = sum(totals.values()) / steps * 1e3
    print(f"\ntexflow numpy step: {total:.1f} ms, of which kernels {kernels:.1f} ms "
          f"(the rest is Python: layers, tape, optimizer, metrics)")
    print("| op | ms/step |\n|---|---:|")
    for name, seconds in sorted(totals.items(), key=lambda kv: -kv[1])[:12]:
        print(f"| {name} | {seconds / steps * 1e3:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="steps per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-wgpu", action="store_true")
    args = parser.parse_args()
    import texflow as tf
    x, y = mnist()
    sides = [Side("texflow numpy", tf.keras, x, y, args.steps, backend="numpy")]
    if not args.no_wgpu and "wgpu" in tf.available_backends():
        sides.append(Side("texflow wgpu", tf.keras, x, y, args.steps, backend="wgpu"))
    try:
        import tensorflow
        sides.append(Side(f"TensorFlow {tensorflow.__version__} Keras", tensorflow.keras, x, y,
                          args.steps))
    except ImportError:
        print("(TensorFlow is not importable here: texflow only)", file=sys.stderr)
    for _ in range(args.rounds):
        for side in sides:
            side.measure()
    reference = sides[-1] if sides[-1].backend is None else None
    print(f"seed 000 CNN, fit step, batch 64, Adam; median of {args.rounds} rounds of "
          f"{args.steps} steps (ms/step)\n")
    print("| framework | ms/step | vs TensorFlow Keras |\n|---|---:|---:|")
    ref = statistics.median(reference.times) if reference else None
    for side in sides:
        ms = statistics.median(side.times)
        ratio = f"{ms / ref:.2f}x" if ref else "-"
        print(f"| {side.name} | {ms:.1f} | {ratio} |")
    op_split(x, y, args.steps)


if __name__ == "__main__":
    main()
