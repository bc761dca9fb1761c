"""tf.Variable's TensorFlow 2.21 arguments (checked against it): the signature's order,
constraint, synchronization and aggregation, and `shape` / `validate_shape`, which let
a later assign change the shape where they allow it."""

import inspect

import numpy as np
import pytest

import texflow as tf


def test_the_signature_is_tensorflows():
    names = list(inspect.signature(tf.Variable.__init__).parameters)[1:]
    assert names == ["initial_value", "trainable", "validate_shape", "caching_device", "name",
                     "variable_def", "dtype", "import_scope", "constraint", "synchronization",
                     "aggregation", "shape", "experimental_enable_variable_lifting"]


def test_constraint_synchronization_and_aggregation_are_kept():
    nonneg = lambda z: tf.maximum(z, 0.0)  # noqa: E731
    v = tf.Variable([1.0, -1.0], constraint=nonneg)
    assert v.constraint is nonneg and v.trainable
    assert v.synchronization == tf.VariableSynchronization.AUTO
    assert v.aggregation == tf.VariableAggregation.NONE
    opt = tf.keras.optimizers.SGD(1.0)
    opt.apply_gradients([(tf.constant([0.0, 1.0]), v)])  # -1 - 1, then the constraint
    assert v.numpy().tolist() == [1.0, 0.0]
    r = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.MEAN)
    assert not r.trainable and r.aggregation == tf.VariableAggregation.MEAN
    with pytest.raises(ValueError, match="ON_READ only for non-trainable"):
        tf.Variable(0.0, trainable=True, synchronization=tf.VariableSynchronization.ON_READ)
    with pytest.raises(ValueError, match="must be a callable"):
        tf.Variable(0.0, constraint=3)


def test_shape_and_validate_shape_allow_other_shapes():
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    v.assign([1.0, 2.0, 3.0])
    assert v.shape == (3,) and v.numpy().tolist() == [1.0, 2.0, 3.0]
    w = tf.Variable(np.zeros((2, 3), np.float32), shape=[None, 3])
    w.assign(np.ones((4, 3), np.float32))
    assert w.shape == (4, 3) and float(tf.reduce_sum(w)) == 12.0
    with pytest.raises(ValueError, match="2, 4"):
        w.assign(np.ones((2, 4), np.float32))
    u = tf.Variable([1.0, 2.0], validate_shape=False)
    u.assign([[1.0]])
    assert u.shape == (1, 1)
    with pytest.raises(ValueError, match="not compatible with the explicitly supplied"):
        tf.Variable([1.0, 2.0], shape=[3])
    with pytest.raises(ValueError, match="of shape \\[2\\]"):
        tf.Variable([1.0, 2.0]).assign([1.0, 2.0, 3.0])  # no shape argument: fixed
    with pytest.raises(ValueError, match="inside tf.function"):
        tf.function(lambda: v.assign([1.0]))()
