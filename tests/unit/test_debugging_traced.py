"""tf.debugging's value checks inside tf.function run at every call, on that call's
values, as TensorFlow's assert ops do (before 2026-11-24 they raised
OperatorNotAllowedInGraphError at trace time)."""

import numpy as np
import pytest

import texflow as tf


@tf.function
def checked(x, y):
    tf.debugging.assert_less(x, y, message="x < y")
    tf.debugging.assert_positive(y)
    tf.debugging.assert_near(x, x * 1.0)
    tf.debugging.assert_equal(tf.shape(x), tf.shape(y))
    return tf.debugging.check_numerics(tf.math.log(y), "log y") + x


def test_replays_check_each_calls_values():
    np.testing.assert_allclose(checked(tf.constant([1.0]), tf.constant([2.0])).numpy(),
                               [1.0 + np.log(2.0)], rtol=1e-6)
    np.testing.assert_allclose(checked(tf.constant([0.5]), tf.constant([1.0])).numpy(),
                               [0.5], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x < y did not hold"):
        checked(tf.constant([3.0]), tf.constant([2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0 did not hold"):
        checked(tf.constant([-3.0]), tf.constant([-2.0]))
    assert checked.experimental_get_tracing_count() == 1


def test_check_numerics_at_replay():
    @tf.function
    def f(x):
        return tf.debugging.check_numerics(x / x, "ratio") * 2.0
    np.testing.assert_array_equal(f(tf.constant([2.0, 4.0])).numpy(), [2.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="ratio : Tensor had NaN values"):
        f(tf.constant([0.0, 4.0]))
    assert f.experimental_get_tracing_count() == 1


def test_get_concrete_function_checks_nothing_at_zeros():
    # its dry trace runs at zeros, which assert_positive rejects (it raised there)
    f = tf.function(lambda v: tf.debugging.assert_positive(v))
    concrete = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    concrete(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0 did not hold"):
        concrete(tf.constant([-1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0 did not hold"):
        f(tf.constant([-1.0, 2.0]))
