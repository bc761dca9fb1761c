"""`tf.map_fn`, `tf.scan`, `tf.foldl` and `tf.foldr`: one loop over the leading dimension.

texflow runs the loop in Python, over the elements' static leading dimension, and stacks
the results: eagerly that is TensorFlow's result, and inside `tf.function` the loop is
unrolled at trace time (the trace holds `fn`'s ops once per element, so it grows with the
length; a new length is a new signature, hence a retrace). The ops are ordinary ops, so
GradientTape differentiates through them. The checks are TensorFlow's TensorArray
checks: every result of `fn` has the structure and dtype of the signature (map_fn) or
accumulator (scan, folds), and one shape at every element.
"""

from .. import dtypes
from ..engine.nest import assert_same_structure, flatten, pack_sequence_as
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError, OutOfRangeError
from ..ops import creation, movement
from ..tensor_spec import TensorSpec


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
    """Collects one structure per step, checked against `signature` (a structure of
    DTypes or TensorSpecs), as TensorFlow's TensorArrays are written."""

    def __init__(self, signature):
        self.signature = signature
        self.specs = [s if isinstance(s, TensorSpec) else TensorSpec(None, dtypes.as_dtype(s))
                      for s in flatten(signature)]
        self.rows = []

    def write(self, value):
        assert_same_structure(self.signature, value)
        row = []
        for spec, v in zip(self.specs, flatten(value)):
            if v is None:
                raise ValueError("Attempt to convert a value (None) with an unsupported type "
                                 "(<class 'NoneType'>) to a Tensor.")
            if not isinstance(v, NDArray):
                v = creation.convert_to_tensor(v, dtype=spec.dtype)
            if v.dtype != spec.dtype:
                raise InvalidArgumentError(f"TensorArray dtype is {spec.dtype.name} but Op is "
                                           f"trying to write dtype {v.dtype.name}")
            first = _known(spec) if _known(spec) or spec.shape.rank == 0 else None
            if first is None and self.rows:
                first = self.rows[0][len(row)].shape
            if first is not None and tuple(v.shape) != tuple(first):
                raise ValueError(f"Incompatible shape for value ({tuple(v.shape)}), "
                                 f"expected ({tuple(first)})")
            row.append(v)
        self.rows.append(row)

    def stacked(self, order=None):
        """The rows stacked (in `order`, a permutation of the rows); an empty array of the
        signature's dtype (and TensorSpec shape) when there are none."""
        rows = self.rows if order is None else [self.rows[i] for i in order]
        if not rows:
            leaves = [creation.zeros([0] + _known(s), s.dtype) for s in self.specs]
        else:
            leaves = [movement.stack([r[k] for r in rows]) for k in range(len(self.specs))]
        return pack_sequence_as(self.signature, leaves)


def _known(spec):
    shape = getattr(spec, "shape", None)
    if shape is None or shape.rank is None or None in shape.as_list():
        return []
    return shape.as_list()


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
    out = _Writer(signature)
    for item in items:
        out.write(fn(item))
    return out.stacked()


def _accumulate(fn, elems, initializer, reverse, what):
    """fn's accumulator after each element (in the order visited) and its Writer."""
    _check_callable(fn, what)
    items, _ = _unrolled(elems)
    if reverse:
        items = items[::-1]
    if initializer is None:
        if not items:  # TensorFlow reads index 0 (n - 1 when reversed) of an empty array
            raise OutOfRangeError("Reading from negative indices (index -1) is not allowed."
                                  if reverse else
                                  "Tried to read from index 0 but array size is: 0")
        acc, items = items[0], items[1:]
        start = [acc]
    else:
        acc = pack_sequence_as(initializer, [creation.convert_to_tensor(v)
                                             for v in flatten(initializer)])
        start = []
    out = _Writer(pack_sequence_as(acc, [TensorSpec(v.shape, v.dtype) for v in flatten(acc)]))
    for row in start:
        out.write(row)
    for item in items:
        acc = fn(acc, item)
        out.write(acc)
    return acc, out


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The accumulator `a = fn(a, x)` after each element x of `elems`, stacked (tf.scan).

    >>> tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3]))
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 3, 6], dtype=int32)>
    """
    _, out = _accumulate(fn, elems, initializer, reverse, "scan")
    n = len(out.rows)
    return out.stacked(list(range(n))[::-1] if reverse else None)


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
