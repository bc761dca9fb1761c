"""fit's options on the numpy backend: initial_epoch, steps_per_epoch, validation_freq,
texflow arrays and datasets with sample weights, and how little it reads back."""

import numpy as np

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
