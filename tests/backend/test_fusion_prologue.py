"""Prologue fusion on every backend: in a tf.function, a reduction (sum, mean, max,
min, prod) reading a value that only it reads, made by an elementwise tree, is one
step whose kernel computes the tree per element as it reads it; results equal eager
execution and a float64 numpy oracle, with fewer launches. Values also returned,
read twice, assigned or printed are not fused."""

import io

import numpy as np

import texflow as tf
from harness import each_backend, memory


_RANK10 = (2, 3) * 5


def _every(n):
    """A shape broadcasting to _RANK10 along runs of `n` axes in turn."""
    return tuple(1 if (i // n) % 2 else d for i, d in enumerate(_RANK10))


def _cases():
    """(name, fn, float64 oracle, argument (shape, dtype)s, whether it fuses)."""
    f, i = "float32", "int32"
    mask = lambda d, h: d * (h > 0)  # noqa: E731
    return [
        ("loss_mean", lambda x, y: tf.reduce_mean(tf.square(x - y)),
         lambda x, y: np.mean((x - y) ** 2), [((7, 13), f), ((7, 13), f)], True),
        ("bias_grad_scalar", lambda d, h: tf.reduce_sum(d * tf.cast(h > 0, tf.float32), 0),
         lambda d, h: mask(d, h).sum(0), [((33, 10), f), ((33, 10), f)], True),
        ("bias_grad_columns", lambda d, h: tf.reduce_sum(d * tf.cast(h > 0, tf.float32), 0),
         lambda d, h: mask(d, h).sum(0), [((9, 8), f), ((9, 8), f)], True),
        ("softmax_sum", lambda x: tf.reduce_sum(
            tf.exp(x - tf.reduce_max(x, -1, keepdims=True)), -1, keepdims=True),
         lambda x: np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True),
         [((6, 11), f)], True),
        ("variance", lambda x: tf.reduce_mean(
            tf.square(x - tf.reduce_mean(x, 0, keepdims=True)), 0),
         lambda x: x.var(0), [((17, 5), f)], True),
        ("axes_0_2", lambda x, w: tf.reduce_max(tf.abs(x) * w, axis=(0, 2)),
         lambda x, w: (np.abs(x) * w).max((0, 2)), [((3, 5, 4), f), ((5, 1), f)], True),
        ("min_keepdims", lambda x: tf.reduce_min(x + 1.5, axis=1, keepdims=True),
         lambda x: (x + 1.5).min(1, keepdims=True), [((4, 7, 6), f)], True),
        ("prod_last", lambda x: tf.reduce_prod(1 + x * 0.1, -1),
         lambda x: (1 + x * 0.1).prod(-1), [((5, 6), f)], True),
        ("one_row", lambda x, y: tf.reduce_sum(x * y, 1),
         lambda x, y: (x * y).sum(1), [((1, 9), f), ((9,), f)], True),
        ("many_passes", lambda x: tf.reduce_sum(tf.square(x)),
         lambda x: (x ** 2).sum(), [((300, 70), f)], True),
        ("int_sum", lambda a, b: tf.reduce_sum(a * b + 3, 0),
         lambda a, b: (a * b + 3).sum(0), [((7, 13), i), ((13,), i)], True),
        ("count_true", lambda x: tf.reduce_sum(x > 0, -1),
         lambda x: (x > 0).sum(-1), [((5, 12), f)], True),
        ("int_mean", lambda a: tf.reduce_mean(a, 1),  # mean's cast is the prologue
         lambda a: a.mean(1), [((6, 9), i)], True),
        ("scalar_operand", lambda x, s: tf.reduce_max(tf.where(x > s, x * s, -x), 0),
         lambda x, s: np.where(x > s, x * s, -x).max(0), [((5, 8), f), ((), f)], True),
        # 6 arrays strided over 10 axes: more launch parameters than a WGSL dispatch has
        ("too_many_strides", lambda x, a, b, c, d, e: tf.reduce_sum(x * a + b * c - d * e,
                                                                    (0, 3, 5)),
         lambda x, a, b, c, d, e: (x * a + b * c - d * e).sum((0, 3, 5)),
         [(_RANK10, f)] + [(_every(k + 1), f) for k in range(5)], False),
        ("size_one_axis", lambda x: tf.reduce_sum(tf.exp(x), 0),  # a copy: not fused
         lambda x: np.exp(x).sum(0), [((1, 6), f)], False),
    ]


def _data(rng, shape, dtype):
    if dtype == "int32":
        return rng.integers(-9, 10, size=shape).astype(np.int32)
    return rng.normal(size=shape).astype(np.float32)


@each_backend
def test_reductions_fuse_their_elementwise_prologue():
    rng = np.random.default_rng(21)
    # WGSL kernels keep each op's rounding (fused.py `opaque`); a GLSL compiler may
    # contract fused arithmetic (a * b + c into one fma), which WebGL cannot forbid
    exact = tf.get_backend() in ("numpy", "wgpu", "webgpu")
    for name, fn, oracle, specs, fuses in _cases():
        data = [_data(rng, *s) for s in specs]
        args = [tf.constant(d) for d in data]
        compiled = tf.function(fn)
        compiled(*args)  # the trace
        kinds = [s[1].name for s in compiled.get_concrete_function(*args)._steps]
        assert ("reduce_prologue" in kinds) == fuses, (name, kinds)
        before = memory()["num_launches"]
        eager = fn(*args).numpy()
        middle = memory()["num_launches"]
        traced = compiled(*args).numpy()
        after = memory()["num_launches"]
        assert after - middle < middle - before or not fuses, \
            (name, after - middle, middle - before)
        assert traced.shape == eager.shape and traced.dtype == eager.dtype, name
        assert np.array_equal(traced, eager) if exact or eager.dtype != np.float32 else \
            np.allclose(traced, eager, rtol=1e-5, atol=1e-6), (name, traced, eager)
        want = oracle(*[d.astype(np.float64) if d.dtype == np.float32 else d for d in data])
        assert np.allclose(traced, want, rtol=1e-4, atol=1e-5), (name, traced, want)


@each_backend
def test_values_read_elsewhere_are_not_fused():
    rng = np.random.default_rng(22)
    x, y = (tf.constant(rng.normal(size=(6, 5)).astype(np.float32)) for _ in range(2))
    v = tf.Variable(tf.zeros([6, 5]))
    w = tf.Variable(tf.ones([6, 5]))
    stream = io.StringIO()

    def returned(x, y):  # the tree's value is an output: it must be written
        d = tf.square(x - y)
        return d, tf.reduce_sum(d)

    def read_twice(x, y):  # two reductions read it: stored once for both
        d = tf.exp(x - y)
        return tf.reduce_sum(d, 0) + tf.reduce_max(d, 0)

    def assigned(x, y):  # a Variable takes the value
        d = x * y
        v.assign(d)
        return tf.reduce_mean(d)

    def printed(x, y):  # host code reads it at every call
        d = x + y
        tf.print(d, output_stream=stream)
        return tf.reduce_min(d)

    def assigned_between(x, y):  # w changes between the tree and the reduction
        d = w * x
        w.assign(y)
        return tf.reduce_sum(d, 1)

    for fn in (returned, read_twice, assigned, printed, assigned_between):
        w.assign(tf.ones([6, 5]))
        compiled = tf.function(fn)
        compiled(x, y)
        kinds = [s[1].name for s in compiled.get_concrete_function(x, y)._steps
                 if s[0] == "op"]
        assert "reduce_prologue" not in kinds, (fn.__name__, kinds)
        w.assign(tf.ones([6, 5]))
        got = compiled(x, y)
        w.assign(tf.ones([6, 5]))
        want = fn(x, y)
        for g, e in zip(*[r if isinstance(r, tuple) else (r,) for r in (got, want)]):
            assert np.allclose(g.numpy(), e.numpy(), rtol=2e-6, atol=1e-6), fn.__name__
    assert stream.getvalue(), "tf.print printed nothing"
