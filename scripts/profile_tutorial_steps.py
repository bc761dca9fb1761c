"""Times one training step of the two multi-worker tutorials' models side by side, in one
process, so that their ratio is measured under the same load (run by hand; in a page:
`texflow run-browser scripts/profile_tutorial_steps.py --backend webgl`, or natively,
optionally with a backend name: `python scripts/profile_tutorial_steps.py numpy`).

Seed 000's Keras CNN (Conv2D, MaxPooling2D, Dense(64): 0.35M weights) and seed 004's
custom-loop CNN (scripts/tutorials/mnist.py: Conv2D, no pooling, Dense(128) over 21,632
features: 2.77M weights), each with SGD and with RMSprop (seed 004's optimizer), as the
same `tf.function` step on a batch of 64; then seed 000's own `fit` step. Prints each
case's median step, its ratio to seed 000's CNN with SGD, and the launches, downloads
and uploads of one step (`tf.memory()`).
"""

import statistics
import sys
import time

import numpy as np

import texflow as tf

ROUNDS = 4


def keras_cnn(softmax=False):
    """Seed 000's model (logits unless `softmax`)."""
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax" if softmax else None)])


def ctl_cnn():
    """Seed 004's model (scripts/tutorials/mnist.py, on [28, 28, 1] images)."""
    return tf.keras.Sequential([
        tf.keras.Input(shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"), tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"), tf.keras.layers.Dense(10)])


def compiled_step(model, optimizer):
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def counted(fn):
    """(seconds, {launches, downloads, uploads}) of fn() with its result read."""
    before = tf.memory()
    t0 = time.perf_counter()
    float(fn())
    seconds = time.perf_counter() - t0
    after = tf.memory()
    return seconds, {k: after[k] - before[k]
                     for k in ("num_launches", "num_downloads", "num_uploads")}


def main():
    if len(sys.argv) > 1:
        tf.set_backend(sys.argv[1])
    rng = np.random.RandomState(0)
    x = tf.constant(rng.rand(64, 28, 28, 1).astype(np.float32))
    y = tf.constant(rng.randint(0, 10, 64).astype(np.int64))
    cases = {}
    for name, build in (("seed 000 CNN", keras_cnn), ("seed 004 CNN", ctl_cnn)):
        for opt in ("SGD", "RMSprop"):
            optimizer = getattr(tf.keras.optimizers, opt)(learning_rate=0.001)
            cases[f"{name} + {opt}"] = compiled_step(build(), optimizer)
    for step in cases.values():  # traced, then one replay
        for _ in range(2):
            float(step(x, y))
    times, counts = {k: [] for k in cases}, {}
    for _ in range(ROUNDS):  # interleaved, so that the load changes touch every case alike
        for name, step in cases.items():
            seconds, counts[name] = counted(lambda: step(x, y))
            times[name].append(seconds)
    model = keras_cnn(softmax=True)
    model.compile(loss=tf.keras.losses.sparse_categorical_crossentropy,
                  optimizer=tf.keras.optimizers.SGD(learning_rate=0.001),
                  metrics=["accuracy"])
    fit_times = []

    class Timer(tf.keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            self.t0 = time.perf_counter()

        def on_train_batch_end(self, batch, logs=None):
            float(logs["loss"])
            fit_times.append(time.perf_counter() - self.t0)
    xs, ys = np.concatenate([x.numpy()] * (ROUNDS + 2)), np.concatenate([y.numpy()] *
                                                                         (ROUNDS + 2))
    model.fit(xs, ys, batch_size=64, epochs=1, verbose=0, callbacks=[Timer()])
    times["seed 000 fit (its own step)"] = fit_times[2:]
    base = statistics.median(times["seed 000 CNN + SGD"])
    print(f"backend {tf.get_backend()}; batch 64; median of {ROUNDS} steps")
    print("| case | step ms | vs seed 000 CNN + SGD | launches | downloads | uploads |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, seconds in times.items():
        med = statistics.median(seconds)
        c = counts.get(name)
        cols = (" | ".join(str(c[k]) for k in ("num_launches", "num_downloads",
                                                "num_uploads")) if c else "- | - | -")
        print(f"| {name} | {med * 1e3:.0f} | {med / base:.2f}x | {cols} |", flush=True)


if __name__ == "__main__":
    main()
