"""Index checks with TensorFlow's errors, on the host, before a kernel runs.

TensorFlow raises InvalidArgumentError for an out-of-range gather index, segment id
or sparse label. A GPU kernel cannot raise, so where the indices are known on the
host (they usually are: labels and indices come from data, and an NDArray keeps
its host copy after upload) they are checked here, on every backend, and the
same program raises the same error everywhere. Indices that exist only on a GPU
(computed there) reach the kernel, which writes NaN (floats) or the lowest int32
(ints) instead of a plausible value; see the README.
"""

import weakref

import numpy as np

from ..engine import ndarray, trace
from ..errors import InvalidArgumentError


def host_values(x):
    """The host copy of NDArray `x`'s data (shaped), or None if it lives only on a device."""
    values = _host_array(x)
    return None if values is None else values.reshape(tuple(x.shape))


def _host_array(x):
    """The flat host copy of `x`'s data, or None (`x` not an NDArray, or only on a device)."""
    storage = getattr(x, "_storage", None)
    if storage is None:
        return None
    values = storage.values
    if values is None and storage.backend is not None and storage.backend.name == "numpy":
        values = storage.handle  # the numpy backend's data is the host copy
    return values


def all_within(values, limit):
    """Whether every one of integer or float `values` is in [0, limit) and whole: for
    integers one comparison, negatives read as unsigned being beyond any limit (a replayed
    step checks its labels at every call, and three temporary arrays cost more there)."""
    kind = values.dtype.kind
    if not values.size:
        return True
    if kind in "iu" and values.size <= 256:  # a batch's labels: a numpy call costs more
        flat = values.reshape(-1).tolist()
        return min(flat) >= 0 and max(flat) < limit
    if kind == "i":
        return not (values.view(f"u{values.dtype.itemsize}") >= limit).any()
    if kind in "ub":
        return not (values >= limit).any()
    return not ((values < 0) | (values >= limit) | (values != np.floor(values))).any()


def values_for_shape(x, op):
    """NDArray `x`'s values, read on the host because `op`'s result shape depends on
    them. Inside tf.function a value the same at every call (engine/trace.py
    `known_value`: made from constants, static shapes and Python numbers) is folded
    into the trace; any other raises OperatorNotAllowedInGraphError naming `op`, as a
    trace has static shapes (TensorFlow's graphs have dynamic ones)."""
    guard = ndarray._read_guard[0]
    if guard is not None:
        known = trace.known_value(x)  # the same at every call: folded into the trace
        if known is not None:
            return known
        guard(x, f"{op}, whose result's shape depends on the values: a texflow trace has "
                 "static shapes, where TensorFlow's graph would give this result an unknown "
                 "length. Values computed only from constants, static shapes (x.shape, "
                 "tf.shape(x)) and Python numbers are folded at trace time; or pass a "
                 "Python number (each new value traces again)")
    return x.numpy()


def every_call(check, x, *args, key=None):
    """`check(x, *args)`, and inside tf.function again at every replay when `x` is one of
    the function's arguments (engine/trace.py `argument_check`), so a replay checks that
    call's values, not only the values the trace was made with. `key` names what the
    check asserts: a replay runs one check per argument and key. A replay given the very
    host array the check last passed (the same labels every step) returns that result:
    a tensor's host copy is never written (engine/ndarray.py `to_numpy` copies what the
    caller gives), so the check could only pass again."""
    passed = [None, None, None]  # a weak reference to that host array, its shape, result

    def run(value):
        values = _host_array(value)
        if values is not None and passed[0] is not None and passed[0]() is values \
                and passed[1] == value.shape:
            return passed[2]
        result = check(value, *args)
        if values is not None:
            passed[:] = weakref.ref(values), value.shape, result
        return result
    return trace.argument_check(run, x, key)


def labels_key(classes):
    """The key of a check that labels are whole numbers in [0, classes)."""
    return ("class labels", classes)


def _check(x, bad_of, message):
    """Raises InvalidArgumentError(message(position, value)) for the first element of
    `x`'s host values where `bad_of(values)` is true; nothing without host values."""
    values = host_values(x)
    if values is None or not values.size:
        return
    bad = bad_of(values)
    if bad.any():
        flat = int(np.flatnonzero(bad)[0])
        where = np.unravel_index(flat, bad.shape) if bad.ndim else ()
        position = ",".join(str(int(k)) for k in where)
        raise InvalidArgumentError(message(position, values.reshape(-1)[flat]))


def check_gather(indices, limit):
    """TensorFlow's gather error for an index outside [0, limit) known on the host."""
    every_call(_check, indices, lambda v: (v < 0) | (v >= limit),
           lambda at, v: f"indices{f'[{at}]' if at else ''} = {v} is not in [0, {limit})")


def check_segment_ids(ids, num_segments):
    """TensorFlow's unsorted_segment_sum error for an id >= num_segments (negative ids
    are dropped, as TensorFlow drops them)."""
    every_call(_check, ids, lambda v: v >= num_segments,
           lambda at, v: f"segment_ids[{at}] = {v} is out of range [0, {num_segments})")


def check_labels(labels, classes):
    """TensorFlow's sparse cross-entropy error for a label outside [0, classes); True when
    the labels were checked on the host, False when only a device has them."""
    return every_call(_check_labels, labels, classes, key=labels_key(classes))


def _check_labels(labels, classes):
    values = host_values(labels)
    if values is None:
        return False
    if values.dtype.kind in "iub" and all_within(values, classes):
        return True
    bad = (values < 0) | (values >= classes)
    if bad.any():
        shown = " ".join(str(v) for v in values.reshape(-1)[:10].tolist())
        raise InvalidArgumentError(f"Received a label value of {values[bad].reshape(-1)[0]} "
                                   f"which is outside the valid range of [0, {classes}).  "
                                   f"Label values: {shown}")
    return True
