"""tf.Variable: a named NDArray whose value can be replaced (assign)."""

from ..engine import trace
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
        name: a name for errors and checkpoints (default 'Variable', 'Variable_1', ...).
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
        self.name = name
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

    def __repr__(self):
        if self._storage is None:
            return f"<tf.Variable {self.name!r} (disposed)>"
        return (f"<tf.Variable {self.name!r} shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={self._value_text(True)}>")

    __str__ = __repr__  # as TensorFlow's


def is_trainable_variable(x):
    return isinstance(x, Variable) and x.trainable

