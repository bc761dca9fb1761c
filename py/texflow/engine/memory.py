"""Counters behind `tf.memory()`: live arrays, their bytes, device objects; and per device
the bytes of the storages it holds now and at most (tf.config.experimental's
get_memory_info and reset_memory_stats)."""

from .. import dtypes

# (engine/ndarray.py counts arrays and storages made, inline: the ops' hot path)
_state = {"num_arrays": 0, "num_storages": 0, "num_bytes": 0, "num_downloads": 0,
          "num_uploads": 0, "num_launches": 0}


def array_freed():
    _state["num_arrays"] -= 1


# backend -> [bytes its storages hold now, the most they held]; the host (None) and the
# numpy backend share one, the CPU's
_HOST = [0, 0]
_held = {None: _HOST}


def held(backend, nbytes):
    """Storages of `nbytes` more (negative: fewer) live, held by `backend` (None: host
    memory, the CPU's): tf.memory()'s num_bytes, and the backend's now and peak."""
    _state["num_bytes"] += nbytes
    entry = _held.get(backend)
    if entry is None:
        entry = _held[backend] = _HOST if backend.name == "numpy" else [0, 0]
    entry[0] += nbytes
    if entry[0] > entry[1]:
        entry[1] = entry[0]


def uploaded(storage, source):
    """`storage` went from backend `source` (None: the host) to its backend now."""
    nbytes = storage.size * dtypes.ITEMSIZE[storage.dtype]
    held(source, -nbytes)
    held(storage.backend, nbytes)
    _state["num_uploads"] += 1


def held_bytes(name):
    """[now, peak] bytes of the storages backend `name` ("numpy": the CPU's) holds."""
    entry = _HOST if name == "numpy" else next(
        (e for b, e in _held.items() if b is not None and b.name == name), (0, 0))
    return list(entry)


def reset_peak(name):
    """The peak of backend `name` starts again from what it holds now."""
    for backend, entry in _held.items():
        if (backend.name if backend is not None else "numpy") == name:
            entry[1] = entry[0]


def storage_freed(storage):
    _state["num_storages"] -= 1
    held(storage.backend, -storage.size * dtypes.ITEMSIZE[storage.dtype])


def counts():
    return dict(_state)


def launched(n=1):
    """Counts `n` kernel launches (a numpy kernel call, a draw, a dispatch)."""
    _state["num_launches"] += n


def transferred(direction):
    """Counts a device download or upload ('num_downloads' / 'num_uploads')."""
    _state[direction] += 1
