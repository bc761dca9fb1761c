"""`tf.train.Checkpoint`: save and restore models, optimizers and variables by structure.

    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch)
    path = checkpoint.save("/tmp/ckpt/ckpt")          # '/tmp/ckpt/ckpt-1'
    checkpoint.restore(tf.train.latest_checkpoint("/tmp/ckpt"))

Values are keyed by the path from the checkpoint to each variable (see
graph.py), so a new model and optimizer of the same program restore them, and
optimizer slots that do not exist yet get theirs when they are created.
"""

import os

import numpy as np

from ..autodiff.variable import Variable
from . import files, graph, state
from .manager import update_checkpoint_state


class Checkpoint:
    """Groups objects with variables (Keras models, layers, optimizers, metrics,
    `tf.Variable`s, lists and dicts of them) for saving and restoring.

    Args:
        root: an object whose variables and children become the checkpoint's own.
        **kwargs: named objects to track; assigning an attribute later
            (`checkpoint.step = tf.Variable(0)`) tracks it too.

    >>> v = tf.Variable(1.0)
    >>> checkpoint = tf.train.Checkpoint(v=v)
    >>> path = checkpoint.write("/tmp/texflow_doc_ckpt")
    >>> _ = v.assign(5.0)
    >>> _ = checkpoint.read(path)
    >>> float(v.numpy())
    1.0
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_children", {})
        object.__setattr__(self, "_root", None)
        object.__setattr__(self, "_save_counter", None)
        if root is not None:
            _check_saveable("root", root)
            object.__setattr__(self, "_root", root)
        for name, value in sorted(kwargs.items()):
            _check_saveable(name, value)
            self._children[name] = value

    def __setattr__(self, name, value):
        if not name.startswith("_") and graph.is_saveable(value):
            self._children[name] = value
        else:
            self._children.pop(name, None)
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def _describe(self):
        own, children = [], []
        if self._root is not None:
            found = graph.describe(self._root)
            if found is not None:
                own, children = list(found[0]), list(found[1])
            elif isinstance(self._root, Variable):
                children.append(("root", self._root))
        children += sorted(self._children.items())
        if self._save_counter is not None:
            children.append(("save_counter", self._save_counter))
        return own, children

    # -- the save counter ------------------------------------------------------------

    @property
    def save_counter(self):
        """The number of `save()` calls so far (a variable, restored with the rest)."""
        if self._save_counter is None:
            counter = Variable(np.int32(0), trainable=False, name="save_counter")
            object.__setattr__(self, "_save_counter", counter)
            state.restore_pending(self)
        return self._save_counter

    # -- saving ------------------------------------------------------------------------

    def write(self, file_prefix, options=None):
        """Writes the checkpoint to `file_prefix` (no numbering, no `checkpoint` file).

        Returns the prefix, for `read`.
        """
        prefix = os.fspath(file_prefix)
        variables, nodes = graph.walk(self)
        values = {key: v.numpy() for key, v in variables.items()}
        objects = [(path, type(obj).__name__) for path, obj in nodes.items()]
        return files.write_checkpoint(prefix, values, objects)

    def save(self, file_prefix, options=None):
        """Writes a numbered checkpoint `<file_prefix>-<n>` (n counts saves) and records it
        as the latest in the directory's `checkpoint` file. Returns its path."""
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}", options)
        update_checkpoint_state(os.path.dirname(path), path, [path])
        return path

    # -- restoring ---------------------------------------------------------------------

    def read(self, save_path, options=None):
        """Restores a checkpoint written by `write` (or `save`); returns a load status.

        Values for variables that do not exist yet are restored when they are created.
        """
        values, _ = files.read_checkpoint(os.fspath(save_path))
        return state.set_state(self, values, source=os.fspath(save_path))

    def restore(self, save_path, options=None):
        """Restores the checkpoint at `save_path` (from `save` or `latest_checkpoint`),
        including the save counter; returns a status with `assert_consumed()`,
        `assert_existing_objects_matched()` and `expect_partial()`.

        `save_path=None` restores nothing (an initialization-only status).
        """
        if save_path is None:
            return state.InitializationOnlyStatus()
        status = self.read(save_path, options)
        self.save_counter  # noqa: B018  (created now, it takes its value from the file)
        return status

    def sync(self):
        """Waits for pending saves: saving is synchronous, so returns at once."""

    def __repr__(self):
        return f"<tf.train.Checkpoint children={sorted(self._children)}>"


def _check_saveable(name, value):
    if not graph.is_saveable(value):
        raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (a "
                         f"tf.Variable, a Keras model, layer, optimizer or metric, or a list "
                         f"or dict of them), got {value!r:.200}.")


graph.register(Checkpoint, Checkpoint._describe, claim_children=True)
