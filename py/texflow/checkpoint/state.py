"""Training state without files: capture every variable's value by key, restore it.

`get_state(obj)` gives `{key: numpy array}` for everything `obj` holds (a model,
an optimizer, a `tf.train.Checkpoint`, a dict of them); `set_state(obj, state)`
puts the values back and returns a load status. Checkpoint files, BackupAndRestore
and distributed recovery (a rejoining worker receives the chief's state) are all
built on these two functions.

Restoring is all-or-nothing for the variables that exist: every shape and dtype
is checked before any variable changes. Values for variables that do not exist
yet are *deferred*: they wait on the nearest existing object on their key's path
and are assigned when that object creates them (a layer built on its first call,
optimizer slots made by the first `apply_gradients`). Objects that create
variables call `restore_pending(self)` afterwards.
"""

import logging
import weakref

import numpy as np

from ..engine.ndarray import from_numpy
from .graph import variable_name, walk

_log = logging.getLogger("texflow.checkpoint")
_pending = weakref.WeakKeyDictionary()   # object -> {relative key: _Deferred}


class _Deferred:
    __slots__ = ("status", "key", "value")

    def __init__(self, status, key, value):
        self.status, self.key, self.value = status, key, value


def get_state(obj):
    """`{key: numpy array}` of every variable reachable from `obj` (copies)."""
    variables, _ = walk(obj)
    return {key: np.array(v.numpy()) for key, v in variables.items()}


def convert(value, v, key, source="the checkpoint"):
    """`value` as the numpy data variable `v` holds, or ValueError naming both."""
    value = np.asarray(value)
    if tuple(value.shape) != tuple(v.shape):
        raise ValueError(f"Received incompatible tensor with shape {tuple(value.shape)} when "
                         f"attempting to restore variable {variable_name(v)!r} (key {key!r}) "
                         f"with shape {tuple(v.shape)} from {source}")
    target = np.dtype(v.dtype)
    kinds = {"f": "f", "i": "iu", "u": "iu", "b": "b"}
    if value.dtype.kind not in kinds.get(target.kind, target.kind):
        raise ValueError(f"{source} holds {value.dtype} data for variable {variable_name(v)!r} "
                         f"(key {key!r}) of dtype {v.dtype}")
    if value.dtype != target:
        if target.kind == "i" and value.size:
            info = np.iinfo(target)
            if value.min() < info.min or value.max() > info.max:
                raise ValueError(f"{source} holds values from {value.min()} to {value.max()} "
                                 f"for variable {variable_name(v)!r} (key {key!r}), beyond "
                                 f"{v.dtype}")
        value = value.astype(target)
    return value


def set_state(obj, state, source="the state"):
    """Assigns `state` ({key: array}) to the variables reachable from `obj`.

    Every existing variable's shape and dtype is checked before any changes;
    values for variables not created yet are deferred until they are. Returns a
    `CheckpointLoadStatus`.
    """
    variables, nodes = walk(obj)
    ready = [(v, convert(state[key], v, key, source)) for key, v in variables.items()
             if key in state]
    for v, value in ready:
        v.assign(from_numpy(value))
    status = CheckpointLoadStatus(obj, source)
    status._begin(set(state), {key for key in variables if key in state})
    for key in state:
        if key not in variables:
            _defer(nodes, _Deferred(status, key, state[key]), key)
    return status


def _owner(nodes, relative):
    """(path, rest): the deepest object of `nodes` on `relative`'s path, and the rest."""
    parts = relative.split("/")
    for i in range(len(parts) - 1, -1, -1):
        prefix = "/".join(parts[:i])
        if prefix in nodes:
            return prefix, "/".join(parts[i:])
    return None, relative


def _defer(nodes, entry, relative):
    """Parks `entry` on the deepest existing object on `relative`'s path."""
    path, rest = _owner(nodes, relative)
    owner = nodes[path]
    entries = _pending.get(owner)
    if entries is None:
        entries = _pending[owner] = {}
        weakref.finalize(owner, _warn_unrestored, entries).atexit = False
    entries[rest] = entry


def restore_pending(obj):
    """Assigns deferred values to variables `obj` has created since they were restored.

    Called by objects after they create variables (Layer.build, Optimizer.build).
    """
    if not _pending:
        return
    entries = _pending.get(obj)
    if not entries:
        return
    variables, nodes = walk(obj)
    found = [(rel, variables[rel]) for rel in entries if rel in variables]
    converted = [(rel, v, convert(entries[rel].value, v, entries[rel].key,
                                  entries[rel].status.source)) for rel, v in found]
    for rel, v, value in converted:
        entry = entries.pop(rel)
        v.assign(from_numpy(value))
        entry.status._matched(entry.key)
    for rel in list(entries):  # objects made meanwhile on the way take their values over
        path, _ = _owner(nodes, rel)
        if path:
            _defer(nodes, entries.pop(rel), rel)


def _warn_unrestored(entries):
    keys = sorted(e.key for e in entries.values() if not e.status._expect_partial)
    if keys:
        _log.warning("An object was deleted with checkpoint values never restored into it "
                     "(call status.expect_partial() to silence this): %s", ", ".join(keys))


class CheckpointLoadStatus:
    """What a restore matched, returned by `Checkpoint.restore`/`read` and `set_state`.

    Deferred values count as unresolved until their variables are created.
    """

    def __init__(self, root, source):
        self._root = weakref.ref(root) if _weakrefable(root) else (lambda r=root: r)
        self.source = source
        self._keys, self._resolved = set(), set()
        self._expect_partial = False

    def _begin(self, keys, resolved):
        self._keys |= set(keys)
        self._resolved |= set(resolved)

    def _matched(self, key):
        self._resolved.add(key)

    @property
    def unresolved(self):
        """Keys of checkpoint values not yet assigned to a variable."""
        return sorted(self._keys - self._resolved)

    def _unmatched_variables(self):
        root = self._root()
        if root is None:
            return []
        variables, _ = walk(root)
        return [(key, v) for key, v in variables.items() if key not in self._keys]

    def assert_consumed(self):
        """Raises AssertionError unless every checkpoint value was restored and every
        variable reachable from the root got a value. Returns self."""
        if self.unresolved:
            raise AssertionError(f"Unresolved values in checkpoint {self.source}: "
                                 f"{_listing(self.unresolved)} (no variable with these keys "
                                 "exists yet; deferred values are assigned when their "
                                 "variables are created, e.g. optimizer slots on the first "
                                 "apply_gradients)")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a variable reachable from the root has no value in
        the checkpoint. Returns self."""
        missing = self._unmatched_variables()
        if missing:
            raise AssertionError(
                f"Some objects had no value in checkpoint {self.source}, likely due to "
                f"changes in the Python program: "
                f"{_listing([f'{k} ({variable_name(v)})' for k, v in missing])}")
        return self

    def assert_nontrivial_match(self):
        """Raises AssertionError if nothing was restored. Returns self."""
        if not self._resolved:
            raise AssertionError(f"Nothing except the root object matched a value in "
                                 f"checkpoint {self.source}")
        return self

    def expect_partial(self):
        """Silences the warning about values never restored. Returns self."""
        self._expect_partial = True
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: restoring is eager."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: restoring is eager."""


class InitializationOnlyStatus:
    """The status of `restore(None)`: nothing is restored."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    assert_existing_objects_matched = assert_nontrivial_match = assert_consumed

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run."""

    def initialize_or_restore(self, session=None):
        """Variables are initialized when created."""


def _weakrefable(obj):
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def _listing(items, limit=20):
    items = list(items)
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")
