"""Checkpoint files: one safetensors file per checkpoint, `<prefix>.index`.

TensorFlow writes `<prefix>.index` plus `<prefix>.data-00000-of-00001`; texflow
keeps the `.index` name (what `tf.train.latest_checkpoint` and scripts look for)
but puts everything in that one file, so a checkpoint appears by a single atomic
rename and can never be half old, half new. The file is a plain safetensors file
(the reference `safetensors` library reads it); its metadata holds the format
name, a CRC32 of the data, and the object graph as JSON (each saved object's path
and class). TensorFlow cannot read it, and texflow does not read TensorFlow's.
"""

import json
import os
import zlib

import numpy as np

from .. import errors
from . import safetensors
from .atomic import atomic_write

FORMAT = "texflow.checkpoint"
INDEX_SUFFIX = ".index"


def _crc32(arrays):
    crc = 0
    for name in sorted(arrays):
        crc = zlib.crc32(name.encode("utf-8"), crc)
        crc = zlib.crc32(np.ascontiguousarray(arrays[name]).reshape(-1).view(np.uint8), crc)
    return crc


def write_checkpoint(prefix, state, objects=(), metadata=None):
    """Writes `state` ({key: array}) as the checkpoint `prefix`; returns `prefix`.

    Args:
        prefix: the checkpoint's path without suffix ('/tmp/ckpt/ckpt-3').
        state: the values by key (see checkpoint/graph.py).
        objects: (path, class name) pairs describing the object graph.
        metadata: more {name: string} entries for the file's metadata.
    """
    prefix = os.fspath(prefix)
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    arrays = {k: np.asarray(v) for k, v in state.items()}
    metadata = {**(metadata or {}), "format": FORMAT, "version": "1",
                "crc32": str(_crc32(arrays)),
                "objects": json.dumps([list(o) for o in objects], separators=(",", ":"))}
    with atomic_write(prefix + INDEX_SUFFIX) as f:
        safetensors.write(f, arrays, metadata)
    return prefix


def checkpoint_exists(prefix):
    return os.path.isfile(os.fspath(prefix) + INDEX_SUFFIX)


def read_checkpoint(prefix):
    """(state, metadata) of the checkpoint at `prefix`.

    Raises NotFoundError when there is none, DataLossError when it is damaged.
    """
    prefix = os.fspath(prefix)
    path = prefix + INDEX_SUFFIX
    if not os.path.isfile(path):
        raise errors.NotFoundError(
            f"Error when restoring from checkpoint {prefix}: Failed to find any matching "
            f"files for {prefix} (no file {path}). Please double-check that the path is "
            "correct. You may be missing the checkpoint suffix (e.g. the '-1' in "
            "'path/to/ckpt-1').")
    state, metadata = safetensors.load(path)
    if metadata.get("format") != FORMAT:
        raise errors.DataLossError(f"{path} is a safetensors file but not a texflow "
                                   f"checkpoint (its metadata has format "
                                   f"{metadata.get('format')!r}, expected {FORMAT!r})")
    expected = metadata.get("crc32")
    if expected is not None and str(_crc32(state)) != expected:
        raise errors.DataLossError(f"checkpoint {path} is corrupted: the checksum of its "
                                   "data does not match the one recorded when it was written")
    return state, metadata


def list_variables(prefix):
    """[(key, shape)] of the checkpoint at `prefix`, sorted by key."""
    state, _ = read_checkpoint(prefix)
    return sorted((key, list(value.shape)) for key, value in state.items())


class CheckpointReader:
    """`tf.train.load_checkpoint(prefix)`: the values of a checkpoint by key."""

    def __init__(self, prefix):
        self._state, self._metadata = read_checkpoint(prefix)

    def get_tensor(self, key):
        if key not in self._state:
            raise errors.NotFoundError(f"Key {key} not found in checkpoint")
        return np.array(self._state[key])

    def has_tensor(self, key):
        return key in self._state

    def get_variable_to_shape_map(self):
        return {k: list(v.shape) for k, v in self._state.items()}

    def get_variable_to_dtype_map(self):
        return {k: v.dtype.name for k, v in self._state.items()}
