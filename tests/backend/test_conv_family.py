"""tf.nn's transposed, depthwise, separable and 1-D convolutions (ops/convolution.py) on
every backend against numpy references (tests/oracle_nn.py), with their gradients, and
TensorFlow's shape errors."""

import numpy as np

import oracle
import oracle_nn
import texflow as tf
from harness import each_backend, raises
from op_cases import rng_for, values
from texflow.ops import convolution

TRANSPOSE_CASES = [  # (input shape, filter [kh, kw, out, in], output_shape, strides, padding,
    #                   dilations)
    ((2, 4, 5, 3), (3, 3, 2, 3), (2, 9, 11, 2), 2, "VALID", 1),
    ((2, 4, 5, 3), (3, 3, 2, 3), (2, 10, 12, 2), 2, "VALID", 1),  # a row and column unread
    ((2, 4, 5, 3), (3, 3, 2, 3), (2, 8, 10, 2), 2, "SAME", 1),
    ((2, 4, 5, 3), (4, 4, 5, 3), (2, 7, 9, 5), 2, "SAME", 1),
    ((1, 5, 5, 4), (3, 2, 4, 4), (1, 5, 5, 4), 1, "SAME", 2),
    ((1, 3, 7, 2), (2, 3, 1, 2), (1, 6, 6, 1), (2, 1), [[0, 0], [0, 1], [2, 1], [0, 0]], 1),
    ((3, 7, 7, 8), (1, 1, 4, 8), (3, 7, 7, 4), 1, "VALID", 1),
]
DEPTHWISE_CASES = [  # (input shape, filter [kh, kw, C, M], strides, padding, dilations)
    ((2, 6, 7, 4), (3, 3, 4, 1), 1, "SAME", 1), ((2, 6, 7, 4), (3, 3, 4, 2), 2, "SAME", 1),
    ((2, 6, 7, 3), (2, 3, 3, 3), 1, "VALID", 2), ((1, 7, 5, 5), (3, 3, 5, 2), 2, "VALID", 1),
    ((1, 6, 6, 2), (3, 3, 2, 1), 1, [[0, 0], [1, 0], [2, 1], [0, 0]], 1),
]


def _close(got, expected, what, scale=0.0):
    rtol = 5e-5 if tf.get_backend() != "numpy" else 2e-6
    oracle.assert_close(got, expected, rtol, 1e-5 + 1e-5 * scale, what)


def _draw(key, *shapes):
    rng = rng_for(*key)
    return [values("float32", s, rng, specials=False) for s in shapes]


def _grads(fn, x, w, dy):
    """fn(x, w) and its gradients for x and w given the output gradient dy."""
    with tf.scope():
        xv, wv = tf.Variable(x), tf.Variable(w)
        with tf.GradientTape() as tape:
            y = fn(xv, wv)
        gx, gw = tape.gradient(y, [xv, wv], output_gradients=tf.constant(dy))
        return y.numpy(), gx.numpy(), gw.numpy()


@each_backend
def test_conv2d_transpose_and_its_gradients():
    for xs, ws, out, strides, padding, dil in TRANSPOSE_CASES:
        x, w, dy = _draw(("conv2d_transpose", xs, ws, out, strides, str(padding)), xs, ws, out)
        what = f"conv2d_transpose({list(xs)}, {list(ws)}, {list(out)}, {strides}, {padding})"
        y, gx, gw = _grads(lambda a, b: tf.nn.conv2d_transpose(
            a, b, out, strides, padding, dilations=dil), x, w, dy)
        pads = padding if isinstance(padding, str) else padding[1:3]  # the oracle's form
        scale = oracle_nn.conv2d_transpose(np.abs(x), np.abs(w), out, strides, pads, dil)
        _close(y, oracle_nn.conv2d_transpose(x, w, out, strides, pads, dil), what, scale)
        # its gradients are conv2d of dy (for the input) and conv2d's filter gradient
        _close(gx, oracle_nn.conv2d(dy, w, strides, pads, dil), what + " input gradient",
               oracle_nn.conv2d(np.abs(dy), np.abs(w), strides, pads, dil))
        _close(gw, oracle_nn.conv2d_backprop_filter(dy, x, ws, strides, pads, dil),
               what + " filter gradient", oracle_nn.conv2d_backprop_filter(
                   np.abs(dy), np.abs(x), ws, strides, pads, dil))


def _depthwise_paths():
    """Both of depthwise_conv2d's ways: a block-diagonal conv2d and the sum over taps."""
    return [convolution.BLOCK_DIAGONAL_MAX, 0]


@each_backend
def test_depthwise_conv2d_and_its_gradients():
    saved = convolution.BLOCK_DIAGONAL_MAX
    try:
        for limit in _depthwise_paths():
            convolution.BLOCK_DIAGONAL_MAX = limit
            for xs, ws, strides, explicit, dil in DEPTHWISE_CASES:
                x, w = _draw(("depthwise", xs, ws, strides, str(explicit)), xs, ws)
                padding = explicit if isinstance(explicit, str) else explicit[1:3]
                want = oracle_nn.depthwise_conv2d(x, w, strides, padding, dil)
                dy = _draw(("depthwise dy", xs, ws), want.shape)[0]
                what = (f"depthwise_conv2d({list(xs)}, {list(ws)}, {strides}, {explicit}, "
                        f"dilations={dil}) with BLOCK_DIAGONAL_MAX={limit}")
                y, gx, gw = _grads(lambda a, b: tf.nn.depthwise_conv2d(
                    a, b, [1, strides, strides, 1], explicit, dilations=dil), x, w, dy)
                _close(y, want, what, oracle_nn.depthwise_conv2d(np.abs(x), np.abs(w),
                                                                 strides, padding, dil))
                wx, ww = oracle_nn.depthwise_conv2d_grads(x, w, dy, strides, padding, dil)
                ax, aw = oracle_nn.depthwise_conv2d_grads(np.abs(x), np.abs(w), np.abs(dy),
                                                          strides, padding, dil)
                _close(gx, wx, what + " input gradient", ax)
                _close(gw, ww, what + " filter gradient", aw)
    finally:
        convolution.BLOCK_DIAGONAL_MAX = saved


@each_backend
def test_separable_conv2d():
    x, dw, pw = _draw(("separable",), (2, 7, 6, 3), (3, 3, 3, 2), (1, 1, 6, 5))
    with tf.scope():
        got = tf.nn.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "SAME").numpy()
    mid = oracle_nn.depthwise_conv2d(x, dw, 2, "SAME")
    _close(got, oracle_nn.conv2d(mid, pw), "separable_conv2d",
           oracle_nn.conv2d(np.abs(mid), np.abs(pw)))


@each_backend
def test_conv1d_and_conv1d_transpose():
    x, w, t = _draw(("conv1d",), (2, 9, 3), (3, 3, 4), (2, 4, 4))
    with tf.scope():
        got = tf.nn.conv1d(x, w, 2, "SAME").numpy()
        back = tf.nn.conv1d_transpose(t, w, [2, 9, 3], 2, "VALID").numpy()
        dil = tf.nn.convolution(x, w, padding="SAME", dilations=2).numpy()
    _close(got, oracle_nn.conv2d(x[:, None], w[None], 2, "SAME")[:, 0], "conv1d")
    _close(dil, oracle_nn.conv2d(x[:, None], w[None], 1, "SAME", 2)[:, 0],
           "convolution (conv1d, dilated)")
    _close(back, oracle_nn.conv2d_transpose(t[:, None], w[None],
                                            (2, 1, 9, 3), 2, "VALID")[:, 0], "conv1d_transpose")


@each_backend
def test_atrous_convolutions():
    x, w = _draw(("atrous",), (1, 7, 7, 2), (3, 3, 2, 3))
    with tf.scope():
        got = tf.nn.atrous_conv2d(x, w, 2, "SAME").numpy()
        back = tf.nn.atrous_conv2d_transpose(got, w, [1, 7, 7, 2], 2,
                                             "SAME").numpy()
    want = oracle_nn.conv2d(x, w, 1, "SAME", 2)
    _close(got, want, "atrous_conv2d", oracle_nn.conv2d(np.abs(x), np.abs(w), 1, "SAME", 2))
    _close(back, oracle_nn.conv2d_transpose(want, w, (1, 7, 7, 2), 1,
                                            "SAME", 2), "atrous_conv2d_transpose", 50.0)


@each_backend
def test_tensorflows_shape_errors():
    x, w = tf.ones([1, 4, 4, 3]), tf.ones([3, 3, 2, 3])
    with raises(tf.errors.InvalidArgumentError, match="actual = 4, computed = 3"):
        tf.nn.conv2d_transpose(x, w, [1, 8, 8, 2], 2, "VALID")
    with raises(tf.errors.InvalidArgumentError, match="same batch size"):
        tf.nn.conv2d_transpose(x, w, [2, 9, 9, 2], 2, "VALID")
    with raises(tf.errors.InvalidArgumentError, match="divisible by filter depth: 3 vs 2"):
        tf.nn.conv2d_transpose(x, w, [1, 9, 9, 3], 2, "VALID")
    with raises(tf.errors.InvalidArgumentError, match="4 values or 2 values"):
        tf.nn.conv2d_transpose(x, w, [1, 9, 9], 2, "VALID")
    assert tf.nn.conv2d_transpose(x, w, [8, 8], 2).shape == [1, 8, 8, 2]
    assert tf.nn.conv2d_transpose(x, w, tf.constant([1, 7, 7, 2]), 2).shape == [1, 7, 7, 2]
    dw = tf.ones([3, 3, 3, 2])
    with raises(TypeError, match="Expected list for 'strides'"):
        tf.nn.depthwise_conv2d(x, dw, 1, "SAME")
    with raises(tf.errors.InvalidArgumentError, match="equal length strides"):
        tf.nn.depthwise_conv2d(x, dw, [1, 2, 1, 1], "SAME")
    with raises(tf.errors.InvalidArgumentError, match="same depth: 3 vs 2"):
        tf.nn.depthwise_conv2d(x, tf.ones([3, 3, 2, 2]), [1, 1, 1, 1], "SAME")
    with raises(tf.errors.InvalidArgumentError, match="divisible by filter depth: 6 vs 5"):
        tf.nn.separable_conv2d(x, dw, tf.ones([1, 1, 5, 4]), [1, 1, 1, 1], "SAME")
    with raises(TypeError, match="Expected string for argument 'padding'"):
        tf.nn.conv1d(tf.ones([2, 7, 3]), tf.ones([3, 3, 4]), 1, [[1, 1]])
    assert tf.nn.depthwise_conv2d(x, dw, [1, 2, 2, 1], "SAME").shape == [1, 2, 2, 6]


CONV3D_CASES = [  # (input shape, filter [kd, kh, kw, in, out], strides, padding, dilations)
    ((2, 5, 4, 6, 3), (3, 2, 3, 3, 4), (1, 1, 1), "SAME", (1, 1, 1)),
    ((1, 6, 5, 5, 2), (3, 3, 3, 2, 2), (2, 2, 1), "VALID", (1, 1, 1)),
    ((1, 5, 5, 6, 2), (2, 3, 2, 2, 3), (1, 1, 1), "SAME", (2, 1, 2)),
    ((2, 4, 3, 3, 4), (1, 1, 1, 4, 5), (2, 1, 1), "SAME", (1, 1, 1)),
]


@each_backend
def test_conv3d_and_conv3d_transpose_with_gradients():
    for xs, ws, strides, padding, dil in CONV3D_CASES:
        x, w = _draw(("conv3d", xs, ws, strides, padding), xs, ws)
        want = oracle_nn.conv3d(x, w, strides, padding, dil)
        dy = _draw(("conv3d dy", xs, ws), want.shape)[0]
        what = f"conv3d({list(xs)}, {list(ws)}, {strides}, {padding}, dilations={dil})"
        y, gx, gw = _grads(lambda a, b: tf.nn.conv3d(a, b, [1, *strides, 1], padding,
                                                     dilations=[1, *dil, 1]), x, w, dy)
        _close(y, want, what, oracle_nn.conv3d(np.abs(x), np.abs(w), strides, padding, dil))
        _close(gx, oracle_nn.conv3d_transpose(dy, w, xs, strides, padding, dil),
               what + " input gradient",
               oracle_nn.conv3d_transpose(np.abs(dy), np.abs(w), xs, strides, padding, dil))
        _close(gw, oracle_nn.conv3d_backprop_filter(x, dy, ws, strides, padding, dil),
               what + " filter gradient", oracle_nn.conv3d_backprop_filter(
                   np.abs(x), np.abs(dy), ws, strides, padding, dil))
        # the transpose (the same filter), from dy back to x's shape, and its gradient for
        # its input (conv3d)
        back, gback, _ = _grads(lambda a, b: tf.nn.conv3d_transpose(
            a, b, xs, list(strides), padding, dilations=list(dil)), dy, w, x)
        _close(back, oracle_nn.conv3d_transpose(dy, w, xs, strides, padding, dil),
               "conv3d_transpose of " + what, oracle_nn.conv3d_transpose(
            np.abs(dy), np.abs(w), xs, strides, padding, dil))
        _close(gback, want, "conv3d_transpose's input gradient of " + what,
               oracle_nn.conv3d(np.abs(x), np.abs(w), strides, padding, dil))


@each_backend
def test_conv3d_errors_are_tensorflows():
    x, w = tf.ones([1, 5, 6, 7, 2]), tf.ones([3, 2, 3, 2, 4])
    with raises(TypeError, match="Expected list for 'strides'"):
        tf.nn.conv3d(x, w, 1, "SAME")
    with raises(tf.errors.InvalidArgumentError, match="batch and depth dimensions"):
        tf.nn.conv3d(x, w, [2, 1, 1, 1, 1], "SAME")
    with raises(tf.errors.InvalidArgumentError, match="divisible by filter depth: 2 vs 3"):
        tf.nn.conv3d(x, tf.ones([3, 2, 3, 3, 4]), [1, 1, 1, 1, 1], "SAME")
    with raises(tf.errors.InvalidArgumentError, match="actual = 3, computed = 4"):
        tf.nn.conv3d_transpose(tf.ones([1, 3, 3, 4, 4]), w, [1, 7, 6, 7, 2], 2, "SAME")
    assert tf.nn.conv3d_transpose(tf.ones([1, 3, 3, 4, 4]), w, [1, 6, 6, 7, 2], 2).shape == \
        [1, 6, 6, 7, 2]
    assert tf.nn.convolution(x, w, 2, "SAME").shape == [1, 3, 3, 4, 4]


@each_backend
def test_grouped_conv2d_and_its_gradients():
    """Input channels a multiple G of the filter's: G convolutions of channel blocks (the
    filter's output channels in G blocks), as TensorFlow's conv2d."""
    for xs, ws, strides, padding in (((2, 5, 6, 6), (3, 3, 2, 6), 1, "SAME"),
                                     ((1, 6, 5, 4), (2, 3, 1, 8), 2, "VALID"),
                                     ((1, 4, 4, 6), (1, 1, 2, 3), 1, "VALID")):
        x, w = _draw(("grouped", xs, ws), xs, ws)
        groups, cg, og = xs[3] // ws[2], ws[2], ws[3] // (xs[3] // ws[2])
        blocks = [(x[..., g * cg:(g + 1) * cg], w[..., g * og:(g + 1) * og])
                  for g in range(groups)]
        want = np.concatenate([oracle_nn.conv2d(a, b, strides, padding) for a, b in blocks],
                              axis=3)
        dy = _draw(("grouped dy", xs, ws), want.shape)[0]
        what = f"grouped conv2d({list(xs)}, {list(ws)}, {strides}, {padding})"
        y, gx, gw = _grads(lambda a, b: tf.nn.conv2d(a, b, strides, padding), x, w, dy)
        _close(y, want, what, np.concatenate([oracle_nn.conv2d(
            np.abs(a), np.abs(b), strides, padding) for a, b in blocks], axis=3))
        dys = [dy[..., g * og:(g + 1) * og] for g in range(groups)]
        _close(gx, np.concatenate([oracle_nn.conv2d_transpose(
            d, b, a.shape, strides, padding) for (a, b), d in zip(blocks, dys)], axis=3),
            what + " input gradient", 10.0)
        _close(gw, np.concatenate([oracle_nn.conv2d_backprop_filter(
            a, d, b.shape, strides, padding) for (a, b), d in zip(blocks, dys)], axis=3),
            what + " filter gradient", 10.0)
    with raises(tf.errors.InvalidArgumentError, match="divisible by number of groups: 5 vs"):
        tf.nn.conv2d(tf.ones([1, 5, 5, 4]), tf.ones([3, 3, 2, 5]), 1, "SAME")
    with raises(tf.errors.InvalidArgumentError, match="divisible by filter depth: 4 vs 3"):
        tf.nn.conv2d(tf.ones([1, 5, 5, 4]), tf.ones([3, 3, 3, 6]), 1, "SAME")


@each_backend
def test_traced_steps_match_eager():
    """Inside tf.function (a DCGAN or MobileNet training step) the ops and their gradients
    give eager's values, on both depthwise paths."""
    x, dw, tw, w3 = _draw(("traced",), (2, 6, 6, 3), (3, 3, 3, 2), (3, 3, 4, 6),
                          (2, 2, 2, 4, 2))
    saved = convolution.BLOCK_DIAGONAL_MAX
    try:
        for limit in _depthwise_paths():
            convolution.BLOCK_DIAGONAL_MAX = limit

            def step(a, b, c, d):
                with tf.GradientTape() as tape:
                    tape.watch([a, b, c, d])
                    h = tf.nn.depthwise_conv2d(a, b, [1, 2, 2, 1], "SAME")
                    h = tf.nn.conv2d_transpose(h, c, [2, 6, 6, 4], 2, "SAME")
                    h = tf.nn.conv3d(tf.stack([h, h * 2.0], axis=1), d, [1, 1, 1, 1, 1],
                                     "VALID")
                    loss = tf.reduce_sum(h * h)
                return [loss] + tape.gradient(loss, [a, b, c, d])

            with tf.scope():
                args = [tf.constant(v) for v in (x, dw, tw, w3)]
                eager = [t.numpy() for t in step(*args)]
                compiled = tf.function(step)
                for _ in range(2):  # the trace, then a replay
                    traced = [t.numpy() for t in compiled(*args)]
                    for name, e, t in zip(("loss", "dx", "ddw", "dtw", "dw3"), eager, traced):
                        _close(t, e, f"traced {name} (BLOCK_DIAGONAL_MAX={limit})",
                               np.abs(e).max())
    finally:
        convolution.BLOCK_DIAGONAL_MAX = saved
