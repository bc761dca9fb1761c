#!/usr/bin/env python3
"""Where a `fit` step of the MNIST CNN spends its time, in headless Chromium (by hand).

    .venv/bin/python scripts/profile_mnist_fit.py --backends webgl,webgpu

For each backend, in one page:
1. texflow's fit step (batch 64) plain, then with a synchronisation after every launch,
   giving each op's share (its launch plus waiting for the GPU to finish it) and the
   number of launches per step;
2. the kernels of the step one by one, texflow against TensorFlow.js 4.22 on the same
   backend (median of 5, readback included): which kernels are slower than tfjs's.
"""

import argparse
import json
import sys

TEXFLOW_STEP = r'''
import collections, json, time
import texflow as tf
from texflow.bench.fit import mnist, seed_cnn
from texflow.engine import context
tf.set_backend(BACKEND)
x, y = mnist()
model = seed_cnn(tf.keras)
model.fit(x[:128], y[:128], batch_size=64, verbose=0, shuffle=False)
backend = context.current()
cls, plain_execute = type(backend), type(backend).execute
totals, counts = collections.defaultdict(float), collections.Counter()

def synced(self, fn, inputs, out_shape, out_dtype, attrs, key):
    start = time.perf_counter()
    handle = plain_execute(self, fn, inputs, out_shape, out_dtype, attrs, key)
    self.sync()
    op = key[0][0] if isinstance(key[0], tuple) else key[0]
    totals[(op.name, tuple(out_shape))] += time.perf_counter() - start
    counts[(op.name, tuple(out_shape))] += 1
    return handle

def fit_ms(n=3):
    start = time.perf_counter()
    model.fit(x[:64 * n], y[:64 * n], batch_size=64, verbose=0, shuffle=False)
    return (time.perf_counter() - start) / n * 1e3

plain = fit_ms()
cls.execute = synced
try:
    with_sync = fit_ms()
finally:
    cls.execute = plain_execute
rows = sorted(([k[0], list(k[1]), counts[k] // 3, v / 3 * 1e3] for k, v in totals.items()),
              key=lambda r: -r[3])
json.dumps(dict(plain=plain, synced=with_sync, launches=sum(counts.values()) / 3, rows=rows))
'''

# Each kernel of the step, as texflow ops and as tfjs ops (same shapes).
TEXFLOW_KERNELS = r'''
import json, statistics, time
import numpy as np
import texflow as tf
from texflow.engine.run import run_op
from texflow.ops import conv
tf.set_backend(BACKEND)
rng = np.random.default_rng(0)
t = lambda *shape: tf.array(rng.random(shape, dtype=np.float32) - 0.5)
x, w, b = t(64, 28, 28, 1), t(3, 3, 1, 32), t(32)
h, p, dh = t(64, 26, 26, 32), t(64, 13, 13, 32), t(64, 26, 26, 32)
a, w1, dy = t(64, 5408), t(5408, 64), t(64, 64)
attrs = dict(ksize=(2, 2), strides=(2, 2))
cases = {
    "conv2d [64,28,28,1]*[3,3,1,32]": lambda: tf.conv2d(x, w, 1, "VALID"),
    "bias add [64,26,26,32]+[32]": lambda: tf.add(h, b),
    "relu [64,26,26,32]": lambda: tf.relu(h),
    "max_pool 2x2 -> [64,13,13,32]": lambda: tf.max_pool(h, 2),
    "conv2d filter grad -> [3,3,1,32]": None,
    "max_pool grad -> [64,26,26,32]": None,
    "matmul [64,5408]x[5408,64]": lambda: tf.matmul(a, w1),
    "matmul dx [64,64]x[5408,64]^T": lambda: tf.matmul(dy, w1, transpose_b=True),
    "matmul dw [64,5408]^Tx[64,64]": lambda: tf.matmul(a, dy, transpose_a=True),
}

def grad_of(f, wrt):
    def run():
        with tf.GradientTape() as tape:
            tape.watch(wrt)
            out = tf.sum(f())
        return tape.gradient(out, wrt)
    return run

cases["conv2d filter grad -> [3,3,1,32]"] = grad_of(lambda: tf.conv2d(x, w, 1, "VALID"), w)
cases["max_pool grad -> [64,26,26,32]"] = grad_of(lambda: tf.max_pool(h, 2), h)
out = {}
for name, fn in cases.items():
    times = []
    for i in range(7):
        with tf.scope():
            start = time.perf_counter()
            await fn().data()
            times.append((time.perf_counter() - start) * 1e3)
    out[name] = statistics.median(times[2:])
json.dumps(out)
'''

TFJS_KERNELS = r'''async (backend) => {
  await tf.setBackend(backend); await tf.ready();
  const t = (...shape) => tf.sub(tf.randomUniform(shape), 0.5);
  const x = t(64, 28, 28, 1), w = t(3, 3, 1, 32), b = t(32);
  const h = t(64, 26, 26, 32), a = t(64, 5408), w1 = t(5408, 64), dy = t(64, 64);
  const cases = {
    "conv2d [64,28,28,1]*[3,3,1,32]": () => tf.conv2d(x, w, 1, "valid"),
    "bias add [64,26,26,32]+[32]": () => tf.add(h, b),
    "relu [64,26,26,32]": () => tf.relu(h),
    "max_pool 2x2 -> [64,13,13,32]": () => tf.maxPool(h, 2, 2, "valid"),
    "conv2d filter grad -> [3,3,1,32]": () => tf.grad((v) => tf.sum(tf.conv2d(x, v, 1,
                                                                    "valid")))(w),
    "max_pool grad -> [64,26,26,32]": () => tf.grad((v) => tf.sum(tf.maxPool(v, 2, 2,
                                                                  "valid")))(h),
    "matmul [64,5408]x[5408,64]": () => tf.matMul(a, w1),
    "matmul dx [64,64]x[5408,64]^T": () => tf.matMul(dy, w1, false, true),
    "matmul dw [64,5408]^Tx[64,64]": () => tf.matMul(a, dy, true, false),
  };
  const out = {};
  for (const [name, fn] of Object.entries(cases)) {
    const times = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const r = fn();
      await r.data();
      times.push(performance.now() - t0);
      r.dispose();
    }
    const rest = times.slice(2).sort((p, q) => p - q);
    out[name] = rest[rest.length >> 1];
  }
  return out;
}'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="webgl,webgpu")
    args = parser.parse_args()
    from texflow.browser import BrowserSession

    with BrowserSession(on_output=lambda stream, text: sys.stderr.write(text)) as session:
        page = session.page
        page.add_script_tag(url="/texflow/tfjs/tf.min.js")
        page.add_script_tag(url="/texflow/tfjs/tf-backend-webgpu.min.js")
        run = "async (code) => await pyodide.runPythonAsync(code)"
        for backend in [b for b in args.backends.split(",") if b]:
            step = json.loads(page.evaluate(run, TEXFLOW_STEP.replace("BACKEND",
                                                                      repr(backend))))
            print(f"\n{backend}: texflow fit step {step['plain']:.1f} ms; with a sync after "
                  f"each launch {step['synced']:.1f} ms; {step['launches']:.0f} launches "
                  f"per step\n\n| op | output | launches | ms per step (synced) |\n"
                  "|---|---|---:|---:|")
            for name, shape, count, ms in step["rows"][:16]:
                print(f"| {name} | {shape} | {count} | {ms:.1f} |")
            mine = json.loads(page.evaluate(run, TEXFLOW_KERNELS.replace("BACKEND",
                                                                         repr(backend))))
            theirs = page.evaluate(TFJS_KERNELS, backend)
            print(f"\n{backend}: the step's kernels alone (ms, readback included)\n\n"
                  "| kernel | texflow | tfjs | texflow / tfjs |\n|---|---:|---:|---:|")
            for name, ms in mine.items():
                print(f"| {name} | {ms:.1f} | {theirs[name]:.1f} | {ms / theirs[name]:.2f}x |")


if __name__ == "__main__":
    main()
