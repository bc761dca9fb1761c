#!/usr/bin/env python3
"""The products of a compiled MLP step (784-128-10, batch 64, Adam), natively or in
headless Chromium (by hand).

    .venv/bin/python scripts/profile_mlp_kernels.py --backends webgpu [--rounds 5]
    .venv/bin/python scripts/profile_mlp_kernels.py --backends wgpu --skip-step

For each backend, in one process (one page in the browser):
1. the step eagerly and compiled (ms, best of `--rounds` interleaved rounds), then the
   compiled step replayed launch by launch with a sync after each: each kernel's share;
2. the step's five products alone (ms per launch: `--reps` launches per sync, median
   over the rounds), with the same transposes and shapes.
Figures are only comparable within one run (the machine is shared): compare kernel
variants by running two checkouts alternately (PYTHONPATH=OTHER/py natively).
"""

import argparse
import json
import sys

STEP = r'''
import json, time
import numpy as np
import texflow as tf
from texflow.engine import context
tf.set_backend(BACKEND)
backend = context.current()
rng = np.random.default_rng(0)
features = tf.constant(rng.random((64, 784)).astype(np.float32))
labels = tf.constant(rng.integers(0, 10, 64).astype(np.int32))
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
USE

def make(compile_it):
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    model.build((None, 784))
    opt = tf.keras.optimizers.Adam(0.001)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(step) if compile_it else step

def ms(fn, n):
    backend.sync()
    start = time.perf_counter()
    for _ in range(n):
        fn(features, labels)
    backend.sync()
    return (time.perf_counter() - start) / n * 1e3

variants = VARIANTS
fns = {}
for v in variants:
    use(v)
    fns[v] = {"eager": make(False), "compiled": make(True)}
    for fn in fns[v].values():
        ms(fn, 2)
times = {v: {"eager": [], "compiled": []} for v in variants}
for _ in range(ROUNDS):
    for v in variants:
        use(v)
        for mode, fn in fns[v].items():
            ms(fn, 1)
            times[v][mode].append(ms(fn, 5))
use(variants[0])
json.dumps(times)
'''

CNN = r'''
import json, time
import texflow as tf
from texflow.bench.fit import mnist, seed_cnn
from texflow.engine import context
tf.set_backend(BACKEND)
backend = context.current()
x, y = mnist()
USE

def make(eager):
    tf.keras.utils.set_random_seed(0)
    model = seed_cnn(tf.keras)
    model.run_eagerly = eager
    return model

def ms(model, n):
    start = time.perf_counter()
    model.fit(x[:64 * n], y[:64 * n], batch_size=64, verbose=0, shuffle=False)
    backend.sync()
    return (time.perf_counter() - start) / n * 1e3

variants = VARIANTS
models = {}
for v in variants:
    use(v)
    models[v] = {"eager": make(True), "compiled": make(False)}
    for model in models[v].values():
        ms(model, 2)
times = {v: {"eager": [], "compiled": []} for v in variants}
for _ in range(ROUNDS):
    for v in variants:
        use(v)
        for mode, model in models[v].items():
            ms(model, 1)
            times[v][mode].append(ms(model, 3))
use(variants[0])
json.dumps(times)
'''


KERNELS = r'''
import json, statistics, time
import numpy as np
import texflow as tf
from texflow.engine import context
tf.set_backend(BACKEND)
backend = context.current()
rng = np.random.default_rng(0)
t = lambda *shape: tf.constant(rng.random(shape, dtype=np.float32) - 0.5)
x, w1, b1, h, w2, dl, dh = (t(64, 784), t(784, 128), t(128), t(64, 128), t(128, 10),
                            t(64, 10), t(64, 128))
f, wf, b64, dh64, w64 = t(64, 5408), t(5408, 64), t(64), t(64, 64), t(64, 10)

USE

def make():
    dense = tf.function(lambda x, w, b: tf.nn.relu(tf.matmul(x, w) + b))
    return {
        "relu(x W1 + b) 64x784x128": lambda: dense(x, w1, b1),
        "x^T dh 784x64x128": lambda: tf.matmul(x, dh, transpose_a=True),
        "h W2 64x128x10": lambda: tf.matmul(h, w2),
        "dl W2^T 64x10x128": lambda: tf.matmul(dl, w2, transpose_b=True),
        "h^T dl 128x64x10": lambda: tf.matmul(h, dl, transpose_a=True),
        "x^T (the copy x^T dh makes) 784x64": lambda: tf.transpose(x),
        "dl + dl 64x10 (one launch's floor)": lambda: dl + dl,
    } if not CNN_CASES else {
        "CNN relu(f W + b) 64x5408x64": lambda: dense(f, wf, b64),
        "CNN f^T dh 5408x64x64": lambda: tf.matmul(f, dh64, transpose_a=True),
        "CNN dh W^T 64x64x5408": lambda: tf.matmul(dh64, wf, transpose_b=True),
        "CNN h W2 64x64x10": lambda: tf.matmul(dh64, w64, transpose_a=False),
        "CNN dl W2^T 64x10x64": lambda: tf.matmul(dl, w64, transpose_b=True),
        "CNN h^T dl 64x64x10": lambda: tf.matmul(dh64, dl, transpose_a=True),
    }

variants = VARIANTS
cases = {}
for v in variants:
    use(v)
    cases[v] = make()
    for fn in cases[v].values():
        fn()
samples = {v: {name: [] for name in cases[v]} for v in variants}
for _ in range(ROUNDS):
    for v in variants:
        use(v)
        for fn in cases[v].values():
            fn()
        for name, fn in cases[v].items():
            with tf.scope():
                backend.sync()
                start = time.perf_counter()
                for _ in range(REPS):
                    fn()
                backend.sync()
                samples[v][name].append((time.perf_counter() - start) * 1e3 / REPS)
use(variants[0])
medians = {v: {name: statistics.median(s) for name, s in got.items()}
           for v, got in samples.items()}
json.dumps(medians)
'''


USE = '''default_block, default_blocked = backend.MATMUL_BLOCK, backend.MATMUL_BLOCKED

def use(variant):
    from texflow.backends.wgsl import matmul
    variant, _, min_k4 = variant.partition("+k")
    matmul.SPLIT_MIN_K4 = int(min_k4) if min_k4 else 64
    matmul.READ_IN_PLACE[0] = not variant.endswith("+copy")
    matmul.IN_PLACE_A_COLUMNS = 1 << 30 if variant.endswith("+inplace") else 64
    variant = variant.removesuffix("+copy").removesuffix("+inplace")
    variant, _, fast = variant.partition("@")
    backend.MATMUL_BLOCK = tuple(int(v) for v in fast.split("/")) if fast else default_block
    mode, _, block = variant.partition(":")
    backend.MATMUL_BLOCKED = (None if mode == "none" else
                              (mode, tuple(int(v) for v in block.split("x"))) if block else
                              default_blocked)
    backend._recipes.clear()
'''

BROWSER = ("webgl", "webgpu", "pyodide-numpy")


def _fill(code, backend, values):
    code = code.replace("USE", USE).replace("BACKEND", repr(backend))
    for name, value in values.items():
        code = code.replace(name, str(value))
    return code


def _native(code):
    scope = {}
    *body, last = code.strip().splitlines()
    exec("\n".join(body), scope)
    return json.loads(eval(last, scope))


def report(backend, got, rounds):
    for what, title in (("step", "MLP step"), ("cnn", "MNIST CNN fit step, batch 64")):
        if what not in got:
            continue
        print(f"\n{backend}: {title} (ms, best of {rounds} interleaved rounds)\n\n"
              "| variant | eager | compiled | compiled / eager |\n|---|---:|---:|---:|")
        for v, times in got[what].items():
            eager, comp = min(times["eager"]), min(times["compiled"])
            print(f"| {v} | {eager:.2f} | {comp:.2f} | {comp / eager:.3f} |")
    variants = list(got["kernels"])
    if not variants:
        return
    print(f"\n{backend}: products alone (ms per launch, median of {rounds} interleaved "
          "rounds)\n\n| product | " + " | ".join(variants) + " |\n|---|" +
          "---:|" * len(variants))
    for name in got["kernels"][variants[0]]:
        print(f"| {name} | " + " | ".join(f"{got['kernels'][v][name]:.3f}" for v in variants)
              + " |")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="webgpu")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=5, help="launches per sync")
    parser.add_argument("--variants", default="default,none",
                        help="matmul kernel choices to compare, interleaved: "
                        "MODE[:RxC][@R/CV/WX/WY], the backend's MATMUL_BLOCKED mode (default: "
                        "its own; none: off) and block, and its MATMUL_BLOCK; +copy at the end: "
                        "transposed operands copied, not read in place; +inplace: a "
                        "transposed A read in place whatever N; +kN (last): split-K chunks "
                        "of at least N vec4s")
    parser.add_argument("--skip-step", action="store_true", help="products alone only")
    parser.add_argument("--cnn", action="store_true", help="also the MNIST CNN fit step")
    parser.add_argument("--skip-kernels", action="store_true", help="the step only")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    session = None
    if any(b in BROWSER for b in backends):
        from texflow.browser import BrowserSession
        session = BrowserSession(on_output=lambda stream, text: sys.stderr.write(text))
        session.start()
    try:
        for backend in backends:
            def py(code, **values):
                code = _fill(code, backend, values)
                if backend not in BROWSER:
                    return _native(code)
                return json.loads(session.page.evaluate(
                    "async (code) => await pyodide.runPythonAsync(code)", code))
            got = {}
            if args.cnn:
                got["cnn"] = py(CNN, ROUNDS=args.rounds, VARIANTS=args.variants.split(","))
            if not args.skip_step:
                got["step"] = py(STEP, ROUNDS=args.rounds, VARIANTS=args.variants.split(","))
            got["kernels"] = {} if args.skip_kernels else py(
                KERNELS, ROUNDS=args.rounds, REPS=args.reps, VARIANTS=args.variants.split(","),
                CNN_CASES=args.cnn)
            report(backend, got, args.rounds)
    finally:
        if session is not None:
            session.close()


if __name__ == "__main__":
    main()
