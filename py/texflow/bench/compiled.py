"""Eager against `tf.function` (traced, fused, replayed) in the same run, natively and
inside Pyodide: the 8-op elementwise chain on 1M elements, Keras Adam's update of
the MLP's variables, one MLP 784-128-10 training step (batch 64, Adam), and a step
of Keras `fit` on the MNIST CNN (bench/fit.py's model) with `run_eagerly=True`
against the default (its step through tf.function).

Each case is timed with its result read back (`await y.data()`), as the other
cases are, the eager and compiled calls alternating (the median of each kept);
"issue" is the time of one call before that read (GPU work is asynchronous), by
Python's clock: in the browser it holds the JavaScript the call runs (on WebGL the
GL calls of every launch, on WebGPU encoding and submitting).
In the browser the same calls are then made again with every call into JavaScript
timed (bench/js_clock.py): "Python" is each call's time less its time in JavaScript,
the median, for issue 11's target on a replayed step's Python time. Launches are
`tf.memory()["num_launches"]` per call. The fit step is `fit` over `fit.STEPS`
batches divided by their number, rounds of the two modes alternating; it has no
separate issue time.

On the numpy backend a second table splits the MLP step and the fit step into
time inside the numpy backend's kernel calls (`NumpyBackend.call`: every launch,
multi-output ones included; converting a result to its dtype and layout is outside)
and time outside them (Python: the engine, tracing's replay, Keras), eager and
replayed.
"""

import statistics
import time

import numpy as np

from .cases import CHAIN, ELEMENTS, MLP_BATCH

CHAIN_CASE = "chain of 8 ops, 1M"
ADAM_CASE = "Adam update, MLP variables"
MLP_CASE = "MLP step 784-128-10, batch 64, Adam"
FIT_CASE = "MNIST CNN fit step, batch 64"


async def measure_compiled(backend, quick=False):
    """{case: {"eager"|"compiled": (ms, issue ms, launches, Python ms)}} on `backend`
    (Python ms: in the browser, issue less its time in JavaScript; else None)."""
    import texflow as tf

    tf.set_backend(backend)
    rng = np.random.default_rng(0)
    results = {}
    clock = None
    if backend in ("webgl", "webgpu"):
        from ..engine import context
        from .js_clock import JsClock
        clock = JsClock(context.current())

    async def bench(case, fns):
        row, launches = {}, {}
        for mode, fn in fns.items():
            for _ in range(2):  # warm up: trace, compile kernels, fill pools
                await (fn()).data()
            before = tf.memory()["num_launches"]
            await (fn()).data()
            launches[mode] = tf.memory()["num_launches"] - before
        # the modes' calls alternate (the order flipping each round), so a drift of the
        # machine's speed during the case weighs on both alike
        times = {mode: [] for mode in fns}
        issues = {mode: [] for mode in fns}
        start, rounds = time.perf_counter(), 0
        runs = 3 if quick else 20
        while rounds < runs and (rounds < 3 or time.perf_counter() - start < 3 * len(fns)):
            for mode in (list(fns) if rounds % 2 == 0 else list(fns)[::-1]):
                t0 = time.perf_counter()
                y = fns[mode]()
                t1 = time.perf_counter()
                await y.data()
                times[mode].append((time.perf_counter() - t0) * 1000)
                issues[mode].append((t1 - t0) * 1000)
            rounds += 1
        for mode, fn in fns.items():
            python = None
            if clock is not None:  # the same calls again, their time in JS timed
                pythons = []
                with clock:
                    for _ in range(len(times[mode])):
                        clock.reset()
                        t0 = time.perf_counter()
                        y = fn()
                        t1 = time.perf_counter()
                        pythons.append(clock.python_ms((t1 - t0) * 1000))
                        await y.data()
                python = statistics.median(pythons)
            row[mode] = (statistics.median(times[mode]), statistics.median(issues[mode]),
                         launches[mode], python)
        results[case] = row

    x = tf.constant(rng.normal(size=ELEMENTS).astype(np.float32))

    def chain(z):
        for step in CHAIN:
            name, *arg = step.split()
            z = getattr(tf, name)(z, float(arg[0])) if arg else getattr(tf, name)(z)
        return z
    compiled_chain = tf.function(chain)
    await bench(CHAIN_CASE, {"eager": lambda: chain(x), "compiled": lambda: compiled_chain(x)})

    def mlp():
        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu"),
                                     tf.keras.layers.Dense(10)])
        model.build((None, 784))
        return model, tf.keras.optimizers.Adam(0.001)

    features = tf.constant(rng.random((MLP_BATCH, 784)).astype(np.float32))
    labels = tf.constant(rng.integers(0, 10, MLP_BATCH).astype(np.int32))
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    fns = {}
    for mode in ("eager", "compiled"):
        model, opt = mlp()
        grads = [tf.constant(rng.normal(size=tuple(v.shape)).astype(np.float32) * 1e-3)
                 for v in model.trainable_variables]

        def update(model=model, opt=opt, grads=grads):
            opt.apply_gradients(zip(grads, model.trainable_variables))
            # a result to wait for (the last update done): one launch of its own
            return model.trainable_variables[-1] * 1.0
        fns[mode] = update if mode == "eager" else tf.function(update)
    await bench(ADAM_CASE, fns)

    fns = {}
    for mode in ("eager", "compiled"):
        model, opt = mlp()

        def step(x, y, model=model, opt=opt):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        run = step if mode == "eager" else tf.function(step)
        fns[mode] = lambda run=run: run(features, labels)
    await bench(MLP_CASE, fns)
    fit_steps = _fit_steps(tf, quick)
    results[FIT_CASE] = {mode: (ms, None, launches, None) for mode, (ms, launches, _) in
                         fit_steps.items()}
    if backend == "numpy":
        results["numpy kernel share"] = _numpy_share(fns, fit_steps, quick)
    return results


def _fit_steps(tf, quick):
    """{"eager"|"compiled": (ms per fit step, launches per step, fit(n) -> ms)}."""
    from .fit import BATCH, STEPS, WARM_UP, alternate, mnist, seed_cnn

    x, y = mnist()
    x, y = x[:max(WARM_UP, BATCH * STEPS)], y[:max(WARM_UP, BATCH * STEPS)]
    runs = {}
    for mode in ("eager", "compiled"):
        tf.keras.utils.set_random_seed(0)
        model = seed_cnn(tf.keras)
        model.run_eagerly = mode == "eager"

        def fit(n, model=model):
            start = time.perf_counter()
            model.fit(x[:n], y[:n], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
            return (time.perf_counter() - start) * 1e3
        fit(WARM_UP)  # compiles kernels; the compiled side traces 64 and 40
        before = tf.memory()["num_launches"]
        fit(BATCH * STEPS)
        runs[mode] = ((tf.memory()["num_launches"] - before) // STEPS, fit)
    ms = alternate({mode: (lambda fit=fit: fit(BATCH * STEPS) / STEPS)
                    for mode, (_, fit) in runs.items()}, 1 if quick else 3)
    return {mode: (ms[mode], launches, fit) for mode, (launches, fit) in runs.items()}


def _numpy_share(mlp_fns, fit_steps, quick):
    """{case: {mode: (ms, ms in the numpy backend's kernel calls)}}: one MLP step and one
    fit step, with NumpyBackend.call (every kernel call) timed."""
    from ..backends.numpy import NumpyBackend
    from .fit import BATCH, STEPS

    inside = [0.0]
    call = NumpyBackend.call

    def timed(self, *args):
        t0 = time.perf_counter()
        try:
            return call(self, *args)
        finally:
            inside[0] += time.perf_counter() - t0

    def split(fn, runs):
        totals = []
        for _ in range(runs):
            inside[0] = 0.0
            t0 = time.perf_counter()
            fn()
            totals.append((time.perf_counter() - t0, inside[0]))
        total, kernels = min(totals)
        return total * 1e3, kernels * 1e3

    NumpyBackend.call = timed
    try:
        share = {MLP_CASE: {m: split(fn, 5 if quick else 30) for m, fn in mlp_fns.items()}}
        share[FIT_CASE] = {m: tuple(v / STEPS for v in split(
            lambda fit=fit: fit(BATCH * STEPS), 1 if quick else 3))
            for m, (_, _, fit) in fit_steps.items()}
    finally:
        NumpyBackend.call = call
    return share


TARGETS = {CHAIN_CASE: "1 launch, >= 3x faster compiled",
           ADAM_CASE: "<= 1 launch per variable (4 variables; + 1: the returned `v * 1.0`)",
           MLP_CASE: "compiled <= 0.5x eager; Pyodide: compiled Python < 10% of eager's",
           FIT_CASE: ">= 1.3x faster compiled"}


def table(backend, rows, out):
    """Appends the eager/compiled table of one backend to `out` (lines)."""
    out.append("")
    out.append(f"eager vs tf.function, backend {backend} (ms per call with readback; issue = "
               "time of the call before the read, JavaScript it calls included; Python = "
               "issue less the time inside JavaScript calls, browser only, same run; "
               "speed-up = eager / compiled)")
    out.append("")
    out.append("| case | eager ms | compiled ms | speed-up | eager issue | compiled issue "
               "| eager Python | compiled Python | Python compiled / eager "
               "| launches eager -> compiled | target |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    share = rows.pop("numpy kernel share", None)
    for case, row in rows.items():
        (e, ei, el, ep), (c, ci, cl, cp) = row["eager"], row["compiled"]
        issue = "| - | - " if ei is None else f"| {ei:.3f} | {ci:.3f} "
        python = "| - | - | - " if ep is None else \
            f"| {ep:.3f} | {cp:.3f} | {cp / ep:.0%} "
        out.append(f"| {case} | {e:.3f} | {c:.3f} | {e / c:.2f}x {issue}{python}"
                   f"| {el} -> {cl} | {TARGETS[case]} |")
    if share:
        out.append("")
        out.append(f"numpy: share of a step outside numpy's kernels, backend {backend} (ms; "
                   "kernels = time in the numpy backend's kernel calls; fastest of the runs)")
        out.append("")
        out.append("| case | mode | step ms | kernels ms | outside kernels | target |")
        out.append("|---|---|---:|---:|---:|---|")
        for case, modes in share.items():
            for mode, (total, kernels) in modes.items():
                target = "<= 30% (replayed)" if mode == "compiled" else ""
                out.append(f"| {case} | {mode} | {total:.3f} | {kernels:.3f} "
                           f"| {(total - kernels) / total:.0%} | {target} |")


def measure_native(backends, quick, out):
    import asyncio

    for backend in backends:
        import texflow as tf
        if backend not in tf.available_backends():
            out.append(f"\n(backend {backend} is not available here: skipped)")
            continue
        table(f"{backend} (native)", asyncio.run(measure_compiled(backend, quick)), out)


def measure_browser(page, backend, quick):
    import json

    return json.loads(page.evaluate(
        "async ([b, q]) => await pyodide.runPythonAsync(`"
        "import json\nfrom texflow.bench.compiled import measure_compiled\n"
        "json.dumps(await measure_compiled('${b}', ${q ? 'True' : 'False'}))`)",
        [backend, quick]))
