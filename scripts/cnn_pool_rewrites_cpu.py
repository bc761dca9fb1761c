"""GPU-process CPU time of the MNIST CNN `fit` step (batch 64) in one page: eager,
compiled without the pooling rewrites (autodiff/trace_rewrite.py `POOL_TAPS_LANGUAGES`
less this backend's language) and compiled with them, in interleaved rounds (by hand):

    .venv/bin/python scripts/browser_cpu_time.py scripts/cnn_pool_rewrites_cpu.py \\
        --backend webgpu

browser_cpu_time.py prints each variant's GPU-process CPU ms per STEPS steps; this
script prints their wall ms per step (noisy on a loaded machine: the CPU time is the
figure to compare).
"""

import asyncio
import statistics
import time

import texflow as tf
from texflow.autodiff import trace_rewrite
from texflow.bench.fit import mnist, seed_cnn
from texflow.engine import context

STEPS, ROUNDS = 3, 6
backend = context.current()
x, y = mnist()


def make(eagerly):
    tf.keras.utils.set_random_seed(0)
    model = seed_cnn(tf.keras)
    model.compile(loss="sparse_categorical_crossentropy", run_eagerly=eagerly,
                  metrics=["accuracy"], optimizer=tf.keras.optimizers.Adam(learning_rate=1e-3))
    return model


def fit(model, n):
    start = time.perf_counter()
    model.fit(x[:64 * n], y[:64 * n], batch_size=64, verbose=0, shuffle=False)
    backend.sync()
    return (time.perf_counter() - start) / n * 1e3


async def main():
    languages = trace_rewrite.POOL_TAPS_LANGUAGES
    had = backend.language in languages
    models = {}
    try:  # each model traces (and rewrites) its step in its first fit
        for name, on in (("eager", None), ("compiled_without", False), ("compiled_with", True)):
            (languages.add if on else languages.discard)(backend.language)
            models[name] = make(on is None)
            fit(models[name], 2)
    finally:
        (languages.add if had else languages.discard)(backend.language)
    walls = {name: [] for name in models}
    for _ in range(ROUNDS):
        for name, model in models.items():
            print(f"MARK begin {name}", flush=True)
            await asyncio.sleep(0.15)
            walls[name].append(fit(model, STEPS))
            await asyncio.sleep(0.15)
            print(f"MARK end {name}", flush=True)
    for name, ms in walls.items():
        print(f"{name}: wall ms per step, median {statistics.median(ms):.1f}, "
              f"best {min(ms):.1f}")

await main()  # noqa: F704 (run-browser runs the file with top-level await)
