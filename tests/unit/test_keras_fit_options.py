"""fit's options on the numpy backend: initial_epoch, steps_per_epoch, validation_freq,
texflow arrays and datasets with sample weights, and how little it reads back."""

import numpy as np
import pytest

import texflow as tf


def _model():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    return model


def _data(n=24):
    x = np.random.default_rng(1).random((n, 2), dtype=np.float32)
    return x, x @ np.array([[1.0], [-2.0]], np.float32)


def test_initial_epoch_steps_per_epoch_and_validation_freq():
    model, (x, y) = _model(), _data()
    history = model.fit(x, y, batch_size=4, epochs=5, initial_epoch=3, verbose=0,
                        validation_data=(x, y), validation_freq=2)
    assert history.epoch == [3, 4]
    assert "val_loss" in history.history and len(history.history["val_loss"]) == 1
    batches = []
    counter = tf.keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: batches.append(batch))
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)  # 6 batches
    model.fit(data.repeat(), steps_per_epoch=4, epochs=3, verbose=0, callbacks=[counter])
    assert batches == [0, 1, 2, 3] * 3
    batches.clear()
    model.fit(x, y, batch_size=4, steps_per_epoch=2, epochs=2, verbose=0, callbacks=[counter])
    assert batches == [0, 1, 0, 1]


def test_texflow_arrays_and_weighted_datasets_train_alike():
    x, y = _data()
    w = np.linspace(0.5, 1.5, len(x)).astype(np.float32)
    first, second = _model(), _model()
    second.set_weights(first.get_weights())
    a = first.fit(tf.constant(x), tf.constant(y), sample_weight=w, batch_size=6, epochs=2,
                  shuffle=False, verbose=0).history
    data = tf.data.Dataset.from_tensor_slices((x, y, w)).batch(6)
    b = second.fit(data, epochs=2, verbose=0).history
    assert np.allclose(a["loss"], b["loss"], rtol=1e-6)
    for p, q in zip(first.get_weights(), second.get_weights()):
        assert np.allclose(p, q, rtol=1e-6)


def test_fit_reads_back_only_at_epoch_end_when_quiet():
    model, (x, y) = _model(), _data(64)
    model.fit(x, y, batch_size=8, verbose=0)
    before = tf.memory()["num_downloads"]
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)  # 16 steps
    reads = tf.memory()["num_downloads"] - before
    assert reads <= 2 * 2, reads  # loss and mae at the end of each epoch


def test_generator_input_and_unknown_step_count():
    x, y = _data()

    def batches():
        for i in range(0, len(x), 8):
            yield x[i:i + 8], y[i:i + 8]

    model = _model()
    history = model.fit(batches(), epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_overridden_train_and_test_steps_drive_fit_and_evaluate(run_eagerly):
    # Keras's "customizing what happens in fit": a subclass writes train_step/test_step
    # with compute_loss, the optimizer and self.metrics; fit, evaluate, the History and
    # the progress logs then come from them, and the weights equal the built-in step's.
    # Through tf.function (the default) the steps' Python runs only while tracing (and,
    # in texflow, on a compiled step's first call, which runs eagerly), as in Keras.
    calls = {"train": 0, "test": 0}

    class Custom(tf.keras.Sequential):
        def train_step(self, data):
            calls["train"] += 1
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

        def test_step(self, data):
            calls["test"] += 1
            x, y = data
            return {"mse_times_two": 2 * tf.reduce_mean(tf.square(self(x) - y))}

    x, y = _data()
    builtin = _model()
    custom = Custom([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    custom.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"],
                   run_eagerly=run_eagerly)
    custom.set_weights(builtin.get_weights())
    expected = builtin.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    history = custom.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False,
                         validation_data=(x, y))
    # 3 batches of 8 per epoch each
    if run_eagerly:
        assert calls == {"train": 6, "test": 6}, calls
    else:
        assert 1 <= calls["train"] < 6 and 1 <= calls["test"] < 6, calls
    assert list(history.history) == ["loss", "mae", "val_mse_times_two"], history.history
    assert np.allclose(history.history["loss"], expected["loss"], rtol=1e-5), history.history
    for a, b in zip(custom.get_weights(), builtin.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5)
    result = custom.evaluate(x, y, verbose=0, return_dict=True)
    mse = float(np.mean((custom.predict(x, verbose=0) - y) ** 2))
    assert calls["test"] == 7 if run_eagerly else calls["test"] < 7, calls
    assert np.isclose(result["mse_times_two"], 2 * mse, rtol=1e-5)
