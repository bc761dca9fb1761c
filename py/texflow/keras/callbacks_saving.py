"""`tf.keras.callbacks.ModelCheckpoint` and `BackupAndRestore`.

ModelCheckpoint saves the model (`.keras`) or its weights (`.weights.safetensors`)
during `fit`, every epoch or every N batches, optionally only when a monitored
quantity improves. BackupAndRestore makes an interrupted `fit` resumable: it backs
up the training state, and a `fit` run again with the same `backup_dir` (after an
exception, or in a new process after a crash) continues where the backup was
taken, to the step, with the same weights, optimizer state, random state and
data order as a run that was never interrupted.
"""

import json
import os
import shutil
import warnings

import numpy as np

from .. import errors
from ..checkpoint import atomic, files, state
from . import backend
from .callback_base import Callback
from .callbacks import _Monitor

_WEIGHTS = ".weights.safetensors"


class ModelCheckpoint(_Monitor):
    """Saves the model or its weights during training.

    Args:
        filepath: where to save; may hold `{epoch:02d}`, `{batch}` and log keys such as
            `{val_loss:.2f}`. It must end in `.keras`, or in `.weights.safetensors` with
            `save_weights_only=True`.
        monitor: the logged quantity for `save_best_only` ('val_loss').
        verbose: 1 prints a line for each save.
        save_best_only: save only when `monitor` improves on the best so far.
        save_weights_only: save weights only (`model.save_weights`).
        mode: 'min', 'max' or 'auto' (from the monitored name).
        save_freq: 'epoch', or save every this many batches.
        initial_value_threshold: the value `monitor` must first beat.

    >>> save = tf.keras.callbacks.ModelCheckpoint("/tmp/ckpt/{epoch:02d}.keras")
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__(monitor, mode, initial_value_threshold)
        self.filepath = os.fspath(filepath)
        self.verbose, self.save_best_only = verbose, save_best_only
        self.save_weights_only, self.save_freq = save_weights_only, save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        if save_freq != "epoch" and (not isinstance(save_freq, int) or
                                     isinstance(save_freq, bool)):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are "
                             "'epoch' or integer values")
        if save_weights_only and not self.filepath.endswith(_WEIGHTS):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the "
                             f"filepath provided must end in `{_WEIGHTS}` (texflow's weights "
                             f"format). Received: filepath={self.filepath}")
        if not save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError("The filepath provided must end in `.keras` (Keras model "
                             f"format). Received: filepath={self.filepath} (TensorFlow 2.0 "
                             "saved a SavedModel directory here; Keras 3 and texflow save "
                             "`.keras` files, and BackupAndRestore is the callback for "
                             "fault tolerance)")

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if _count_batches(self, batch):
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _filepath(self, epoch, batch, logs):
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {e}") from None

    def _should_save(self, epoch, logs, path):
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {path}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=3)
            return True
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                      f"{current:.5f}, saving model to {path}")
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _save(self, epoch, batch, logs):
        logs = dict(logs or {})
        path = self._filepath(epoch, batch, logs)
        if os.path.isdir(path):
            raise OSError(f"Please specify a non-directory filepath for ModelCheckpoint. "
                          f"Filepath used is an existing directory: {path}")
        if not self._should_save(epoch, logs, path):
            return
        # Under a multi-worker strategy only the chief writes `path`; the others write
        # into a temporary folder beside it, removed once written (as TensorFlow does).
        strategy = getattr(self.model, "distribute_strategy", None)
        shown = path
        path, temporary = strategy.extended._write_path(path) if strategy else (path, None)
        if os.path.dirname(path):  # Keras makes the folder the path names
            os.makedirs(os.path.dirname(path), exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {shown}")


def _count_batches(callback, batch):
    """Keras's batch counting for `save_freq=N` (steps_per_execution aware)."""
    if callback.save_freq == "epoch":
        return False
    last = callback._last_batch_seen
    added = batch + 1 if last is None or batch <= last else batch - last
    callback._batches_seen_since_last_saving += added
    callback._last_batch_seen = batch
    if callback._batches_seen_since_last_saving >= callback.save_freq:
        callback._batches_seen_since_last_saving = 0
        return True
    return False


# -- training state: what BackupAndRestore saves (usable without it) --------------------

def rng_state(model):
    """The random state training draws from, as JSON-able data: Keras's global generator
    (shuffling, unseeded layers) and each layer's own generator (Dropout masks)."""
    layers = [getattr(layer, "_rng", None) for layer in model._flatten_layers()]
    return {"global": backend.global_generator().bit_generator.state,
            "layers": [g.bit_generator.state if isinstance(g, np.random.Generator) else None
                       for g in layers]}


def set_global_rng(bit_state):
    backend.global_generator().bit_generator.state = bit_state


def set_rng_state(model, rng):
    """Restores `rng_state` output (the layers' generators, and the global one)."""
    layers = list(model._flatten_layers())
    if len(layers) != len(rng["layers"]):
        raise ValueError(f"the backup has random state for {len(rng['layers'])} layers, the "
                         f"model has {len(layers)}: is it the same model?")
    for layer, saved in zip(layers, rng["layers"]):
        if saved is None:
            if getattr(layer, "_rng", None) is not None:
                layer._rng = None
        else:
            generator = np.random.default_rng()
            generator.bit_generator.state = saved
            layer._rng = generator
    set_global_rng(rng["global"])


class BackupAndRestore(Callback):
    """Backs up the training state so an interrupted `fit` resumes where it was.

    At the end of each epoch (or every `save_freq` batches) it writes the model's
    weights, the optimizer state, the epoch and step, and the random state (data
    shuffling, dropout) to one file in `backup_dir`, atomically. When `fit` starts with
    a backup there, it restores all of it and starts at that epoch and step, so the
    run ends with the weights of an uninterrupted one. A `fit` that finishes deletes
    the backup (unless `delete_checkpoint=False`).

    Args:
        backup_dir: the directory for the backup (used by this callback only).
        save_freq: 'epoch', or back up every this many batches.
        double_checkpoint: also keep the previous backup, used if the latest cannot be
            read.
        delete_checkpoint: delete the backup when `fit` finishes.

    >>> backup = tf.keras.callbacks.BackupAndRestore("/tmp/backup", save_freq=50)
    """

    _raw_batch_logs = True   # it never reads the batch logs

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False,
                 delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and (not isinstance(save_freq, int) or
                                     isinstance(save_freq, bool) or save_freq < 1):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: save_freq="
                             f"{save_freq}. Expected either 'epoch' or an integer value.")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq, self.double_checkpoint = save_freq, double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._prefix = os.path.join(self.backup_dir, "latest")
        self._previous = os.path.join(self.backup_dir, "previous")
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        self._epoch_rng = None
        self._resume = None   # random state to put back as the resumed epoch starts

    # -- restoring ----------------------------------------------------------------------

    def _read(self):
        for prefix in (self._prefix, self._previous) if self.double_checkpoint else \
                (self._prefix,):
            if not files.checkpoint_exists(prefix):
                continue
            try:
                return files.read_checkpoint(prefix), prefix
            except errors.DataLossError:
                if prefix == self._previous or not files.checkpoint_exists(self._previous):
                    raise
                warnings.warn(f"The backup {prefix} is damaged; restoring the previous one",
                              stacklevel=3)
        return None, None

    def on_train_begin(self, logs=None):
        self._batches_seen_since_last_saving, self._last_batch_seen = 0, None
        (found, prefix) = self._read()
        if found is None:
            return
        values, metadata = found
        training = json.loads(metadata["training"])
        state.set_state(self.model, values, source=prefix)
        self._resume = training
        if training["step"]:   # count batches on from the backup, as if never stopped
            self._last_batch_seen = training["step"] - 1
        self.model._initial_epoch = training["epoch"]
        self.model._initial_step = training["step"]
        set_rng_state(self.model, training["rng"])

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch
        resume = self._resume
        if resume is not None and resume["step"]:
            set_global_rng(resume["epoch_rng"])   # the epoch's data order is drawn next
        else:
            self._resume = None
        self._epoch_rng = backend.global_generator().bit_generator.state

    def on_train_batch_begin(self, batch, logs=None):
        if self._resume is not None:   # the first step of a resumed epoch
            set_global_rng(self._resume["rng"]["global"])
            self._resume = None

    # -- saving ---------------------------------------------------------------------------

    def on_train_batch_end(self, batch, logs=None):
        if _count_batches(self, batch):
            steps = self.params.get("steps")
            if steps is not None and batch + 1 >= steps:
                self._save(self._current_epoch + 1, 0)
            else:
                self._save(self._current_epoch, batch + 1)

    def on_epoch_end(self, epoch, logs=None):
        self._last_batch_seen = None
        if self.save_freq == "epoch":
            self._save(epoch + 1, 0)

    def _not_chief(self):
        """Under a multi-worker strategy only the chief keeps the backup (every worker
        restores from it), as TensorFlow's non-chief workers' backups are temporary."""
        strategy = getattr(self.model, "distribute_strategy", None)
        return strategy is not None and not strategy.extended.should_checkpoint

    def _save(self, epoch, step):
        if self._not_chief():
            return
        training = {"epoch": epoch, "step": step, "rng": rng_state(self.model)}
        if step:
            training["epoch_rng"] = self._epoch_rng
        variables = state.get_state(self.model)
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and files.checkpoint_exists(self._prefix):
            os.replace(self._prefix + files.INDEX_SUFFIX, self._previous + files.INDEX_SUFFIX)
        files.write_checkpoint(self._prefix, variables, metadata={"training": json.dumps(
            training)})

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and os.path.exists(self.backup_dir) and \
                not self._not_chief():
            shutil.rmtree(self.backup_dir)
            atomic.changed(self.backup_dir)
