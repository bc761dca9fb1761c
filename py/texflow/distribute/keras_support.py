"""What Keras's fit and evaluate ask of a strategy (a model made in its scope).

`Model.fit` and `evaluate` pass their DataHandler through `_keras_data` (each global
batch cut to this worker's part, as the strategy auto-shards a dataset), their step
functions through `_keras_step` (each local replica runs the step on its share, in its
replica context, so its optimizer sums the replicas' gradients), and the epoch's last
logs through `_keras_global_logs` (the metrics over every worker's data).
"""

import numpy as np

from ..engine import scope as scopes


class KerasSupport:
    """Mixed into StrategyExtended."""

    def _keras_data(self, model, data, kind="test"):
        """fit's ("train") and evaluate's DataHandler, with each global batch cut to this
        worker's part (input_lib); fit's counted for recovery (recovery_keras)."""
        if self.worker_count > 1 and not getattr(data, "per_worker", False):
            data = self._worker_data(data)
        if kind == "train" and self.recovery is not None:
            data = self.recovery.fit_data(model, data)
        return data

    def _worker_data(self, data):
        """This worker's part of each global batch: a dataset is cut on the host, as it
        is read (nothing of the others' parts is uploaded); arrays are cut per batch."""
        from .input_lib import KerasWorkerData, worker_dataset
        if data.kind != "dataset":
            return KerasWorkerData(self, data)
        data.source = worker_dataset(self._strategy, data.source)
        n = int(data.source.cardinality())
        data.known_steps = n if n >= 0 else None
        data.steps = data._steps_arg if data._steps_arg is not None else data.known_steps
        return data

    def _keras_step(self, model, step, kind, compile=None):
        """A train or test function taking this worker's part of a global batch: each
        local replica runs `step` on its share, in its context. `compile(fn)`, when
        given, wraps that whole per-worker step (Keras's tf.function); recovery's retry
        goes around it."""
        from .input_lib import _rows, split_batch
        from .strategy import _entered

        def run_step(data):
            optimizer = getattr(model, "optimizer", None)
            if kind == "train" and optimizer is not None and \
                    getattr(optimizer.gradient_aggregator, "strategy", None) is None:
                optimizer.gradient_aggregator = self._gradient_aggregator(optimizer)
            pieces = split_batch(data, len(self.devices)) if len(self.devices) > 1 \
                else [data]
            logs = None
            with _entered(self._strategy):
                for r, piece in enumerate(pieces):
                    with self._replica(r):
                        if _rows(piece) == 0:  # a short last batch left none for it
                            logs = self._empty_step(model, kind)
                        else:
                            logs = step(piece)
            return logs
        if compile is not None:
            run_step = compile(run_step)
        if kind == "train" and self.recovery is not None:
            return self.recovery.step(run_step)
        return run_step

    def _empty_step(self, model, kind):
        """A replica without data: it adds zero gradients to the step's sum (the others
        wait for its part) and no metric updates."""
        from ..ops.creation import zeros_like
        if kind == "train" and model.trainable_weights:
            variables = model.trainable_weights
            scopes.scope(lambda: model.optimizer.apply_gradients(
                zip([zeros_like(v) for v in variables], variables)))
        return model.get_metrics_result()

    def _keras_global_logs(self, model, logs):
        """The metrics' results over all workers: their states summed (one message)."""
        if self.worker_count == 1:
            return logs
        variables = [v for m in model.metrics for v in m.variables]
        if not variables:
            return logs

        def reduce(logs):
            summed = self._cross_worker([np.asarray(v.numpy()) for v in variables], "sum")
            for v, value in zip(variables, summed):
                v.assign(value)
            return model.get_metrics_result()
        if self.recovery is not None:
            return self.recovery.global_logs(reduce, logs)
        return reduce(logs)
