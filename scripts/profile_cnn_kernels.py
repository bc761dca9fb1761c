#!/usr/bin/env python3
"""The heavy kernels of a compiled MNIST CNN `fit` step, in headless Chromium (by hand).

    .venv/bin/python scripts/profile_cnn_kernels.py --backends webgl,webgpu [--json F]

For each backend, in one page:
1. the CNN's fit step (batch 64) eagerly and compiled (ms per step), then the compiled
   step replayed launch by launch with a sync after each: each kernel's share of the
   step (its launch plus waiting for the device to finish it) and the share of the
   heavy kernels (convolutions, pooling, the 5408-deep products): the ceiling of what
   making them faster can give;
2. those kernels alone at the step's shapes (ms per launch: `--reps` launches per
   sync, median of 5 samples).
Run two checkouts alternately (PYTHONPATH=OTHER/py) to compare kernels A/B on this
shared machine; the figures are only comparable within one run of each.
"""

import argparse
import json
import sys

STEP = r'''
import collections, json, time
import texflow as tf
from texflow.autodiff import compiled
from texflow.bench.fit import mnist, seed_cnn
from texflow.engine import context
tf.set_backend(BACKEND)
tf.keras.utils.set_random_seed(0)
x, y = mnist()
totals, counts, on = collections.defaultdict(float), collections.Counter(), [False]
plain_prepare = compiled.prepare

def timed_prepare(op, inputs, attrs, backend):
    launch = plain_prepare(op, inputs, attrs, backend)
    if launch is None:
        return None
    key = (op.name, tuple(inputs[0].shape) if hasattr(inputs[0], "shape") else ())
    def run(values):
        if not on[0]:
            return launch(values)
        start = time.perf_counter()
        out = launch(values)
        backend.sync()
        totals[key] += time.perf_counter() - start
        counts[key] += 1
        return out
    return run

def fit_ms(model, n):
    start = time.perf_counter()
    model.fit(x[:64 * n], y[:64 * n], batch_size=64, verbose=0, shuffle=False)
    context.current().sync()
    return (time.perf_counter() - start) / n * 1e3

eager = seed_cnn(tf.keras)
eager.compile(loss="sparse_categorical_crossentropy", run_eagerly=True, metrics=["accuracy"],
              optimizer=tf.keras.optimizers.Adam(learning_rate=1e-3))
model = seed_cnn(tf.keras)
fit_ms(eager, 2), fit_ms(model, 2)
times = {"eager": [], "compiled": []}
for _ in range(ROUNDS):
    times["eager"].append(fit_ms(eager, 3))
    times["compiled"].append(fit_ms(model, 3))
# the same step replayed op by op (no launch program), each launch synced
compiled.PROGRAMS[0], compiled.prepare = False, timed_prepare
try:
    profiled = seed_cnn(tf.keras)
    fit_ms(profiled, 2)
    on[0] = True
    synced = fit_ms(profiled, 3)
finally:
    compiled.PROGRAMS[0], compiled.prepare, on[0] = True, plain_prepare, False
rows = sorted(([k[0], list(k[1]), counts[k] // 3, v / 3 * 1e3] for k, v in totals.items()),
              key=lambda r: -r[3])
json.dumps(dict(times=times, synced=synced, launches=sum(counts.values()) / 3, rows=rows))
'''

KERNELS = r'''
import json, statistics, time
import numpy as np
import texflow as tf
from texflow.engine import context
from texflow.engine.run import run_op
from texflow.ops import conv
tf.set_backend(BACKEND)
backend = context.current()
rng = np.random.default_rng(0)
t = lambda *shape: tf.array(rng.random(shape, dtype=np.float32) - 0.5)
x, w = t(64, 28, 28, 1), t(3, 3, 1, 32)
h, dp, dh = t(64, 26, 26, 32), t(64, 13, 13, 32), t(64, 26, 26, 32)
a, w1, dy = t(64, 5408), t(5408, 64), t(64, 64)
geo = dict(strides=(1, 1), dilations=(1, 1), pads=(0, 0, 0, 0))
pool = dict(ksize=(2, 2), strides=(2, 2), pads=(0, 0, 0, 0))
cases = {
    "conv2d [64,28,28,1]*[3,3,1,32]": lambda: tf.conv2d(x, w, 1, "VALID"),
    "conv2d_backprop_filter -> [3,3,1,32]": lambda: run_op(
        conv._backprop_filter, (x, dh), dict(geo, filter_shape=(3, 3, 1, 32))),
    "max_pool 2x2 -> [64,13,13,32]": lambda: tf.max_pool(h, 2),
    "max_pool_grad -> [64,26,26,32]": lambda: run_op(conv._max_pool_grad, (h, dp), pool),
    "matmul [64,5408]x[5408,64]": lambda: tf.matmul(a, w1),
    "matmul dx [64,64]x[5408,64]^T": lambda: tf.matmul(dy, w1, transpose_b=True),
    "matmul dw [64,5408]^Tx[64,64]": lambda: tf.matmul(a, dy, transpose_a=True),
}
out = {}
for name, fn in cases.items():
    samples = []
    for i in range(7):
        with tf.scope():
            backend.sync()
            start = time.perf_counter()
            for _ in range(REPS):
                fn()
            backend.sync()
            samples.append((time.perf_counter() - start) * 1e3 / REPS)
    out[name] = statistics.median(samples[2:])
json.dumps(out)
'''

HEAVY = ("conv2d", "conv2d_epilogue", "conv2d_backprop_filter", "conv2d_backprop_input",
         "max_pool", "max_pool_grad", "matmul", "matmul_epilogue",
         # a compiled step's pooling (autodiff/trace_rewrite.py; WebGL and WebGPU)
         "max_pool_taps", "max_pool_grad_taps", "conv2d_pool")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="webgl,webgpu")
    parser.add_argument("--rounds", type=int, default=3, help="eager/compiled step rounds")
    parser.add_argument("--reps", type=int, default=3, help="kernel launches per sync")
    parser.add_argument("--skip-step", action="store_true", help="kernels alone only")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    from texflow.browser import BrowserSession

    results = {}
    with BrowserSession(on_output=lambda stream, text: sys.stderr.write(text)) as session:
        run = "async (code) => await pyodide.runPythonAsync(code)"

        def py(code, backend, **values):
            code = code.replace("BACKEND", repr(backend))
            for name, value in values.items():
                code = code.replace(name, str(value))
            return json.loads(session.page.evaluate(run, code))

        for backend in [b for b in args.backends.split(",") if b]:
            got = results[backend] = {}
            if not args.skip_step:
                step = got["step"] = py(STEP, backend, ROUNDS=args.rounds)
                eager, comp = (min(step["times"][k]) for k in ("eager", "compiled"))
                total = sum(r[3] for r in step["rows"])
                heavy = sum(r[3] for r in step["rows"] if r[0] in HEAVY)
                print(f"\n{backend}: fit step eager {eager:.1f} ms, compiled {comp:.1f} ms "
                      f"(best of {args.rounds}; eager/compiled {eager / comp:.2f}x); "
                      f"replayed with a sync per launch {step['synced']:.1f} ms, "
                      f"{step['launches']:.0f} launches; heavy kernels "
                      f"{100 * heavy / total:.0f}% of the synced launches\n\n"
                      "| op | first input | launches | ms per step (synced) | share |\n"
                      "|---|---|---:|---:|---:|")
                for name, shape, count, ms in step["rows"][:14]:
                    print(f"| {name} | {shape} | {count} | {ms:.1f} | "
                          f"{100 * ms / total:.0f}% |")
            mine = got["kernels"] = py(KERNELS, backend, REPS=args.reps)
            print(f"\n{backend}: kernels alone (ms per launch)\n\n| kernel | ms |\n|---|---:|")
            for name, ms in mine.items():
                print(f"| {name} | {ms:.1f} |")
            sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
