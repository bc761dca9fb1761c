"""max_pool3d and its gradient kernel, and a tf.range folded from a static shape, replayed
by tf.function as eager execution runs them, on every backend (the values themselves are
checked against TensorFlow in tests/tfdiff/snippets_fidelity_gaps.py)."""

import numpy as np

import texflow as tf
from harness import each_backend


def _step(v):
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = tf.nn.max_pool3d(v, 2, [1, 2, 1], "SAME")
        loss = tf.reduce_sum(y * tf.cast(tf.range(tf.shape(y)[-1]), tf.float32))
    return y, tape.gradient(loss, v)


@each_backend
def test_pool3d_replays_as_eager():
    data = np.random.default_rng(7).normal(size=(1, 3, 4, 5, 9)).astype(np.float32)
    data.ravel()[::7] = np.nan  # both of TensorFlow's NaN rules (9 channels: 8 + 1)
    compiled = tf.function(_step)
    for scale in (1.0, -2.0):  # the first call traces, the second replays
        v = tf.constant(data * scale)
        for e, t in zip(_step(v), compiled(v)):
            np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert compiled.experimental_get_tracing_count() == 1
