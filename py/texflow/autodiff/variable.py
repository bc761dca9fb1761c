"""tf.Variable: a named NDArray whose value can be replaced (assign)."""

import weakref

from ..engine import trace
from ..engine.name_scope import current as current_name_scope
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..errors import DTypeError, ShapeError

_counter = [0]
# Functions every new variable's initial value (numpy) passes through: a tf.distribute
# strategy in effect installs one so that every worker starts from the chief's value.
initial_value_hooks = []


class Variable(NDArray):
    """A mutable array for model state: weights, optimizer slots.

    Ops read a Variable like any NDArray; `assign`, `assign_add` and
    `assign_sub` replace its value (arrays that were read from it before keep
    the old value). Scopes never dispose a Variable. A GradientTape watches
    trainable Variables automatically.

    Args:
        initial_value: the initial value (NDArray, numpy data, list or number); it is
            copied.
        trainable: whether GradientTape watches it and optimizers update it.
        name: a name for errors and checkpoints (default 'Variable', 'Variable_1', ...),
            prefixed with the current `tf.name_scope` ("a/w").
        dtype: cast the initial value to this dtype.

    >>> v = tf.Variable([1.0, 2.0], name="w")
    >>> v.assign_add([0.5, 0.5]).tolist()
    [1.5, 2.5]
    """

    __slots__ = ("name", "trainable")
    _traced_as_state = True  # tf.function reads it at every call, never at trace time

    def __init__(self, initial_value=None, trainable=True, name=None, dtype=None):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        tracer = trace.active()
        if tracer is not None:
            tracer.variable_made()
        if isinstance(initial_value, NDArray):
            data = initial_value.numpy()
            if dtype is not None:
                data = to_numpy(data, dtype)
        else:
            data = to_numpy(initial_value, dtype)
        for hook in initial_value_hooks:
            data = hook(data)
        value = from_numpy(data)
        storage = value._storage
        super().__init__(storage, value.shape, value.dtype)
        value.dispose()
        self._kept = True  # scopes never free model state
        if name is None:
            name = "Variable" if _counter[0] == 0 else f"Variable_{_counter[0]}"
            _counter[0] += 1
        self.name = current_name_scope() + name  # "a/v" inside tf.name_scope("a")
        self.trainable = bool(trainable)

    def value(self):
        """The current value (the Variable itself reads as an NDArray)."""
        return self

    def read_value(self):
        return self

    def assign(self, value):
        """Replaces the value; shape and dtype must stay the same. Returns self."""
        if not isinstance(value, NDArray):
            value = from_numpy(to_numpy(value, self.dtype))
        if value.shape != self.shape:
            raise ShapeError(f"cannot assign a value of shape {list(value.shape)} to variable "
                             f"{self.name!r} of shape {list(self.shape)}")
        if value.dtype != self.dtype:
            raise DTypeError(f"cannot assign a {value.dtype} value to variable {self.name!r} "
                             f"of dtype {self.dtype}")
        new = value._live()
        old = self._live()
        if trace._local.tracers:
            trace.record_assign(self, value)
        if new is not old:
            new.refs += 1
            self._storage = new
            old.release()
        return self

    def assign_add(self, delta):
        """Adds `delta` (same shape after broadcasting) to the value. Returns self."""
        from ..ops import elementwise as ew
        return self._assign_op(ew.add, delta)

    def assign_sub(self, delta):
        """Subtracts `delta` from the value. Returns self."""
        from ..ops import elementwise as ew
        return self._assign_op(ew.sub, delta)

    def _assign_op(self, fn, delta):
        result = fn(self, delta)
        if result.dtype != self.dtype:
            raise DTypeError(f"updating variable {self.name!r} ({self.dtype}) with a "
                             f"{getattr(delta, 'dtype', type(delta).__name__)} value gives "
                             f"{result.dtype}")
        self.assign(result)
        result.dispose()
        return self

    def __getitem__(self, key):
        """`v[key]`, as a tensor's; as in TensorFlow its result also has `assign(value)`,
        which writes `value` (broadcast to the slice's shape) into that slice of `v`."""
        from ..ops.indexing import getitem
        result = getitem(self, key)
        result.__class__ = _sliced_class(type(result))
        _slices[id(result)] = (self, key)
        weakref.finalize(result, _slices.pop, id(result), None)
        return result

    def __repr__(self):
        if self._storage is None:
            return f"<tf.Variable {self.name!r} (disposed)>"
        return (f"<tf.Variable {self.name!r} shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={self._value_text(True)}>")

    __str__ = __repr__  # as TensorFlow's


def is_trainable_variable(x):
    return isinstance(x, Variable) and x.trainable



# A Variable's slice (`v[1:3]`): the result's id -> (the Variable, the key); the result's
# class is its own rank class with `assign` added (no new slots: `__class__` can change).
_slices = {}
_sliced_classes = {}


def _sliced_class(cls):
    if cls not in _sliced_classes:
        _sliced_classes[cls] = type(cls.__name__, (cls,), {
            "__slots__": (), "assign": _assign_slice, "__module__": cls.__module__,
            "__qualname__": cls.__qualname__})
    return _sliced_classes[cls]


def _assign_slice(self, value, use_locking=None, name=None, read_value=True):
    """Writes `value`, broadcast to this slice's shape, into the slice of the Variable it
    was read from (TensorFlow's strided-slice assign); returns the Variable. The slice is
    a scatter at the flat positions the same key picks from an index array, so traced
    indices (`v[i].assign(...)` inside tf.function) work as they do for reading."""
    from ..ops.creation import convert_to_tensor, range_
    from ..ops.indexing import getitem
    from ..ops.movement import broadcast_to, reshape
    from ..ops.scatter import tensor_scatter_nd_update
    variable, key = _slices[id(self)]
    value = convert_to_tensor(value, dtype=variable.dtype)
    try:
        value = broadcast_to(value, self.shape)
    except ShapeError:
        raise ShapeError(f"Cannot broadcast input shape {list(value.shape)} into final shape "
                         f"{list(self.shape)}") from None
    positions = getitem(reshape(range_(variable.size), variable.shape), key)
    flat = tensor_scatter_nd_update(reshape(variable, [-1]), reshape(positions, [-1, 1]),
                                    reshape(value, [-1]))
    return variable.assign(reshape(flat, variable.shape))
