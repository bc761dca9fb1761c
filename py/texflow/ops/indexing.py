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
from ..engine import trace
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op, run_view
from ..errors import InvalidArgumentError, OperatorNotAllowedInGraphError, ShapeError
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
                    raise InvalidArgumentError(f"slice index {index} of dimension {full} "
                                               f"out of bounds (size {dim}).")
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


def traced_index(item):
    """Whether `item` is a scalar int32 tensor whose value differs per call of the
    tf.function being traced (an argument, a Variable, a loop counter, or computed from
    them): an index the trace cannot fold, which the gather ops take instead."""
    return (isinstance(item, NDArray) and item.dtype == int32 and not item.shape
            and trace.active() is not None and trace.known_value(item) is None)


def _bound_value(value):
    if value is not None and traced_index(value):
        raise OperatorNotAllowedInGraphError(
            "A slice bound that is a traced tensor (x[i:j] with i or j differing per call) "
            "is not supported inside tf.function: the result's length would depend on the "
            "values, and a texflow trace has static shapes. Index with the tensor (x[i]), "
            "or use tf.slice(x, begin, size) with a tensor begin and a Python size, or "
            "tf.gather.")
    return None if value is None else _index_int(value)


def take_index(x, index, axis, dimension):
    """x[..., index, ...] at `axis` for a scalar int32 tensor `index` (a traced one:
    `traced_index`), negative counting from the end: a gather, whose index is checked
    against the axis's size at every call where it is known on the host, with
    strided_slice's error (`dimension`: the axis of the indexed tensor it names)."""
    from .elementwise import add, less, where
    from .index_checks import every_call
    from .movement import gather
    size = x.shape[axis]
    every_call(_check_index, index, size, dimension, key=("slice index", size, dimension))
    return gather(x, where(less(index, 0), add(index, size), index), axis=axis)


def _check_index(index, size, dimension):
    from .index_checks import host_values
    values = host_values(index)
    if values is None:
        return
    value = int(values) + size * (int(values) < 0)  # reported as TensorFlow reports it
    if not 0 <= value < size:
        raise InvalidArgumentError(f"slice index {value} of dimension {dimension} out of "
                                   f"bounds (size {size}).")


def traced_begin(begin):
    """{axis: scalar int32 tensor} of a tf.slice `begin`'s entries that differ per call
    of the tf.function being traced (indexing.py `traced_index`); {} eagerly."""
    if isinstance(begin, NDArray):
        if len(begin.shape) != 1 or begin.dtype != int32 or trace.active() is None or \
                trace.known_value(begin) is not None:
            return {}
        return {axis: begin[axis] for axis in range(begin.shape[0])}
    return {axis: b for axis, b in enumerate(begin) if traced_index(b)}


def slice_traced(input_, traced, begin, size):
    """tf.slice with a begin that differs per call: the other axes sliced, then one
    gather of begin + range(size) per traced axis, its bounds checked at every call
    where the begin is known on the host (TensorFlow's errors)."""
    from .creation import range_
    from .elementwise import add
    from .index_checks import every_call
    from .movement import gather, slice as slice_
    shape = input_.shape
    size = [int(s) for s in size]
    if len(begin) != len(shape) or len(size) != len(shape):
        raise ShapeError(f"slice: begin and size {size} need {len(shape)} entries for "
                         f"shape {list(shape)}")
    for axis in traced:
        if size[axis] == -1:
            raise OperatorNotAllowedInGraphError(
                f"tf.slice with a begin that differs per call and size -1 (axis {axis}) is "
                "not supported inside tf.function: the result's length would depend on the "
                "value, and a texflow trace has static shapes. Give the size as a number.")
        if not 0 <= size[axis] <= shape[axis]:
            raise InvalidArgumentError(f"Expected size[{axis}] in [0, {shape[axis]}], but got "
                                       f"{size[axis]}")
    result = slice_(input_, [0 if a in traced else int(b) for a, b in enumerate(begin)],
                   [shape[a] if a in traced else s for a, s in enumerate(size)])
    checked = {None: begin} if isinstance(begin, NDArray) else traced
    for axis, first in checked.items():  # the tensors the caller gave: arguments, maybe
        every_call(_check_begin, first, shape, size, axis, key=("slice", shape, size, axis))
    for axis, first in traced.items():
        result = gather(result, add(first, range_(size[axis])), axis=axis)
    return result


def _check_begin(first, shape, size, axis):
    """TensorFlow's errors for a begin `first` (of `axis`, or all of them for None) that
    puts a slice of `size` outside `shape`, where `first` is known on the host."""
    from .index_checks import host_values
    values = host_values(first)
    if values is None:
        return
    for a, value in zip(range(len(shape)) if axis is None else [axis], values.reshape(-1)):
        value, dim = int(value), shape[a]
        if not 0 <= value <= dim:
            raise InvalidArgumentError(f"Expected begin[{a}] in [0, {dim}], but got {value}")
        if value + size[a] > dim:
            raise InvalidArgumentError(f"Expected size[{a}] in [0, {dim - value}], but got "
                                       f"{size[a]}")


def getitem(x, key):
    """`x[key]` with TensorFlow's semantics (see the module docstring)."""
    if _is_mask(key):
        return _boolean_mask(x, key)
    spec = list(key) if isinstance(key, (tuple, list)) else [key]
    begin, end, strides = [], [], []
    masks = [0] * 5
    # a traced index keeps its axis whole here, then a gather takes it (`take_index`):
    # (axis of the strided slice's result, axis of x, the index)
    taken, produced, consumed = [], 0, 0
    for i, item in enumerate(spec):
        bit = 1 << i
        if item is Ellipsis:
            skipped = len(x.shape) - sum(v is not None and v is not Ellipsis for v in spec)
            produced, consumed = produced + skipped, consumed + skipped
        elif traced_index(item):
            taken.append((produced, consumed, item))
            item = slice(None)
        produced += isinstance(item, slice) or item is None
        consumed += item is not None and item is not Ellipsis
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
    result = strided_slice(x, begin, end, strides, *masks)
    for axis, dimension, index in reversed(taken):
        result = take_index(result, index, axis, dimension)
    return result


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
