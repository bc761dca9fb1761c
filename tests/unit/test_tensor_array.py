"""tf.TensorArray beyond what tests/tfdiff/snippets_tensor_array.py compares with
TensorFlow: its signature, which object a write returns, and the limits of texflow's
traces (sizes known at trace time; indices known then or checked at every call)."""

import inspect

import numpy as np
import pytest

import texflow as tf

# inspect.signature of TensorFlow 2.21's tf.TensorArray methods
TF_PARAMETERS = {
    "__init__": ["self", "dtype", "size", "dynamic_size", "clear_after_read",
                 "tensor_array_name", "handle", "flow", "infer_shape", "element_shape",
                 "colocate_with_first_write_call", "name"],
    "read": ["self", "index", "name"], "write": ["self", "index", "value", "name"],
    "stack": ["self", "name"], "unstack": ["self", "value", "name"],
    "gather": ["self", "indices", "name"], "scatter": ["self", "indices", "value", "name"],
    "concat": ["self", "name"], "split": ["self", "value", "lengths", "name"],
    "size": ["self", "name"], "identity": ["self"], "close": ["self", "name"],
    "grad": ["self", "source", "flow", "name"],
}


def test_parameters_are_tensorflows():
    for method, names in TF_PARAMETERS.items():
        got = list(inspect.signature(getattr(tf.TensorArray, method)).parameters)
        assert got == names, method


def test_eager_write_changes_the_array_traced_write_returns_a_new_one():
    ta = tf.TensorArray(tf.float32, size=2)
    assert ta.write(0, 1.0) is ta and ta.unstack([1.0, 2.0]) is ta
    seen = []

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=2)
        tb = ta.write(0, x)
        seen.append((tb is ta, ta.element_shape))
        return tb.stack()
    np.testing.assert_array_equal(f(tf.constant(3.0)).numpy(), [3.0, 0.0])
    assert seen == [(False, tf.TensorShape([]))]  # the inferred shape is shared


def test_traced_size_must_be_known_at_trace_time():
    f = tf.function(lambda n: tf.TensorArray(tf.float32, size=n).size())
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="TensorArray size"):
        f(tf.constant(2))
    g = tf.function(lambda x: tf.TensorArray(tf.float32, size=tf.shape(x)[0]).size())
    assert int(g(tf.zeros([4, 2]))) == 4


def test_traced_index_is_checked_at_every_call():
    @tf.function
    def f(x, k):
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
        return ta.write(k, x).read(1)
    assert float(f(tf.constant(5.0), tf.constant(1))) == 5.0
    assert float(f(tf.constant(5.0), tf.constant(0))) == 0.0
    with pytest.raises(tf.errors.OutOfRangeError, match="write to index 2 but array is not "
                                                         "resizeable and size is: 2"):
        f(tf.constant(5.0), tf.constant(2))
    with pytest.raises(tf.errors.OutOfRangeError, match=r"negative indices \(index -1\)"):
        f(tf.constant(5.0), tf.constant(-1))
    assert f.experimental_get_tracing_count() == 1


def test_masked_while_loop_checks_only_iterations_it_keeps():
    # after n iterations the counter stays at n = size; the dropped iterations' writes
    # there must neither raise nor change the array
    @tf.function
    def f(x, n):
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[])
        def body(i, ta):
            return i + 1, ta.write(i, tf.gather(x, i))
        _, ta = tf.while_loop(lambda i, ta: i < n, body, (tf.constant(0), ta),
                              maximum_iterations=5)
        return ta.stack()
    x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(f(x, tf.constant(3)).numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(f(x, tf.constant(2)).numpy(), [1.0, 2.0, 0.0])
    with pytest.raises(tf.errors.OutOfRangeError, match="write to index 3"):
        f(x, tf.constant(4))


def test_traced_index_needs_a_fixed_size():
    f = tf.function(lambda x, k: tf.TensorArray(tf.float32, size=1, dynamic_size=True)
                    .write(k, x).stack())
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="dynamic_size"):
        f(tf.constant(1.0), tf.constant(0))


def test_range_loop_unrolls_at_trace_time():
    # texflow has no autograph: `for i in tf.range(n)` iterates a constant at trace time
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, tf.reduce_sum(x[i]))
        return ta.stack()
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(f(x).numpy(), [3.0, 7.0, 11.0])


def test_bad_arguments_name_the_value():
    with pytest.raises(TypeError, match="index must be an integer, received 1.5"):
        tf.TensorArray(tf.float32, size=2).read(1.5)
    with pytest.raises(TypeError, match="indices must be a vector of integers"):
        tf.TensorArray(tf.float32, size=2).gather(1)
    assert repr(tf.TensorArray(tf.int32, size=2)) == \
        "<tf.TensorArray: size=2, dtype=int32, element_shape=<unknown>>"


def test_no_tensor_array_passes_in_or_out_of_a_trace():
    # its elements would be frozen at trace time: a later call would see stale values
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(0, 1.0)
    read = tf.function(lambda t, x: t.read(0) + x)
    with pytest.raises(TypeError, match="made outside the tf.function being traced"):
        read(ta, tf.constant(5.0))
    made = tf.function(lambda x: tf.TensorArray(tf.float32, size=1).write(0, x))
    with pytest.raises(TypeError, match="made inside the tf.function being traced and is "
                                        "used outside it"):
        made(tf.constant(1.0)).stack()
