"""Callbacks, progress output and the fit loop's bookkeeping, on the numpy backend."""

import io
import re
import sys

import numpy as np
import pytest

import texflow as tf

BAR = r"\d+/\d+ \[=+\] - \d+s \d+(ms|us|s)/step"


def _model(lr=0.1):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(lr), loss="mse", metrics=["mae"])
    return model


def _data(n=32):
    x = np.random.default_rng(0).random((n, 2), dtype=np.float32)
    return x, x.sum(axis=1, keepdims=True)


class Recorder(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("on_"):
            calls = object.__getattribute__(self, "calls")
            return lambda *args, **kwargs: calls.append((name, args[0] if args and
                                                         isinstance(args[0], int) else None))
        return object.__getattribute__(self, name)

    def _implements(self, hook):
        return True


def test_every_hook_is_called_in_order():
    model, (x, y), rec = _model(), _data(8), Recorder()
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, callbacks=[rec],
              validation_data=(x[:4], y[:4]))
    names = [c[0] for c in rec.calls]
    assert names[:4] == ["on_train_begin", "on_epoch_begin", "on_train_batch_begin",
                         "on_train_batch_end"]
    assert names.count("on_train_batch_end") == 4 and names.count("on_test_batch_end") == 2
    assert names[-1] == "on_train_end" and names[-2] == "on_epoch_end"
    rec.calls.clear()
    model.evaluate(x, y, batch_size=4, verbose=0, callbacks=[rec])
    assert [c[0] for c in rec.calls] == ["on_test_begin", "on_test_batch_begin",
                                         "on_test_batch_end", "on_test_batch_begin",
                                         "on_test_batch_end", "on_test_end"]
    rec.calls.clear()
    model.predict(x, batch_size=8, verbose=0, callbacks=[rec])
    assert [c[0] for c in rec.calls] == ["on_predict_begin", "on_predict_batch_begin",
                                         "on_predict_batch_end", "on_predict_end"]


def test_batch_logs_are_floats_and_history_records_epochs():
    seen = []
    lam = tf.keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(logs))
    model, (x, y) = _model(), _data()
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, callbacks=[lam])
    assert len(seen) == 12 and all(isinstance(v, float) for logs in seen for v in logs.values())
    assert history is model.history and history.epoch == [0, 1, 2]
    assert list(history.history) == ["loss", "mae"] and len(history.history["loss"]) == 3
    assert seen[-1]["loss"] == pytest.approx(history.history["loss"][-1])


def test_progress_lines(capsys):
    model, (x, y) = _model(), _data()
    model.fit(x, y, batch_size=8, epochs=2, verbose=1)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    assert re.fullmatch(r"4/4 \[==============================\] - \d+s \d+(ms|us)/step - "
                        r"loss: \d+\.\d{4} - mae: \d+\.\d{4}", lines[1]), lines[1]
    model.fit(x, y, batch_size=8, epochs=1, verbose=2)
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(r"4/4 - \d+s - loss: \d+\.\d{4} - mae: \d+\.\d{4} - "
                        r"\d+(ms|us|s)/epoch - \d+(ms|us|s)/step", line), line
    model.evaluate(x, y, batch_size=8)
    assert re.fullmatch(BAR + r" - loss: \d\.\d{4} - mae: \d\.\d{4}",
                        capsys.readouterr().out.strip())
    data = tf.data.Dataset.from_generator(lambda: ((x[i:i + 8], y[i:i + 8])
                                                   for i in range(0, 32, 8)),
                                          output_signature=(
                                              tf.TensorSpec([None, *x.shape[1:]], x.dtype),
                                              tf.TensorSpec([None, *y.shape[1:]], y.dtype)))
    model.fit(data, epochs=1, verbose=1)
    assert re.fullmatch(r"4/4 \[=+\] .*", capsys.readouterr().out.strip())


def test_terminal_bar_redraws_with_eta_and_unknown_total(monkeypatch):
    out = io.StringIO()
    out.isatty = lambda: True
    monkeypatch.setattr(sys, "stdout", out)
    bar = tf.keras.utils.Progbar(None, interval=0.0)
    bar.update(469, [("loss", 2.2049)])
    assert out.getvalue().startswith("\r    469/Unknown - ")
    bar = tf.keras.utils.Progbar(469, interval=0.0, stateful_metrics=["loss"])
    bar.update(451, [("loss", 1.9195)])
    assert "451/469 [===========================>..] - ETA: " in out.getvalue()
    bar.update(469, [("loss", 1.9113)])
    assert out.getvalue().endswith(" - loss: 1.9113\n")
    assert "\r469/469 [==============================] - " in out.getvalue()


def test_early_stopping_restores_best_weights_and_stops():
    class Fake(tf.keras.callbacks.Callback):
        """Overrides the epoch's loss with a scripted sequence."""
        values = iter([1.0, 0.5, 0.6, 0.55, 0.7, 0.1])

        def on_epoch_end(self, epoch, logs=None):
            logs["loss"] = next(self.values)

    model, (x, y) = _model(), _data(8)
    stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=2,
                                            restore_best_weights=True)
    weights = tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: snapshots.append(model.get_weights()))
    snapshots = []
    history = model.fit(x, y, epochs=10, verbose=0, callbacks=[Fake(), stop, weights])
    assert history.epoch == [0, 1, 2, 3] and stop.stopped_epoch == 3 and stop.best == 0.5
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), snapshots[1]))
    late = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=0, start_from_epoch=3)
    assert len(_model().fit(x, y, epochs=5, verbose=0, callbacks=[late]).epoch) == 5 or \
        late.stopped_epoch >= 3
    with pytest.raises(ValueError, match="automatically determine whether"):
        tf.keras.callbacks.EarlyStopping(monitor="weird")._is_improvement(1.0, None)


def test_learning_rate_callbacks():
    model, (x, y) = _model(lr=0.1), _data(8)
    sched = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[sched])
    assert history.history["learning_rate"] == pytest.approx([0.05, 0.025, 0.0125])
    assert float(model.optimizer.learning_rate) == pytest.approx(0.0125)
    plateau = tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1,
                                                   min_delta=10.0, min_lr=0.004)
    history = model.fit(x, y, epochs=4, verbose=0, callbacks=[plateau])
    assert history.history["learning_rate"] == pytest.approx([0.0125, 0.0125, 0.00625, 0.004])
    scheduled = tf.keras.optimizers.SGD(tf.keras.optimizers.schedules.ExponentialDecay(
        0.1, decay_steps=1, decay_rate=0.5))
    with pytest.raises(TypeError, match="not settable"):
        scheduled.learning_rate = 0.3


def test_csv_logger_and_terminate_on_nan(tmp_path):
    path = tmp_path / "log.csv"
    model, (x, y) = _model(), _data(8)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[tf.keras.callbacks.CSVLogger(path)])
    model.fit(x, y, epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.CSVLogger(path, separator=";", append=True)])
    rows = path.read_text().splitlines()
    assert rows[0] == "epoch,loss,mae,val_loss,val_mae" and len(rows) == 4
    assert rows[3].startswith("0;") and rows[3].endswith(";NA;NA")
    bad = _model(lr=1e30)
    history = bad.fit(x * 1e10, y, batch_size=2, epochs=3, verbose=0,
                      callbacks=[tf.keras.callbacks.TerminateOnNaN()])
    assert len(history.epoch) <= 1
    with pytest.raises(RuntimeError, match="NaN or Inf found in loss"):
        _model(lr=1e30).fit(x * 1e10, y, batch_size=2, verbose=0,
                            callbacks=[tf.keras.callbacks.TerminateOnNaN(raise_error=True)])


def test_stop_training_and_live_logs():
    events = []
    live = tf.keras.callbacks.LiveLogs(events.append, every_n_batches=2)
    stopper = tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: setattr(model, "stop_training", epoch == 1))
    model, (x, y) = _model(), _data()
    history = model.fit(x, y, batch_size=8, epochs=5, verbose=0, callbacks=[live, stopper])
    assert history.epoch == [0, 1]
    kinds = [e["event"] for e in events]
    assert kinds == ["batch", "batch", "epoch"] * 2 + ["end"]
    assert events[0]["batch"] == 1 and events[0]["steps"] == 4 and "loss" in events[0]


def test_callback_list_can_drive_a_custom_loop():
    rec = Recorder()
    callbacks = tf.keras.callbacks.CallbackList([rec], add_history=True, model=_model())
    callbacks.on_epoch_begin(0)
    callbacks.on_epoch_end(0, {"loss": 1.0})
    assert [c[0] for c in rec.calls] == ["on_epoch_begin", "on_epoch_end"]
    with pytest.raises(TypeError, match="Callback instances"):
        tf.keras.callbacks.CallbackList([print])
