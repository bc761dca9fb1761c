"""Progress display: `tf.keras.utils.Progbar` and the ProgbarLogger callback.

texflow prints Keras 2's classic bar, the format of the seed tutorials, not
Keras 3's box-drawing bar:

    Epoch 1/3
    141/141 [==============================] - 2s 14ms/step - loss: 0.2000 - accuracy: 0.9400

On a terminal (stdout is a tty) the bar redraws in place at most every
`interval` seconds while an epoch runs, with an ETA; an unknown step count
shows as `    469/Unknown`. When stdout is not a terminal (a pipe, a log file,
the browser's console) only the final line of each epoch is printed.
`verbose=2` prints one line per epoch in Keras 2's form
`141/141 - 2s - loss: 0.2000 - accuracy: 0.9400 - 2s/epoch - 14ms/step`.
"""

import math
import sys
import time

import numpy as np

from .callback_base import Callback


def _interactive():
    stream = sys.stdout
    return (hasattr(stream, "isatty") and stream.isatty()) or "ipykernel" in sys.modules


def format_time(seconds, unit_name):
    """' 14ms/step', ' 2s/epoch' or ' 250us/step', as Keras 2 prints step durations."""
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit_name}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit_name}"
    return f" {seconds * 1e6:.0f}us/{unit_name}"


def format_value(value):
    if isinstance(value, (int, float, np.floating, np.integer)):
        value = float(value)
        return f" {value:.4f}" if abs(value) > 1e-3 else f" {value:.4e}"
    return f" {value}"


class Progbar:
    """A progress bar (`tf.keras.utils.Progbar`).

    Args:
        target: the total number of steps, or None if unknown.
        width: the bar's width in characters.
        verbose: 1 (bar), 2 (a line at the end), 0 (silent).
        interval: the least time between redraws on a terminal, in seconds.
        stateful_metrics: names whose values are shown as given (others are averaged
            over the steps).
        unit_name: what a step is called ('step').

    >>> bar = tf.keras.utils.Progbar(2, verbose=0)
    >>> bar.update(1, [("loss", 0.5)])
    """

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._dynamic = _interactive()
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step = None
        self.printed_final = False

    def update(self, current, values=None, finalize=None):
        """Shows progress at step `current` with `values` [(name, value), ...]."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or ():
            if name not in self._values_order:
                self._values_order.append(name)
            if name in self.stateful_metrics:
                self._values[name] = value
            else:
                steps = max(current - self._seen_so_far, 1)
                total, count = self._values.get(name, (0.0, 0))
                self._values[name] = (total + float(value) * steps, count + steps)
        self._seen_so_far = current
        now = time.time()
        if self._time_after_first_step is None and current >= 1 and not finalize:
            self._time_after_first_step = now
        if self.verbose == 1:
            self._draw(current, now, finalize)
        elif self.verbose == 2 and finalize:
            self._line(current, now)
        if finalize:
            self.printed_final = True

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    def _step_duration(self, current, now):
        if not current:
            return 0.0
        if self._time_after_first_step is not None and current > 1:
            return (now - self._time_after_first_step) / (current - 1)
        return (now - self._start) / current

    def _bar(self, current):
        if self.target is None:
            return f"{current:7d}/Unknown"
        digits = int(math.log10(self.target)) + 1 if self.target > 0 else 1
        bar = f"{current:{digits}d}/{self.target} ["
        filled = int(self.width * min(current / self.target, 1.0)) if self.target else \
            self.width
        if filled > 0:
            bar += "=" * (filled - 1) + (">" if current < self.target else "=")
        return bar + "." * (self.width - filled) + "]"

    def _metrics(self):
        info = ""
        for name in self._values_order:
            value = self._values[name]
            if isinstance(value, tuple):
                value = value[0] / max(1, value[1])
            info += f" - {name}:{format_value(value)}"
        return info

    def _draw(self, current, now, finalize):
        if not finalize and (not self._dynamic or now - self._last_update < self.interval):
            return
        self._last_update = now
        bar = self._bar(current)
        per_step = self._step_duration(current, now)
        if self.target is None or finalize:
            info = f" - {now - self._start:.0f}s" + format_time(per_step, self.unit_name)
        else:
            eta = per_step * (self.target - current)
            if eta > 3600:
                shown = f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
            elif eta > 60:
                shown = f"{int(eta // 60)}:{int(eta % 60):02d}"
            else:
                shown = f"{int(eta)}s"
            info = f" - ETA: {shown}"
        line = bar + info + self._metrics()
        if self._dynamic:
            pad = max(self._total_width - len(line), 0)
            sys.stdout.write("\r" + line + " " * pad + ("\n" if finalize else ""))
        else:
            sys.stdout.write(line + "\n")
        self._total_width = len(line)
        sys.stdout.flush()

    def _line(self, current, now):
        elapsed = now - self._start
        digits = int(math.log10(self.target)) + 1 if self.target else 1
        count = f"{current:{digits}d}/{self.target}" if self.target else f"{current}"
        line = f"{count} - {elapsed:.0f}s" + self._metrics()
        line += " -" + format_time(elapsed, "epoch")
        line += " -" + format_time(elapsed / max(current, 1), self.unit_name)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class ProgbarLogger(Callback):
    """Prints "Epoch i/n" and a progress bar for fit, evaluate and predict.

    `fit(verbose=...)` adds one; metric values are read from the device only when
    the bar is drawn (not every step), so progress costs few synchronisations.

    >>> model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])
    >>> model.compile(optimizer='sgd', loss='mse')
    >>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), verbose=0,
    ...               callbacks=[tf.keras.callbacks.ProgbarLogger()])
    """

    _raw_batch_logs = True

    def __init__(self):
        super().__init__()
        self.progbar = None
        self.seen = 0
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}", flush=True)

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()

    def on_predict_begin(self, logs=None):
        self._reset()

    def on_train_batch_end(self, batch, logs=None):
        self._batch(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._batch(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._batch(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        self._finish(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finish(logs)

    def on_predict_end(self, logs=None):
        self._finish(None)

    def _reset(self):
        self.seen = 0
        self.progbar = None
        self._make()  # the clock starts now: step times include the first step

    def _make(self):
        if self.progbar is None:
            self.progbar = Progbar(self.target, verbose=self.verbose,
                                   stateful_metrics=None, unit_name="step")
            self.progbar.stateful_metrics = _ALL

    def _batch(self, batch, logs):
        self._make()
        self.seen = batch + 1
        bar = self.progbar
        if self.verbose == 1 and bar._dynamic and \
                time.time() - bar._last_update >= bar.interval:
            bar.update(self.seen, list(_read(logs).items()), finalize=False)
        else:
            bar._seen_so_far = self.seen
            if bar._time_after_first_step is None and self.seen >= 1:
                bar._time_after_first_step = time.time()

    def _finish(self, logs):
        self._make()
        if self.progbar.target is None:
            self.progbar.target = self.target = self.seen or None
        self.progbar.update(self.seen, list(_read(logs).items()), finalize=True)


class _Everything:
    def __contains__(self, item):
        return True


_ALL = _Everything()


def _read(logs):
    """Logs as Python floats (reading device scalars), in the classic bar's order (the
    seed tutorials' `loss: ... - accuracy: ...`): the training values, then the
    validation ones, the loss first in each, the rest in the logs' order (Keras 3's
    History sorts its keys; its bar would print `accuracy` first)."""
    out = {}
    for key, value in sorted((logs or {}).items(), key=_bar_order):
        if hasattr(value, "item") and not isinstance(value, (int, float)):
            value = float(value.item()) if getattr(value, "size", 1) == 1 else value
        out[key] = value
    return out


def _bar_order(item):
    key = item[0]
    validation = key.startswith("val_")
    return validation, key != ("val_loss" if validation else "loss")
