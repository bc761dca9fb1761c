"""The issue time of one tiny op in the page, and where it goes (by hand).

    .venv/bin/texflow run-browser scripts/tiny_op_cost.py --backend webgl [-- --profile]

Times `texflow bench`'s tiny-op case (a chain of 1000 dependent `tf.add`s on
1-element arrays inside a scope, timed to the last issue; bench/cases.py) `ROUNDS`
times and prints the median and least microseconds per op, then the parts of one op
timed alone the same way: the bare JS call the backend makes per launch (the FFI
crossing and web/*.js; webgl), a call of an empty JS function with as many integer
arguments (the crossing alone), and the chain with the backend's JS launch function
replaced by a Python one that does nothing (the op's Python alone). `--profile` adds cProfile's
listing of 3 chains (its own overhead inflates every Python function alike).
A/B two checkouts by running it with `PYTHONPATH=OTHER/py` in turns: the page runs
the texflow the command imports.
"""

import asyncio
import cProfile
import pstats
import statistics
import sys
import time

import numpy as np

import texflow as tf
from texflow.engine import context

OPS = 1000
ROUNDS = 15
backend = context.current()
one = tf.array([1.0])


def chain():
    with tf.scope():
        t0 = time.perf_counter()
        z = one
        for _ in range(OPS):
            z = tf.add(z, one)
        us = (time.perf_counter() - t0) * 1e6 / OPS
        z.numpy()
    return us


def per_call_us(fn, n=OPS, rounds=ROUNDS):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t0) * 1e6 / n)
    return statistics.median(times), min(times)


async def main():
    print(f"backend {backend.name}, {OPS} dependent adds on [1] per chain, "
          f"{ROUNDS} chains", flush=True)
    for _ in range(3):
        chain()
        await asyncio.sleep(0)
    times = [chain() for _ in range(ROUNDS)]
    print(f"tiny op issue: median {statistics.median(times):.2f} us/op, "
          f"least {min(times):.2f}", flush=True)

    x = tf.add(one, one)
    handle = x._storage.handle
    if backend.name == "webgl":
        from pyodide.code import run_js
        key = (tf.add.op, one.shape, one.dtype, one.shape, one.dtype)
        plan = backend._plans[key]
        js_id = plan.single[0]
        out = backend.pool.acquire(plan.out_key)
        launch, t = backend.js.launch, handle.id
        print("JS launch alone, one output texture: median %.2f, least %.2f us" %
              per_call_us(lambda: launch(js_id, out.id, t, t, 0, 0, 0)))
        outs = [backend.pool.acquire(plan.out_key) for _ in range(OPS)]
        ids = iter([])

        def rotating():
            launch(js_id, next(ids), t, t, 0, 0, 0)
        times = []
        for _ in range(ROUNDS):
            ids = iter([o.id for o in outs])
            times.append(per_call_us(rotating, rounds=1)[0])
        print(f"JS launch alone, {OPS} output textures in turn: median "
              f"{statistics.median(times):.2f}, least {min(times):.2f} us")
        for o in outs:
            backend.pool.release(o)
        empty = run_js("(function (a, b, c, d, e, f, g) { return undefined; })")
        print("empty JS call, 7 ints: median %.2f, least %.2f us" % per_call_us(
            lambda: empty(js_id, out.id, t, t, 0, 0, 0)))
        backend.pool.release(out)
    elif backend.name == "webgpu":
        from pyodide.code import run_js
        key = (tf.add.op, one.shape, one.dtype, one.shape, one.dtype)
        plan, nbytes = backend._recipes[key].direct, backend._recipes[key].out_nbytes
        launch = backend.js.launch
        outs = [backend._take(nbytes) for _ in range(OPS)]
        ids = iter([])

        def rotating():
            launch(plan, handle, handle, next(ids))
        times = []
        for _ in range(ROUNDS):
            ids = iter(outs)
            times.append(per_call_us(rotating, rounds=1)[0])
        print(f"JS launch alone, {OPS} output buffers in turn: median "
              f"{statistics.median(times):.2f}, least {min(times):.2f} us")
        backend.flush()
        for o in outs:
            backend.free(o)
        empty = run_js("(function (a, b, c, d) { return undefined; })")
        print("empty JS call, 4 ints: median %.2f, least %.2f us" % per_call_us(
            lambda: empty(1, 2, 3, 4)))
    # the JS call stood in for by a Python one that does nothing: the op's Python alone
    js_launch = backend._launch
    backend._launch = lambda *args: None
    times = [chain() for _ in range(ROUNDS)]
    backend._launch = js_launch
    print(f"tiny op issue without its JS call: median {statistics.median(times):.2f}, "
          f"least {min(times):.2f} us", flush=True)
    x.dispose()

    if "--profile" in sys.argv:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(3):
            chain()
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(18)
    backend.sync()
    one.dispose()
    print("counts", {k: v for k, v in tf.memory().items() if "num_arrays" in k
                     or "launch" in k}, np.__version__)


await main()  # noqa: F704 (run-browser runs the script as top-level async code)
