"""Variables made inside tf.function, by TensorFlow 2.21's rules (checked against it):
only the first trace may make them, and a first trace that made some is traced again,
where making one raises (a Variable made at every call fails at the first call)."""

import gc
import sys

import numpy as np
import pytest

import texflow as tf

NOT_SINGLETON = "tf.function only supports singleton tf.Variables created on the first call"
NON_FIRST = "Creating variables on a non-first call to a function decorated with tf.function."


def test_a_variable_made_once_is_traced_twice_and_kept():
    made, calls = [], []

    @tf.function
    def f(x):
        calls.append(1)
        if not made:
            made.append(tf.Variable(1.0))
        made[0].assign_add(x)
        return made[0] * 2.0
    values = [float(f(tf.constant(1.0))) for _ in range(3)]
    assert values == [4.0, 6.0, 8.0]           # the second trace changed nothing
    assert len(made) == 1 and float(made[0]) == 4.0
    assert f.experimental_get_tracing_count() == 2 and len(calls) == 2


def test_a_method_making_its_counter_on_first_call():
    class Count:
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)
    c = Count()
    assert [int(c()) for _ in range(3)] == [1, 2, 3]


def test_a_variable_made_at_every_call_raises_at_the_first():
    @tf.function
    def f(x):
        return tf.Variable(1.0) + x
    with pytest.raises(ValueError, match=NOT_SINGLETON):
        f(tf.constant(1.0))
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError, match=NOT_SINGLETON):  # no trace was kept
        f(tf.constant(1.0))


def test_a_variable_made_by_a_later_trace_raises():
    made = []

    @tf.function
    def f(x):
        if x.shape[0] == 2 and not made:
            made.append(tf.Variable(5.0))
        return x + (made[0] if made else 0.0)
    np.testing.assert_array_equal(f(tf.constant([1.0])).numpy(), [1.0])
    with pytest.raises(ValueError, match=NON_FIRST):
        f(tf.constant([1.0, 2.0]))
    assert not made
    assert f.experimental_get_tracing_count() == 2  # the failed trace counts, as TF's
    with pytest.raises(ValueError, match="singleton"):  # TensorFlow's second refusal
        f(tf.constant([1.0, 2.0]))
    assert f.experimental_get_tracing_count() == 2


def test_the_second_trace_continues_the_first_ones_random_streams():
    def draws(make_variable):
        made = []

        @tf.function
        def f(x):
            if make_variable and not made:
                made.append(tf.Variable(0.0))
            return x + tf.random.uniform([4], seed=3) + tf.nn.dropout(x, 0.5, seed=7)
        tf.random.set_seed(5)
        return [f(tf.ones([4])).numpy() for _ in range(3)]
    plain, retraced = draws(False), draws(True)
    for a, b in zip(plain, retraced):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(retraced[0], retraced[1])


def test_a_variable_whose_constructor_raises_leaves_no_noise():
    # NDArray.__del__ of the half-made Variable raised AttributeError ("Exception ignored")
    seen = []
    hook, sys.unraisablehook = sys.unraisablehook, seen.append
    try:
        with pytest.raises(ValueError, match="initial_value must be specified"):
            tf.Variable(None)
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert not seen, [str(u.exc_value) for u in seen]


def test_structured_outputs_are_specs_of_the_results():
    @tf.function
    def f(x):
        return {"a": x * 2.0, "b": (tf.reduce_sum(x), 3)}
    out = f.get_concrete_function(tf.TensorSpec([4], tf.float32)).structured_outputs
    assert out["a"] == tf.TensorSpec([4], tf.float32)
    assert out["b"][0] == tf.TensorSpec([], tf.float32)
    assert out["b"][1] == tf.TensorSpec([], tf.int32)
