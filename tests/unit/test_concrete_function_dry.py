"""get_concrete_function traces without running effects (TensorFlow 2's tracing): the host
code sites TensorFlow's snippets (tests/tfdiff/snippets_fidelity.py) do not reach."""

import numpy as np

import texflow as tf


def test_seeded_dropout_streams_do_not_advance():
    @tf.function
    def f(x):
        return tf.nn.dropout(x, 0.5, seed=913)
    tf.random.set_seed(5)
    f.get_concrete_function(tf.ones([64]))
    first = f(tf.ones([64])).numpy()  # the trace's stream starts at its first call
    tf.random.set_seed(5)
    np.testing.assert_array_equal(first, tf.nn.dropout(tf.ones([64]), 0.5, seed=913).numpy())


def test_keras_dropout_layer_draws_nothing():
    traced, plain = tf.keras.layers.Dropout(0.5, seed=3), tf.keras.layers.Dropout(0.5, seed=3)
    x = tf.ones([4, 8])
    tf.function(lambda v: traced(v, training=True)).get_concrete_function(x)
    np.testing.assert_array_equal(traced(x, training=True).numpy(),
                                  plain(x, training=True).numpy())


def test_distributed_iterator_keeps_its_element():
    strategy = tf.distribute.MirroredStrategy()
    it = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(2)))

    @tf.function
    def step(it):
        return next(it)
    concrete = step.get_concrete_function(it)
    assert next(it).numpy().tolist() == [0, 1]
    assert concrete(it).numpy().tolist() == [2, 3]
    assert step(it).numpy().tolist() == [4, 5]
    assert step.experimental_get_tracing_count() == 1


def test_parameter_server_dispatch_keeps_its_element():
    """A per-worker iterator's `next` in a scheduled function's trace (what stands for it:
    ps_remote.py traces with `_traced()`) takes no element in a dry trace, neither from
    its dataset nor one the chief's own trace gave back to its copy."""
    from texflow.distribute.parameter_server import PerWorkerIterator
    it = PerWorkerIterator([iter(tf.data.Dataset.range(10).batch(2))])
    it._give_back(0, np.array([7, 8], np.int32))  # as ps_remote's trace does

    @tf.function
    def step(iterator):
        return next(iterator) * 10
    concrete = step.get_concrete_function(it._traced())
    concrete_again = step.get_concrete_function(it._traced())
    assert concrete_again is concrete or step.experimental_get_tracing_count() == 1
    assert concrete(it._traced()).numpy().tolist() == [70, 80]
    assert step(it._traced()).numpy().tolist() == [0, 10]
    assert it._next_for_dispatch().numpy().tolist() == [2, 3]
    assert step.experimental_get_tracing_count() == 1
