"""Training that outlives its workers: survivors keep their process, model and data
pipeline, and a worker that comes back takes up the current step.

>>> group = collective.connect()                                  # doctest: +SKIP
>>> state = recovery.TrainingState(model_variables, optimizer)
>>> keeper = recovery.Keeper(group, state, steps_per_epoch=100)
>>> keeper.start()                  # the first collective after connect: syncs the state
>>> while state.step < 1000:
...     with keeper.guard():        # a lost worker: wait, resync, run this step again
...         train_step(state.epoch, state.batch)   # all-reduces through `group`

What happens when something fails (TensorFlow 2.21 stops every worker instead and
restarts them from the last BackupAndRestore backup):

- A worker is lost (killed, closed, stopped answering): the survivors' collective
  raises `WorkerLostError`; `guard` catches it, waits in `group.rejoin()` for the
  worker to come back (a restarted process or a reloaded page gets its old rank),
  and the next generation syncs: every member says whether it holds trained state
  and at which step (one all_gather), and the one furthest on (the lowest rank of
  those) broadcasts its `TrainingState` (variables, optimizer slots, step, epoch,
  batch, data cursor, random state) to all. The step that failed runs again, so no
  gradient is applied twice or lost.
- The chief is lost: the same, from a surviving worker (every worker of a
  synchronous job holds the same state); the restarted chief gets its rank back.
- The coordinator restarts: every client reconnects by itself, collectives raise
  `UnavailableError` until then, and the sync takes the state of the worker
  furthest on (some may have applied one more step than others when the
  coordinator went down mid-result).
- No worker holds trained state (the whole job restarted): everyone loads the
  latest checkpoint the chief stored on the coordinator (`checkpoint_every`, and
  the coordinator's `--checkpoint-dir`); with none, the chief's initial state.
- An elastic group (`--elastic`): a loss resizes the group at once and training
  goes on with the workers left (the program re-shards by `group.rank`/`size` and
  keeps the global batch, e.g. with `batch_rows`); a new worker waits and is
  admitted at the next epoch boundary.
"""

import contextlib
import time
import weakref

import numpy as np

from ..errors import FailedPreconditionError, UnavailableError, WorkerLostError
from .training_state import TrainingState, decode_meta, encode_meta

__all__ = ["Keeper", "TrainingState", "batch_rows"]
CHECKPOINT_FILE = "state.npz"
COORDINATOR_HINT = "start the coordinator with --checkpoint-dir DIR"
_TOLD_NO_CHECKPOINTS = weakref.WeakSet()  # groups whose coordinator keeps none: said once


class Keeper:
    """Keeps a worker's training going through lost workers and restarts.

    Args:
        group: a `collective.Group` (connected; `start()` must be its first collective).
        state: the worker's `TrainingState`.
        steps_per_epoch: steps in an epoch (for `state.epoch`/`batch` and, in an elastic
            group, when new workers are admitted); None: one endless epoch.
        checkpoint_every: the chief stores the state on the coordinator every so many
            steps (None: only `checkpoint()` calls). Needs `--checkpoint-dir`.
        checkpoint_epochs: the chief also stores one at every epoch's end.
        rejoin_timeout: seconds survivors wait for a lost worker (None: as long as it
            takes).
        log: a function taking a line (default print); None for silence.
        checkpoint_hint: what the user can do to have checkpoints kept, said (once)
            when the coordinator keeps none (default: start it with --checkpoint-dir).

    Attributes: recoveries (a list of dicts: what was lost, how long the wait and the
    sync took, where the state came from, and `first_step_s`, the time from the new
    generation to its first finished step).
    """

    def __init__(self, group, state, steps_per_epoch=None, checkpoint_every=None,
                 checkpoint_epochs=False, rejoin_timeout=None, log=print,
                 checkpoint_hint=COORDINATOR_HINT):
        if steps_per_epoch is not None and steps_per_epoch < 1:
            raise ValueError(f"steps_per_epoch must be positive; received {steps_per_epoch}")
        self.group, self.state = group, state
        self.steps_per_epoch = steps_per_epoch
        self.checkpoint_every = checkpoint_every
        self.rejoin_timeout = rejoin_timeout
        self.log = log or (lambda line: None)
        self.checkpoint_hint = checkpoint_hint
        self.recoveries = []
        self._waiting = 0           # workers waiting to join (elastic), from the coordinator
        self._admit_due = False
        self._pending = None        # the recovery whose first step is still to come
        self.checkpoint_epochs = checkpoint_epochs
        self._checkpoints = "unprobed" if checkpoint_every or checkpoint_epochs else False
        group.on_change(self._on_change)

    @property
    def elastic(self):
        return bool(self.group.membership.elastic)

    def _on_change(self, event):
        if event.get("type") == "membership":
            self._waiting = int(event.get("waiting") or 0)
        elif event.get("event") == "generation":
            self._waiting = 0  # a generation takes in everyone who was waiting

    # -- the training loop ---------------------------------------------------------------

    def start(self):
        """Syncs the state in the group's current generation: a fresh job starts from the
        chief's variables (or the latest checkpoint), a restarted worker from the state of
        those still training. Returns the sync's record."""
        return self._sync(self.group.membership, time.perf_counter(), {"event": "start"})

    @contextlib.contextmanager
    def guard(self):
        """Runs one step: on success counts it (step, batch, epoch) and stores a checkpoint
        when due; when a worker or the coordinator is lost, recovers and swallows the
        error, leaving the counters where they were, so the caller runs the step again."""
        try:
            if self._admit_due:
                self._admit()
            yield self
        except (WorkerLostError, UnavailableError) as e:
            if self.group._core.closed:
                raise
            self.recover(e)
            return
        self._advance()

    def run(self, step_fn, steps):
        """Calls `step_fn(state)` until `state.step == steps`, through any recovery."""
        while self.state.step < steps:
            with self.guard():
                step_fn(self.state)
        return self.state

    def _advance(self):
        state = self.state
        state.step += 1
        state.batch += 1
        state.trained = True
        if self.steps_per_epoch is not None and state.batch >= self.steps_per_epoch:
            self.end_epoch()
        if self._pending is not None:
            self._pending["first_step_s"] = time.perf_counter() - self._pending["_t0"]
            del self._pending["_t0"]
            self.log(f"[recovery] first step {state.step} done "
                     f"{self._pending['first_step_s']:.2f} s after generation "
                     f"{self._pending['generation']} formed")
            self._pending = None
        if self._checkpoints and self.checkpoint_every and self.group.is_chief and \
                state.step % self.checkpoint_every == 0:
            self.checkpoint()

    def end_epoch(self):
        """Marks an epoch boundary when the program counts epochs itself (no
        steps_per_epoch): an elastic group admits waiting workers before the next step."""
        self.state.epoch += 1
        self.state.batch = 0
        self._admit_due = self.elastic
        if self._checkpoints and self.checkpoint_epochs and self.group.is_chief:
            self.checkpoint()

    # -- recovering ----------------------------------------------------------------------

    def recover(self, error):
        """Waits for the next generation (the lost worker back, or, elastic, without it)
        and syncs the state in it; retries if another worker is lost meanwhile."""
        t_error = time.perf_counter()
        self.log(f"[recovery] step {self.state.step}: {error}")
        while True:
            membership = self.group.rejoin(timeout=self.rejoin_timeout)
            formed = time.perf_counter()
            record = {"event": "recover", "error": type(error).__name__,
                      "lost": list(getattr(error, "ranks", ()) or membership.lost),
                      "waited_s": formed - t_error}
            try:
                return self._sync(membership, formed, record)
            except (WorkerLostError, UnavailableError) as e:
                if self.group._core.closed:
                    raise
                error = e
                self.log(f"[recovery] lost again while syncing: {e}")

    def _admit(self):
        """At an epoch boundary of an elastic group: if anyone waits to join, every member
        resizes here (all agree through one all-reduce) and the newcomers get the state."""
        self._admit_due = False
        wanted = self.group.all_reduce(np.float32(self._waiting > 0), op="max",
                                       name="texflow admit")
        if wanted:
            t0 = time.perf_counter()
            membership = self.group.resize(timeout=self.rejoin_timeout)
            self._sync(membership, time.perf_counter(), {"event": "admit",
                                                          "waited_s": time.perf_counter() - t0})

    def _sync(self, membership, t0, record):
        state, group = self.state, self.group
        mine = np.array([[int(state.trained), state.step]], np.int64)
        table = group.all_gather(mine, name="texflow state census")
        trained = [r for r in range(group.size) if table[r, 0]]
        if trained:
            best = max(int(table[r, 1]) for r in trained)
            root = min(r for r in trained if table[r, 1] == best)
            self._broadcast(root)
            source = f"rank {root}"
        elif membership.latest_checkpoint is not None:
            step = membership.latest_checkpoint["step"]
            state.from_bytes(group.load_checkpoint(step)[CHECKPOINT_FILE])
            source = f"checkpoint of step {step}"
        else:
            self._broadcast(0)
            source = "rank 0 (initial state)"
        record.update(generation=membership.generation, size=membership.size,
                      rank=membership.rank, new=list(membership.new), source=source,
                      step=state.step, sync_s=time.perf_counter() - t0, _t0=t0)
        self.recoveries.append(record)
        self._pending = record
        self.log(f"[recovery] generation {membership.generation}: rank {membership.rank} of "
                 f"{membership.size}, state of step {state.step} from {source} "
                 f"(sync {record['sync_s'] * 1e3:.0f} ms)")
        return record

    def _broadcast(self, root):
        group = self.group
        if group.rank == root:
            meta, arrays = self.state.snapshot()
            group.broadcast([encode_meta(meta)] + arrays, root=root, name="texflow state")
            return
        received = group.broadcast(None, root=root, name="texflow state")
        self.state.restore(decode_meta(received[0]), received[1:])

    # -- checkpoints ---------------------------------------------------------------------

    def checkpoint(self):
        """The chief stores the state on the coordinator (its `--checkpoint-dir`), where a
        job whose workers all restarted finds it. Returns its info, or None when the
        coordinator keeps no checkpoints (said once)."""
        if not self.group.is_chief:
            return None
        try:
            if self._checkpoints == "unprobed":  # ask first: no bytes to one that keeps none
                self.group.latest_checkpoint()
                self._checkpoints = True
            return self.group.save_checkpoint(self.state.step,
                                              {CHECKPOINT_FILE: self.state.to_bytes()})
        except FailedPreconditionError as e:
            if "keeps no checkpoints" not in str(e):
                raise
            self._checkpoints = False
            if self.group in _TOLD_NO_CHECKPOINTS:  # a later model's Keeper: said already
                return None
            _TOLD_NO_CHECKPOINTS.add(self.group)
            self.log("[recovery] the coordinator keeps no checkpoints: a lost worker still "
                     "resumes from the others' state, but if every worker stops, the job "
                     f"cannot resume by itself. To keep them, {self.checkpoint_hint}.")
            return None


def batch_rows(global_batch, rank, size):
    """(start, stop): the rows of a global batch of `global_batch` rows that worker `rank`
    of `size` takes, as even as possible (the first `global_batch % size` take one more).
    Weighting each worker's summed loss by 1 / global_batch keeps the step the same for
    any `size`, which an elastic group needs."""
    if not 0 <= rank < size:
        raise ValueError(f"rank must be in [0, {size}); received {rank}")
    base, extra = divmod(int(global_batch), size)
    start = rank * base + min(rank, extra)
    return start, start + base + (rank < extra)
