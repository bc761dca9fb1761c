"""`tf.TensorArray`: tensors of one dtype, written and read by index.

A TensorArray is a Python list of tensors; its methods are ordinary ops (stack, unstack,
split, concat), so GradientTape differentiates through them and every backend runs them.
Eagerly it is TensorFlow's eager TensorArray: `write` changes the array and returns it,
`clear_after_read` (the default) lets an element be read once, an element never written
reads as zeros of the element shape, and the errors are TensorFlow's eager ones.
While a tf.function traces, it is TensorFlow's graph TensorArray: `write`, `unstack`,
`scatter` and `split` return a new TensorArray and leave the old one as it was (keep
what they return: `ta = ta.write(i, x)`), and reads do not clear. Sizes must then be
known at trace time (Python numbers, constants, `tf.shape` of a traced value), and so
are indices usually (the counter of a loop unrolled at trace time): mistakes then raise
at trace time with the eager errors.

An index computed from the function's arguments (the counter of a tf.while_loop traced
with `maximum_iterations`) is known only when a call runs. Then the array is one tensor
of shape [size] + element shape (the size fixed, the element shape known at that write):
a write selects the new element with tf.where, a read gathers it, and the index is
checked on the host at every call (OutOfRangeError as eagerly, as TensorFlow's graph
TensorArray checks at run time).
"""

import copy

import numpy as np

from .. import dtypes
from ..engine import trace
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError, OperatorNotAllowedInGraphError, OutOfRangeError
from ..ops import array_ops, creation, movement
from ..ops import elementwise as ew
from ..tensor_shape import as_shape


class TensorArray:
    """A list of tensors of one `dtype` for loops: write each step's result, then stack.

    Args:
        dtype: the elements' dtype.
        size: the number of elements (an int or int32 scalar).
        dynamic_size: whether writes past `size` grow the array (False).
        clear_after_read: eagerly, whether reading an element frees it (True).
        infer_shape: whether the first write fixes the element shape (True).
        element_shape: the elements' shape, possibly partial (unknown).
        tensor_array_name, handle, flow, colocate_with_first_write_call, name: accepted
            for TensorFlow's signature; `handle` must be None.

    >>> ta = tf.TensorArray(tf.float32, size=2)
    >>> ta = ta.write(0, 1.0).write(1, 2.0)
    >>> ta.stack()
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution "
                             "is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution "
                             "is enabled.")
        self._dtype = dtypes.device_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape)
        self._elements = [None] * _host_int(size, "size")
        self._cleared = set()   # indices read (and freed) eagerly
        self._dense = None      # the elements as one tensor, after a traced index
        self._tracer = trace.active()  # the trace it belongs to (None: eager)

    # -- properties ----------------------------------------------------------------------

    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def flow(self):
        """A placeholder scalar, as TensorFlow's eager TensorArray has."""
        return creation.constant(0, dtypes.int32)

    @property
    def handle(self):
        return None

    def __repr__(self):
        return (f"<tf.TensorArray: size={len(self._elements)}, dtype={self._dtype.name}, "
                f"element_shape={self._element_shape}>")

    # -- writing -------------------------------------------------------------------------

    def write(self, index, value, name=None):
        """This array with `value` at `index` (see the module docstring for when it is a
        new array)."""
        out = self._target()
        out._write(_host_int(index, "index", traced=True), value)
        # as TensorFlow's graph TensorArray, the shape a write infers is this array's too
        self._element_shape = out._element_shape
        return out

    def unstack(self, value, name=None):
        """The slices of `value` along its first axis as the elements."""
        parts = movement.unstack(self._convert(value))
        if len(parts) > len(self._elements) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(parts)} tensors into a TensorArray of "
                             f"static size {len(self._elements)} ")
        out = self._target()
        out._elements = parts
        out._cleared = set()
        out._dense = None
        return out

    def scatter(self, indices, value, name=None):
        """`value`'s slices along its first axis written at `indices`."""
        indices = _host_ints(indices, "indices")
        out = self._target()
        for index, part in zip(indices, movement.unstack(self._convert(value))):
            out._write(index, part)
        return out

    def split(self, value, lengths, name=None):
        """`value` cut along its first axis into pieces of `lengths` as the elements."""
        value = self._convert(value)
        lengths = np.asarray(_host_value(lengths, "lengths"))
        if lengths.ndim != 1:
            raise InvalidArgumentError(f"Expected lengths to be a vector, received shape: "
                                       f"{list(lengths.shape)} ")
        if not value.shape:
            raise InvalidArgumentError("Expected value to be at least a vector, but received "
                                       "shape: [] ")
        if int(lengths.sum()) != value.shape[0]:
            raise InvalidArgumentError(
                f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                f"is {int(lengths.sum())} and value's shape is: {list(value.shape)} ")
        if not self._dynamic_size and len(lengths) != len(self._elements):
            raise InvalidArgumentError(
                f"TensorArray's size is not equal to the size of lengths "
                f"({len(self._elements)} vs. {len(lengths)}), and the TensorArray is not "
                "marked as dynamically resizeable.")
        out = self._target()
        out._elements = array_ops.split(value, [int(n) for n in lengths])
        out._cleared = set()
        out._dense = None
        return out

    # -- reading -------------------------------------------------------------------------

    def read(self, index, name=None):
        """The element at `index` (zeros of the element shape if never written)."""
        self._check_home()
        index = _host_int(index, "index", traced=True)
        if isinstance(index, NDArray) or self._dense is not None:
            return movement.gather(self._dense_values(), self._traced_index(index, "read"))
        index = self._check_read(index)
        value = self._element(index)
        if self._clear_after_read and not trace.traced():
            self._elements[index] = None
            self._cleared.add(index)
        return value

    def stack(self, name=None):
        """The elements stacked along a new first axis."""
        self._check_home()
        if self._dense is not None:
            return self._dense
        if not self._elements:
            return self._empty()
        return movement.stack([self._element(i) for i in range(len(self._elements))])

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked (zeros for elements a read cleared, as
        TensorFlow's eager gather)."""
        self._check_home()
        indices = [self._check_read(i, cleared=False) for i in _host_ints(indices, "indices")]
        if not indices:
            return self._empty()
        if self._dense is not None:
            return movement.gather(self._dense, indices)
        return movement.stack([self._element(i) for i in indices])

    def concat(self, name=None):
        """The elements joined along their first axis."""
        self._check_home()
        parts = [self._element(i) for i in range(len(self._elements))] \
            if self._dense is None else movement.unstack(self._dense)
        for i, part in enumerate(parts):
            if not part.shape:
                raise InvalidArgumentError(f"Concat saw a scalar shape at index {i} but "
                                           "requires at least vectors.")
        if not parts:
            return self._empty()
        return movement.concat(parts, 0)

    def size(self, name=None):
        """The number of elements, an int32 scalar."""
        return creation.constant(len(self._elements), dtypes.int32)

    # -- the rest of TensorFlow's API ----------------------------------------------------

    def identity(self):
        return self

    def close(self, name=None):
        """Drops every element (eagerly the size becomes 0)."""
        del self._elements[:]

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient "
            "implementation does not use/need this function to compute gradients of "
            "operations that use TensorArrays.")

    def mark_used(self):
        """TensorFlow's should-use wrapper method; nothing to mark here."""

    # -- helpers -------------------------------------------------------------------------

    def _target(self):
        """The array a write changes: this one eagerly, a copy while tracing."""
        self._check_home()
        if not trace.traced():
            return self
        out = copy.copy(self)
        out._elements = list(self._elements)
        out._cleared = set(self._cleared)
        return out

    def _check_home(self):
        if trace.active() is not self._tracer:
            raise TypeError(
                f"{self!r} was made {'outside' if self._tracer is None else 'inside'} the "
                "tf.function being traced and is used "
                f"{'inside' if self._tracer is None else 'outside'} it: texflow's "
                "tf.function passes no TensorArray in or out (its elements would be "
                "frozen at trace time). Make it inside the function and pass or return "
                "tensors (ta.stack()).")

    def _select(self, pred, other):
        """This array where traced bool scalar `pred` holds, else `other` (a traced
        tf.cond's branches, a while_loop's iteration taken only while its condition holds)."""
        if not isinstance(other, TensorArray) or other._dtype != self._dtype or \
                len(other._elements) != len(self._elements):
            raise ValueError(f"A traced tf.cond or tf.while_loop selects between {self!r} and "
                             f"{other!r}: its branches (or body) must keep a TensorArray's "
                             "dtype and size")
        if other._dense is None and self._dense is None and all(
                a is b for a, b in zip(self._elements, other._elements)):
            return self
        shape = self._element_shape.merge_with(other._element_shape)
        self._element_shape = other._element_shape = shape
        out = self._target()
        out._dense = ew.where(pred, self._dense_values(), other._dense_values())
        return out

    def _dense_values(self):
        """The elements as one tensor (zeros where never written)."""
        if self._dense is None:
            if not self._elements:
                return self._empty()
            self._element(0)  # the element shape must be known (TensorFlow's message)
            self._dense = movement.stack([self._element(i)
                                          for i in range(len(self._elements))])
        return self._dense

    def _traced_index(self, index, what):
        """`index` (an int or a traced int32 scalar) as an int32 tensor, checked against
        the size at every call."""
        if not isinstance(index, NDArray):
            if what == "read":
                self._check_read(index)
            return creation.constant(index, dtypes.int32)
        if index.dtype != dtypes.int32 or index.shape:
            raise TypeError(f"TensorArray index must be an int32 scalar, received a "
                            f"{index.dtype.name} tensor of shape {list(index.shape)}")
        guard = GUARDS[-1] if GUARDS else None
        _check_index(index, len(self._elements), what, guard)
        if what == "write":
            return index  # one outside the array selects no element
        # a read in a while_loop iteration whose result is dropped may be outside it
        return ew.minimum(ew.maximum(index, 0), max(len(self._elements) - 1, 0))

    def _convert(self, value):
        """`value` as a tensor: TensorFlow converts Python values to the array's dtype
        where they fit, else as they are (and the dtype check then names both)."""
        if value is None:
            raise ValueError("Attempt to convert a value (None) with an unsupported type "
                             "(<class 'NoneType'>) to a Tensor.")
        if not isinstance(value, NDArray):
            try:
                value = creation.convert_to_tensor(value, dtype=self._dtype)
            except (TypeError, ValueError):
                value = creation.convert_to_tensor(value)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is "
                                       f"trying to write dtype {value.dtype.name} ")
        return value

    def _write(self, index, value):
        if isinstance(index, NDArray) or self._dense is not None:
            return self._write_dense(index, value)
        if index < 0:
            raise OutOfRangeError(f"Writing to negative indices (index {index}) is not "
                                  "allowed.")
        size = len(self._elements)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(f"Tried to write to index {index} but array is not "
                                      f"resizeable and size is: {size} ")
            self._elements.extend([None] * (index + 1 - size))
        value = self._checked_value(value)
        self._elements[index] = value
        self._cleared.discard(index)

    def _checked_value(self, value):
        value = self._convert(value)
        shape = as_shape(value.shape)
        if not self._element_shape.is_compatible_with(shape):
            raise ValueError(f"Incompatible shape for value ({shape}), expected "
                             f"({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(shape)
        return value

    def _write_dense(self, index, value):
        if self._dynamic_size and isinstance(index, NDArray):
            raise OperatorNotAllowedInGraphError(
                "A TensorArray with dynamic_size=True cannot be written at an index "
                "computed from the traced function's arguments (its size would be known "
                "only when a call runs); give it a fixed size.")
        if not isinstance(index, NDArray) and not 0 <= index < len(self._elements):
            # the eager errors, or growth where dynamic: back to a list of elements
            self._elements = movement.unstack(self._dense) if self._elements else []
            self._dense = None
            return self._write(index, value)
        value = self._checked_value(value)
        dense = self._dense_values() if self._dense is not None or any(
            e is not None for e in self._elements) else creation.zeros(
                [len(self._elements)] + list(value.shape), self._dtype)
        index = self._traced_index(index, "write")
        hit = ew.equal(creation.range_(len(self._elements)), index)
        hit = movement.reshape(hit, [len(self._elements)] + [1] * len(value.shape))
        self._dense = ew.where(hit, movement.expand_dims(value, 0), dense)

    def _check_read(self, index, cleared=True):
        if index < 0:
            raise OutOfRangeError(f"Reading from negative indices (index {index}) is not "
                                  "allowed.")
        if index >= len(self._elements):
            raise OutOfRangeError(f"Tried to read from index {index} but array size is: "
                                  f"{len(self._elements)} ")
        if cleared and self._elements[index] is None and index in self._cleared:
            raise InvalidArgumentError(
                f"Could not read index {index} twice because it was cleared after a previous "
                "read (perhaps try setting clear_after_read = false?)")
        return index

    def _element(self, index):
        """The element at `index`, zeros of the element shape when it was never written."""
        value = self._elements[index]
        if value is not None:
            return value
        if not self._element_shape.is_fully_defined():
            # TensorFlow's message: zeros of the element shape cannot be made
            raise ValueError(f"Cannot convert a partially known TensorShape "
                             f"{self._element_shape} to a Tensor.")
        return creation.zeros(self._element_shape.as_list(), self._dtype)

    def _empty(self):
        shape = self._element_shape
        return creation.zeros([0] + (shape.as_list() if shape.is_fully_defined() else []),
                              self._dtype)


def _host_value(x, what, traced=False):
    """The value of `x` on the host; inside a trace it must be known at trace time, or
    with `traced` is returned as it is."""
    if isinstance(x, NDArray):
        value = trace.known_value(x) if trace.traced() else x.numpy()
        if value is None and traced:
            return x
        if value is None:
            raise OperatorNotAllowedInGraphError(
                f"TensorArray {what} computed from the traced function's arguments are not "
                f"supported by texflow's tf.function (received a traced tensor of shape "
                f"{list(x.shape)}): they must be known at trace time (Python ints, "
                "constants, tf.shape(x), the counter of a loop unrolled at trace time).")
        return value
    return x


def _host_int(x, what, traced=False):
    value = _host_value(x, what, traced)
    if isinstance(value, NDArray):
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"TensorArray {what} must be an integer, received {value!r}")
    return int(value)


def _host_ints(x, what):
    value = np.asarray(_host_value(x, what))
    if value.ndim != 1 or (value.size and value.dtype.kind not in "iu"):
        raise TypeError(f"TensorArray {what} must be a vector of integers, received {x!r}")
    return [int(i) for i in value]


# The conditions of the tf.while_loop iterations being traced (control_flow.py): an index
# is checked only where its iteration's result is kept.
GUARDS = []


@trace.check_each_call
def _check_index(index, size, what, guard):
    """At every call: the eager errors for a traced index outside [0, size), unless
    `guard` (a bool scalar or None) is false."""
    if guard is not None and not bool(guard.numpy()):
        return
    i = int(index.numpy())
    if i < 0:
        verb = "Reading from" if what == "read" else "Writing to"
        raise OutOfRangeError(f"{verb} negative indices (index {i}) is not allowed.")
    if i >= size:
        raise OutOfRangeError(f"Tried to read from index {i} but array size is: {size} "
                              if what == "read" else
                              f"Tried to write to index {i} but array is not resizeable and "
                              f"size is: {size} ")


_check_index.__wrapped__.pure = True  # only raises: control_flow may trace it in a branch
