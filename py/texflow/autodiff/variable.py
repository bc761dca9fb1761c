"""tf.Variable: a named NDArray whose value can be replaced (assign)."""

import enum
import weakref

from ..engine import trace
from ..engine.name_scope import current as current_name_scope
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..errors import DTypeError, ShapeError
from ..tensor_shape import TensorShape

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
        constraint: a function of the variable's value that Keras optimizers apply after
            each update (`v.assign(constraint(v))`).
        synchronization, aggregation: tf.VariableSynchronization / VariableAggregation,
            kept for tf.distribute (`aggregation` says how replicas' updates combine).
        shape: the shape the variable may take (None dimensions or None: any); assigning
            a value of another shape is allowed where it fits (eagerly), as is any shape
            with `validate_shape=False`. `.shape` is the current value's shape.
        The other TensorFlow arguments are accepted (caching_device, import_scope) or must
        keep their defaults (variable_def).

    >>> v = tf.Variable([1.0, 2.0], name="w")
    >>> v.assign_add([0.5, 0.5]).tolist()
    [1.5, 2.5]
    """

    __slots__ = ("name", "trainable", "constraint", "synchronization", "aggregation",
                 "_allowed_shape")
    _traced_as_state = True  # tf.function reads it at every call, never at trace time

    def __init__(self, initial_value=None, trainable=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 import_scope=None, constraint=None, synchronization=None, aggregation=None,
                 shape=None, experimental_enable_variable_lifting=True):
        if variable_def is not None:
            raise ValueError("texflow's tf.Variable takes no variable_def (no GraphDefs)")
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError(f"The `constraint` argument must be a callable. Received: "
                             f"{constraint}")
        self.synchronization = VariableSynchronization.AUTO if synchronization is None \
            else VariableSynchronization(synchronization)
        self.aggregation = VariableAggregation.NONE if aggregation is None \
            else VariableAggregation(aggregation)
        if trainable is None:  # TensorFlow: not trainable when synchronized on read
            trainable = self.synchronization != VariableSynchronization.ON_READ
        elif trainable and self.synchronization == VariableSynchronization.ON_READ:
            raise ValueError("Synchronization value can be set to "
                             "VariableSynchronization.ON_READ only for non-trainable "
                             "variables. You have specified trainable=True and "
                             "synchronization=VariableSynchronization.ON_READ.")
        self.constraint = constraint
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
        self._allowed_shape = TensorShape(None) if not validate_shape else \
            self.shape if shape is None else TensorShape(shape)
        if not self._allowed_shape.is_compatible_with(self.shape):
            raise ValueError(f"In this `tf.Variable` creation, the initial value's shape "
                             f"({tuple(self.shape)}) is not compatible with the explicitly "
                             f"supplied `shape` argument ({self._allowed_shape}).")

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
            self._reshaped(value.shape)
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

    def _reshaped(self, shape):
        """Takes a value of another `shape` where the variable's `shape` argument allows
        it (eagerly: a trace has static shapes), else ShapeError."""
        allowed = getattr(self, "_allowed_shape", None)
        if allowed is None or allowed == self.shape or not allowed.is_compatible_with(shape):
            raise ShapeError(f"cannot assign a value of shape {list(shape)} to variable "
                             f"{self.name!r} of shape {list(self.shape)}")
        if trace._local.tracers:
            raise ShapeError(f"cannot assign a value of shape {list(shape)} to variable "
                             f"{self.name!r} of shape {list(self.shape)} inside tf.function: "
                             "a texflow trace has static shapes (assign it eagerly)")
        self.shape, self.size = TensorShape(shape), TensorShape(shape).num_elements()

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


class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas are synchronized (tf.VariableSynchronization)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How replicas' updates of a variable combine (tf.VariableAggregation)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
