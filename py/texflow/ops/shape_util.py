"""Shape rules shared by ops: broadcasting and axis normalization."""

import operator

from ..errors import ShapeError


def broadcast_shapes(op_name, *shapes):
    """numpy's broadcast of `shapes`, or ShapeError naming them all (TensorFlow's
    "Incompatible shapes: [2] vs. [3]", then the op and the axis)."""
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dim = 1
        for s in shapes:
            k = i - rank + len(s)
            if k < 0:
                continue
            d = s[k]
            if d != 1:
                if dim != 1 and d != dim:
                    listed = " vs. ".join(str(list(x)) for x in shapes)
                    raise ShapeError(f"Incompatible shapes: {listed} ({op_name}: they cannot "
                                     f"be broadcast together, axis {i - rank} has sizes "
                                     f"{dim} and {d})")
                dim = d
        out.append(dim)
    return tuple(out)


def normalize_axes(op_name, axis, rank):
    """`axis` (None, int or sequence) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, bool):
        raise ShapeError(f"{op_name}: axis must be an int or a list of ints, received {axis!r}")
    if hasattr(axis, "numpy"):  # an axis tensor: its values
        axis = axis.numpy().tolist()
    try:
        axes = [int(axis)] if not hasattr(axis, "__iter__") else [int(a) for a in axis]
    except (TypeError, ValueError):
        raise ShapeError(f"{op_name}: axis must be an int or a list of ints, "
                         f"received {axis!r}") from None
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ShapeError(f"{op_name}: axis {a} is out of range for an array of rank "
                             f"{rank}")
        a = a % rank
        if a in out:
            raise ShapeError(f"{op_name}: axis {a} is repeated in axis={axis!r}")
        out.append(a)
    return tuple(sorted(out))


def normalize_axis(op_name, axis, rank):
    """One axis as a non-negative int, or ShapeError."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        try:
            axis = operator.index(axis)
        except TypeError:
            raise ShapeError(f"{op_name}: axis must be an int, received {axis!r}") from None
    if not -rank <= axis < rank:
        raise ShapeError(f"{op_name}: axis {axis} is out of range for an array of rank {rank}")
    return axis % rank


def reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)
