"""The Callback base class and CallbackList, which calls callbacks' hooks.

During `fit`, batch logs are the step's metric results as device scalars.
CallbackList reads them back (one synchronisation) only for callbacks that
implement a batch hook; callbacks marked `_raw_batch_logs` (the progress bar,
LiveLogs) get the device scalars and read them only when they need to. Epoch
logs are always Python floats.
"""

_HOOKS = ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
          "on_test_begin", "on_test_end", "on_predict_begin", "on_predict_end",
          "on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
          "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end")


class Callback:
    """Base class of callbacks: override the hooks you need.

    Hooks: on_train_begin/end, on_epoch_begin/end, on_train_batch_begin/end (Keras 2's
    on_batch_begin/end also work), on_test_begin/end, on_test_batch_begin/end,
    on_predict_begin/end, on_predict_batch_begin/end. `self.model` is the model being
    trained and `self.params` holds 'verbose', 'epochs' and 'steps'; set
    `self.model.stop_training = True` to stop after the current batch.

    >>> class Count(tf.keras.callbacks.Callback):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         print(epoch, sorted(logs))
    """

    _raw_batch_logs = False

    def __init__(self):
        self.params = {}
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return self._model

    def on_batch_begin(self, batch, logs=None):
        """Keras 2's name of on_train_batch_begin."""

    def on_batch_end(self, batch, logs=None):
        """Keras 2's name of on_train_batch_end."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of an epoch of fit."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of an epoch with its metrics (and val_ ones)."""

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Called before a batch of evaluate (or of fit's validation)."""

    def on_test_batch_end(self, batch, logs=None):
        """Called after a batch of evaluate with the metrics so far."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before a batch of predict."""

    def on_predict_batch_end(self, batch, logs=None):
        """Called after a batch of predict."""

    def on_train_begin(self, logs=None):
        """Called when fit starts."""

    def on_train_end(self, logs=None):
        """Called when fit ends, with the last epoch's logs."""

    def on_test_begin(self, logs=None):
        """Called when evaluate (or fit's validation) starts."""

    def on_test_end(self, logs=None):
        """Called when evaluate ends, with its metrics."""

    def on_predict_begin(self, logs=None):
        """Called when predict starts."""

    def on_predict_end(self, logs=None):
        """Called when predict ends."""

    def _implements(self, hook):
        """Whether this callback's class overrides `hook` (or its Keras 2 alias)."""
        cls = type(self)
        names = [hook]
        if hook == "on_train_batch_begin":
            names.append("on_batch_begin")
        elif hook == "on_train_batch_end":
            names.append("on_batch_end")
        return any(getattr(cls, n) is not getattr(Callback, n) for n in names)


def pythonify(logs):
    """Logs with device scalars read back as Python floats."""
    out = {}
    for key, value in (logs or {}).items():
        if hasattr(value, "item") and not isinstance(value, (int, float)) and \
                getattr(value, "size", 2) == 1:
            value = float(value.item())
        out[key] = value
    return out


class CallbackList:
    """Calls a list of callbacks' hooks in order (`tf.keras.callbacks.CallbackList`).

    Args:
        callbacks: the callbacks.
        add_history: add a History callback (if none is given).
        add_progbar: add a ProgbarLogger (if none is given).
        model: the model the callbacks see.
        **params: 'verbose', 'epochs', 'steps' for the callbacks' `params`.

    >>> calls = tf.keras.callbacks.CallbackList([tf.keras.callbacks.History()])
    >>> len(calls.callbacks)
    1
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        from .callbacks import History
        from .progbar import ProgbarLogger
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f"callbacks must be tf.keras.callbacks.Callback instances, "
                                f"received {type(cb).__name__}: {cb!r:.100}")
        # Keras 3's order: the user's callbacks, then History, then the progress bar.
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        self.model = None
        self.params = {}
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)
        self._batch_hooks = {}

    def append(self, callback):
        self.callbacks.append(callback)
        self._batch_hooks = {}

    def set_params(self, params):
        self.params = params
        for cb in self.callbacks:
            cb.set_params(params)

    def set_model(self, model):
        self.model = model
        for cb in self.callbacks:
            cb.set_model(model)

    def __iter__(self):
        return iter(self.callbacks)

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def _implementers(self, hook):
        found = self._batch_hooks.get(hook)
        if found is None:
            found = self._batch_hooks[hook] = [c for c in self.callbacks if c._implements(hook)]
        return found

    def _batch(self, hook, batch, logs):
        floats = None
        for cb in self._implementers(hook):
            if cb._raw_batch_logs:
                getattr(cb, hook)(batch, logs)
            else:
                if floats is None:
                    floats = pythonify(logs)
                getattr(cb, hook)(batch, floats)

    def wants_batch_hooks(self, kind):
        """Whether any callback implements the batch hooks of `kind` ('train', ...)."""
        return bool(self._implementers(f"on_{kind}_batch_begin") or
                    self._implementers(f"on_{kind}_batch_end"))


def _make_hook(name):
    if "batch" in name:
        def hook(self, batch, logs=None):
            self._batch(name, batch, logs)
    elif "epoch" in name:
        def hook(self, epoch, logs=None):
            self._call(name, epoch, pythonify(logs) if logs else logs)
    else:
        def hook(self, logs=None):
            self._call(name, pythonify(logs) if logs else logs)
    hook.__name__ = name
    return hook


for _name in _HOOKS:
    setattr(CallbackList, _name, _make_hook(_name))
