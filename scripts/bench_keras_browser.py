#!/usr/bin/env python3
"""Times one `fit` step of seed 000's MNIST CNN (batch 64, Adam) in headless Chromium:
texflow's tf.keras inside Pyodide against TensorFlow.js 4.22's tfjs-layers `model.fit`
on the same page and backend.

    .venv/bin/python scripts/bench_keras_browser.py --backends webgl,webgpu

Both train on the same random 28x28x1 batches. Each side runs a warm-up fit (kernel
compilation), then rounds of `steps` steps alternate between the two; the median
ms/step of the rounds is kept. The ratio column is texflow / tfjs-layers (the target
is at most 0.5x).
"""

import argparse
import json
import statistics
import sys

TFJS = """
async ([backend, steps]) => {
  if (!(await tf.setBackend(backend))) throw new Error("no tfjs backend " + backend);
  await tf.ready();
  if (!globalThis.kerasBench || globalThis.kerasBench.backend !== backend) {
    const model = tf.sequential();
    model.add(tf.layers.conv2d({filters: 32, kernelSize: 3, activation: "relu",
                                inputShape: [28, 28, 1]}));
    model.add(tf.layers.maxPooling2d({poolSize: 2}));
    model.add(tf.layers.flatten());
    model.add(tf.layers.dense({units: 64, activation: "relu"}));
    model.add(tf.layers.dense({units: 10, activation: "softmax"}));
    model.compile({optimizer: tf.train.adam(1e-3), loss: "sparseCategoricalCrossentropy",
                   metrics: ["accuracy"]});
    const xs = tf.randomUniform([64 * steps, 28, 28, 1]);
    const ys = tf.floor(tf.randomUniform([64 * steps], 0, 10));
    globalThis.kerasBench = {backend, model, xs, ys};
    await model.fit(xs, ys, {batchSize: 64, epochs: 1, verbose: 0});
  }
  const {model, xs, ys} = globalThis.kerasBench;
  const t0 = performance.now();
  await model.fit(xs, ys, {batchSize: 64, epochs: 1, verbose: 0, shuffle: false});
  return (performance.now() - t0) / steps;
}
"""

TEXFLOW = """
import time
import numpy as np
import texflow as tf
tf.set_backend(BACKEND)
state = globals().setdefault("_keras_bench", {})
if state.get("backend") != BACKEND:
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax")])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    rng = np.random.default_rng(0)
    x = rng.random((64 * STEPS, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, 64 * STEPS).astype(np.int32)
    model.fit(x, y, batch_size=64, verbose=0)
    state.update(backend=BACKEND, model=model, x=x, y=y)
start = time.perf_counter()
state["model"].fit(state["x"], state["y"], batch_size=64, verbose=0, shuffle=False)
(time.perf_counter() - start) / STEPS * 1e3
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="webgl,webgpu")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from texflow.browser import BrowserSession
    rows = []
    with BrowserSession(on_output=lambda stream, text: sys.stderr.write(text)) as session:
        page = session.page
        page.add_script_tag(url="/texflow/tfjs/tf.min.js")
        page.add_script_tag(url="/texflow/tfjs/tf-backend-webgpu.min.js")
        version = session._browser.version
        for backend in [b for b in args.backends.split(",") if b]:
            code = TEXFLOW.replace("BACKEND", json.dumps(backend)).replace(
                "STEPS", str(args.steps))
            mine, theirs = [], []
            for _ in range(args.rounds):
                print(f"[bench] {backend}: texflow ...", file=sys.stderr, flush=True)
                mine.append(page.evaluate("async (c) => await pyodide.runPythonAsync(c)", code))
                print(f"[bench] {backend}: tfjs-layers ...", file=sys.stderr, flush=True)
                theirs.append(page.evaluate(TFJS, [backend, args.steps]))
            rows.append((backend, statistics.median(mine), statistics.median(theirs)))
    print(f"seed 000 CNN, fit step, batch 64, Adam, Chromium {version} (headless, software "
          f"GPU); median of {args.rounds} rounds of {args.steps} steps\n")
    print("| backend | texflow ms/step | tfjs-layers ms/step | texflow / tfjs | target |")
    print("|---|---:|---:|---:|---|")
    for backend, mine, theirs in rows:
        ratio = mine / theirs
        print(f"| {backend} | {mine:.1f} | {theirs:.1f} | {ratio:.2f}x | <= 0.5x: "
              f"{'met' if ratio <= 0.5 else 'NOT met'} |")


if __name__ == "__main__":
    main()
