"""compile, fit, evaluate, predict and the one-step functions behind them.

The step is one overridable method, as in Keras: `train_step(data)` runs the
forward pass under a GradientTape, `compute_loss` (the compiled losses plus
`model.losses`), the gradients, and `optimizer.apply_gradients` (which passes
them through the optimizer's `gradient_aggregator` hook first), then updates
the metrics on the device and returns their results as device scalars.
`make_train_function()` wraps the step in a scope, so everything it makes but
returns is freed when it ends (memory stays flat over an epoch); only what a
callback or the progress bar needs is read back.
"""

import warnings

import numpy as np

from ...autodiff.gradient_tape import GradientTape
from ...data import structure
from ...engine import scope as scopes
from ...engine.ndarray import NDArray
from ...ops import elementwise as ew
from .. import backend
from .. import losses as losses_module
from .. import metrics as metrics_module
from .. import optimizers as optimizers_module
from ..callback_base import CallbackList, pythonify
from ..serialization import (deserialize_keras_object, deserialize_nested, serialize_keras_object,
                             serialize_nested)
from . import compile_utils
from .compile_utils import flat_logs as _flat_logs, logs_in_order, step_logs
from .compiled_step import step_function
from .data_adapter import DataHandler, train_validation_split, unpack_x_y_sample_weight


class Trainer:
    """The training half of Model (mixed into it)."""

    def _init_trainer(self):
        self.compiled = False
        self.optimizer = None
        self.stop_training = False
        self.history = None
        self._compile_loss = None
        self._compile_metrics = None
        self._loss_tracker = None
        self.train_function = self.test_function = self.predict_function = None

    def _untracked_attributes(self):
        return ("optimizer", "_compile_config", "_compile_loss", "_compile_metrics",
                "_loss_tracker", "history", "train_function", "test_function",
                "predict_function", "_compiled_steps")

    # -- compile -----------------------------------------------------------------------

    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True):
        """Configures the model for training.

        Args:
            optimizer: an optimizer or its name ('adam', 'sgd', 'rmsprop', 'adagrad').
            loss: a loss (name, function or Loss), or a list / dict of them per output.
            loss_weights: weights of the per-output losses (a float, list or dict).
            metrics: metric names, functions or Metric objects, or a list / dict of them
                per output; 'accuracy' becomes binary, categorical or sparse categorical
                accuracy by the shapes of the labels and predictions, as in Keras.
            weighted_metrics: metrics that take the sample weights into account.
            run_eagerly: run fit's, evaluate's and predict's steps eagerly instead of
                through tf.function (also settable as `model.run_eagerly`).
            jit_compile: accepted (tf.function always fuses what it can).
            steps_per_execution: batches between batch-level callback calls.

        >>> model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
        >>> model.compile(optimizer="sgd", loss="mse")
        """
        self.optimizer = optimizers_module.get(optimizer)
        self._compile_config = dict(  # what `model.save` records (Keras's compile_config)
            optimizer=self.optimizer, loss=loss, loss_weights=loss_weights, metrics=metrics,
            weighted_metrics=weighted_metrics, run_eagerly=run_eagerly,
            steps_per_execution=steps_per_execution, jit_compile=jit_compile)
        compile_utils.validate_names(loss, metrics)
        compile_utils.validate_names(None, weighted_metrics)
        if not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(f"steps_per_execution must be a positive int, received "
                             f"{steps_per_execution!r}")
        names = self._output_names()
        self._compile_loss = compile_utils.CompileLoss(loss, loss_weights, names) \
            if loss is not None else None
        self._compile_metrics = compile_utils.CompileMetrics(metrics, weighted_metrics, names)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.run_eagerly, self.jit_compile = run_eagerly, jit_compile
        self.steps_per_execution = steps_per_execution
        self.loss = loss
        self._compile_args = {"loss": loss, "loss_weights": loss_weights, "metrics": metrics,
                              "weighted_metrics": weighted_metrics}
        self.compiled = True
        self.stop_training = False
        self.train_function = self.test_function = self.predict_function = None

    def _output_names(self):
        return []

    def get_compile_config(self):
        """compile()'s arguments as a config (for saving), or None before compile."""
        if not getattr(self, "compiled", False):
            return None
        return {"optimizer": serialize_keras_object(self.optimizer),
                "loss": serialize_nested(self._compile_args["loss"]),
                "loss_weights": self._compile_args["loss_weights"],
                "metrics": serialize_nested(self._compile_args["metrics"]),
                "weighted_metrics": serialize_nested(self._compile_args["weighted_metrics"]),
                "run_eagerly": self.run_eagerly, "steps_per_execution": self.steps_per_execution,
                "jit_compile": self.jit_compile}

    def compile_from_config(self, config):
        """compile() again from `get_compile_config()` output."""
        config = dict(config)
        config["optimizer"] = deserialize_keras_object(config["optimizer"], what="optimizer") \
            if isinstance(config.get("optimizer"), dict) else config.get("optimizer")
        for key in ("loss", "metrics", "weighted_metrics"):
            config[key] = deserialize_nested(config.get(key))
        self.compile(**config)

    def _assert_compiled(self, what):
        if not getattr(self, "compiled", False):
            raise ValueError(f"You must call `compile()` before using the model (called "
                             f"{what} on model {self.name!r}).")

    @property
    def metrics(self):
        """The loss tracker, the per-output losses and the compiled metrics."""
        out = []
        if getattr(self, "_loss_tracker", None) is not None:
            out.append(self._loss_tracker)
        if getattr(self, "_compile_loss", None) is not None:
            out.extend(self._compile_loss.trackers)
        compiled = getattr(self, "_compile_metrics", None)
        if compiled is not None:
            # Built (after a first step): each metric by name; before that, Keras 3's one
            # CompileMetrics object, which an overridden train_step may update.
            out.extend(compiled.metrics if compiled.entries is not None else [compiled])
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def get_metrics_result(self):
        """{metric name: result} for every metric (device scalars), flattened."""
        return _flat_logs({m.name: m.result() for m in self.metrics})

    # -- the steps ------------------------------------------------------------------------

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled losses plus `self.losses` (regularization and add_loss)."""
        losses = []
        if self._compile_loss is not None:
            value = self._compile_loss(y, y_pred, sample_weight)
            if value is not None:
                losses.append(value)
        losses.extend(backend.scale_loss_for_distribution(v) for v in self.losses)
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = losses[0]
        for value in losses[1:]:
            total = ew.add(total, value)
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Updates the compiled metrics and returns every metric's result."""
        if self._compile_metrics is not None and y is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def _check_targets(self, y):
        if y is None and self._compile_loss is not None:
            raise ValueError(f"Model {self.name!r} was compiled with a loss, which needs "
                             "targets, but the data gives only inputs (no y): pass y, or make "
                             "the dataset yield (x, y) pairs")

    def train_step(self, data):
        """One training step on a batch `data`; returns the metrics' results."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        self._check_targets(y)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
            self._loss_tracker.update_state(backend.unscale_loss_for_distribution(loss),
                                            sample_weight=float(_batch_size(x)))
            loss = self.optimizer.scale_loss(loss)
        variables = self.trainable_weights
        if variables:
            grads = tape.gradient(loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        """One evaluation step on a batch; returns the metrics' results."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        self._check_targets(y)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self._loss_tracker.update_state(backend.unscale_loss_for_distribution(loss),
                                        sample_weight=float(_batch_size(x)))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        """The model's predictions for a batch."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def make_train_function(self, force=False):
        """`self.train_function(batch) -> logs`: train_step inside a scope, through
        tf.function unless run_eagerly (compiled_step.py); a model made under a
        tf.distribute strategy: its replicas' steps on their parts of the batch."""
        if self.train_function is None or force:
            self.train_function = _step_function(
                self, lambda data: scopes.scope(lambda: step_logs(self.train_step(data))),
                "train")
        return self.train_function

    def make_test_function(self, force=False):
        if self.test_function is None or force:
            self.test_function = _step_function(
                self, lambda data: scopes.scope(lambda: step_logs(self.test_step(data))),
                "test")
        return self.test_function

    def _global_logs(self, logs):
        """The logs of the metrics over every replica's data (a strategy sums the metrics'
        states across its workers), as Keras reports them at the end of an epoch."""
        strategy = self.distribute_strategy
        if strategy is None or logs is None:
            return logs
        return step_logs(strategy.extended._keras_global_logs(self, logs))

    def make_predict_function(self, force=False):
        if self.predict_function is None or force:
            self.predict_function = step_function(
                self, lambda data: scopes.scope(lambda: self.predict_step(data)), "predict")
        return self.predict_function

    # -- fit ----------------------------------------------------------------------------------

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        """Trains the model for `epochs` epochs; returns a History.

        `x` may be numpy or texflow arrays (a list or dict of them for several inputs)
        with `y`, or a tf.data Dataset (or generator) of `(x, y)` or
        `(x, y, sample_weight)` batches.

        >>> model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> history = model.fit(np.ones((8, 1)), np.ones((8, 1)), epochs=2, verbose=0)
        >>> len(history.history["loss"])
        2
        """
        self._assert_compiled("fit")
        if validation_split and validation_data is None:
            if not (0.0 < validation_split < 1.0):
                raise ValueError(f"validation_split must be in (0, 1), received "
                                 f"{validation_split}")
            if not (isinstance(x, (np.ndarray, NDArray, list, tuple, dict))):
                raise ValueError("`validation_split` is only supported for Tensors or NumPy "
                                 f"arrays, found following types in the input: {type(x)}")
            (x, y, sample_weight), validation_data = train_validation_split(
                (x, y, sample_weight), validation_split)
        data = _distributed_data(self, DataHandler(x, y, sample_weight, batch_size,
                                                   steps_per_epoch, shuffle=shuffle,
                                                   class_weight=class_weight), "train")
        if data.kind == "arrays" and data.y is not None:
            self._check_labels(data.y)
        val = None
        if validation_data is not None:
            if isinstance(validation_data, (tuple, list)):
                vx, vy, vsw = unpack_x_y_sample_weight(tuple(validation_data))
                val = dict(x=vx, y=vy, sample_weight=vsw)
            else:
                val = dict(x=validation_data)
        callbacks = self._callback_list(callbacks, verbose, epochs, data.steps)
        train_function = self.make_train_function()
        self.stop_training = False
        callbacks.on_train_begin()
        initial_epoch, skip = self._resume_point(initial_epoch, data)
        epoch_logs = {}
        every = self.steps_per_execution
        batch_hooks = callbacks.wants_batch_hooks("train")
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            logs, step = None, skip - 1
            for step, batch in enumerate(data.batches(skip), start=skip):
                if batch_hooks and step % every == 0:
                    callbacks.on_train_batch_begin(step)
                logs = train_function(batch)
                if (step + 1) % every == 0 or step + 1 == data.steps:
                    callbacks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            if logs is None and not skip:
                raise ValueError("Expected input data to be non-empty: an epoch of fit got "
                                 "no batches from the data")
            skip = 0
            if callbacks.params.get("steps") is None:
                callbacks.params["steps"] = step + 1
            epoch_logs = pythonify(self._global_logs(logs))
            if val is not None and _should_eval(epoch, validation_freq):
                val_logs = self.evaluate(**val, batch_size=validation_batch_size or batch_size,
                                         steps=validation_steps, callbacks=callbacks,
                                         return_dict=True, _in_fit=True)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callbacks.on_train_end(epoch_logs)
        return self.history

    def _resume_point(self, initial_epoch, data):
        """(epoch, batches to skip) where fit starts: `initial_epoch`, or where a
        BackupAndRestore callback's backup left off (it sets `_initial_epoch` and
        `_initial_step`), with the data positioned as an uninterrupted run's."""
        epoch = getattr(self, "_initial_epoch", None)
        step = getattr(self, "_initial_step", 0) or 0
        self._initial_epoch, self._initial_step = None, 0
        if epoch is None:
            return initial_epoch, 0
        return epoch, data.resume(epoch, step)

    def _callback_list(self, callbacks, verbose, epochs, steps):
        if isinstance(callbacks, CallbackList):
            callbacks.set_model(self)
            callbacks.set_params(dict(verbose=verbose, epochs=epochs, steps=steps))
            return callbacks
        return CallbackList(callbacks, add_history=True, add_progbar=verbose != 0, model=self,
                            verbose=verbose, epochs=epochs, steps=steps)

    def _check_labels(self, y):
        """Raises before training for class labels outside what the model outputs."""
        loss = self._compile_loss
        if loss is None or isinstance(y, (dict, list, tuple)):
            return
        try:
            out_shape = self.output_shape
        except (AttributeError, ValueError):
            return
        if not isinstance(out_shape, tuple) or not out_shape or out_shape[-1] is None:
            return
        ident = loss.loss
        sparse = ident in ("sparse_categorical_crossentropy",
                           losses_module.sparse_categorical_crossentropy) or isinstance(
            ident, losses_module.SparseCategoricalCrossentropy)
        if sparse and not (isinstance(ident, losses_module.SparseCategoricalCrossentropy) and
                           ident._fn_kwargs.get("ignore_class") is not None):
            values = y.numpy() if isinstance(y, NDArray) else np.asarray(y)
            losses_module.check_class_labels(values, out_shape[-1], "the labels given to fit")

    # -- evaluate and predict ------------------------------------------------------------------

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, _in_fit=False, **kwargs):
        """The loss and metrics on the data: a scalar (loss only), a list, or a dict.

        >>> model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> isinstance(model.evaluate(np.ones((4, 1)), np.ones((4, 1)), verbose=0), float)
        True
        """
        if kwargs:
            raise TypeError(f"Invalid keyword arguments: {sorted(kwargs)}")
        self._assert_compiled("evaluate")
        data = _distributed_data(self, DataHandler(x, y, sample_weight, batch_size, steps,
                                                   shuffle=False))
        if not _in_fit:
            callbacks = self._callback_list(callbacks, verbose, 1, data.steps)
        test_function = self.make_test_function()
        self.reset_metrics()
        callbacks.on_test_begin()
        logs = None
        for step, batch in enumerate(data.batches()):
            callbacks.on_test_batch_begin(step)
            logs = test_function(batch)
            callbacks.on_test_batch_end(step, logs)
        if logs is None:
            raise ValueError("Expected input data to be non-empty: evaluate got no batches")
        logs = pythonify(self._global_logs(logs))
        callbacks.on_test_end(logs)
        return logs if return_dict else logs_in_order(self, logs)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs for `x`, batch by batch, as numpy (structure kept)."""
        data = DataHandler(x, None, None, batch_size, steps, shuffle=False)
        callbacks = self._callback_list(callbacks, verbose, 1, data.steps)
        predict_function = self.make_predict_function()
        callbacks.on_predict_begin()
        outputs = []
        for step, batch in enumerate(data.batches()):
            callbacks.on_predict_batch_begin(step)
            outputs.append(predict_function(batch))
            callbacks.on_predict_batch_end(step, {"outputs": outputs[-1]})
        callbacks.on_predict_end()
        if not outputs:
            raise ValueError("Expected input data to be non-empty: predict got no batches")
        flat = [structure.flatten(o) for o in outputs]
        joined = [np.concatenate([np.asarray(f[i]) for f in flat], axis=0)
                  for i in range(len(flat[0]))]
        return structure.pack_as(outputs[0], joined)

    # -- single batches -----------------------------------------------------------------------

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        """One training step on one batch; returns the metrics (as evaluate does)."""
        self._assert_compiled("train_on_batch")
        data = DataHandler(x, y, sample_weight, _num_rows(x), None, class_weight=class_weight)
        logs = None
        for batch in data.batches():
            logs = self.make_train_function()(batch)
        logs = pythonify(logs)
        return logs if return_dict else logs_in_order(self, logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """One evaluation step on one batch; returns the metrics."""
        self._assert_compiled("test_on_batch")
        data = DataHandler(x, y, sample_weight, _num_rows(x), None)
        logs = None
        for batch in data.batches():
            logs = self.make_test_function()(batch)
        logs = pythonify(logs)
        return logs if return_dict else logs_in_order(self, logs)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as numpy."""
        data = DataHandler(x, None, None, _num_rows(x), None)
        for batch in data.batches():
            out = self.make_predict_function()(batch)
            return structure.map_structure(np.asarray, out)
        raise ValueError("predict_on_batch got an empty batch")


def _step_function(model, step, kind):
    """`step` compiled, or the model's strategy's version of it (which splits each global
    batch across the replicas and runs `step` in each replica's context)."""
    strategy = model.distribute_strategy
    if strategy is None:
        return step_function(model, step, kind)
    return step_function(model, step, kind, lambda step, compile: strategy.extended.
                         _keras_step(model, step, kind, compile))


def _distributed_data(model, data, kind="test"):
    """`data`, or for a model made under a multi-worker strategy the same batches cut to
    this worker's part of each (as the strategy auto-shards a dataset); `kind` "train"
    for fit's."""
    strategy = model.distribute_strategy
    return data if strategy is None else strategy.extended._keras_data(model, data, kind)


def _num_rows(x):
    leaves = structure.flatten(x) if isinstance(x, (list, tuple, dict)) else [x]
    shapes = [np.shape(v) for v in leaves if hasattr(v, "shape") or isinstance(v, (list,))]
    return max(shapes[0][0], 1) if shapes and shapes[0] else 1


def _batch_size(x):
    for leaf in structure.flatten(x):
        if hasattr(leaf, "shape") and leaf.shape:
            return leaf.shape[0]
    return 1


def _should_eval(epoch, freq):
    if isinstance(freq, int):
        return (epoch + 1) % freq == 0
    return epoch + 1 in freq
