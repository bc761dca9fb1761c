"""numpy kernels of the movement ops (reshape is a view and needs none)."""

import numpy as np

from ...errors import InvalidArgumentError
from ..base import kernel


@kernel("transpose", "numpy")
def transpose(k, x, perm):
    return np.transpose(x, perm)


@kernel("broadcast_to", "numpy")
def broadcast_to(k, x, shape):
    return np.broadcast_to(x, shape)


@kernel("reverse", "numpy")
def reverse(k, x, axes):
    return np.flip(x, axes) if axes else x


@kernel("slice", "numpy")
def slice_(k, x, begin, size):
    return x[tuple(slice(b, b + s) for b, s in zip(begin, size))]


@kernel("strided_slice", "numpy")
def strided_slice(k, x, window, shape, **spec):
    index = []
    for start, step, count in window:
        stop = start + step * count  # start is -1 (before the first) only when count is 0
        index.append(slice(0, 0) if count == 0 else
                     slice(start, stop if stop >= 0 else None, step))
    return x[tuple(index)].reshape(shape)


@kernel("pad", "numpy")
def pad(k, x, paddings, constant_values):
    return np.pad(x, paddings, constant_values=constant_values)


@kernel("tile", "numpy")
def tile(k, x, multiples):
    return np.tile(x, multiples) if multiples else x


@kernel("concat", "numpy")
def concat(k, *values, axis):
    return np.concatenate(values, axis=axis)


@kernel("gather", "numpy")
def gather(k, params, indices, axis):
    n = params.shape[axis]
    bad = (indices < 0) | (indices >= n)
    if bad.any():  # on the host every index is known: TensorFlow's CPU error
        where = ",".join(str(int(c)) for c in np.unravel_index(np.flatnonzero(bad)[0],
                                                                bad.shape)) if bad.ndim else ""
        raise InvalidArgumentError(f"indices[{where}] = {indices[bad].reshape(-1)[0]} is not "
                                   f"in [0, {n})")
    return np.take(params, indices, axis=axis)


@kernel("unsorted_segment_sum", "numpy")
def unsorted_segment_sum(k, data, ids, num_segments):
    out = np.zeros((num_segments,) + data.shape[1:], data.dtype)
    if (ids >= num_segments).any():  # TensorFlow rejects these (and drops negative ids)
        i = int(np.flatnonzero(ids >= num_segments)[0])
        raise InvalidArgumentError(f"segment_ids[{i}] = {ids[i]} is out of range "
                                   f"[0, {num_segments})")
    keep = (ids >= 0) & (ids < num_segments)
    np.add.at(out, ids[keep], data[keep])
    return out
