"""Constant folding (autodiff/fusion_constants.py): in a tf.function, ops computed from
constants alone run once, when the trace is planned, and replays read their values:
results equal eager ones, with fewer launches; a result returned, assigned to a
Variable or read by host code, or a large one, stays a step."""

import numpy as np

import texflow as tf
from harness import each_backend, memory


def _ops(fn, *args):
    """The ops a replay runs, those inside fused kernels too."""
    names = []
    for s in fn.get_concrete_function(*args)._steps:
        if s[0] == "op":
            program = s[3].get("program")
            names += [s[1].name] + ([n[0] for n in program.nodes] if program else [])
    return names


def _launches(fn, *args):
    before = memory()["num_launches"]
    out = fn(*args)
    return memory()["num_launches"] - before, out


@each_backend
def test_ops_on_constants_alone_run_once_when_the_trace_is_planned():
    rng = np.random.default_rng(3)
    x = tf.constant(rng.normal(size=(6, 8)).astype(np.float32))
    c = tf.constant(rng.normal(size=(8,)).astype(np.float32))
    big = tf.constant(np.ones((1 << 16) + 1, np.float32))
    v = tf.Variable(np.zeros(8, np.float32))
    w = tf.Variable(np.ones(8, np.float32))

    def fn(x):
        scale = -tf.broadcast_to(tf.reshape(tf.constant(2.0) / 64.0, [1]), [8])  # folded
        y = x * tf.reduce_max(c) + scale              # the max folded into a constant
        v.assign(tf.sqrt(tf.abs(c)))                  # assigned, and fused: steps
        w.assign_add(scale)                           # read by an op only: folded
        return y, tf.tanh(c), tf.reduce_sum(big * 2.0)  # returned, large: steps
    compiled = tf.function(fn)
    compiled(x)
    ops = _ops(compiled, x)
    assert "max" not in ops and "broadcast_to" not in ops and "div" not in ops, ops
    assert {"sqrt", "abs", "tanh", "mul", "add"} <= set(ops), ops
    w.assign(np.ones(8, np.float32))
    n_compiled, got = _launches(compiled, x)
    got = [a.numpy() for a in got] + [v.numpy(), w.numpy()]
    w.assign(np.ones(8, np.float32))
    n_eager, eager = _launches(fn, x)
    eager = [a.numpy() for a in eager] + [v.numpy(), w.numpy()]
    assert n_compiled < n_eager, (n_compiled, n_eager)
    for g, e in zip(got, eager):
        assert np.array_equal(g, e), (g, e)
    scale = -np.float32(2.0) / np.float32(64.0)
    oracle = [x.numpy() * c.numpy().max() + scale, np.tanh(c.numpy()),
              np.float32(2 * ((1 << 16) + 1)), np.sqrt(np.abs(c.numpy())),
              np.ones(8, np.float32) + scale]
    for g, o in zip(got, oracle):
        assert np.allclose(g, o, rtol=1e-5, atol=1e-6), (g, o)
    # the folded values stay the trace's: a replay after others gives the same
    for _ in range(2):
        again = compiled(x)
    assert np.array_equal(again[0].numpy(), got[0])
