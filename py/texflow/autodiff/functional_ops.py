"""`tf.map_fn`, `tf.scan`, `tf.foldl` and `tf.foldr`: one loop over the leading dimension.

texflow runs the loop in Python, over the elements' static leading dimension, and stacks
the results: eagerly that is TensorFlow's result, and inside `tf.function` the loop is
unrolled at trace time (the trace holds `fn`'s ops once per element, so it grows with the
length; a new length is a new signature, hence a retrace). The ops are ordinary ops, so
GradientTape differentiates through them. The results are written to TensorArrays
(autodiff/tensor_array.py), as TensorFlow's are, so the checks are theirs: every result of
`fn` has the structure and dtype of the signature (map_fn) or accumulator (scan, folds),
and one shape at every element.
"""

from .. import dtypes
from ..engine.nest import assert_same_structure, flatten, pack_sequence_as
from ..errors import OutOfRangeError
from ..ops import creation, movement
from ..tensor_spec import TensorSpec
from .tensor_array import TensorArray


def _check_callable(fn, what):
    if not callable(fn):
        raise TypeError(f"{what}: fn must be callable, received {fn!r}")


def _elements(elems):
    """The leaves of `elems` as tensors, and their common leading dimension."""
    leaves = [creation.convert_to_tensor(x) for x in flatten(elems)]
    if not leaves:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. "
                         f"Got {elems!r}, which does not contain any Tensors.")
    if any(not x.shape for x in leaves):
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n = leaves[0].shape[0]
    for x in leaves[1:]:
        if x.shape[0] != n:
            raise ValueError(f"Dimensions {n} and {x.shape[0]} are not compatible")
    return leaves, n


class _Writer:
    """One TensorArray per leaf of `signature` (a structure of DTypes or TensorSpecs),
    written one structure per step, as TensorFlow's map_fn and scan write theirs."""

    def __init__(self, signature, size):
        self.signature = signature
        specs = [s if isinstance(s, TensorSpec) else TensorSpec(None, dtypes.as_dtype(s))
                 for s in flatten(signature)]
        self.arrays = [TensorArray(s.dtype, size=size, element_shape=s.shape) for s in specs]

    def write(self, index, value):
        assert_same_structure(self.signature, value)
        self.arrays = [ta.write(index, v) for ta, v in zip(self.arrays, flatten(value))]

    def stacked(self):
        """The elements stacked; an empty array of the signature's dtype (and TensorSpec
        shape) when there are none."""
        return pack_sequence_as(self.signature, [ta.stack() for ta in self.arrays])


def _unrolled(elems):
    """The elements of `elems` (a structure of tensors), one structure per index."""
    leaves, n = _elements(elems)
    slices = [movement.unstack(x) for x in leaves]
    return [pack_sequence_as(elems, [s[i] for s in slices]) for i in range(n)], leaves


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """`fn` of each element of `elems` along its first axis, stacked (tf.map_fn).

    >>> tf.map_fn(lambda r: tf.reduce_sum(r), tf.constant([[1., 2.], [3., 4.]]))
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 7.], dtype=float32)>
    """
    _check_callable(fn, "map_fn")
    items, leaves = _unrolled(elems)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if signature is None:
        signature = pack_sequence_as(elems, [x.dtype for x in leaves])
    out = _Writer(signature, len(items))
    for i, item in enumerate(items):
        out.write(i, fn(item))
    return out.stacked()


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """`fn` of each element of `elems` along its first axis, stacked (tf.vectorized_map):
    texflow runs it as `map_fn` (fn once per element, unrolled inside tf.function), which
    is TensorFlow's own fallback; the result is the same. `fn`'s output structure and
    dtypes are its first call's (for no elements, its call on zeros).

    >>> tf.vectorized_map(lambda r: r * 2.0, tf.constant([[1., 2.], [3., 4.]])).numpy()
    array([[2., 4.],
           [6., 8.]], dtype=float32)
    """
    _check_callable(fn, "vectorized_map")
    items, leaves = _unrolled(elems)
    if not items:  # fn of zeros gives the structure, as TensorFlow's trace of fn does
        first = fn(pack_sequence_as(elems, [creation.zeros(x.shape[1:], x.dtype)
                                            for x in leaves]))
        return pack_sequence_as(first, [creation.zeros((0,) + tuple(v.shape), v.dtype)
                                        for v in flatten(first)])
    first = fn(items[0])
    out = _Writer(pack_sequence_as(first, [TensorSpec(v.shape, v.dtype)
                                           for v in flatten(first)]), len(items))
    out.write(0, first)
    for i, item in enumerate(items[1:], 1):
        out.write(i, fn(item))
    return out.stacked()


def _accumulate(fn, elems, initializer, reverse, what):
    """fn's last accumulator and a Writer holding it after each element, in the elements'
    order (the order visited is reversed for `reverse`)."""
    _check_callable(fn, what)
    items, _ = _unrolled(elems)
    n = len(items)
    if reverse:
        items = items[::-1]
    if initializer is None:
        if not items:  # TensorFlow reads index 0 (n - 1 when reversed) of an empty array
            raise OutOfRangeError("Reading from negative indices (index -1) is not allowed."
                                  if reverse else
                                  "Tried to read from index 0 but array size is: 0")
        acc, items = items[0], items[1:]
    else:
        acc = pack_sequence_as(initializer, [creation.convert_to_tensor(v)
                                             for v in flatten(initializer)])
    out = _Writer(pack_sequence_as(acc, [TensorSpec(v.shape, v.dtype) for v in flatten(acc)]),
                  n)
    k = 0
    if initializer is None:
        out.write(n - 1 if reverse else 0, acc)
        k = 1
    for item in items:
        acc = fn(acc, item)
        out.write(n - 1 - k if reverse else k, acc)
        k += 1
    return acc, out


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The accumulator `a = fn(a, x)` after each element x of `elems`, stacked (tf.scan).

    >>> tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3]))
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 3, 6], dtype=int32)>
    """
    return _accumulate(fn, elems, initializer, reverse, "scan")[1].stacked()


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`a = fn(a, x)` over the elements of `elems` first to last; the last `a` (tf.foldl).

    >>> tf.foldl(lambda a, x: a + x, tf.constant([1, 2, 3]))
    <tf.Tensor: shape=(), dtype=int32, numpy=6>
    """
    return _accumulate(fn, elems, initializer, False, "foldl")[0]


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`a = fn(a, x)` over the elements of `elems` last to first; the last `a` (tf.foldr).

    >>> tf.foldr(lambda a, x: a * 2 + x, tf.constant([1, 2, 3]))
    <tf.Tensor: shape=(), dtype=int32, numpy=17>
    """
    return _accumulate(fn, elems, initializer, True, "foldr")[0]
