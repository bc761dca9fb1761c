"""What collectives accept and return: numpy in, numpy out; texflow arrays in, texflow
arrays out; Python numbers in, Python numbers out; a single value, a list, a tuple or a
dict (by sorted key, as tf.nest flattens)."""

import numpy as np

from ..coordinator import wire
from ..errors import InvalidArgumentError

NUMPY, NP_SCALAR, PYTHON, TEXFLOW = "numpy", "numpy scalar", "python", "texflow"


def flatten(tensors):
    """(leaves, rebuild) where rebuild(new_leaves) gives the same nested structure back
    (lists, tuples, namedtuples and dicts by sorted key, as tf.nest flattens)."""
    leaves = []

    def walk(x):
        if isinstance(x, dict):
            keys = sorted(x)
            parts = [walk(x[k]) for k in keys]
            return lambda it: {k: p(it) for k, p in zip(keys, parts)}
        if isinstance(x, (list, tuple)):
            parts = [walk(v) for v in x]
            kind = type(x)
            if kind in (list, tuple) or not hasattr(x, "_fields"):
                return lambda it: kind(p(it) for p in parts)
            return lambda it: kind(*(p(it) for p in parts))  # namedtuple
        leaves.append(x)
        return lambda it: next(it)

    build = walk(tensors)
    return leaves, lambda out: build(iter(out))


def leaf_names(tensors):
    """Names for the leaves of a dict's values (its keys, joined with '/' when nested)."""
    names = []

    def walk(x, prefix):
        if isinstance(x, dict):
            for k in sorted(x):
                walk(x[k], f"{prefix}{k}/")
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                walk(v, f"{prefix}{i}/")
        else:
            names.append(prefix.rstrip("/"))

    walk(tensors, "")
    return names if isinstance(tensors, dict) else None


def numpy_leaves(tensors):
    """The leaves of a plain list or tuple of numpy arrays (gradients, as a training step
    passes them), else None: the common case skips `flatten`'s closures."""
    if type(tensors) not in (list, tuple):
        return None
    for x in tensors:
        if type(x) is not np.ndarray:
            return None
    return list(tensors)


def _is_texflow(x):
    return type(x).__module__.startswith("texflow.") and hasattr(x, "numpy") and \
        hasattr(x, "shape")


def kind_of(x):
    if isinstance(x, np.ndarray):
        return NUMPY
    if isinstance(x, np.generic):
        return NP_SCALAR
    if isinstance(x, (bool, int, float)):
        return PYTHON
    if _is_texflow(x):
        return TEXFLOW
    raise InvalidArgumentError(f"a collective takes numpy arrays, texflow arrays or Python "
                               f"numbers; received {type(x).__name__}: {x!r:.80}")


def to_numpy(x, kind, index):
    """`x` as a C-contiguous numpy array of a dtype the wire carries (synchronous read)."""
    if kind == TEXFLOW:
        arr = np.asarray(x.numpy())
    elif kind == PYTHON:
        arr = np.asarray(x, np.bool_ if isinstance(x, bool) else
                         np.int32 if isinstance(x, int) else np.float32)
    else:
        arr = np.asarray(x)
    return _checked(_contiguous(arr), x, index)


async def to_numpy_async(x, kind, index):
    """Like `to_numpy`, reading texflow arrays with `await x.data()` (no blocking read)."""
    if kind == TEXFLOW and hasattr(x, "data"):
        flat = await x.data()
        return _checked(_contiguous(np.asarray(flat).reshape(tuple(x.shape))), x, index)
    return to_numpy(x, kind, index)


def _contiguous(arr):
    # Not np.ascontiguousarray: it turns 0-d arrays into 1-d ones.
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


_NAMES = {}  # dtype -> its name: numpy computes `dtype.name` in Python, per call


def dtype_name(dtype):
    name = _NAMES.get(dtype)
    if name is None:
        name = _NAMES[dtype] = dtype.name
    return name


def _checked(arr, original, index):
    if dtype_name(arr.dtype) not in wire.DTYPE_CODES:
        raise InvalidArgumentError(f"tensor {index} has dtype {arr.dtype}, which collectives "
                                   f"do not carry (supported: {sorted(wire.DTYPE_CODES)})")
    if not arr.dtype.isnative and arr.dtype.itemsize > 1:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def from_numpy(arr, kind, original):
    """The result `arr` in the kind of the caller's `original`."""
    if kind == NUMPY:
        return arr
    if kind == NP_SCALAR:
        return arr[()]
    if kind == PYTHON:
        return arr.item()
    import texflow
    return texflow.array(arr)


def check_finite(arrays, names):
    """Raises InvalidArgumentError at the sender, before anything is sent, for NaN or inf."""
    # A finite dot product or sum means finite elements; one that is not may only have
    # overflowed (wire.surely_finite).
    suspects = [i for i, arr in enumerate(arrays) if arr.dtype.kind == "f" and arr.size
                and not wire.surely_finite(arr)]
    for i in suspects:
        arr = arrays[i]
        bad = np.argwhere(~np.isfinite(arr))
        if len(bad):
            where = [int(j) for j in bad[0]]
            name = names[i] if names and names[i] else f"tensor {i}"
            raise InvalidArgumentError(
                f"{name} ({arr.dtype}{list(arr.shape)}) has {len(bad)} non-finite value(s), "
                f"the first {arr[tuple(where)]} at index {where}; the coordinator refuses "
                "them unless started with --allow-nonfinite")


class Layouts:
    """The Layout (and packed tables) of recent contributions, by their tensors' names,
    dtypes and shapes: a training step sends the same gradients every step, and building
    and packing a layout is Python work per tensor."""

    def __init__(self, keep=16):
        self.keep, self.cache = keep, {}

    def get(self, arrays, names, name):
        key = (name, names and tuple(names), tuple((a.dtype, a.shape) for a in arrays))
        layout = self.cache.get(key)
        if layout is None:
            layout = wire.Layout([wire.TensorSpec(n or "", dtype_name(a.dtype), a.shape)
                                  for n, a in zip(names or [""] * len(arrays), arrays)], name)
            layout.tables = {}
            if len(self.cache) >= self.keep:
                del self.cache[next(iter(self.cache))]
            self.cache[key] = layout
        return layout


def table_of(layout, lo, hi):
    """wire.pack_table of `layout` over bytes [lo, hi), kept on a cached layout."""
    tables = getattr(layout, "tables", None)
    table = None if tables is None else tables.get((lo, hi))
    if table is None:
        table = wire.pack_table(layout.with_range(lo, hi))
        if tables is not None:
            tables[(lo, hi)] = table
    return table


class PayloadReader:
    """Reads byte ranges of the payload that `layout` lays out over `arrays`: `pieces`
    without copying (views of the arrays, and the padding between them), `read` as one
    buffer, copying only where a range spans several tensors."""

    def __init__(self, layout, arrays):
        self.layout = layout
        self.views = [memoryview(a.reshape(-1)).cast("B") if a.size else memoryview(b"")
                      for a in arrays]

    def read(self, start, end):
        pieces = self.pieces(start, end)
        if len(pieces) == 1:
            return pieces[0]
        return b"".join(pieces)

    def pieces(self, start, end):
        pieces, at = [], start
        for spec, view in zip(self.layout.specs, self.views):
            s, e = spec.offset, spec.offset + spec.nbytes
            if e <= at or not spec.nbytes:
                continue
            if s >= end:
                break
            if s > at:
                pieces.append(bytes(s - at))  # alignment padding between dtypes
                at = s
            stop = min(e, end)
            pieces.append(view[at - s:stop - s])
            at = stop
        if at < end:
            pieces.append(bytes(end - at))
        return pieces
