"""Saving on every backend: weights files, `.keras` archives, tf.train.Checkpoint, and
training that resumes exactly where a checkpoint left it."""

import tempfile

import numpy as np

import texflow as tf
from texflow import checkpoint as state_api
from harness import each_backend, raises

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 3)).astype(np.float32)
Y = RNG.normal(size=(12, 2)).astype(np.float32)
LABELS = RNG.integers(0, 2, 12).astype(np.int32)


def _mlp(seed=1, out=2):
    tf.keras.utils.set_random_seed(seed)
    return tf.keras.Sequential([tf.keras.Input((3,)),
                                tf.keras.layers.Dense(4, activation="relu"),
                                tf.keras.layers.BatchNormalization(),
                                tf.keras.layers.Dense(out)])


def _step(model, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(X, training=True) - Y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))


def _same_weights(a, b):
    for u, v in zip(a.weights, b.weights, strict=True):
        assert np.array_equal(u.numpy(), v.numpy()), (u.path, v.path)


@each_backend
def test_resumed_training_equals_an_uninterrupted_run():
    directory = tempfile.mkdtemp()
    reference, ref_opt = _mlp(), tf.keras.optimizers.Adam(0.05)
    for _ in range(5):
        _step(reference, ref_opt)
    first, first_opt = _mlp(), tf.keras.optimizers.Adam(0.05)
    for _ in range(2):
        _step(first, first_opt)
    step = tf.Variable(np.int32(2), name="step")
    manager = tf.train.CheckpointManager(
        tf.train.Checkpoint(model=first, optimizer=first_opt, step=step), directory, 1)
    manager.save()
    # a new process would start here: new model, new optimizer (no slots yet)
    model, optimizer = _mlp(seed=9), tf.keras.optimizers.Adam(0.05)
    step = tf.Variable(np.int32(0), name="step")
    status = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step).restore(
        tf.train.latest_checkpoint(directory))
    status.assert_existing_objects_matched()
    with raises(AssertionError, match="optimizer/vars/2"):
        status.assert_consumed()                  # slots wait for the first update
    assert int(step.numpy()) == 2
    for _ in range(3):
        _step(model, optimizer)
    status.assert_consumed()
    assert int(optimizer.iterations.numpy()) == 5
    _same_weights(model, reference)
    for u, v in zip(optimizer.variables, ref_opt.variables, strict=True):
        assert np.array_equal(u.numpy(), v.numpy()), u.path


@each_backend
def test_weights_files_round_trip_and_refuse_other_shapes():
    path = tempfile.mkdtemp() + "/w.weights.safetensors"
    model = _mlp()
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    model.fit(X, Y, epochs=2, verbose=0)
    model.save_weights(path)
    other = _mlp(seed=5)
    other.load_weights(path)
    _same_weights(other, model)
    assert np.array_equal(other.predict(X, verbose=0), model.predict(X, verbose=0))
    wrong = _mlp(seed=5, out=3)
    before = wrong.get_weights()
    with raises(ValueError, match=r"weight '[\w/]+/kernel' \(key layers/dense_1/vars/0\): the "
                                  r"model's shape is \(4, 3\), the file's is \(4, 2\)"):
        wrong.load_weights(path)
    for old, now in zip(before, wrong.get_weights()):
        assert np.array_equal(old, now)            # nothing changed
    with raises(ValueError, match="must end in `.weights.safetensors`"):
        model.save_weights(path[:-len(".safetensors")] + ".h5")


@each_backend
def test_keras_archives_predict_the_same_and_train_on():
    directory = tempfile.mkdtemp()
    model = _mlp(out=2)
    model.compile(tf.keras.optimizers.Adam(0.01),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(X, LABELS, epochs=2, verbose=0)
    model.save(directory + "/m.keras")
    loaded = tf.keras.models.load_model(directory + "/m.keras")
    assert np.array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    assert int(loaded.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())
    # Both eagerly: `model` would replay its traced step while `loaded` traces (runs) its
    # first, and a fused kernel may differ from eager's ops in the last bits on some
    # devices (SwiftShader's WebGPU, a noise-level gradient: README "tf.function").
    model.run_eagerly = loaded.run_eagerly = True
    model.fit(X, LABELS, epochs=1, verbose=0, shuffle=False)
    loaded.fit(X, LABELS, epochs=1, verbose=0, shuffle=False)
    _same_weights(loaded, model)


@each_backend
def test_training_state_without_files():
    """get_state/set_state (what a rejoining worker receives), through bytes too."""
    model, optimizer = _mlp(), tf.keras.optimizers.Adam(0.05)
    _step(model, optimizer)
    root = {"model": model, "optimizer": optimizer}
    state = state_api.state_from_bytes(
        state_api.state_to_bytes(state_api.get_state(root)))
    assert state["optimizer/vars/0"] == 1 and "model/layers/dense/vars/0" in state
    fresh, fresh_opt = _mlp(seed=3), tf.keras.optimizers.Adam(0.05)
    state_api.set_state({"model": fresh, "optimizer": fresh_opt}, state)
    _step(model, optimizer)
    _step(fresh, fresh_opt)
    _same_weights(fresh, model)


class _Interrupt(tf.keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        if self.model.optimizer.iterations.numpy() == 7:
            raise RuntimeError("interrupted")


@each_backend
def test_backup_and_restore_resumes_mid_epoch_exactly():
    backup = tempfile.mkdtemp() + "/backup"

    def model(seed):
        tf.keras.utils.set_random_seed(seed)
        m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(6, "relu"),
                                 tf.keras.layers.Dropout(0.25), tf.keras.layers.Dense(3)])
        m.compile(tf.keras.optimizers.Adam(0.02), "sparse_categorical_crossentropy")
        return m

    reference = model(4)
    reference.fit(X, LABELS, batch_size=3, epochs=3, verbose=0)
    with raises(RuntimeError, match="interrupted"):
        model(4).fit(X, LABELS, batch_size=3, epochs=3, verbose=0, callbacks=[
            tf.keras.callbacks.BackupAndRestore(backup, save_freq=3), _Interrupt()])
    resumed = model(7)
    resumed.fit(X, LABELS, batch_size=3, epochs=3, verbose=0,
                callbacks=[tf.keras.callbacks.BackupAndRestore(backup, save_freq=3)])
    _same_weights(resumed, reference)
