#!/usr/bin/env python3
"""The numpy backend's Python cost per kernel call, eager and replayed (by hand).

    PYTHONPATH=py .venv/bin/python scripts/numpy_call_cost.py [label]

Prints, on one line: microseconds per eager op on tiny arrays (add, relu, matmul,
reduce_sum: nearly all of it Python), and a compiled MLP step (784-128-10, batch 64,
Adam) replayed: its ms and its ms outside the numpy backend's kernel calls (as
`texflow bench` splits it). Written to check that the kernels' calling convention
(fn(k, *inputs, **attrs), docs/ADDING_AN_OP.md) costs the hot path nothing measurable:
run two checkouts alternately (PYTHONPATH=OTHER/py) several times; on a shared machine
only the fastest runs mean anything.
"""

import sys
import time

import numpy as np

import texflow as tf
from texflow.backends.numpy import NumpyBackend


def per_call_us(fn, n=20000, reps=7):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def replayed_step_ms(runs=60):
    """(step ms, ms outside kernel calls) of the fastest of `runs` replays."""
    rng = np.random.default_rng(0)
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    model.build((None, 784))
    opt = tf.keras.optimizers.Adam(0.001)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x = tf.constant(rng.random((64, 784)).astype(np.float32))
    y = tf.constant(rng.integers(0, 10, 64).astype(np.int32))

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for _ in range(5):  # trace, then the replays that prepare the host program
        step(x, y)
    # The same timing of NumpyBackend.call as bench/compiled.py's _numpy_share, kept
    # here rather than imported: this script is run against older checkouts (A/B), which
    # have no shared helper to import.
    inside = [0.0]
    call = NumpyBackend.call

    def timed(self, *args):
        t0 = time.perf_counter()
        try:
            return call(self, *args)
        finally:
            inside[0] += time.perf_counter() - t0
    NumpyBackend.call = timed
    best = None
    try:
        for _ in range(runs):
            inside[0] = 0.0
            t0 = time.perf_counter()
            step(x, y)
            t = time.perf_counter() - t0
            if best is None or t < best[0]:
                best = (t, t - inside[0])
    finally:
        NumpyBackend.call = call
    return best[0] * 1e3, best[1] * 1e3


def main():
    tf.set_backend("numpy")
    rng = np.random.default_rng(0)
    a = tf.constant(rng.random(4).astype(np.float32))
    m = tf.constant(rng.random((2, 2)).astype(np.float32))
    row = {"add us": per_call_us(lambda: tf.add(a, a)),
           "relu us": per_call_us(lambda: tf.nn.relu(a)),
           "matmul us": per_call_us(lambda: tf.matmul(m, m)),
           "reduce_sum us": per_call_us(lambda: tf.reduce_sum(m, axis=0))}
    row["mlp step ms"], row["outside kernels ms"] = replayed_step_ms()
    label = sys.argv[1] if len(sys.argv) > 1 else ""
    print(label, " ".join(f"{k}={v:.3f}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
