"""`for x in dataset:` inside tf.function: unrolled at trace time, a fresh pass over the
dataset at every call (data/traced_loop.py), checked against eager loops."""

import numpy as np
import pytest

import texflow as tf


def _sum(dataset):
    total = tf.constant(0.0)
    for x in dataset:
        total += tf.reduce_sum(x)
    return total


def test_every_call_passes_over_the_whole_dataset():
    ds = tf.data.Dataset.range(7).map(lambda x: tf.cast(x, tf.float32)).batch(3)
    f = tf.function(_sum)
    assert [float(f(ds)) for _ in range(3)] == [21.0] * 3
    assert f.experimental_get_tracing_count() == 1


def test_a_reshuffled_dataset_gives_each_call_the_eager_order():
    def firsts(fn):
        ds = tf.data.Dataset.range(16).shuffle(16, seed=4, reshuffle_each_iteration=True)
        return [int(fn(ds)) for _ in range(6)]
    fn = lambda ds: next(iter(ds))  # noqa: E731
    eager, traced = firsts(fn), firsts(tf.function(fn))
    assert eager == traced and len(set(traced)) > 1


def test_a_training_loop_over_batches_matches_eager():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(12, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    results = []
    for compiled in (False, True):
        w = tf.Variable(tf.zeros([3, 1]))
        opt = tf.keras.optimizers.SGD(0.1)
        opt.build([w])

        def epoch(d):
            last = tf.constant(0.0)
            for x, y in d:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((x @ w - y) ** 2)
                opt.apply_gradients([(tape.gradient(loss, w), w)])
                last = loss
            return last
        run = tf.function(epoch) if compiled else epoch
        ds = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(4)
        losses = [float(run(ds)) for _ in range(3)]
        results.append((losses, w.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)


def test_a_dataset_of_another_length_or_shape_at_replay_raises():
    data = [[1.0], [2.0], [3.0]]
    ds = tf.data.Dataset.from_generator(
        lambda: iter([np.array(v, np.float32) for v in data]),
        output_signature=tf.TensorSpec([None], tf.float32))
    f = tf.function(_sum)
    assert float(f(ds)) == 6.0
    data.append([4.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="took 3 elements when traced"):
        f(ds)
    data[:] = [[1.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="ended after 1"):
        f(ds)
    data[:] = [[1.0], [2.0, 5.0], [3.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shapes \[\[2\]\] at position 1"):
        f(ds)
    data[:] = [[1.0], [2.0], [4.0]]
    assert float(f(ds)) == 7.0
