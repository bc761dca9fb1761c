"""Where texflow raises and TensorFlow 2.21 does not (tests/tfdiff/snippets_fidelity_gaps.py
holds what both do): a tf.range whose length depends on a traced value (TensorFlow's graph
gives it an unknown length, a texflow trace has static shapes), and output_gradients of
another shape than the target (TensorFlow checks nothing: some give a gradient of
another shape)."""

import pytest

import texflow as tf


def test_range_of_a_traced_value_raises_at_trace_time():
    @tf.function
    def f(n):
        return tf.range(n)
    for call in (lambda: f(tf.constant(4)),
                 lambda: f.get_concrete_function(tf.TensorSpec([], tf.int32))):
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                           match=r"range, whose result's shape depends.*unknown length"):
            call()
    assert f(4).numpy().tolist() == [0, 1, 2, 3]  # a Python number traces per value
    v = tf.Variable(3)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Variable"):
        tf.function(lambda: tf.range(v))()


def test_range_of_a_random_draw_raises():
    @tf.function
    def f():
        return tf.range(tf.random.uniform([], 1, 5, dtype=tf.int32, seed=1))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="range"):
        f()


@pytest.mark.parametrize("shape", [[2], [1, 3], [], [3, 1]])
def test_output_gradients_of_another_shape_raise(shape):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * 2.0
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"Incompatible shapes: output_gradients\[0\] has shape "
                             rf"\[{', '.join(map(str, shape))}\]"):
        t.gradient(y, x, output_gradients=tf.ones(shape))
