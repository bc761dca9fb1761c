"""tf.function's frequent-tracing warning as TensorFlow 2.21 logs it: its counts, per
Python function (a tf.function made anew in a loop too), at most twice, never for an
input_signature; checked against what TensorFlow printed for the same calls."""

import logging
import re

import numpy as np
import pytest

import texflow as tf


@pytest.fixture
def retrace_warnings():
    """The retracing warnings logged while the test runs: (traced, calls) pairs."""
    got = []

    class Catch(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            found = re.match(r"(\d+) out of the last (\d+) calls to <function ([\w.<>]+) at "
                             r"0x[0-9a-f]+> triggered tf\.function retracing\. Tracing is "
                             r"expensive", message)
            assert found, message
            got.append((int(found[1]), int(found[2]), found[3].split(".")[-1]))
    handler = Catch(level=logging.WARNING)
    logging.getLogger("texflow").addHandler(handler)
    try:
        yield got
    finally:
        logging.getLogger("texflow").removeHandler(handler)


def test_counts_as_tensorflow(retrace_warnings):
    def f(x):
        return x + 1.0

    traced = tf.function(f)
    for n in [1, 1, 1, 2, 3, 4, 2, 5, 1, 1, 1, 1, 1, 1, 6, 7, 8, 9, 10, 11, 12]:
        traced(np.zeros([n], np.float32))
    # TensorFlow 2.21, the same calls: "5 out of the last 8 calls to <function f at ...>"
    # and "5 out of the last 12 calls", then no more; 12 traces
    assert retrace_warnings == [(5, 8, "f"), (5, 12, "f")]
    assert traced.experimental_get_tracing_count() == 12


def test_a_function_made_in_a_loop_and_python_values(retrace_warnings):
    def body(x):
        return x * 2.0

    for _ in range(6):
        tf.function(body)(tf.zeros([2]))
    assert retrace_warnings == [(5, 5, "body"), (6, 6, "body")]  # as TensorFlow's
    retrace_warnings.clear()

    @tf.function
    def g(x, n):
        return x * n

    for n in range(7):
        g(tf.constant(1.0), n)
    assert retrace_warnings == [(5, 5, "g"), (6, 6, "g")] and \
        g.experimental_get_tracing_count() == 7


def test_no_warning_with_an_input_signature(retrace_warnings):
    # TensorFlow traces once for every length here; texflow traces per shape, which
    # the user cannot avoid, so it warns of nothing
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def s(x):
        return x - 1.0

    for n in range(1, 8):
        assert s(tf.zeros([n])).numpy().tolist() == [-1.0] * n
    assert retrace_warnings == []


def test_signature_keys_as_tensorflow():
    traced = []

    @tf.function
    def f(x, n):
        traced.append("tensor" if tf.is_tensor(n) else type(n).__name__)
        return x * n

    x = tf.constant(1.0)
    # TensorFlow 2.21's counts after each call: Python numbers by value (2 == 2.0, True
    # == 1), numpy scalars as tensors (one trace for both values), a list and a tuple
    # apart, and a call whose trace raised not counted
    counts = []
    for n in (2, 2.0, True, 1, np.float32(2.0), np.float32(3.0), [1, 2], (1, 2)):
        f(x, n)
        counts.append(f.experimental_get_tracing_count())
    assert counts == [1, 1, 2, 2, 3, 3, 4, 5], counts
    assert traced == ["int", "bool", "tensor", "list", "tuple"], traced
    assert f(x, np.float32(3.0)).numpy() == 3.0 and f(x, 1).numpy() == 1.0
    with pytest.raises(TypeError):
        f(x, None)
    assert f.experimental_get_tracing_count() == 5


def test_concrete_functions_of_unknown_dimensions_take_every_compatible_shape():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x * 2.0

    concrete = f.get_concrete_function()  # TensorFlow: the input_signature's specs
    assert concrete(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert concrete(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(TypeError, match="Can not cast"):
        concrete(tf.constant([[1.0]]))

    @tf.function
    def g(x, y):
        return x + y

    concrete = g.get_concrete_function(tf.TensorSpec([None, 2]), tf.TensorSpec([2]))
    assert concrete(tf.ones([3, 2]), tf.ones([2])).shape == (3, 2)
    with pytest.raises(TypeError, match="takes tensors"):
        concrete(tf.ones([3, 2]), tf.ones([3]))
    exact = g.get_concrete_function(tf.ones([2, 2]), tf.ones([2]))  # known shapes: exact
    with pytest.raises(TypeError, match="traced for tensors"):
        exact(tf.ones([3, 2]), tf.ones([2]))


def test_python_loops_unroll_at_trace_time():
    @tf.function
    def power(x, n):
        for _ in range(n):  # a Python loop on a Python value: unrolled into the trace
            x = x * 2.0
        return x

    assert power(tf.constant([1.0]), 3).numpy().tolist() == [8.0]
    assert power(tf.constant([3.0]), 3).numpy().tolist() == [24.0]  # replayed
    assert power(tf.constant([1.0]), 2).numpy().tolist() == [4.0]   # n = 2: a new trace
    assert power.experimental_get_tracing_count() == 2


def test_arguments_bind_to_the_signature_with_defaults():
    @tf.function
    def f(x, power=2):
        return x ** power

    x = tf.constant(2.0)
    # TensorFlow 2.21: one trace for all four calls, a second for power=3 (either way)
    assert [f(x).numpy(), f(x, 2).numpy(), f(x, power=2).numpy(),
            f(x=x, power=2).numpy()] == [4.0] * 4
    assert f.experimental_get_tracing_count() == 1
    assert f(x, power=3).numpy() == 8.0 and f(x, 3).numpy() == 8.0
    assert f.experimental_get_tracing_count() == 2
    concrete = f.get_concrete_function(tf.constant(1.0))
    assert concrete(x).numpy() == 4.0 and concrete(x=x).numpy() == 4.0
    with pytest.raises(TypeError, match="power"):
        f(x, 2, power=3)  # Python's own error


def test_a_function_called_inside_another_trace_counts_as_traced():
    # TensorFlow 2.21 traces an inner tf.function as a function of its own inside the
    # outer one's trace, once per signature (counts printed by TensorFlow for these calls)
    @tf.function
    def inner(x):
        return x * x

    @tf.function
    def outer(x):
        return inner(x) + inner(x * 2) + inner(tf.ones([2]))
    counts = []
    outer(tf.constant(3.0))
    counts.append((inner.experimental_get_tracing_count(),
                   outer.experimental_get_tracing_count()))
    for call in (lambda: outer(tf.constant(4.0)), lambda: inner(tf.constant(3.0)),
                 lambda: inner(tf.constant([3.0, 1.0])),
                 lambda: inner(tf.constant([3.0, 1.0, 2.0]))):
        call()
        counts.append(inner.experimental_get_tracing_count())
    outer(tf.constant([4.0, 2.0]))
    counts.append((inner.experimental_get_tracing_count(),
                   outer.experimental_get_tracing_count()))
    assert counts == [(2, 1), 2, 2, 2, 3, (3, 2)]
    np.testing.assert_allclose(inner(tf.constant(3.0)).numpy(), 9.0)


def test_the_plain_call_key_is_the_general_one():
    # tf.function's fast key for plain tensors by position must be the very key the
    # general walk builds (or a call would trace again, or replay another trace)
    from texflow.autodiff.function import _canonical, _plain_key
    plain = [(), (tf.constant(1.0),), (tf.zeros([2, 3]), tf.constant([1, 2])),
             (tf.zeros([1, 2, 3, 4]), tf.constant([True]))]
    for args in plain:
        assert _plain_key(args, {}) == _canonical((args, {}), [])
    for args, kwargs in [((tf.Variable(1.0),), {}), ((tf.zeros([1]), 2), {}),
                         ((tf.zeros([1] * 5),), {}), ((), {"x": tf.zeros([1])}),
                         ([tf.zeros([1])], {})]:
        assert _plain_key(args, kwargs) is None
    f = tf.function(lambda x, y: x + y)
    f(tf.zeros([2]), tf.ones([2]))
    f(x=tf.zeros([2]), y=tf.ones([2]))  # the general path: the same trace
    f(tf.zeros([2]), y=tf.ones([2]))
    assert f.experimental_get_tracing_count() == 1
