"""Indexing: `tf.strided_slice` (TensorFlow's op and attrs) and `x[...]` on tensors.

`x[0]`, `x[-1]`, `x[:, 1]`, `x[1:3]`, `x[::-1]`, `x[..., 0]`, `x[tf.newaxis]`
become one strided_slice, as in TensorFlow: an integer index shrinks its
axis and must be in range (InvalidArgumentError naming the index and the
dimension), slices clamp as in Python. The op runs on the device: each
backend copies the window (start, step, count per input axis) the shape rule
resolves, so kernels never interpret the masks.
"""

import numbers

import numpy as np

from ..dtypes import bool_, int32
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op, run_view
from ..errors import InvalidArgumentError
from .movement import pad, reshape

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def resolve(shape, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
            new_axis_mask=0, shrink_axis_mask=0):
    """TensorFlow's strided-slice rule: the (start, step, count) window over each input
    axis and the output shape, or InvalidArgumentError.

    >>> resolve((3, 4), [0, 1], [0, 0], [1, -1], end_mask=3)
    (((0, 1, 3), (1, -1, 2)), (3, 2))
    """
    rank = len(shape)
    n = len(begin)
    if not len(end) == len(strides) == n:
        raise InvalidArgumentError(f"strided_slice: begin {list(begin)}, end {list(end)} and "
                                   f"strides {list(strides)} must have the same length")
    if bin(ellipsis_mask).count("1") > 1:
        raise InvalidArgumentError("Multiple ellipses in slice spec not allowed")
    if rank == 0 and any(not (new_axis_mask >> i) & 1 and not (ellipsis_mask >> i) & 1
                         for i in range(n)):
        raise InvalidArgumentError("Attempting to slice scalar input.")
    if not ellipsis_mask:  # an implicit ellipsis after the given axes
        ellipsis_mask = 1 << n
        begin, end, strides = list(begin) + [0], list(end) + [0], list(strides) + [1]
        n += 1
    ell = (ellipsis_mask & -ellipsis_mask).bit_length() - 1
    new_after = sum((new_axis_mask >> i) & 1 for i in range(ell + 1, n))
    window, out = [], []
    full = 0
    for i in range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            stop = min(rank - (n - i) + 1 + new_after, rank)
            while full < stop:
                window.append((0, 1, shape[full]))
                out.append(shape[full])
                full += 1
        elif new_axis_mask & bit:
            out.append(1)
        else:
            if full >= rank:
                raise InvalidArgumentError(f"Index out of range using input dim {full}; input "
                                           f"has only {rank} dims")
            dim, b, e, s = shape[full], int(begin[i]), int(end[i]), int(strides[i])
            if s == 0:
                raise InvalidArgumentError(f"strides[{i}] must be non-zero")
            if shrink_axis_mask & bit:
                index = b + dim if b < 0 else b
                if not 0 <= index < dim:
                    raise InvalidArgumentError(f"slice index {b} of dimension {full} out of "
                                               f"bounds (size {dim}).")
                window.append((index, 1, 1))
            else:
                start = _bound(b, dim, s, begin_mask & bit, True)
                stop_ = _bound(e, dim, s, end_mask & bit, False)
                count = max(0, -(-(stop_ - start) // s))
                window.append((start, s, count))
                out.append(count)
            full += 1
    return tuple(window), tuple(out)


def _bound(value, dim, stride, masked, is_begin):
    """A begin or end clamped as Python slices clamp (masked: the axis's far end)."""
    if masked:
        if stride > 0:
            return 0 if is_begin else dim
        return dim - 1 if is_begin else -1
    if value < 0:
        value += dim
    lo, hi = (0, dim) if stride > 0 else (-1, dim - 1)
    return min(max(value, lo), hi)


def _strided_slice_infer(inputs, attrs):
    return attrs["shape"], inputs[0].dtype


def _strided_slice_grad(dy, inputs, y, attrs):
    """Scatters dy back into zeros of the input's shape, with public ops: un-reverse
    negative steps, spread steps > 1 with zeros between elements, pad to the input."""
    x = inputs[0]
    window = attrs["window"]
    counts = tuple(c for _, _, c in window)
    if any(c == 0 for c in counts):
        from .creation import zeros
        return (zeros(x.shape, dy.dtype),)
    g = reshape(dy, counts)
    if any(s < 0 for _, s, _ in window):
        flips = [-1 if s < 0 else 1 for _, s, _ in window]
        rank = len(window)
        g = strided_slice(g, [0] * rank, [0] * rank, flips, begin_mask=(1 << rank) - 1,
                          end_mask=(1 << rank) - 1)
    paddings = []
    for axis, (start, step, count) in enumerate(window):
        if step < 0:
            start, step = start + (count - 1) * step, -step
        if step > 1 and count > 1:
            g = _spread(g, axis, step)
        span = (count - 1) * step + 1
        paddings.append((start, x.shape[axis] - start - span))
    return (pad(g, paddings),)


def _spread(g, axis, step):
    """`g` with step - 1 zeros after each element along `axis` (the last ones dropped)."""
    from .movement import slice as slice_
    shape = list(g.shape)
    count = shape[axis]
    g = reshape(g, shape[:axis + 1] + [1] + shape[axis + 1:])
    g = pad(g, [(0, step - 1) if k == axis + 1 else (0, 0) for k in range(len(shape) + 1)])
    g = reshape(g, shape[:axis] + [count * step] + shape[axis + 1:])
    size = list(shape)
    size[axis] = (count - 1) * step + 1
    return slice_(g, [0] * len(shape), size)


_strided_slice = def_op("strided_slice", _strided_slice_infer, grad=_strided_slice_grad)


def _ints(name, values):
    if isinstance(values, NDArray):
        values = values.numpy()
    values = np.asarray(values)
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise InvalidArgumentError(f"strided_slice: {name} must be a 1-D list of ints, "
                                   f"received {values.tolist()!r}")
    return tuple(int(v) for v in values)


@export("tf")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """TensorFlow's strided slice: elements begin[i]:end[i]:strides[i] on each axis, with
    bit i of the masks meaning: begin_mask/end_mask ignore begin[i]/end[i] (the axis's
    far end), ellipsis_mask is `...`, new_axis_mask inserts an axis of size 1,
    shrink_axis_mask takes the single index begin[i] and drops the axis.

    >>> x = tf.reshape(tf.range(12), [3, 4])
    >>> tf.strided_slice(x, [0, 1], [3, 3], [1, 1]).numpy().tolist()
    [[1, 2], [5, 6], [9, 10]]
    """
    x = input_ if isinstance(input_, NDArray) else from_numpy(to_numpy(input_))
    begin, end = _ints("begin", begin), _ints("end", end)
    strides = (1,) * len(begin) if strides is None else _ints("strides", strides)
    masks = tuple(int(m) for m in (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                   shrink_axis_mask))
    window, shape = resolve(x.shape, begin, end, strides, *masks)
    attrs = {"begin": begin, "end": end, "strides": strides, **dict(zip(_MASKS, masks)),
             "window": window, "shape": shape}
    if all(s == 0 and t == 1 and c == d for (s, t, c), d in zip(window, x.shape)):
        return run_view(_strided_slice, x, shape, attrs)  # the whole input: no copy
    return run_op(_strided_slice, (x,), attrs)


# -- x[...] -----------------------------------------------------------------------------

_INDEX_HELP = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
               "tf.int32/tf.int64 tensors are valid indices, got {!r}")


def _index_int(value):
    """A Python int from an int, a numpy integer or a scalar int tensor, else TypeError."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(_INDEX_HELP.format(value))
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, NDArray) and value.dtype == int32 and not value.shape:
        return int(value.item())
    raise TypeError(_INDEX_HELP.format(value))


def _bound_value(value):
    return None if value is None else _index_int(value)


def getitem(x, key):
    """`x[key]` with TensorFlow's semantics (see the module docstring)."""
    if _is_mask(key):
        return _boolean_mask(x, key)
    spec = list(key) if isinstance(key, (tuple, list)) else [key]
    begin, end, strides = [], [], []
    masks = [0] * 5
    for i, item in enumerate(spec):
        bit = 1 << i
        if isinstance(item, slice):
            start, stop, step = (_bound_value(v) for v in (item.start, item.stop, item.step))
            begin.append(0 if start is None else start)
            end.append(0 if stop is None else stop)
            strides.append(1 if step is None else step)
            if start is None:
                masks[0] |= bit
            if stop is None:
                masks[1] |= bit
        elif item is Ellipsis:
            masks[2] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif item is None:
            masks[3] |= bit
            begin.append(0), end.append(0), strides.append(1)
        else:
            index = _index_int(item)
            masks[4] |= bit
            begin.append(index), end.append(index + 1), strides.append(1)
    return strided_slice(x, begin, end, strides, *masks)


def _is_mask(key):
    if isinstance(key, (bool, np.bool_)):
        return True
    if isinstance(key, NDArray):
        return key.dtype == bool_
    return isinstance(key, np.ndarray) and key.dtype == np.bool_


def _boolean_mask(x, mask):
    """x[mask] for a bool mask over x's leading axes: tf.boolean_mask."""
    from .array_ops import boolean_mask
    if isinstance(mask, (bool, np.bool_)):
        raise ValueError("mask cannot be scalar.")
    return boolean_mask(x, mask)


def iterate(x):
    """`for row in x`: the slices x[0], x[1], ... (TypeError for a scalar, as TensorFlow)."""
    if not x.shape:
        raise TypeError("Cannot iterate over a scalar tensor.")
    return (getitem(x, i) for i in range(x.shape[0]))


def length(x):
    if not x.shape:
        raise TypeError("Scalar tensor has no `len()`")
    return x.shape[0]
