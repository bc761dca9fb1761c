"""Index checks with TensorFlow's errors, on the host, before a kernel runs.

TensorFlow raises InvalidArgumentError for an out-of-range gather index, segment id
or sparse label. A GPU kernel cannot raise, so where the indices are known on the
host (they usually are: labels and indices come from data, and an NDArray keeps
its host copy after upload) they are checked here, on every backend, and the
same program raises the same error everywhere. Indices that exist only on a GPU
(computed there) reach the kernel, which writes NaN (floats) or the lowest int32
(ints) instead of a plausible value; see the README.
"""

import numpy as np

from ..errors import InvalidArgumentError


def host_values(x):
    """The host copy of NDArray `x`'s data (shaped), or None if it lives only on a device."""
    storage = x._storage
    if storage is None:
        return None
    values = storage.values
    if values is None and storage.backend is not None and storage.backend.name == "numpy":
        values = storage.handle  # the numpy backend's data is the host copy
    return None if values is None else values.reshape(tuple(x.shape))


def _first(bad):
    flat = int(np.flatnonzero(bad)[0])
    return flat, np.unravel_index(flat, bad.shape) if bad.ndim else ()


def check_gather(indices, limit):
    """TensorFlow's gather error for an index outside [0, limit) known on the host."""
    values = host_values(indices)
    if values is None or not values.size:
        return
    bad = (values < 0) | (values >= limit)
    if bad.any():
        flat, where = _first(bad)
        position = ",".join(str(int(k)) for k in where)
        raise InvalidArgumentError(f"indices[{position}] = {values.reshape(-1)[flat]} is not "
                                   f"in [0, {limit})")


def check_segment_ids(ids, num_segments):
    """TensorFlow's unsorted_segment_sum error for an id >= num_segments (negative ids
    are dropped, as TensorFlow drops them)."""
    values = host_values(ids)
    if values is None or not values.size:
        return
    bad = values >= num_segments
    if bad.any():
        flat, where = _first(bad)
        position = ",".join(str(int(k)) for k in where)
        raise InvalidArgumentError(f"segment_ids[{position}] = {values.reshape(-1)[flat]} is "
                                   f"out of range [0, {num_segments})")


def check_labels(labels, classes):
    """TensorFlow's sparse cross-entropy error for a label outside [0, classes); True when
    the labels were checked on the host, False when only a device has them."""
    values = host_values(labels)
    if values is None:
        return False
    bad = (values < 0) | (values >= classes)
    if bad.any():
        shown = " ".join(str(v) for v in values.reshape(-1)[:10].tolist())
        raise InvalidArgumentError(f"Received a label value of {values[bad].reshape(-1)[0]} "
                                   f"which is outside the valid range of [0, {classes}).  "
                                   f"Label values: {shown}")
    return True
