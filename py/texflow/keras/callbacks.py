"""`tf.keras.callbacks`: History, EarlyStopping, LearningRateScheduler,
ReduceLROnPlateau, LambdaCallback, CSVLogger, TerminateOnNaN, ProgbarLogger,
ModelCheckpoint and BackupAndRestore (callbacks_saving.py), and
texflow's LiveLogs (logs for a page to draw, every n batches and every epoch).
"""

import csv
import math
import sys
import warnings

import numpy as np

from .callback_base import Callback, CallbackList, pythonify
from .progbar import ProgbarLogger

__all__ = ["BackupAndRestore", "Callback", "CallbackList", "CSVLogger", "EarlyStopping",
           "History", "ModelCheckpoint",
           "LambdaCallback", "LearningRateScheduler", "LiveLogs", "ProgbarLogger",
           "ReduceLROnPlateau", "TerminateOnNaN"]


class History(Callback):
    """Records each epoch's logs: `history.history["loss"]` lists the epochs' losses.

    `fit` adds one and returns it.

    >>> model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])
    >>> model.compile(optimizer='sgd', loss='mse')
    >>> model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0).epoch
    [0, 1]
    """

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        self.model.history = self


class _Monitor(Callback):
    """Watches one logged quantity and decides whether a new value improves on the best."""

    def __init__(self, monitor, mode, baseline=None, min_delta=0.0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to "
                          "auto mode.", stacklevel=3)
            mode = "auto"
        self.monitor, self.mode, self.baseline = monitor, mode, baseline
        self.best = baseline
        self.min_delta = abs(min_delta)
        self._better = None

    def _direction(self):
        if self.mode != "auto":
            return self.mode
        name = self.monitor[4:] if self.monitor.startswith("val_") else self.monitor
        if name == "loss" or name.endswith("_loss"):
            return "min"
        for metric in getattr(self.model, "metrics", ()):
            if metric.name == name and getattr(metric, "_direction", None):
                return "max" if metric._direction == "up" else "min"
        if name in ("accuracy", "acc") or name.endswith("accuracy") or name in (
                "auc", "precision", "recall"):
            return "max"
        raise ValueError(f"{type(self).__name__} callback received monitor={self.monitor}, "
                         "but texflow isn't able to automatically determine whether that "
                         "metric should be maximized or minimized. Pass `mode='max'` in "
                         "order to monitor based on the highest metric value, or pass "
                         "`mode='min'` in order to use the lowest value.")

    def _is_improvement(self, value, reference):
        if self._better is None:
            self._better = self._direction()
        if reference is None:
            return True
        if self._better == "min":  # an improvement must beat the reference by min_delta
            return value + self.min_delta < reference
        return value - self.min_delta > reference

    def _value(self, logs):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(f"{type(self).__name__} is conditioned on metric `{self.monitor}` "
                          f"which is not available. Available metrics are: "
                          f"{','.join(list((logs or {}).keys()))}", stacklevel=3)
        return value


class EarlyStopping(_Monitor):
    """Stops training when `monitor` has not improved for `patience` epochs.

    Args:
        monitor: the logged quantity ('val_loss').
        min_delta: the least change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints when it stops.
        mode: 'min', 'max' or 'auto' (from the metric's name).
        baseline: a value the quantity must beat to count as an improvement.
        restore_best_weights: set the best epoch's weights back at the end.
        start_from_epoch: epochs to wait before monitoring.

    >>> stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, baseline, min_delta)
        self.patience, self.verbose = patience, verbose
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.wait = self.stopped_epoch = self.best_epoch = 0
        self.best_weights = None

    def on_train_begin(self, logs=None):
        self.wait = self.stopped_epoch = self.best_epoch = 0
        self.best = None
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = self._value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: "
                      f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch's start to `schedule(epoch, lr)` (or
    `schedule(epoch)`), and logs it as 'learning_rate'.

    >>> sched = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = float(np.asarray(optimizer.learning_rate))
        try:
            lr = self.schedule(epoch, lr)
        except TypeError:  # a schedule of the epoch alone (old API)
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, int, np.floating, np.integer)) and not (
                hasattr(lr, "shape") and tuple(lr.shape) == ()):
            raise ValueError(f'The output of the "schedule" function should be a float. '
                             f"Got: {lr}")
        optimizer.learning_rate = float(lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                  f"{float(lr)}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))


class ReduceLROnPlateau(_Monitor):
    """Multiplies the learning rate by `factor` when `monitor` has not improved for
    `patience` epochs (not below `min_lr`; then waits `cooldown` epochs).

    >>> lower = tf.keras.callbacks.ReduceLROnPlateau(monitor='loss', factor=0.5, patience=2)
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, None, min_delta)
        if kwargs:
            raise TypeError(f"ReduceLROnPlateau got unexpected arguments {sorted(kwargs)}")
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. "
                             f"Received factor={factor}")
        self.factor, self.patience, self.verbose = factor, patience, verbose
        self.cooldown, self.min_lr = cooldown, min_lr
        self.cooldown_counter = self.wait = 0

    def on_train_begin(self, logs=None):
        self.cooldown_counter = self.wait = 0
        self.best = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = float(np.asarray(optimizer.learning_rate))
        current = self._value(logs)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(np.asarray(optimizer.learning_rate))
                if old > np.float32(self.min_lr):
                    new = max(old * self.factor, self.min_lr)
                    optimizer.learning_rate = new
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class LambdaCallback(Callback):
    """A callback from functions: `LambdaCallback(on_epoch_end=lambda epoch, logs: ...)`.

    Accepts on_epoch_begin/end(epoch, logs), on_train_begin/end(logs),
    on_train_batch_begin/end(batch, logs) and any other hook as a keyword.

    >>> log = tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: None)
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, fn in hooks.items():
            if fn is None:
                continue
            if not hasattr(Callback, name):
                raise TypeError(f"LambdaCallback: unknown hook {name!r}")
            setattr(self, name, fn)

    def _implements(self, hook):
        return hook in vars(self) or super()._implements(hook)


class CSVLogger(Callback):
    """Writes each epoch's logs as a row of a CSV file (columns sorted, 'epoch' first).

    Args:
        filename: the file to write.
        separator: the column separator (',').
        append: add to an existing file instead of overwriting it.

    >>> logger = tf.keras.callbacks.CSVLogger('training.csv', append=True)
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = str(filename), separator, append
        self.keys = self.writer = self.csv_file = None
        self.append_header = True

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            try:
                with open(self.filename) as f:
                    self.append_header = not bool(f.readline())
            except FileNotFoundError:
                self.append_header = True
            mode = "a"
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")
        self.writer, self.keys = None, None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self.writer is None:
            dialect = type("Dialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        for key in self.keys:
            value = logs.get(key, "NA")
            if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value):
                value = f'"[{", ".join(map(str, value))}]"'
            row[key] = value
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


class TerminateOnNaN(Callback):
    """Stops training (or raises, with `raise_error=True`) when the loss becomes NaN or
    infinite. It reads the loss every batch.

    >>> stop = tf.keras.callbacks.TerminateOnNaN()
    """

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf found in loss at batch {batch}: {loss}")
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class LiveLogs(Callback):
    """texflow: hands training progress to `fn` as a dict, for a page to draw.

    `fn` is called with `{"event": "batch", "epoch": e, "batch": b, "steps": n,
    "loss": ..., <metrics>}` every `every_n_batches` batches (reading the metrics
    then, not every step), with `{"event": "epoch", "epoch": e, ...}` at each
    epoch's end (validation metrics included) and with `{"event": "end", ...}` when
    training ends. In the browser `fn` may be a JavaScript function (a page's chart
    update, passed in through Pyodide): it then receives a plain JavaScript object.

    >>> points = []
    >>> live = tf.keras.callbacks.LiveLogs(points.append, every_n_batches=10)
    """

    _raw_batch_logs = True

    def __init__(self, fn, every_n_batches=1):
        super().__init__()
        if not callable(fn):
            raise TypeError(f"LiveLogs needs a function, received {fn!r}")
        self.fn, self.every_n_batches = fn, max(int(every_n_batches), 1)
        self._epoch = 0
        self._to_js = _js_converter(fn)

    def _emit(self, logs):
        self.fn(self._to_js(logs) if self._to_js else logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (batch + 1) % self.every_n_batches == 0:
            self._emit(dict(event="batch", epoch=self._epoch, batch=batch,
                            steps=self.params.get("steps"), **pythonify(logs)))

    def on_epoch_end(self, epoch, logs=None):
        self._emit(dict(event="epoch", epoch=epoch, **pythonify(logs)))

    def on_train_end(self, logs=None):
        self._emit(dict(event="end", **pythonify(logs)))


def _js_converter(fn):
    """For a JavaScript function (Pyodide), a converter of dicts to JavaScript objects, so
    a page reads `logs.loss` without PyProxies to free; None for Python callables."""
    if sys.platform != "emscripten":  # natively: no JavaScript functions
        return None
    import js
    from pyodide.ffi import JsProxy, to_js
    if not isinstance(fn, JsProxy):
        return None
    return lambda logs: to_js(logs, dict_converter=js.Object.fromEntries)


# Saving callbacks live in their own module (they build on _Monitor and the savers).
from .callbacks_saving import BackupAndRestore, ModelCheckpoint  # noqa: E402
