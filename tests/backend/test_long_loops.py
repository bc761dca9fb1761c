"""Ops whose kernels loop over a dimension of their input, just past 65535 iterations:
lavapipe (the wgpu backend's CPU driver) stops an invocation there without an error,
so the wgpu kernels split such loops (runtime.py LOOP_BUDGET)."""

import functools

import numpy as np

import oracle
import oracle_nn
import texflow as tf
from texflow.engine.context import current
from harness import each_backend
from op_cases import rng_for

K = 70001  # loop iterations past lavapipe's 65535


def _close(got, expected, what, scale):
    """float32 sums of K terms against float64 numpy; a sum cut at 65535 terms misses
    ~4466 of them, about sqrt(4466) * scale off."""
    oracle.assert_close(got, np.asarray(expected).astype(got.dtype), 1e-4, 1e-3 * scale, what)


@each_backend
def test_long_products():
    rng = rng_for("long products")
    a = rng.normal(size=(3, K)).astype(np.float32)
    b = rng.normal(size=(K, 5)).astype(np.float32)
    want = a.astype(np.float64) @ b
    with tf.scope():
        _close(tf.matmul(tf.array(a), tf.array(b)).numpy(), want, f"[3,{K}]@[{K},5]", 10)
        _close(tf.matmul(tf.array(a.T.copy()), tf.array(b), transpose_a=True).numpy(), want,
               f"[{K},3]^T@[{K},5]", 10)
        ai = rng.integers(-3, 4, size=(2, 2, K)).astype(np.int32)
        bi = rng.integers(-3, 4, size=(K, 3)).astype(np.int32)
        got = tf.matmul(tf.array(ai), tf.array(bi)).numpy()
        assert np.array_equal(got, ai.astype(np.int64) @ bi), f"int32 [2,2,{K}]@[{K},3]"
        # through a fused epilogue (the product's sum_parts applies it)
        relu = tf.function(lambda x, y: tf.nn.relu(tf.matmul(x, y) + 1.0))
        _close(relu(tf.array(a), tf.array(b)).numpy(), np.maximum(want + 1, 0),
               "relu(matmul + 1) in tf.function", 10)


@each_backend
def test_long_convolutions():
    rng = rng_for("long convolutions")
    # conv2d of 3x3 windows over 8191 channels (C % 4 != 0): 3 * 3 * 8191 taps a pixel
    x = rng.normal(size=(1, 3, 3, 8191)).astype(np.float32)
    w = rng.normal(size=(3, 3, 8191, 4)).astype(np.float32)
    with tf.scope():
        got = tf.conv2d(tf.array(x), tf.array(w), 1, "VALID").numpy()
        _close(got, (x.reshape(1, -1).astype(np.float64) @ w.reshape(-1, 4)).reshape(1, 1, 1, 4),
               "conv2d([1,3,3,8191], [3,3,8191,4])", 10)
        # conv2d_direct over 127 x 127 x 3 taps: 80899 loop iterations as lavapipe counts them
        x = rng.normal(size=(1, 127, 127, 3)).astype(np.float32)
        w = rng.normal(size=(127, 127, 3, 4)).astype(np.float32)
        got = tf.conv2d(tf.array(x), tf.array(w), 1, "VALID").numpy()
        _close(got, (x.reshape(1, -1).astype(np.float64) @ w.reshape(-1, 4)).reshape(1, 1, 1, 4),
               "conv2d([1,127,127,3], [127,127,3,4])", 10)
        # the filter's gradient sums over K batch x pixels
        x = rng.normal(size=(1, 1, K, 3)).astype(np.float32)
        dy = rng.normal(size=(1, 1, K, 4)).astype(np.float32)
        wt = tf.Variable(np.zeros((1, 1, 3, 4), np.float32))
        with tf.GradientTape() as tape:
            y = tf.conv2d(tf.array(x), wt, 1, "VALID")
        got = tape.gradient(y, wt, output_gradients=tf.array(dy)).numpy()
        want = x.reshape(-1, 3).T.astype(np.float64) @ dy.reshape(-1, 4)
        _close(got, want.reshape(1, 1, 3, 4), f"conv2d filter gradient over {K} pixels", 10)


@each_backend
def test_long_segment_sums():
    rng = rng_for("long segment sums")
    ids = rng.integers(-1, 3, size=K).astype(np.int32)
    for dtype in ("float32", "int32"):
        data = (rng.normal(size=(K, 2)) if dtype == "float32" else
                rng.integers(-5, 6, size=(K, 2))).astype(dtype)
        want = np.stack([data[ids == s].astype(np.float64).sum(0) for s in range(3)])
        with tf.scope():
            got = tf.math.unsorted_segment_sum(tf.array(data), tf.array(ids), 3).numpy()
        _close(got, want, f"unsorted_segment_sum of {K} {dtype} rows into 3", 10)


@each_backend
def test_windows_past_the_loop_limit():
    """Windows of 300 x 300 and 2 x 250 x 250 taps: where the driver limits loops (wgpu on
    lavapipe) one dispatch per range of a window's taps; each window's maximum is its last
    tap in one channel, which a truncated loop would miss."""
    x = rng_for("big window").normal(size=(1, 300, 300, 2)).astype(np.float32)
    x[0, 299, 299, 1] = 9.0
    x[0, 0, 0, 0] = 9.0
    want_max, want_mean = x.max((0, 1, 2)), x.astype(np.float64).mean((0, 1, 2))
    traced = tf.function(functools.partial(_pools_and_gradients, window=(300, 1, "VALID")))
    with tf.scope():
        xt = tf.array(x)
        _close(tf.nn.avg_pool2d(xt, 300, 1, "VALID").numpy().ravel(), want_mean, "avg 300", 0.01)
        assert np.array_equal(tf.nn.max_pool2d(xt, 300, 1, "VALID").numpy().ravel(), want_max)
        same = tf.nn.avg_pool2d(xt, 300, 150, "SAME").numpy()
        _close(same, oracle_nn.avg_pool(x, 300, 150, "SAME"), "avg 300 / 150 SAME", 0.01)
        same = tf.nn.max_pool2d(xt, 300, 150, "SAME").numpy()
        assert np.array_equal(same, oracle_nn.max_pool(x, 300, 150, "SAME")), "max SAME"
        for layer, want in ((tf.keras.layers.GlobalAveragePooling2D(), want_mean),
                            (tf.keras.layers.GlobalMaxPooling2D(), want_max)):
            _close(layer(xt).numpy().ravel(), want, type(layer).__name__, 0.01)
        # traced with its gradients: run eagerly (max_pool_grad), then replayed
        # (max_pool_taps, max_pool_grad_taps)
        for run in range(2):
            y, grad, mean, mean_grad = (t.numpy() for t in traced(xt))
            assert np.array_equal(y.ravel(), want_max), f"max_pool, run {run}"
            assert grad[0, 0, 0, 0] == 1 and grad[0, 299, 299, 1] == 1, f"grad, run {run}"
            assert np.sum(grad != 0) == 2, f"max_pool_grad, run {run}"
            _close(mean.ravel(), want_mean, f"avg_pool, run {run}", 0.01)
            want = np.broadcast_to(np.float32([0, 1 / 7 / 90000]), x.shape)
            _close(mean_grad, want, f"avg_pool_grad, run {run}", 0.01)
        v = tf.Variable(x)
        w = rng_for("big filter").normal(size=(300, 300, 2, 1)).astype(np.float32)
        wt = tf.Variable(w)
        with tf.GradientTape() as tape:  # col2im: each pixel's one window offset of 90000
            y = tf.conv2d(v, wt, 1, "VALID")
        got = tape.gradient(y, v, output_gradients=tf.array([[[[3.0]]]])).numpy()
        assert np.array_equal(got[0], 3 * w[..., 0]), "conv2d input gradient 300 x 300"
        x3 = rng_for("big box").normal(size=(1, 2, 250, 250, 1)).astype(np.float32)
        x3[0, 1, 249, 249, 0] = 9.0
        v3 = tf.Variable(x3)
        with tf.GradientTape() as tape:
            y3 = tf.nn.max_pool3d(v3, (2, 250, 250), 1, "VALID")
        assert y3.numpy().ravel()[0] == 9.0, "max_pool3d 2 x 250 x 250"
        got = tape.gradient(y3, v3).numpy()
        assert got[0, 1, 249, 249, 0] == 1 and np.sum(got != 0) == 1, "max_pool3d gradient"


@each_backend
def test_split_loops_under_a_small_budget():
    """The splits at small sizes: a WGSL backend given a loop budget of 40 (its recipes
    rebuilt) matches numpy on products, segment sums and convolutions (im2col's channel
    runs split too); other backends compute the same values."""
    _under_budget(40, _small_budget_cases)


def _under_budget(budget, fn):
    """fn() with a WGSL backend's LOOP_BUDGET set to `budget` (its recipes rebuilt)."""
    be = current()
    wgsl = hasattr(be, "LOOP_BUDGET")
    saved = wgsl and be.LOOP_BUDGET
    if wgsl:
        be.LOOP_BUDGET = budget
        be._recipes.clear()
    try:
        return fn()
    finally:
        if wgsl:
            be.LOOP_BUDGET = saved
            be._recipes.clear()


def _small_budget_cases():
    rng = rng_for("small budget")
    with tf.scope():
        a = rng.normal(size=(2, 3, 101)).astype(np.float32)
        b = rng.normal(size=(101, 5)).astype(np.float32)
        _close(tf.matmul(tf.array(a), tf.array(b)).numpy(), a.astype(np.float64) @ b,
               "[2,3,101]@[101,5] in chunks of 34", 0.01)
        ids = rng.integers(-1, 4, size=101).astype(np.int32)
        data = rng.integers(-5, 6, size=(101, 3)).astype(np.int32)
        got = tf.math.unsorted_segment_sum(tf.array(data), tf.array(ids), 4).numpy()
        assert np.array_equal(got, [data[ids == s].sum(0) for s in range(4)]), got
        x = rng.normal(size=(2, 6, 7, 5)).astype(np.float32)
        w = rng.normal(size=(3, 3, 5, 4)).astype(np.float32)
        _close(tf.conv2d(tf.array(x), tf.array(w), 1, "SAME").numpy(),
               oracle_nn.conv2d(x, w, 1, "SAME"), "conv2d [2,6,7,5] * [3,3,5,4]", 0.01)
        # im2col copies 45 channels a pixel in two invocations
        w45 = rng.normal(size=(2, 2, 45, 4)).astype(np.float32)
        x45 = rng.normal(size=(1, 3, 4, 45)).astype(np.float32)
        _close(tf.conv2d(tf.array(x45), tf.array(w45), 1, "SAME").numpy(),
               oracle_nn.conv2d(x45, w45, 1, "SAME"), "conv2d [1,3,4,45] * [2,2,45,4]", 0.01)
        dy = rng.normal(size=(2, 6, 7, 4)).astype(np.float32)
        wt = tf.Variable(w)
        with tf.GradientTape() as tape:
            y = tf.conv2d(tf.array(x), wt, 1, "SAME")
        _close(tape.gradient(y, wt, output_gradients=tf.array(dy)).numpy(),
               oracle_nn.conv2d_backprop_filter(x, dy, w.shape, 1, "SAME"),
               "conv2d filter gradient in parts of 5 rows", 0.01)


# pooling windows (ksize, strides, padding) whose loops pass a budget of 40 (6 x 6: 6 * 6 +
# 2 * 6 + 1 iterations), some in parts that end within a row, one of windows that tile
_WINDOWS = [(6, 1, "VALID"), (6, 2, "SAME"), ((7, 5), (2, 3), "SAME"), (7, 7, "VALID"),
            ((1, 45), 1, "SAME")]


@each_backend
def test_windows_in_parts_under_a_small_budget():
    """Every windowed kernel in parts: under a loop budget of 40 (and of 9: parts of a
    few taps) a WGSL backend gives, bit for bit, what its unsplit kernels give (the
    parts take up the fold where the one before stopped, in the same order), and max
    pooling, its gradient and avg pooling match numpy; other backends compute the same
    values three times."""
    rng = rng_for("windows in parts")
    ties = rng.integers(-3, 4, size=(2, 9, 50, 3)).astype(np.float32)  # many equal maxima
    ties[0, 1, 1, 0] = ties[1, 4, 7, 2] = np.nan
    x4 = rng.normal(size=(1, 7, 50, 4)).astype(np.float32)  # four channels: vec4 kernels
    x3 = rng.integers(-3, 4, size=(1, 4, 5, 6, 2)).astype(np.float32)
    xc = rng.normal(size=(1, 8, 9, 4)).astype(np.float32)
    w = rng.normal(size=(7, 6, 4, 4)).astype(np.float32)
    dyc = rng.normal(size=(1, 8, 9, 4)).astype(np.float32)
    cases = lambda: _window_cases(ties, x4, x3, xc, w, dyc)  # noqa: E731
    whole, parts, few = cases(), _under_budget(40, cases), _under_budget(9, cases)
    for name in whole:
        for a, b, c in zip(whole[name], parts[name], few[name]):
            assert np.array_equal(a.view(np.int32), b.view(np.int32)), f"{name} in parts"
            assert np.array_equal(a.view(np.int32), c.view(np.int32)), f"{name} in 9s"
    for name, x in (("ties", ties), ("x4", x4)):
        for ksize, strides, padding in _WINDOWS:
            at = f"{name} {ksize} {strides} {padding}"
            got, grad, mean, _ = parts[f"max {at}"]
            assert np.array_equal(got, oracle_nn.max_pool(x, ksize, strides, padding)), at
            _close(grad, oracle_nn.max_pool_grad(x, np.ones_like(got), ksize, strides,
                                                 padding), f"max_pool_grad {at}", 0.01)
            _close(mean, oracle_nn.avg_pool(x, ksize, strides, padding), f"avg {at}", 0.01)


def _window_cases(ties, x4, x3, xc, w, dyc):
    """name -> arrays of the windowed kernels: pooling forward and backward, eager and
    traced (max_pool_taps), pool3d to the second order, and conv2d's input gradient."""
    out = {}
    with tf.scope():
        for name, x in (("ties", ties), ("x4", x4)):
            for window in _WINDOWS:
                at = "{} {} {} {}".format(name, *window)
                pools = functools.partial(_pools_and_gradients, window=window)
                out[f"max {at}"] = [t.numpy() for t in pools(tf.array(x))]
                traced = tf.function(pools)
                traced(tf.array(x))  # traced eagerly; the replay pools by max_pool_taps
                out[f"traced {at}"] = [t.numpy() for t in traced(tf.array(x))]
        for ksize, strides, padding in ((4, 2, "SAME"), ((2, 5, 6), 1, "VALID")):
            v = tf.Variable(x3)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = tf.nn.max_pool3d(v, ksize, strides, padding)
                    loss = tf.reduce_sum(y * y)
                g = inner.gradient(loss, v)
                loss2 = tf.reduce_sum(g * g)
            out[f"pool3d {ksize}"] = [y.numpy(), g.numpy(), outer.gradient(loss2, v).numpy()]
        v = tf.Variable(ties[:1, :, :12])
        with tf.GradientTape() as outer:  # 2-D max_pool_grad's gradient: pool3d_grad_grad
            with tf.GradientTape() as inner:
                y = tf.nn.max_pool2d(v, 6, 1, "SAME")
            g = inner.gradient(y, v, output_gradients=y)
        out["max_pool_grad_grad"] = [outer.gradient(g, v, output_gradients=g).numpy()]
        v = tf.Variable(xc)
        with tf.GradientTape() as tape:  # col2im: 7 x 6 offsets (vec4 channels)
            y = tf.conv2d(v, tf.array(w), 1, "SAME")
        out["conv2d input gradient"] = [tape.gradient(y, v, output_gradients=dyc).numpy()]
    return out


def _pools_and_gradients(x, window):
    ksize, strides, padding = window
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, ksize, strides, padding)
        mean = tf.nn.avg_pool2d(x, ksize, strides, padding)
        shape = tuple(mean.shape)  # static: a distinct weight for each output
        weighted = tf.reduce_sum(mean * (np.arange(np.prod(shape)).reshape(shape) / 7))
    return (y, tape.gradient(y, x), mean, tape.gradient(weighted, x))
