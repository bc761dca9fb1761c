"""Sorting along an axis: sort, argsort and top_k (TensorFlow's), on two primitives that
work on the last axis: `argsort` (the stable sorting permutation of each row; GPU
kernels run a bitonic sort) and `permute_last_axis` (each row reordered by a
permutation; its gradient is the inverse permutation, one more argsort).

Order: ties keep index order in both directions (TensorFlow's); NaN counts as larger
than every number, so it sorts last ascending and first descending (TensorFlow's own
order with NaN is not defined: its CPU top_k leaves such rows partly unsorted).
"""

from collections import namedtuple

from ..dtypes import bool_, int32
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..errors import InvalidArgumentError
from .movement import slice as slice_
from .movement import transpose

TopKV2 = namedtuple("TopKV2", ["values", "indices"])


def _argsort_infer(inputs, attrs):
    x = inputs[0]
    return x.shape, int32


def _permute_infer(inputs, attrs):
    x, perm = inputs
    if perm.shape != x.shape or perm.dtype != int32:
        raise InvalidArgumentError(f"permute_last_axis: a permutation of shape "
                                   f"{list(x.shape)} (int32) is needed, received "
                                   f"{list(perm.shape)} ({perm.dtype})")
    return x.shape, x.dtype


def _permute_grad(dy, inputs, y, attrs):
    # y[..., j] = x[..., perm[j]]: x's gradient reads dy through the inverse permutation
    perm = inputs[1]
    inverse = run_op(_argsort, (perm,), {"descending": False})
    return run_op(_permute, (dy, inverse)), None


_argsort = def_op("argsort", _argsort_infer)
_permute = def_op("permute_last_axis", _permute_infer, grad=_permute_grad)


def _sortable(values, name):
    x = values if isinstance(values, NDArray) else from_numpy(to_numpy(values))
    if x.dtype == bool_:
        raise InvalidArgumentError(f"{name}: cannot sort a bool tensor (shape "
                                   f"{list(x.shape)}); cast it to int32")
    if not x.shape:
        raise InvalidArgumentError(f"{name}: the input must be at least 1-D, received a "
                                   "scalar")
    return x


def _descending(direction, name):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{name}: argument `direction` should be one of ASCENDING, "
                         f"DESCENDING. Received: direction={direction}")
    return direction == "DESCENDING"


def _along_last(x, axis, name, fn):
    """fn applied with `axis` swapped to the end (as TensorFlow does), swapped back."""
    rank = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        raise InvalidArgumentError(f"{name}: axis {axis!r} is out of range for a tensor of "
                                   f"rank {rank}")
    axis %= rank
    if axis == rank - 1:
        return fn(x)
    swap = list(range(rank))
    swap[axis], swap[-1] = rank - 1, axis
    return transpose(fn(transpose(x, swap)), swap)


@export("tf")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis` (TensorFlow's sort; see the module for ties and NaN).

    >>> tf.sort(tf.constant([3, 1, 2]), direction="DESCENDING").tolist()
    [3, 2, 1]
    """
    x = _sortable(values, "sort")
    descending = _descending(direction, "sort")

    def last(v):
        return run_op(_permute, (v, run_op(_argsort, (v,), {"descending": descending})))
    return _along_last(x, axis, "sort", last)


@export("tf")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort `values` along `axis`; always stable (equal values keep
    their order), which TensorFlow's `stable=True` asks for.

    >>> tf.argsort(tf.constant([3, 1, 2, 1])).tolist()
    [1, 3, 2, 0]
    """
    x = _sortable(values, "argsort")
    descending = _descending(direction, "argsort")
    return _along_last(x, axis, "argsort",
                       lambda v: run_op(_argsort, (v,), {"descending": descending}))


@export("math", "nn")
def top_k(input, k=1, sorted=True, index_type=int32, name=None):  # noqa: A002
    """The `k` largest entries of each row (last axis) and their int32 indices, largest
    first, ties in index order (TensorFlow's top_k; with sorted=False TensorFlow's order
    is unspecified and texflow's is sorted too).

    >>> tf.math.top_k(tf.constant([1, 5, 3, 5]), k=2).indices.tolist()
    [1, 3]
    """
    index = str(getattr(index_type, "name", index_type))
    if index not in ("int16", "int32", "int64"):
        raise InvalidArgumentError(f"Value for attr 'index_type' of {index} is not in the "
                                   f"list of allowed values: int16, int32, int64")
    x = input if isinstance(input, NDArray) else from_numpy(to_numpy(input))
    if not x.shape:
        raise InvalidArgumentError("top_k: the input must be >= 1-D, got shape []")
    if x.dtype == bool_:
        raise InvalidArgumentError(f"top_k: bool input is not supported (shape "
                                   f"{list(x.shape)})")
    k = int(k)
    n = x.shape[-1]
    if k < 0:
        raise InvalidArgumentError(f"top_k: need k >= 0, got {k}")
    if k > n:
        raise InvalidArgumentError(f"top_k: the input must have at least k columns. Had {n}, "
                                   f"needed {k}")
    perm = run_op(_argsort, (x,), {"descending": True})
    begin, size = [0] * len(x.shape), list(x.shape[:-1]) + [k]
    values = slice_(run_op(_permute, (x, perm)), begin, size)
    return TopKV2(values, slice_(perm, begin, size))
