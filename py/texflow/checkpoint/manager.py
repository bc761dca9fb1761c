"""`tf.train.CheckpointManager`, `tf.train.latest_checkpoint` and the `checkpoint` file.

Each checkpoint directory has a small text file named `checkpoint` (TensorFlow's
CheckpointState in protobuf text format, which TensorFlow's tools read too):

    model_checkpoint_path: "ckpt-6"
    all_model_checkpoint_paths: "ckpt-5"
    all_model_checkpoint_paths: "ckpt-6"
    all_model_checkpoint_timestamps: 1747000000.5
    ...

It is replaced atomically and only after the checkpoint it names is complete;
old checkpoints are deleted only after it no longer names them, so a crash at
any moment leaves `latest_checkpoint` pointing at a whole checkpoint.
"""

import glob
import logging
import os
import re
import time
from collections import OrderedDict

from .atomic import write_text
from .files import INDEX_SUFFIX, checkpoint_exists

_log = logging.getLogger("texflow.checkpoint")
STATE_FILE = "checkpoint"


class CheckpointState:
    """The parsed `checkpoint` file (paths made absolute against its directory)."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __repr__(self):
        return (f"CheckpointState(model_checkpoint_path={self.model_checkpoint_path!r}, "
                f"all_model_checkpoint_paths={self.all_model_checkpoint_paths!r})")


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _unquote(text):
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), text[1:-1])


def _relative(directory, path):
    if os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory):
        return os.path.basename(path)
    return path


def update_checkpoint_state(directory, model_checkpoint_path, all_model_checkpoint_paths,
                            all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None, latest_filename=None):
    """Atomically rewrites the `checkpoint` file of `directory`."""
    lines = [f"model_checkpoint_path: {_quote(_relative(directory, model_checkpoint_path))}"]
    lines += [f"all_model_checkpoint_paths: {_quote(_relative(directory, p))}"
              for p in all_model_checkpoint_paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}"
              for t in all_model_checkpoint_timestamps or ()]
    if last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {float(last_preserved_timestamp)!r}")
    path = os.path.join(directory, latest_filename or STATE_FILE)
    os.makedirs(directory or ".", exist_ok=True)
    write_text(path, "\n".join(lines) + "\n")


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState recorded in `checkpoint_dir`, or None if there is none."""
    path = os.path.join(os.fspath(checkpoint_dir), latest_filename or STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    state = CheckpointState()
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        match = re.fullmatch(r'(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|[-+0-9.eE]+)', line)
        if match is None:
            _log.warning("%s: could not parse line %d (%r); ignoring the file", path, number,
                         line)
            return None
        key, value = match.groups()
        value = _unquote(value) if value.startswith('"') else float(value)
        if key == "model_checkpoint_path":
            state.model_checkpoint_path = value
        elif key == "all_model_checkpoint_paths":
            state.all_model_checkpoint_paths.append(value)
        elif key == "all_model_checkpoint_timestamps":
            state.all_model_checkpoint_timestamps.append(value)
        elif key == "last_preserved_timestamp":
            state.last_preserved_timestamp = value
    absolute = lambda p: p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)  # noqa
    if state.model_checkpoint_path:
        state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The path of the newest checkpoint in `checkpoint_dir`, or None.

    >>> tf.train.latest_checkpoint("/tmp/no_such_dir") is None
    True
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    if checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def delete_checkpoint(prefix):
    """Deletes checkpoint `prefix`'s files (texflow's, and TensorFlow's data shards)."""
    for path in [prefix + INDEX_SUFFIX] + glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


class CheckpointManager:
    """Numbers, records and deletes checkpoints in one directory.

    Args:
        checkpoint: the `tf.train.Checkpoint` to save.
        directory: where checkpoints and the `checkpoint` file go.
        max_to_keep: how many checkpoints to keep (None: all); older ones are deleted.
        keep_checkpoint_every_n_hours: also keep one checkpoint per this many hours.
        checkpoint_name: the checkpoints' file name prefix ('ckpt').
        step_counter: a variable with the step number, for `checkpoint_interval`.
        checkpoint_interval: save only when the step moved on by at least this much.
        init_fn: called by `restore_or_initialize` when there is no checkpoint.
        last_checkpoint_step: the step of the last checkpoint, for the interval.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None, last_checkpoint_step=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = last_checkpoint_step
        now = time.time()
        self._maybe_delete = OrderedDict()
        recovered = get_checkpoint_state(self._directory)
        if recovered is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = recovered.model_checkpoint_path or None
        self._last_preserved_timestamp = min(recovered.last_preserved_timestamp, now)
        stamps = recovered.all_model_checkpoint_timestamps or \
            [self._last_preserved_timestamp] * len(recovered.all_model_checkpoint_paths)
        for path, stamp in zip(recovered.all_model_checkpoint_paths, stamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's path, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The managed checkpoints' paths, oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Writes checkpoint `<directory>/<checkpoint_name>-<n>`, records it and deletes
        the oldest beyond `max_to_keep`. Returns its path, or None when
        `checkpoint_interval` says it is too early.

        Args:
            checkpoint_number: the number in the name (default: the checkpoint's
                save counter, which is incremented either way).
            check_interval: honour `checkpoint_interval`.
        """
        if self._checkpoint_interval is not None:
            step = int(_value(self._step_counter))
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + \
                        self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(_value(counter if checkpoint_number is None else checkpoint_number))
        path = self._checkpoint.write(f"{self._prefix}-{number}", options)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        self._record_state()   # the new checkpoint is recorded before anything is deleted
        if self._sweep():
            self._record_state()
        return path

    def _sweep(self):
        if not self._max_to_keep:
            return False
        removed = False
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            removed = True
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            delete_checkpoint(path)
        return removed

    def _record_state(self):
        update_checkpoint_state(self._directory, self._latest_checkpoint,
                                list(self._maybe_delete), list(self._maybe_delete.values()),
                                self._last_preserved_timestamp)

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path, or calls `init_fn` (if
        given) and returns None when there is none."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = int(_value(self._step_counter))
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self):
        """Waits for pending saves: saving is synchronous, so returns at once."""


def _value(x):
    return x.numpy() if hasattr(x, "numpy") else x
