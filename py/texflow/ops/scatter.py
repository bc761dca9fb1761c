"""tf.scatter_nd and tf.tensor_scatter_nd_update / add / sub / max / min, composed of
existing ops (no kernel of their own: every backend and tf.function fusion run them).

An index tuple (the last axis of `indices`, m long) names a slice of the output
shape[m:]; the tuples are linearised to row numbers of the output seen as
[prod(shape[:m])] + shape[m:]. scatter_nd, add and sub sum the updates into those rows
with unsorted_segment_sum (its gradient, a gather, is TensorFlow's gather_nd). update,
max and min apply the updates one after another, as TensorFlow's CPU kernel does (the
last duplicate wins; a GPU's order is unspecified in TensorFlow): they read the indices
on the host, as tf.boolean_mask reads its mask, and gather each position's update; inside
tf.function, for indices that change between calls, they compare the index tuples
pairwise on the device instead (`_traced`).
"""

import numpy as np

from .. import dtypes
from ..engine import ndarray, trace
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import export
from ..errors import InvalidArgumentError, NotFoundError
from . import elementwise as ew
from .index_checks import every_call, host_values, values_for_shape
from .movement import gather, reshape, unsorted_segment_sum
from .reduce import reduce_any, sum as reduce_sum


def _shape_str(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _int_tensor(x, what):
    t = x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
    if t.dtype not in ("int32", "int64", "int16"):
        raise InvalidArgumentError(f"Value for attr '{what}' of {t.dtype} is not in the list "
                                   "of allowed values: int16, int32, int64")
    return t if t.dtype == "int32" else ew.cast(t, "int32")


def _out_shape(shape):
    if isinstance(shape, NDArray):
        shape = values_for_shape(shape, "tf.scatter_nd's shape")
    return tuple(int(d) for d in np.asarray(to_numpy(shape)).reshape(-1))


def _validate(indices, updates, shape, op):
    """TensorFlow's shape checks of a scatter; returns m (the index tuple's length)."""
    if len(updates.shape) == 0 and op != "ScatterNd":
        raise InvalidArgumentError("Updates shape must have rank at least one. Found:[]")
    if len(indices.shape) == 0:
        raise InvalidArgumentError("Indices shape must have rank at least one. Found:[]")
    m, batch = indices.shape[-1], len(indices.shape) - 1
    if m > len(shape):
        raise InvalidArgumentError(
            f"Dimensions [{m},{len(shape)}) of input[shape={_shape_str(shape)}] must match "
            f"dimensions [{len(updates.shape)},{len(updates.shape)}) of updates"
            f"[shape={_shape_str(updates.shape)}]")
    if tuple(updates.shape[:batch]) != tuple(indices.shape[:batch]):
        raise InvalidArgumentError(
            f"Dimensions [0,{batch}) of indices[shape={_shape_str(indices.shape)}] must "
            f"match dimensions [0,{batch}) of updates[shape={_shape_str(updates.shape)}]")
    if tuple(updates.shape[batch:]) != tuple(shape[m:]):
        raise InvalidArgumentError(
            f"Dimensions [{m},{len(shape)}) of input[shape={_shape_str(shape)}] must match "
            f"dimensions [{batch},{len(updates.shape)}) of updates"
            f"[shape={_shape_str(updates.shape)}]")
    count = int(np.prod(indices.shape[:-1], dtype=np.int64))
    if count and not int(np.prod(shape, dtype=np.int64)):
        raise InvalidArgumentError("Indices and updates specified for empty output.  indices "
                                   f"shape: {_shape_str(indices.shape)}")
    return m


def _check_range(indices, shape, m, host=None):
    """TensorFlow's error for an index tuple outside shape[:m], on the host values."""
    host = host_values(indices) if host is None else host
    if host is None or not host.size or not m:
        return
    rows = host.reshape(-1, m)
    bad = np.flatnonzero(~((rows >= 0) & (rows < np.asarray(shape[:m]))).all(axis=1))
    if bad.size:
        value = ", ".join(str(int(v)) for v in rows[bad[0]])
        raise InvalidArgumentError(f"indices[{int(bad[0])}] = [{value}] does not index into "
                                   f"shape {_shape_str(shape)}")


def _ignores(policy, op):
    """Whether bad_indices_policy drops out-of-range index tuples ("IGNORE") rather than
    raising ("", "DEFAULT", "ERROR"); another value raises as TensorFlow does."""
    if policy not in ("", "DEFAULT", "ERROR", "IGNORE"):
        raise InvalidArgumentError(f"Unknown bad indices handling attribute: {policy}")
    return policy == "IGNORE"


def _strides(shape, m):
    return np.cumprod((1,) + tuple(shape[:m])[::-1])[:-1][::-1].astype(np.int64)


def _rows(indices, updates, shape, m, ignore):
    """Row numbers [N] of the index tuples (-1 for a tuple outside the shape, ignored or
    known only to a device) and the updates as [N] + shape[m:]."""
    n = int(np.prod(indices.shape[:-1], dtype=np.int64))
    idx = reshape(indices, (n, m))
    if m:
        flat = reduce_sum(ew.mul(idx, from_numpy(_strides(shape, m).astype(np.int32))), axis=-1)
    else:
        flat = from_numpy(np.zeros(n, np.int32))
    if (ignore or host_values(indices) is None) and m:  # out of range: dropped
        limits = from_numpy(np.asarray(shape[:m], np.int32))
        inside = ew.logical_and(ew.greater_equal(idx, 0), ew.less(idx, limits))
        inside = ew.equal(reduce_sum(ew.cast(inside, "int32"), axis=-1), m)
        flat = ew.where(inside, flat, -1)
    return flat, reshape(updates, (n,) + tuple(shape[m:]))


def _summed(flat, rows, shape, m):
    """The updates summed into their rows, shaped `shape`, and where any landed."""
    positions = int(np.prod(shape[:m], dtype=np.int64))
    values = rows if rows.dtype != "bool" else ew.cast(rows, "int32")
    total = unsorted_segment_sum(values, flat, positions)
    ones = from_numpy(np.ones(rows.shape[:1], np.int32))
    hit = ew.greater(unsorted_segment_sum(ones, flat, positions), 0)
    hit = reshape(hit, (positions,) + (1,) * (len(shape) - m))
    if rows.dtype == "bool":
        total = ew.greater(total, 0)
    return reshape(total, shape), hit


def _prepare(tensor, indices, updates, op, ignore=False):
    tensor = tensor if isinstance(tensor, NDArray) else from_numpy(to_numpy(tensor))
    indices = _int_tensor(indices, "Tindices")
    if isinstance(updates, NDArray):
        if updates.dtype != tensor.dtype:
            raise InvalidArgumentError(
                f"cannot compute {op} as input #2(zero-based) was expected to be a "
                f"{dtypes.as_dtype(tensor.dtype).name} tensor but is a "
                f"{dtypes.as_dtype(updates.dtype).name} tensor")
    else:  # Python floats for an int tensor raise TypeError, as TensorFlow's conversion
        from .creation import convert_to_tensor
        updates = convert_to_tensor(updates, dtype=tensor.dtype)
    if tensor.dtype == "bool" and op != "TensorScatterUpdate":  # TensorFlow: no kernel
        raise NotFoundError(f"Could not find device for node: {{{{node {op}}}}} = {op}"
                            "[T=DT_BOOL, Tindices=DT_INT32, bad_indices_policy=\"\"]")
    shape = tuple(tensor.shape)
    m = _validate(indices, updates, shape, op)
    if not ignore:
        every_call(_check_range, indices, shape, m, key=("scatter", shape))
    return tensor, indices, updates, shape, m


@export("tf")
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A tensor of `shape`, zeros but for `updates` placed (and summed where index tuples
    repeat) at the index tuples in the last axis of `indices` (TensorFlow's scatter_nd).
    An index outside the shape raises InvalidArgumentError when the indices are on the
    host; indices computed only on a GPU drop such an update.

    >>> tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [4]).numpy().tolist()
    [0.0, 4.0, 0.0, 2.0]
    """
    indices = _int_tensor(indices, "Tindices")
    updates = updates if isinstance(updates, NDArray) else from_numpy(to_numpy(updates))
    shape = _out_shape(shape)
    ignore = _ignores(bad_indices_policy, "ScatterNd")
    m = _validate(indices, updates, shape, "ScatterNd")
    if not ignore:
        every_call(_check_range, indices, shape, m, key=("scatter", shape))
    flat, rows = _rows(indices, updates, shape, m, ignore)
    return _summed(flat, rows, shape, m)[0]


def _accumulate(tensor, indices, updates, op, combine, policy):
    ignore = _ignores(policy, op)
    tensor, indices, updates, shape, m = _prepare(tensor, indices, updates, op, ignore)
    flat, rows = _rows(indices, updates, shape, m, ignore)
    total, hit = _summed(flat, rows, shape, m)
    positions = int(np.prod(shape[:m], dtype=np.int64))
    before = reshape(tensor, (positions,) + shape[m:])
    after = reshape(combine(tensor, total), (positions,) + shape[m:])
    return reshape(ew.where(hit, after, before), shape)  # untouched entries kept (-0.0)


@export("tf")
def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """`tensor` with `updates` added at the index tuples of `indices` (repeats add up),
    TensorFlow's tensor_scatter_nd_add.

    >>> tf.tensor_scatter_nd_add([1.0, 1.0, 1.0], [[0], [2], [0]], [1.0, 2.0, 3.0]).numpy()
    array([5., 1., 3.], dtype=float32)
    """
    return _accumulate(tensor, indices, updates, "TensorScatterAdd", ew.add,
                       bad_indices_policy)


@export("tf")
def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """`tensor` with `updates` subtracted at the index tuples of `indices`, TensorFlow's
    tensor_scatter_nd_sub.

    >>> tf.tensor_scatter_nd_sub([1.0, 1.0], [[1], [1]], [1.0, 2.0]).numpy()
    array([ 1., -2.], dtype=float32)
    """
    return _accumulate(tensor, indices, updates, "TensorScatterSub", ew.sub,
                       bad_indices_policy)


# -- applied in order: the indices are read on the host ------------------------------------

def _layers(indices, shape, m, op, ignore):
    """Per occurrence k (the k-th update of a position, in order): the update row each
    position takes in layer k (-1: none), as int32 [positions] arrays, and each update's
    position (-1: an ignored index tuple outside the shape)."""
    host = values_for_shape(indices, op)
    if not ignore:
        _check_range(indices, shape, m, host)  # read back from a device: not checked before
    positions = int(np.prod(shape[:m], dtype=np.int64))
    tuples = host.reshape(-1, m).astype(np.int64)
    rows = tuples @ _strides(shape, m) if m else np.zeros(len(tuples), np.int64)
    if m:
        rows[~((tuples >= 0) & (tuples < np.asarray(shape[:m]))).all(axis=1)] = -1
    order = np.argsort(rows, kind="stable")
    ranked = rows[order]
    first = np.r_[True, ranked[1:] != ranked[:-1]] if ranked.size else np.zeros(0, bool)
    start = np.maximum.accumulate(np.where(first, np.arange(ranked.size), 0))
    rank = np.empty(ranked.size, np.int64)
    rank[order] = np.arange(ranked.size) - start
    layers = []
    for k in range(int(rank.max()) + 1 if rank.size else 0):
        take = np.full(positions, -1, np.int32)
        which = np.flatnonzero((rank == k) & (rows >= 0))
        take[rows[which]] = which
        layers.append(take)
    return layers, rows.astype(np.int32)


def _in_order(tensor, indices, updates, op, step, grads, policy=""):
    """`tensor` with the updates applied by `step(current, update)` -> where it replaces
    the current value, one occurrence after another; gradients by `grads`."""
    from ..autodiff.custom_gradient import custom_gradient
    ignore = _ignores(policy, op)
    tensor, indices, updates, shape, m = _prepare(tensor, indices, updates, op, ignore)
    if _traced_unknown(indices):
        return _traced(tensor, indices, updates, shape, m, op)
    layers, rows = _layers(indices, shape, m, f"tf.{_NAMES[op]}", ignore)
    positions = int(np.prod(shape[:m], dtype=np.int64))
    inner = (1,) * (len(shape) - m)
    flat_shape = (positions,) + shape[m:]

    def forward(t, u):
        cur = reshape(t, flat_shape)
        table = reshape(u, (len(rows),) + shape[m:])
        for take in layers:
            hit = from_numpy(take.reshape((positions,) + inner) >= 0)
            new = gather(table, from_numpy(np.maximum(take, 0)))
            cur = ew.where(hit if step is None else ew.logical_and(hit, step(cur, new)),
                           new, cur)
        return reshape(cur, shape)

    if not dtypes.as_dtype(tensor.dtype).is_floating:
        return forward(tensor, updates)

    @custom_gradient
    def scattered(t, u):
        out = forward(t, u)
        return out, lambda dy: grads(dy, t, u, out, rows, layers, flat_shape, inner)
    return scattered(tensor, updates)


def _traced_unknown(indices):
    """Whether a tf.function is tracing and `indices` differ between its calls."""
    return ndarray._read_guard[0] is not None and trace.known_value(indices) is None


def _traced(tensor, indices, updates, shape, m, op):
    """tensor_scatter_nd_update / max / min on indices a trace cannot read: the N index
    tuples are compared pairwise on the device ([N, N]). An update is kept unless a later
    one has the same tuple; for max and min each kept update first becomes its group's
    extreme ([N, N, slice]), NaN updates left out: TensorFlow's CPU order (b if a < b
    else a, from the tensor's value) keeps a NaN only where the tensor has it. TensorFlow's
    gradients, as the host path."""
    from ..autodiff.custom_gradient import custom_gradient
    from .reduce import max as reduce_max, min as reduce_min
    flat, _ = _rows(indices, updates, shape, m, True)
    n = int(flat.shape[0])
    positions = int(np.prod(shape[:m], dtype=np.int64))
    flat_shape = (positions,) + shape[m:]
    inner = int(np.prod(shape[m:], dtype=np.int64))
    later = from_numpy(np.triu(np.ones((n, n), bool), 1))  # [i, j]: j comes after i
    same = ew.equal(reshape(flat, (n, 1)), reshape(flat, (1, n)))
    kept = ew.where(reduce_any(ew.logical_and(same, later), axis=1), -1, flat)
    floating = dtypes.as_dtype(tensor.dtype).is_floating
    high = op == "TensorScatterMax"

    def forward(t, u):
        table = reshape(u, (n, inner))
        if op != "TensorScatterUpdate":
            limits = np.finfo(np.float32) if floating else np.iinfo(np.int32)
            fill = ew.cast(float(-np.inf if high else np.inf) if floating else
                           int(limits.min if high else limits.max), table.dtype)
            if floating:
                table = ew.where(ew.not_equal(table, table), fill, table)
            both = ew.where(reshape(same, (n, n, 1)), reshape(table, (1, n, inner)), fill)
            table = (reduce_max if high else reduce_min)(both, axis=1)
        total, hit = _summed(kept, reshape(table, (n,) + shape[m:]), shape, m)
        total, cur = reshape(total, flat_shape), reshape(t, flat_shape)
        if op != "TensorScatterUpdate":
            hit = ew.logical_and(hit, ew.less(cur, total) if high else ew.less(total, cur))
        return reshape(ew.where(hit, total, cur), shape)

    if not floating:
        return forward(tensor, updates)

    @custom_gradient
    def scattered(t, u):
        out = forward(t, u)
        if op != "TensorScatterUpdate":
            return out, lambda dy: _extreme_grads(dy, t, u, out, flat, None, flat_shape,
                                                  None)

        def grad(dy):
            _, hit = _summed(flat, reshape(u, (n,) + shape[m:]), shape, m)
            flat_dy = reshape(dy, flat_shape)
            return (reshape(ew.where(hit, ew.cast(0, dy.dtype), flat_dy), shape),
                    _gather_rows(dy, flat, flat_shape, u))
        return out, grad
    return scattered(tensor, updates)


def _gather_rows(x, rows, flat_shape, like):
    """x's slices at each update's position (zeros for an ignored index tuple); `rows` a
    numpy array (host-read indices) or a tensor (traced ones)."""
    ids = rows if isinstance(rows, NDArray) else from_numpy(np.maximum(rows, 0))
    got = gather(reshape(x, flat_shape), ew.maximum(ids, 0) if ids is rows else ids)
    if isinstance(rows, NDArray) or (rows < 0).any():
        keep = ew.greater_equal(rows if isinstance(rows, NDArray) else from_numpy(rows), 0)
        keep = reshape(keep, (-1,) + (1,) * (len(flat_shape) - 1))
        got = ew.where(keep, got, ew.cast(0, got.dtype))
    return reshape(got, like.shape)


def _update_grads(dy, t, u, out, rows, layers, flat_shape, inner):
    """TensorFlow's: the tensor's gradient is zero where any update landed, each update
    (a replaced duplicate too) gets the gradient at its position."""
    hit = np.zeros(flat_shape[:1], bool)
    for take in layers:
        hit |= take >= 0
    mask = from_numpy(hit.reshape(flat_shape[:1] + inner))
    flat = reshape(dy, flat_shape)
    kept = reshape(ew.where(mask, ew.cast(0, dy.dtype), flat), t.shape)
    return kept, _gather_rows(dy, rows, flat_shape, u)


def _extreme_grads(dy, t, u, out, rows, layers, flat_shape, inner):
    """TensorFlow's (_TensorScatterMinOrMaxGrad): the gradient is shared among the tensor
    entry and the updates equal to the result."""
    x_ind = ew.cast(ew.equal(t, out), dy.dtype)
    y_ind = ew.cast(ew.equal(u, _gather_rows(out, rows, flat_shape, u)), dy.dtype)
    positions, count = flat_shape[0], int(rows.shape[0])
    ids = rows if isinstance(rows, NDArray) else from_numpy(rows)
    ys = reshape(unsorted_segment_sum(reshape(y_ind, (count,) + flat_shape[1:]), ids,
                                      positions), t.shape)
    share = ew.add(x_ind, ys)
    return (ew.div(ew.mul(dy, x_ind), share),
            ew.mul(_gather_rows(ew.div(dy, share), rows, flat_shape, u), y_ind))


_NAMES = {"TensorScatterUpdate": "tensor_scatter_nd_update",
          "TensorScatterMax": "tensor_scatter_nd_max", "TensorScatterMin": "tensor_scatter_nd_min"}


@export("tf")
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """`tensor` with its slices at the index tuples of `indices` replaced by `updates`
    (TensorFlow's tensor_scatter_nd_update). Repeated tuples: the last update wins, as
    on TensorFlow's CPU (its GPU kernel picks any). The indices are read on the host, or,
    inside tf.function when they change between calls, compared pairwise on the device
    ([N, N] for N updates; max and min [N, N, slice]).

    >>> tf.tensor_scatter_nd_update([0, 0, 0], [[2], [0], [2]], [7, 8, 9]).numpy().tolist()
    [8, 0, 9]
    """
    return _in_order(tensor, indices, updates, "TensorScatterUpdate", None, _update_grads)


@export("tf")
def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """`tensor` with each slice at the index tuples of `indices` raised to `updates` where
    larger (TensorFlow's tensor_scatter_nd_max, a NaN kept only where it comes first:
    max(a, b) is b if a < b else a). The indices are read on the host (inside tf.function,
    when they change between calls, compared pairwise on the device).

    >>> tf.tensor_scatter_nd_max([1, 5, 3], [[0], [1], [0]], [4, 2, 7]).numpy().tolist()
    [7, 5, 3]
    """
    return _in_order(tensor, indices, updates, "TensorScatterMax", ew.less, _extreme_grads,
                     bad_indices_policy)


@export("tf")
def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """`tensor` with each slice at the index tuples of `indices` lowered to `updates` where
    smaller (TensorFlow's tensor_scatter_nd_min). The indices are read on the host (inside
    tf.function, when they change between calls, compared pairwise on the device).

    >>> tf.tensor_scatter_nd_min([1, 5, 3], [[0], [1], [0]], [4, 2, -7]).numpy().tolist()
    [-7, 2, 3]
    """
    return _in_order(tensor, indices, updates, "TensorScatterMin",
                     lambda cur, new: ew.less(new, cur), _extreme_grads, bad_indices_policy)
