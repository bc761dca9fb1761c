"""A/B in one page (by hand): issue 11's MLP step (784-128-10, batch 64, Keras Adam)
eager, compiled with the multi-output epilogue and constant folding turned off (main's
fusion before them), and compiled as it is; 16 rounds of 8 steps each read back, the
order alternating per round.

    .venv/bin/python scripts/browser_cpu_time.py scripts/mlp_fusion_ab.py --backend webgl

Prints launches per step, wall ms per step (median, least) and the compiled / eager
ratios of the medians; browser_cpu_time.py adds GPU-process CPU per mark (8 steps).
"""

import asyncio
import statistics
import time

import numpy as np
import texflow as tf
from texflow.engine import context
from texflow.autodiff import compiled as compiled_mod
from texflow.autodiff import fusion_epilogue

backend = context.current()
rng = np.random.default_rng(0)
features = tf.constant(rng.random((64, 784)).astype(np.float32))
labels = tf.constant(rng.integers(0, 10, 64).astype(np.int32))
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
tf.keras.utils.set_random_seed(1)
model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"),
                             tf.keras.layers.Dense(10)])
model.build((None, 784))
opt = tf.keras.optimizers.Adam(0.001)


def raw(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


saved = set(fusion_epilogue.MULTI_EPILOGUE_LANGUAGES)
fold = compiled_mod.fold_constants
fusion_epilogue.MULTI_EPILOGUE_LANGUAGES.clear()
compiled_mod.fold_constants = lambda steps, *a: steps
off = tf.function(raw)
for _ in range(3):
    off(features, labels)
fusion_epilogue.MULTI_EPILOGUE_LANGUAGES.update(saved)
compiled_mod.fold_constants = fold
on = tf.function(raw)
for _ in range(3):
    on(features, labels)
cases = {"eager": raw, "off": off, "on": on}
for name, f in cases.items():
    before = tf.memory()["num_launches"]
    f(features, labels).numpy()
    print(name, "launches", tf.memory()["num_launches"] - before)
walls = {k: [] for k in cases}
N = 8


async def main():
    for r in range(16):
        order = list(cases.items())
        if r % 2:
            order = order[::-1]
        for name, f in order:
            backend.sync()
            print(f"MARK begin {name}", flush=True)
            await asyncio.sleep(0.1)
            t0 = time.perf_counter()
            for _ in range(N):
                f(features, labels).numpy()
            walls[name].append((time.perf_counter() - t0) * 1000 / N)
            backend.sync()
            await asyncio.sleep(0.1)
            print(f"MARK end {name}", flush=True)
    for k, v in walls.items():
        print(f"wall {k}: median {statistics.median(v):.2f} least {min(v):.2f} ms/step")
    e = statistics.median(walls["eager"])
    print("ratio off %.3f on %.3f" % (statistics.median(walls["off"]) / e,
                                       statistics.median(walls["on"]) / e))


await main()  # noqa: F704 (texflow run-browser runs the file with top-level await)
