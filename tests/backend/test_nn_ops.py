"""The training core's ops on every backend against numpy references
(tests/oracle_nn.py): convolution, pooling, movement and the NN composites."""

import numpy as np

import oracle
import oracle_nn
import texflow as tf
from harness import each_backend
from op_cases import rng_for, values

CONV_CASES = [  # (x shape, filter shape, strides, padding, dilations)
    ((2, 7, 6, 3), (3, 2, 3, 4), 1, "VALID", 1), ((2, 7, 6, 3), (3, 2, 3, 4), 1, "SAME", 1),
    ((2, 7, 6, 3), (3, 3, 3, 5), 2, "SAME", 1), ((2, 7, 6, 3), (3, 3, 3, 2), 2, "VALID", 1),
    ((1, 9, 9, 2), (3, 3, 2, 4), 1, "SAME", 2), ((1, 9, 9, 2), (2, 3, 2, 3), (2, 1), "VALID", 2),
    ((1, 1, 1, 1), (1, 1, 1, 1), 1, "VALID", 1), ((3, 8, 8, 8), (1, 1, 8, 16), 1, "SAME", 1),
    ((2, 6, 5, 4), (3, 3, 4, 4), 1, [[1, 0], [2, 1]], 1), ((1, 1, 9000, 1), (1, 3, 1, 2), 1,
                                                              "SAME", 1),
    ((4, 28, 28, 1), (3, 3, 1, 8), 1, "VALID", 1), ((2, 9, 7, 3), (3, 3, 3, 8), 2, "SAME", 1),
    ((1, 6, 13, 2), (2, 3, 2, 4), (1, 3), [[0, 1], [2, 1]], 1),
    # one input channel, pixels blocked (GLSL conv2d_px_block.frag; the [4, 28, 28, 1]
    # row above has rows on texels): rows not on texels, padded, dilated
    ((2, 32, 33, 1), (3, 3, 1, 8), 1, "SAME", 2),
]
POOL_CASES = [  # (x shape, ksize, strides, padding)
    ((2, 7, 6, 3), 2, None, "VALID"), ((2, 7, 6, 3), 2, 2, "SAME"), ((2, 7, 6, 3), 3, 2, "SAME"),
    ((2, 7, 6, 3), (3, 2), (1, 2), "VALID"), ((1, 5, 5, 8), 3, 1, "SAME"),
    ((1, 1, 9000, 2), (1, 4), (1, 4), "VALID"), ((2, 7, 6, 8), 2, None, "VALID"),
]


def _close(got, expected, what, rtol=None, atol=None):
    gpu = tf.get_backend() != "numpy"
    rtol = rtol if rtol is not None else (5e-5 if gpu else 2e-6)
    atol = atol if atol is not None else 1e-5
    oracle.assert_close(got, expected, rtol, atol, what)


def _np(fn, *args, **kwargs):
    with tf.scope():
        return fn(*args, **kwargs).numpy()


def _conv_cases(op):
    """Each CONV_CASES row with its inputs x and w, drawn from a generator seeded by `op`
    and the row (the generator comes along for further draws)."""
    for xs, ws, strides, padding, dil in CONV_CASES:
        rng = rng_for(op, xs, ws, strides, str(padding), dil)
        x, w = values("float32", xs, rng, specials=False), values("float32", ws, rng,
                                                                  specials=False)
        yield rng, x, w, (xs, ws, strides, padding, dil)


@each_backend
def test_conv2d():
    for _, x, w, (xs, ws, strides, padding, dil) in _conv_cases("conv2d"):
        got = _np(tf.conv2d, tf.array(x), tf.array(w), strides, padding, dil)
        scale = oracle_nn.conv2d(np.abs(x), np.abs(w), strides, padding, dil)
        _close(got, oracle_nn.conv2d(x, w, strides, padding, dil),
               f"conv2d({list(xs)}, {list(ws)}, strides={strides}, padding={padding}, "
               f"dilations={dil})", atol=1e-5 + 1e-5 * scale)


@each_backend
def test_conv2d_filter_gradient():
    for rng, x, w, (xs, ws, strides, padding, dil) in _conv_cases("conv2d_backprop_filter"):
        dy = values("float32", oracle_nn.conv2d(x, w, strides, padding, dil).shape, rng,
                    specials=False)
        with tf.scope():
            wt = tf.Variable(w)
            with tf.GradientTape() as tape:
                y = tf.conv2d(tf.array(x), wt, strides, padding, dil)
            got = tape.gradient(y, wt, output_gradients=tf.array(dy)).numpy()
        scale = oracle_nn.conv2d_backprop_filter(np.abs(x), np.abs(dy), ws, strides, padding,
                                                 dil)
        _close(got, oracle_nn.conv2d_backprop_filter(x, dy, ws, strides, padding, dil),
               f"conv2d filter gradient({list(xs)}, {list(ws)}, strides={strides}, "
               f"padding={padding}, dilations={dil})", atol=1e-5 + 1e-5 * scale)


@each_backend(op=["max_pool", "avg_pool"])
def test_pooling(op):
    for xs, ksize, strides, padding in POOL_CASES:
        x = values("float32", xs, rng_for(op, xs, ksize, strides, padding), specials=False)
        # TensorFlow's max_pool: NaN is never a window's maximum, and a window of -inf and
        # NaN only gives float32's lowest (avg_pool: NaN and -inf propagate)
        x.flat[1] = np.nan
        x[0, :2, :2] = -np.inf
        x[0, 0, 0, 0] = np.nan
        if xs[1] > 1:
            x[-1, 1, 0] = np.nan  # the first tap of a window's second row
        got = _np(getattr(tf, op), tf.array(x), ksize, strides, padding)
        _close(got, getattr(oracle_nn, op)(x, ksize, strides, padding),
               f"{op}({list(xs)}, ksize={ksize}, strides={strides}, padding={padding})")


@each_backend
def test_max_pool_gradient_goes_to_each_windows_first_maximum():
    # ReLU outputs: windows of equal zeros and other ties; a NaN; sizes the windows do not
    # divide; the non-overlapping (Keras's default) and the general kernels; windows of -inf
    # only whose tap 0 is SAME padding (top, left): TensorFlow sends their gradient to the
    # first in-image tap, then to a strictly greater value (never a NaN)
    for xs, ksize, strides, padding in POOL_CASES[:4] + [
            ((3, 9, 8, 5), 2, 2, "VALID"), ((2, 9, 9, 3), 3, 3, "VALID"),
            ((2, 8, 6, 3), (2, 3), (2, 3), "VALID"), ((2, 9, 7, 8), 2, 2, "VALID"),
            ((1, 8, 9, 4), (2, 3), (2, 3), "SAME"), ((2, 7, 5, 8), 2, 2, "SAME"),
            ((1, 4, 4, 4), 3, 3, "SAME"), ((1, 5, 5, 4), 3, 1, "SAME")]:
        rng = rng_for("max_pool_grad", xs, ksize, strides, padding)
        x = np.maximum(np.round(values("float32", xs, rng, specials=False), 1), 0)
        x[0, 1, 1, 0] = np.nan
        x[-1, :2, :3, -1] = -np.inf
        # a NaN at a window's first tap keeps its gradient; one at the first tap of its
        # second row does not (TensorFlow's MaxPoolGrad)
        x[0, 0, 0, 1] = np.nan
        x[-1, 1, 0, 0] = np.nan
        grad = tf.max_pool(tf.array(x), ksize, strides, padding).shape
        dy = values("float32", tuple(grad), rng, specials=False)
        with tf.scope():
            xt = tf.Variable(x)
            with tf.GradientTape() as tape:
                y = tf.max_pool(xt, ksize, strides, padding)
            got = tape.gradient(y, xt, output_gradients=tf.array(dy)).numpy()
        _close(got, oracle_nn.max_pool_grad(x, dy, ksize, strides, padding),
               f"max_pool gradient({list(xs)}, ksize={ksize}, strides={strides}, "
               f"padding={padding})")


@each_backend
def test_slice_pad_tile():
    for dtype in ("float32", "int32", "bool"):
        x = values(dtype, (3, 4, 5), rng_for("movement", dtype))
        for begin, size in (([0, 0, 0], [3, 4, 5]), ([1, 2, 0], [2, -1, 3]),
                            ([2, 3, 4], [1, 1, 1])):
            _close(_np(tf.slice, tf.array(x), begin, size), oracle_nn.slice(x, begin, size),
                   f"slice({dtype}, {begin}, {size})")
        for pads, value in (([[1, 0], [0, 2], [3, 1]], 0), ([[0, 0], [1, 1], [0, 0]], 1)):
            _close(_np(tf.pad, tf.array(x), pads, constant_values=value),
                   oracle_nn.pad(x, pads, np.asarray(value).astype(x.dtype)),
                   f"pad({dtype}, {pads}, {value})")
        for multiples in ([1, 1, 1], [2, 1, 3], [1, 3, 1]):
            _close(_np(tf.tile, tf.array(x), multiples), oracle_nn.tile(x, multiples),
                   f"tile({dtype}, {multiples})")
    big = values("float32", (2, 8200), rng_for("big-slice"))
    _close(_np(tf.slice, tf.array(big), [1, 100], [1, 8000]),
           oracle_nn.slice(big, [1, 100], [1, 8000]), "slice of a dimension over 8192")
    _close(_np(tf.pad, tf.array(big), [[0, 1], [5, 0]]), oracle_nn.pad(big, [[0, 1], [5, 0]]),
           "pad of a dimension over 8192")


@each_backend
def test_concat_stack_broadcast_to():
    for dtype in ("float32", "int32", "bool"):
        rng = rng_for("concat", dtype)
        parts = [values(dtype, (2, n, 3), rng) for n in (1, 4, 2, 3, 1, 2, 2, 1, 3, 1, 2, 1,
                                                         1, 2, 3, 1, 2, 1)]
        for count in (2, 3, 18):
            for axis in (1, -2):
                got = _np(tf.concat, [tf.array(p) for p in parts[:count]], axis)
                _close(got, oracle_nn.concat(parts[:count], axis),
                       f"concat of {count} {dtype} arrays, axis {axis}")
        same = [values(dtype, (2, 3), rng) for _ in range(3)]
        for axis in (0, 1, 2, -1):
            _close(_np(tf.stack, [tf.array(p) for p in same], axis),
                   oracle_nn.stack(same, axis), f"stack({dtype}, axis={axis})")
        x = values(dtype, (3, 1), rng)
        _close(_np(tf.broadcast_to, tf.array(x), [2, 3, 4]),
               oracle_nn.broadcast_to(x, (2, 3, 4)), f"broadcast_to({dtype})")


@each_backend
def test_gather_and_segment_sum():
    for dtype in ("float32", "int32"):
        params = values(dtype, (5, 4, 3), rng_for("gather", dtype))
        for axis, idx in ((0, [4, 0, 0, 2]), (1, [[3, 1], [0, 0]]), (2, [2]), (-1, [[0], [1]])):
            got = _np(tf.gather, tf.array(params), tf.array(np.array(idx, np.int32)),
                      axis=axis)
            _close(got, oracle_nn.gather(params, idx, axis),
                   f"gather({dtype}, indices={idx}, axis={axis})")
        data = values(dtype, (6, 3), rng_for("segment", dtype))
        ids = np.array([2, 0, 2, 3, -1, 1], np.int32)  # a negative id is dropped
        got = _np(tf.unsorted_segment_sum, tf.array(data), tf.array(ids), 4)
        _close(got, oracle_nn.unsorted_segment_sum(data, ids, 4),
               f"unsorted_segment_sum({dtype}), ids {ids.tolist()}")
    table = values("float32", (9000, 2), rng_for("big-gather"))
    idx = np.array([8999, 0, 4500], np.int32)
    _close(_np(tf.gather, tf.array(table), tf.array(idx)), oracle_nn.gather(table, idx),
           "gather from a table of 9000 rows")


@each_backend
def test_softmax_and_cross_entropies():
    logits = values("float32", (4, 6), rng_for("logits"), specials=False) * 3
    labels = np.array([1, 5, 0, 3], np.int32)
    dense = oracle_nn.one_hot(labels, 6)
    z = (values("float32", (4, 6), rng_for("z"), specials=False) > 0).astype(np.float32)
    x = tf.array(logits)
    for name, got, expected in [
        ("softmax", _np(tf.softmax, x), oracle_nn.softmax(logits)),
        ("log_softmax", _np(tf.log_softmax, x), oracle_nn.log_softmax(logits)),
        ("softmax axis 0", _np(tf.softmax, x, 0), oracle_nn.softmax(logits, 0)),
        ("softmax_cross_entropy", _np(tf.softmax_cross_entropy_with_logits, tf.array(dense), x),
         oracle_nn.softmax_cross_entropy_with_logits(dense, logits)),
        ("sparse_softmax_cross_entropy",
         _np(tf.sparse_softmax_cross_entropy_with_logits, tf.array(labels), x),
         oracle_nn.sparse_softmax_cross_entropy_with_logits(labels, logits)),
        ("sigmoid_cross_entropy", _np(tf.sigmoid_cross_entropy_with_logits, tf.array(z), x),
         oracle_nn.sigmoid_cross_entropy_with_logits(z, logits)),
        ("one_hot", _np(tf.one_hot, tf.array(labels), 6), dense),
        ("leaky_relu", _np(tf.leaky_relu, x, 0.1), oracle_nn.leaky_relu(logits, 0.1)),
        ("clip_by_value", _np(tf.clip_by_value, x, -1.0, 0.5),
         oracle_nn.clip_by_value(logits, -1.0, 0.5)),
    ]:
        _close(got, expected, name, rtol=1e-4)
    huge = tf.array(np.array([[1000.0, 0.0, -1000.0]], np.float32))
    assert np.isfinite(_np(tf.log_softmax, huge)).all(), "log_softmax overflowed"
    assert _np(tf.softmax, huge).tolist() == [[1.0, 0.0, 0.0]]


@each_backend
def test_keras_style_cross_entropies():
    rng = rng_for("keras-ce")
    logits = values("float32", (5, 4), rng, specials=False) * 2
    probs = oracle_nn.softmax(logits)
    probs[0] = [1.0, 0.0, 0.0, 0.0]  # exercises the clipping
    dense = oracle_nn.one_hot(np.array([2, 0, 3, 1, 1]), 4)
    sparse = np.array([[2], [0], [3], [1], [1]], np.int32)
    z = (values("float32", (5, 4), rng, specials=False) > 0).astype(np.float32)
    sig = 1 / (1 + np.exp(-logits.astype(np.float64)))
    for from_logits, pred_d, pred_b in ((True, logits, logits), (False, probs,
                                                                 sig.astype(np.float32))):
        p, b = tf.array(pred_d), tf.array(pred_b)
        _close(_np(tf.categorical_crossentropy, tf.array(dense), p, from_logits),
               oracle_nn.categorical_crossentropy(dense, pred_d, from_logits),
               f"categorical_crossentropy(from_logits={from_logits})", rtol=1e-4)
        _close(_np(tf.sparse_categorical_crossentropy, tf.array(sparse), p, from_logits),
               oracle_nn.sparse_categorical_crossentropy(sparse, pred_d, from_logits),
               f"sparse_categorical_crossentropy(from_logits={from_logits})", rtol=1e-4)
        _close(_np(tf.binary_crossentropy, tf.array(z), b, from_logits),
               oracle_nn.binary_crossentropy(z, pred_b, from_logits),
               f"binary_crossentropy(from_logits={from_logits})", rtol=1e-4, atol=1e-4)


@each_backend
def test_moments_and_batch_normalization():
    x = values("float32", (8, 5, 3), rng_for("moments"), specials=False)
    with tf.scope():
        mean, var = tf.moments(tf.array(x), [0, 1])
        _close(mean.numpy(), oracle_nn.moments(x, [0, 1])[0], "moments mean")
        _close(var.numpy(), oracle_nn.moments(x, [0, 1])[1], "moments variance", rtol=1e-4)
        offset, scale = np.float32([0.1, 0.2, 0.3]), np.float32([1.0, 2.0, 0.5])
        got = tf.batch_normalization(tf.array(x), mean, var, tf.array(offset), tf.array(scale),
                                     1e-3).numpy()
    expected = oracle_nn.batch_normalization(x, *oracle_nn.moments(x, [0, 1]), offset, scale,
                                             1e-3)
    _close(got, expected, "batch_normalization", rtol=1e-4, atol=1e-4)


@each_backend
def test_dropout_is_seeded_and_scaled():
    x = tf.ones([4, 50])
    a = tf.dropout(x, 0.3, seed=11).numpy()
    kept = a[a != 0]
    assert np.allclose(kept, 1 / 0.7), "kept values are scaled by 1 / (1 - rate)"
    assert 0.5 < kept.size / a.size < 0.9
    b = tf.dropout(x, 0.3, seed=11).numpy()
    assert not np.array_equal(a, b), "successive calls draw new masks"


@each_backend
def test_pools_with_an_empty_output_have_zero_gradients():
    # a 3x3 VALID window on a 2x2 image: no window fits (TensorFlow: an empty output and
    # a zero gradient); numpy's window slices once wrapped to the far end and raised
    x = tf.constant(np.arange(40, dtype=np.float32).reshape(2, 2, 2, 5))
    for pool in (tf.nn.max_pool2d, tf.nn.avg_pool2d):
        def loss(v, pool=pool):
            with tf.GradientTape() as tape:
                tape.watch(v)
                y = pool(v, 3, 2, "VALID")
                total = tf.reduce_sum(y)
            return y, tape.gradient(total, v)
        for run in (loss, tf.function(loss)):
            for _ in range(2):  # a tf.function's trace, then its replay
                y, dx = run(x)
                assert y.shape == (2, 0, 0, 5)
                np.testing.assert_array_equal(dx.numpy(), np.zeros((2, 2, 2, 5)))
