"""TrainingState: what travels from a worker that trained to one that did not."""

import numpy as np
import pytest

import texflow as tf
from texflow.distribute.recovery import TrainingState, batch_rows
from texflow.distribute.training_state import decode_meta, encode_meta
from texflow.errors import InvalidArgumentError


def _model(seed):
    tf.keras.utils.set_random_seed(seed)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    return model


def _state(model):
    return TrainingState(model.weights, model.optimizer)


def test_keras_state_reaches_a_fresh_model_whose_optimizer_has_no_slots_yet():
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    trained = _model(1)
    trained.fit(x, y, batch_size=8, epochs=2, verbose=0)
    sender = _state(trained)
    sender.step, sender.epoch, sender.batch, sender.trained = 4, 2, 0, True
    sender.data = {"cursor": 32}
    tf.random.set_seed(5)
    tf.random.uniform([2])
    meta, arrays = sender.snapshot()
    expected_draw = tf.random.uniform([3]).numpy()

    fresh = _model(2)
    assert not fresh.optimizer.built
    receiver = _state(fresh)
    tf.random.set_seed(99)
    receiver.restore(decode_meta(encode_meta(meta)), arrays)
    assert (receiver.step, receiver.epoch, receiver.batch, receiver.data) == (4, 2, 0,
                                                                              {"cursor": 32})
    assert receiver.trained
    np.testing.assert_array_equal(tf.random.uniform([3]).numpy(), expected_draw)
    for a, b in zip(trained.weights, fresh.weights):  # moving statistics included
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert len(fresh.optimizer.variables) == len(trained.optimizer.variables)
    for a, b in zip(trained.optimizer.variables, fresh.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # both go on identically
    trained.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    fresh.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(trained.weights, fresh.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_state_file_round_trip_and_texflow_optimizer_slots():
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    opt = tf.MomentumOptimizer(0.1, 0.9)
    opt.apply_gradients([(tf.ones((2, 3)), w)])
    state = TrainingState([w], opt, rng=False)
    state.step = 7
    data = state.to_bytes()

    w2 = tf.Variable(np.zeros((2, 3), np.float32), name="w")
    opt2 = tf.MomentumOptimizer(0.1, 0.9)
    other = TrainingState([w2], opt2, rng=False)
    other.from_bytes(data)
    assert other.step == 7 and opt2.iterations == 1
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    np.testing.assert_array_equal(opt2.get_state()["slots"]["w"]["momentum"],
                                  np.ones((2, 3), np.float32))


def test_a_state_from_another_model_is_refused_and_changes_nothing():
    sender = TrainingState([tf.Variable(np.ones((2, 2), np.float32), name="w")], rng=False)
    meta, arrays = sender.snapshot()
    mine = tf.Variable(np.zeros((3, 2), np.float32), name="w")
    with pytest.raises(InvalidArgumentError, match=r"variable 0 \(w; w in the state\) has "
                                                   r"shape \(3, 2\) here, \(2, 2\) in"):
        TrainingState([mine], rng=False).restore(meta, arrays)
    assert not mine.numpy().any()
    with pytest.raises(InvalidArgumentError, match="has 1 variables, this worker 2"):
        TrainingState([mine, mine], rng=False).restore(meta, arrays)


@pytest.mark.parametrize("batch,size", [(48, 2), (48, 3), (10, 4), (3, 4), (1, 1)])
def test_batch_rows_split_a_global_batch_evenly_and_completely(batch, size):
    parts = [batch_rows(batch, r, size) for r in range(size)]
    assert parts[0][0] == 0 and parts[-1][1] == batch
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    sizes = [hi - lo for lo, hi in parts]
    assert max(sizes) - min(sizes) <= 1
    with pytest.raises(ValueError, match="rank must be in"):
        batch_rows(batch, size, size)
