"""Ops whose kernels loop over a dimension of their input, just past 65535 iterations:
lavapipe (the wgpu backend's CPU driver) stops an invocation there without an error,
so the wgpu kernels split such loops (runtime.py LOOP_BUDGET) or refuse the shape."""

import numpy as np

import oracle
import oracle_nn
import texflow as tf
from texflow.engine.context import current
from harness import each_backend, raises
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
    """A pooling window of 257 x 257 pixels: pooling does not split windows, so where
    the driver limits loops (wgpu on lavapipe) it raises rather than truncates."""
    x = rng_for("big window").normal(size=(1, 257, 257, 1)).astype(np.float32)
    with tf.scope():
        if getattr(current(), "LOOP_BUDGET", None) is not None:
            with raises(tf.BackendError, match="avg_pool.*257, 257.*silently stops"):
                tf.nn.avg_pool2d(tf.array(x), 257, 1, "VALID").numpy()
        else:
            got = tf.nn.avg_pool2d(tf.array(x), 257, 1, "VALID").numpy()
            _close(got, x.astype(np.float64).mean().reshape(1, 1, 1, 1), "avg_pool 257", 0.01)


@each_backend
def test_split_loops_under_a_small_budget():
    """The splits at small sizes: a WGSL backend given a loop budget of 40 (its recipes
    rebuilt) matches numpy on products, segment sums and convolutions (im2col's channel
    runs split too), and refuses a
    6x6 pooling window; other backends compute the same values."""
    be = current()
    wgsl = hasattr(be, "LOOP_BUDGET")
    saved = wgsl and be.LOOP_BUDGET
    if wgsl:
        be.LOOP_BUDGET = 40
        be._recipes.clear()
    try:
        _small_budget_cases(wgsl)
    finally:
        if wgsl:
            be.LOOP_BUDGET = saved
            be._recipes.clear()


def _small_budget_cases(wgsl):
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
        if wgsl:
            with raises(tf.BackendError, match="max_pool.*needs 42 loop"):
                tf.nn.max_pool2d(tf.array(x), 6, 1, "VALID").numpy()
