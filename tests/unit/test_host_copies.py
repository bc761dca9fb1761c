"""A tensor owns its values: what the caller gave is copied (as TensorFlow copies it), so
changing the caller's numpy array later changes no tensor, Variable, weight or dataset
element; and a replayed step's host check of an argument runs once per host array."""

import numpy as np
import pytest

import texflow as tf
from texflow.ops import index_checks


def _changed(make):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    made = make(a)
    a[0, 0] = 99.0
    return made


@pytest.mark.parametrize("make", [
    tf.constant, tf.convert_to_tensor, tf.Variable, tf.identity,
    lambda a: tf.constant(a, dtype=tf.float32), lambda a: tf.cast(a, tf.float32),
    lambda a: tf.Variable(a[0]), lambda a: tf.constant(memoryview(a))])
def test_tensors_do_not_share_the_callers_array(make):
    assert float(tf.reshape(_changed(make), [-1])[0]) == 0.0


def test_set_weights_copies():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3)])
    model.build((None, 2))
    kernel, bias = np.ones((2, 3), np.float32), np.zeros(3, np.float32)
    model.set_weights([kernel, bias])
    kernel[0, 0], bias[0] = 99.0, 99.0
    assert model.get_weights()[0][0, 0] == 1.0 and model.get_weights()[1][0] == 0.0


@pytest.mark.parametrize("source", ["from_tensors", "from_tensor_slices"])
def test_dataset_sources_copy(source):
    ds = _changed(lambda a: getattr(tf.data.Dataset, source)({"x": a, "y": (a, [1, 2])}))
    first = next(iter(ds.as_numpy_iterator()))
    assert np.ravel(first["x"])[0] == 0.0 and np.ravel(first["y"][0])[0] == 0.0


def test_a_replay_checks_each_new_host_array_once():
    seen = []

    def check(x, limit):
        seen.append(index_checks.host_values(x).tolist())
        if max(seen[-1]) >= limit:
            raise tf.errors.InvalidArgumentError(f"{seen[-1]} beyond {limit}")

    @tf.function
    def f(labels):
        index_checks.every_call(check, labels, 3, key=("test labels", 3))
        return labels + 1

    good, other = tf.constant([0, 2]), tf.constant([1, 1])
    for _ in range(3):
        f(good)
    assert seen == [[0, 2]]  # the trace checked it; replays of that array could only pass
    f(other)
    f(other)
    assert seen == [[0, 2], [1, 1]]
    f(good)
    assert seen[-1] == [0, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="beyond 3"):
        f(tf.constant([0, 3]))
    bad = tf.constant([5, 0])
    for _ in range(2):  # a failed check is not remembered
        with pytest.raises(tf.errors.InvalidArgumentError, match="beyond 3"):
            f(bad)
    assert f.experimental_get_tracing_count() == 1
