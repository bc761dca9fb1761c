"""Counters behind `tf.memory()`: live arrays, their bytes, device objects."""

from .. import dtypes

# (engine/ndarray.py counts arrays and storages made, inline: the ops' hot path)
_state = {"num_arrays": 0, "num_storages": 0, "num_bytes": 0, "num_downloads": 0,
          "num_uploads": 0, "num_launches": 0}


def array_freed():
    _state["num_arrays"] -= 1


def storage_freed(storage):
    _state["num_storages"] -= 1
    _state["num_bytes"] -= storage.size * dtypes.ITEMSIZE[storage.dtype]


def counts():
    return dict(_state)


def launched(n=1):
    """Counts `n` kernel launches (a numpy kernel call, a draw, a dispatch)."""
    _state["num_launches"] += n


def transferred(direction):
    """Counts a device download or upload ('num_downloads' / 'num_uploads')."""
    _state[direction] += 1
