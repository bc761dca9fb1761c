"""Inside tf.function a value the same at every call (computed from constants, static
shapes and Python numbers: `tf.shape(x)[0]`) reads on the host as it is, so shape
arguments built from it work, as TensorFlow's ops take them as tensors; a value that
depends on the arguments still raises."""

import numpy as np
import pytest

import texflow as tf


@tf.function
def _shaped(x):
    n = tf.shape(x)[0]
    return (tf.reshape(x, [n, -1]), tf.zeros([n, 3]), tf.ones(tf.shape(x)),
            tf.fill([tf.shape(x)[1]], 2.0), tf.tile(x, [n // 2] + [1] * (len(x.shape) - 1)),
            tf.reshape(x, tf.shape(x)[::-1]), tf.one_hot([0, 1], tf.size(x)),
            tf.slice(x, [0] * len(x.shape), [n - 1] + [-1] * (len(x.shape) - 1)))


@pytest.mark.parametrize("shape", [(2, 3), (4, 1, 2)])
def test_shape_arguments_from_static_shapes(shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    t = tf.constant(x)
    for _ in range(2):  # the trace, then a replay
        got = _shaped(t)
        flat = x.reshape(shape[0], -1)
        want = (flat, np.zeros((shape[0], 3)), np.ones(shape), np.full(shape[1], 2.0),
                np.tile(x, [shape[0] // 2] + [1] * (len(shape) - 1)),
                x.reshape(shape[::-1]), np.eye(2, x.size), x[:shape[0] - 1])
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)


def test_a_python_if_on_a_static_shape_is_decided_per_trace():
    @tf.function
    def f(x):
        if tf.shape(x)[0] > 2:
            return x * 2.0
        return x
    np.testing.assert_array_equal(f(tf.ones(3)).numpy(), [2.0] * 3)
    np.testing.assert_array_equal(f(tf.ones(2)).numpy(), [1.0] * 2)


def test_values_of_the_arguments_still_raise():
    @tf.function
    def f(x, n):
        return tf.zeros([n, 2]) + x
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="traced tensor"):
        f(tf.ones(2), tf.constant(3))

    @tf.function
    def g(x):
        return tf.reshape(x, [tf.cast(tf.reduce_sum(x), tf.int32), -1])
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="traced tensor"):
        g(tf.ones(4))
