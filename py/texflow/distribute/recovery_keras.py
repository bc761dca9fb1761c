"""Keras `fit` under MultiWorkerMirroredStrategy that outlives its workers (recovery.py's
Keeper, wired into the strategy's hooks).

- At connect (the strategy's constructor) a worker takes part in the group's state census
  (recovery.Keeper._sync). In a running job, the survivors are waiting in that census:
  the newcomer (a restarted process, a reloaded page) receives the state of the worker
  furthest on and holds it, skips the per-variable broadcasts of the chief's initial
  values (the survivors are not creating variables), and loads it when its script's
  `fit` starts: weights, optimizer slots, and the epoch and batch, so `fit` resumes
  there with the data positioned as an uninterrupted run's (as BackupAndRestore does).
  A script with several `fit` calls ends the ones the job has finished at their first
  step (with no collective; their validation, if any, is not skipped).
- During `fit`, a step whose gradient all-reduce raises WorkerLostError (or
  UnavailableError: the coordinator restarted, or the chief that ran it in its process
  was lost and restarted) waits for the next generation, syncs the state, and runs the
  same batch again; the epoch's final metric reduction likewise.
- An elastic group (`--elastic`) goes on with the workers left, each global batch cut
  for the new size (the batch in progress too); workers waiting to join are admitted at
  the next epoch's start (DATA sharding; the global batch and learning rate stay).
- In a fresh job, the first `fit` of each model syncs the state once (the chief's, or
  the latest checkpoint on the coordinator when every worker restarted); the chief
  stores a checkpoint on the coordinator at every epoch end when it keeps them.

Each worker reports its step, epoch and loss to the coordinator's dashboard as it trains.

Metrics: a newcomer's epoch metrics count the batches it ran, and the step that ran
again counts twice on the survivors; the weights are exact.
"""

import time

from ..errors import UnavailableError, WorkerLostError
from .recovery import Keeper
from .training_state import TrainingState, decode_meta

REPORT_EVERY = 0.5  # seconds between dashboard reports


class KerasRecovery:
    """Per MultiWorkerMirroredStrategy with a group; `ext` is its extended."""

    def __init__(self, ext):
        self.ext, self.group = ext, ext.group
        self.held = None        # (meta, arrays): the state a late joiner received
        self.late = False       # joined a running job: no initial-value broadcasts
        self.keeper = None
        self.model = None
        self.fits = 0           # fit calls of this strategy's models, counted alike everywhere
        self.skip_fits = 0      # a late joiner's fits that the job has finished
        self.skipping = False   # in one of those: the fit ends at its first step
        self.data = None        # fit's data (input_lib.KerasWorkerData: cut per worker)
        self._reported = 0.0

    # -- at connect --------------------------------------------------------------------

    def at_connect(self):
        """The census of the generation this worker joined (the survivors of a running
        job hold it in Keeper._sync); a late joiner keeps the state it receives."""
        group = self.group
        mine = _census_row(False, 0)
        table = group.all_gather(mine, name="texflow state census")
        trained = [r for r in range(group.size) if table[r, 0]]
        if not trained:
            return
        best = max(int(table[r, 1]) for r in trained)
        root = min(r for r in trained if table[r, 1] == best)
        received = group.broadcast(None, root=root, name="texflow state")
        meta = decode_meta(received[0])
        self.held = (meta, received[1:])
        self.late = True
        self.skip_fits = int(meta.get("data", {}).get("fit", 1)) - 1
        print(f"texflow: joined a running job (generation {group.generation}): resuming "
              f"from rank {root}'s state at epoch {meta['epoch']}, batch {meta['batch']}",
              flush=True)

    # -- fit ---------------------------------------------------------------------------

    def fit_data(self, model, data):
        """At the start of each `fit`: the model's Keeper (made and synced on its first
        fit), the held state loaded, and the data wrapped to count epochs and batches."""
        self.fits += 1
        self.skipping = self.skip_fits >= self.fits
        if self.skipping:  # the job finished this fit before this worker joined
            return data
        if self.model is not model:
            self.model = model
            state = TrainingState(model.weights, model.optimizer)
            self.keeper = Keeper(self.group, state, checkpoint_epochs=True, log=_log,
                                 checkpoint_hint=self.ext.checkpoint_hint)
            if self.held is not None:
                meta, arrays = self.held
                self.held = None
                state.restore(meta, arrays)
                record = {"event": "start", "source": "held", "step": state.step,
                          "generation": self.group.generation, "_t0": time.perf_counter()}
                self.keeper.recoveries.append(record)
                self.keeper._pending = record
            else:
                self.keeper.start()
            if state.trained:  # resume where the state is, as BackupAndRestore does
                model._initial_epoch, model._initial_step = state.epoch, state.batch
        else:  # another fit of the same model counts its epochs from 0 again
            self.keeper.state.epoch = self.keeper.state.batch = 0
        self.keeper.state.data["fit"] = self.fits
        self.data = data
        return _CountedData(self, data)

    def step(self, run_step):
        """fit's train function: a lost worker makes it recover and run the batch again."""
        def guarded(batch):
            keeper = self.keeper
            if keeper is None:
                return run_step(batch)
            if self.skipping:  # ends the fit at once, with no collective
                self.model.stop_training = True
                return self.model.get_metrics_result()
            state = keeper.state
            at = state.step
            while True:
                try:
                    logs = run_step(batch)
                    break
                except (WorkerLostError, UnavailableError) as e:
                    if self.group._core.closed:
                        raise
                    keeper.recover(e)
                    if self._sync_strategy():  # elastic: a new size, a new cut
                        if not hasattr(self.data, "recut"):
                            raise RuntimeError("the group changed size, but fit's data was "
                                               "not cut per worker (one worker at its start)")
                        batch = self.data.recut()
                    if state.step == at + 1:  # the others had finished it: adopt theirs
                        return self.model.get_metrics_result()
                    if state.step != at:
                        raise RuntimeError(f"after a recovery the group is at step "
                                           f"{state.step}, this worker at {at}") from e
            keeper._advance()
            self._report(logs)
            return logs
        return guarded

    def _report(self, logs):
        """The dashboard's view of this worker (twice a second at most: it reads the loss)."""
        now = time.monotonic()
        if now - self._reported < REPORT_EVERY:
            return
        self._reported = now
        loss = logs.get("loss") if isinstance(logs, dict) else None
        state = self.keeper.state
        self.group.report(step=state.step, loss=None if loss is None else float(loss),
                          epoch=state.epoch)

    def global_logs(self, reduce, logs):
        """The epoch's metric reduction; after a loss there, this worker's own logs."""
        if self.skipping:
            return logs
        try:
            return reduce(logs)
        except (WorkerLostError, UnavailableError) as e:
            if self.group._core.closed or self.keeper is None:
                raise
            self.keeper.recover(e)
            self._sync_strategy()
            return logs

    def _sync_strategy(self):
        """The strategy's view of the group after a sync; whether it changed."""
        ext, group = self.ext, self.group
        changed = (ext.worker_count, ext.worker_index) != (group.size, group.rank)
        ext.worker_count, ext.worker_index = group.size, group.rank
        return changed

    def admit(self):
        """At an epoch's start in an elastic group: admit the workers waiting to join."""
        keeper = self.keeper
        if not keeper._admit_due:
            return
        try:
            keeper._admit()
        except (WorkerLostError, UnavailableError) as e:
            if self.group._core.closed:
                raise
            keeper.recover(e)
        self._sync_strategy()

class _CountedData:
    """fit's data: each `batches()` call is one epoch; its end moves the state's counters to
    the next epoch (before the epoch's metric reduction, so a worker lost there makes the
    newcomer start the next epoch)."""

    def __init__(self, recovery, data):
        self._recovery, self._data = recovery, data

    def __getattr__(self, name):
        return getattr(self._data, name)

    def batches(self, skip=0):
        self._recovery.admit()
        state = self._recovery.keeper.state
        state.batch = skip
        yield from self._data.batches(skip)
        self._recovery.keeper.end_epoch()


def _census_row(trained, step):
    import numpy as np
    return np.array([[int(trained), int(step)]], np.int64)


def _log(line):
    print(f"texflow: {line}", flush=True)
