"""tf.py_function and tf.numpy_function inside tf.function: host code at every call whose
results keep the traced call's shapes and dtypes (texflow's traces have static shapes;
TensorFlow's results may change shape), and a GradientTape through func inside a trace
(func's own tape at each call, as TensorFlow's EagerPyFunc). TensorFlow's own results
are compared in tests/tfdiff/snippets_functional.py."""

import numpy as np
import pytest

import texflow as tf


def test_replay_with_another_shape_or_dtype_raises():
    f = tf.function(lambda v: tf.py_function(lambda a: a[:int(a[0])], [v], tf.float32))
    np.testing.assert_array_equal(f(tf.constant([1.0, 5.0])).numpy(), [1.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[2\].*shape \[1\]"):
        f(tf.constant([2.0, 5.0]))
    g = tf.function(lambda v: tf.numpy_function(
        lambda a: a.astype(np.float32) if a[0] > 0 else a.astype(np.int32), [v], tf.float32))
    assert g(tf.constant([1.0])).dtype == tf.float32
    with pytest.raises(tf.errors.InvalidArgumentError, match="is int32, but expects float32"):
        g(tf.constant([-1.0]))


def test_gradient_through_func_inside_a_trace_is_each_calls():
    calls = []

    def func(a):
        calls.append(1)
        return a * a

    def step(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = tf.py_function(func, [v], tf.float32)
        return tape.gradient(y, v)
    np.testing.assert_array_equal(step(tf.constant([1.0, 3.0])).numpy(), [2.0, 6.0])
    traced = tf.function(step)
    for k in (1.0, 2.0, 3.0):
        np.testing.assert_array_equal(traced(tf.constant([k, -k])).numpy(), [2 * k, -2 * k])
    assert traced.experimental_get_tracing_count() == 1
    assert len(calls) == 4  # once per call: the gradient reads that call's func tape
    with tf.scope():
        traced(tf.constant([1.0, 1.0]))
    held = tf.memory()["num_arrays"]
    for _ in range(3):
        with tf.scope():
            traced(tf.constant([2.0, 1.0]))
    assert tf.memory()["num_arrays"] == held  # only the latest call's tape is kept


def test_decorator_form():
    @tf.py_function(Tout=tf.float32)
    def double(a):
        return a * 2
    np.testing.assert_array_equal(double(tf.constant([1.5])).numpy(), [3.0])


def test_map_fn_trace_is_unrolled_and_replays():
    f = tf.function(lambda v: tf.map_fn(lambda r: tf.reduce_sum(r * r), v))
    for k in (1.0, 2.0, 3.0):
        x = np.arange(6, dtype=np.float32).reshape(3, 2) * k
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), (x * x).sum(1), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    f(tf.zeros([4, 2]))  # another length: another trace
    assert f.experimental_get_tracing_count() == 2


def test_assert_checks_nothing_in_get_concrete_function():
    # get_concrete_function traces at zeros (engine/trace.py dry()): the check belongs to
    # the calls, as TensorFlow's Assert op runs only when the graph does
    f = tf.function(lambda v: tf.Assert(tf.reduce_all(v > 0), [v]))
    f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    f(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Summarized data: -1.0, 2.0"):
        f(tf.constant([-1.0, 2.0]))
