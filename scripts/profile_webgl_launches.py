"""GPU-process CPU time of each launch of a replayed MLP training step on WebGL (by hand).

    .venv/bin/python scripts/browser_cpu_time.py scripts/profile_webgl_launches.py \
        --backend webgl

The step is issue 11's (784-128-10, batch 64, Keras Adam, through tf.function). After
a few replays, each launch of its launch program (autodiff/replay.py) runs alone 10
times between marks, `ROUNDS` times, then the whole step 10 times; browser_cpu_time.py
prints each mark's GPU-process CPU (subtract the `idle` mark: the marks' own sleeps and
sync). Launches run on the registers the last replay left, so their inputs are that
replay's textures. The listing names each launch's program (its cache key), output
viewport in texels and its output and input counts.
"""

import array
import asyncio

import numpy as np

import texflow as tf
from texflow.engine import context

ROUNDS = 3
backend = context.current()
keys, plan_keys, captured = {}, {}, {}
plain_program, plain_add = backend.program, backend.add_program


def program(key, source, num_inputs):
    pid = plain_program(key, source, num_inputs)
    keys[pid] = key
    return pid


class _JS:
    """The runtime object, noting which program each launch plan runs."""

    def __init__(self, js):
        self._js = js

    def __getattr__(self, name):
        return getattr(self._js, name)

    def addPlan(self, prog, w, rows, *rest):  # noqa: N802 (the JS name)
        plan_id = self._js.addPlan(prog, w, rows, *rest)
        plan_keys[plan_id] = (keys.get(prog), w, rows)
        return plan_id


def add_program(records, number, num_registers):
    pid, offsets = plain_add(records, number, num_registers)
    captured["program"] = (pid, offsets, records)
    return pid, offsets


backend.program, backend.js, backend.add_program = program, _JS(backend.js), add_program
rng = np.random.default_rng(0)
features = tf.constant(rng.random((64, 784)).astype(np.float32))
labels = tf.constant(rng.integers(0, 10, 64).astype(np.int32))
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
tf.keras.utils.set_random_seed(1)
model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"),
                             tf.keras.layers.Dense(10)])
model.build((None, 784))
opt = tf.keras.optimizers.Adam(0.001)


@tf.function
def step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for _ in range(4):
    step(features, labels)
backend.sync()
pid, offsets, records = captured["program"]
print(f"{len(records)} launches")
for i, (plan_id, outs, ins, _, _) in enumerate(records):
    key, w, rows = plan_keys[plan_id]
    print(f"L{i:02d} {str(key)[:100]} {w}x{rows} outputs {len(outs)} inputs {len(ins)}")


async def mark(name, run):
    backend.sync()
    print(f"MARK begin {name}", flush=True)
    await asyncio.sleep(0.1)
    run()
    backend.sync()
    await asyncio.sleep(0.1)
    print(f"MARK end {name}", flush=True)


async def main():
    for _ in range(ROUNDS):
        await mark("idle", lambda: None)
        for i in range(len(records)):
            words = array.array("i", [-1, pid, offsets[i], offsets[i + 1]] * 10)
            await mark(f"L{i:02d}", lambda: backend.js.launchList(words))
        await mark("step x10", lambda: [step(features, labels) for _ in range(10)])


await main()  # noqa: F704 (texflow run-browser runs the file with top-level await)
