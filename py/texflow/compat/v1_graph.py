"""TensorFlow 1's graph for `texflow.compat.v1`: placeholders fed through `feed_dict`,
variables with initializers and collections, `tf.group`, `FIFOQueue`.

A v1 tensor here is a node evaluated by `Session.run`: ops on placeholders,
variables or queue outputs build nodes (`GraphTensor`) instead of running, and
`sess.run(fetches, feed_dict)` computes them with texflow's eager ops, each
node once per run (one dequeue per run, as in TensorFlow). Values read back as
numpy, as TensorFlow 1's `Session.run` returns them.
"""

import collections
import contextlib
import itertools

import numpy as np

from .. import dtypes
from ..data import structure
from ..data.queue_batch import Operation, Session as _QueueSession
from ..data.queues import _Queue
from ..engine.ndarray import NDArray
from ..errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ..tensor_shape import TensorShape


class GraphKeys:
    """TensorFlow 1's collection names."""
    GLOBAL_VARIABLES = VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    QUEUE_RUNNERS = "queue_runners"


_collections = collections.defaultdict(list)
_ids = itertools.count()
_names = collections.Counter()


def _unique(name):
    _names[name] += 1
    return name if _names[name] == 1 else f"{name}_{_names[name] - 1}"


def get_collection(key, scope=None):
    return list(_collections[key])


def add_to_collection(name, value):
    _collections[name].append(value)


def global_variables(scope=None):
    return get_collection(GraphKeys.GLOBAL_VARIABLES)


def local_variables(scope=None):
    return get_collection(GraphKeys.LOCAL_VARIABLES)


def trainable_variables(scope=None):
    return get_collection(GraphKeys.TRAINABLE_VARIABLES)


def reset_default_graph():
    """Forgets the variables and collections made so far."""
    _collections.clear()
    _names.clear()


class Graph:
    """TensorFlow 1's `tf.Graph`: its own variables, names and collections, which
    `with g.as_default():` makes current (Session.run computes any graph's nodes)."""

    def __init__(self):
        self._collections = collections.defaultdict(list)
        self._names = collections.Counter()

    @contextlib.contextmanager
    def as_default(self):
        global _collections, _names, _default
        saved = _collections, _names, _default
        _collections, _names, _default = self._collections, self._names, self
        try:
            yield self
        finally:
            _collections, _names, _default = saved

    def get_collection(self, name, scope=None):
        return list(self._collections[name])

    def add_to_collection(self, name, value):
        self._collections[name].append(value)


_default = Graph()
_default._collections, _default._names = _collections, _names


def get_default_graph():
    """The graph new variables and collections go to (tf.get_default_graph)."""
    return _default


class GraphTensor:
    """A tensor of the v1 graph: computed by Session.run (see the module docstring)."""

    def __init__(self, name, dtype=None, shape=None):
        self.id = next(_ids)
        self.name = f"{name}:0"
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._shape = TensorShape(shape)

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        """Narrows the static shape; ValueError if it contradicts the known one."""
        self._shape = self._shape.merge_with(shape)

    def _compute(self, run):
        raise NotImplementedError("need _compute")

    def eval(self, feed_dict=None, session=None):
        return (session or Session.default()).run(self, feed_dict)

    def __repr__(self):
        dtype = "?" if self.dtype is None else self.dtype.name
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={dtype}>"

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(f"Using a tf.Tensor ({self.name}) as a Python bool is not allowed in "
                        "graph execution; run it in a Session first")


def _node(fn, name):
    """`fn` applied lazily when any argument is a GraphTensor, else at once."""
    def op(*args, **kwargs):
        if any(isinstance(a, GraphTensor) for a in structure.flatten([list(args),
                                                                       list(kwargs.values())])):
            return Op(fn, args, kwargs, name)
        return fn(*args, **kwargs)
    op.__name__ = name
    op.__doc__ = getattr(fn, "__doc__", None)
    return op


class Op(GraphTensor):
    """`fn(*args, **kwargs)` with the GraphTensors among the arguments evaluated first."""

    def __init__(self, fn, args, kwargs, name):
        super().__init__(_unique(name))
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def _compute(self, run):
        args = [run.resolve(a) for a in self.args]
        kwargs = {k: run.resolve(v) for k, v in self.kwargs.items()}
        return self.fn(*args, **kwargs)


def _operator(name, reflected=False):
    import texflow as tf
    fn = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply, "div": tf.divide,
          "matmul": tf.matmul, "pow": tf.pow, "less": tf.less, "greater": tf.greater,
          "less_equal": tf.less_equal, "greater_equal": tf.greater_equal}[name]
    if reflected:
        return lambda self, other: Op(fn, (other, self), {}, name)
    return lambda self, other: Op(fn, (self, other), {}, name)


for _name, _dunder in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "truediv"),
                       ("matmul", "matmul"), ("pow", "pow")):
    setattr(GraphTensor, f"__{_dunder}__", _operator(_name))
    setattr(GraphTensor, f"__r{_dunder}__", _operator(_name, reflected=True))
for _name, _dunder in (("less", "lt"), ("greater", "gt"), ("less_equal", "le"),
                       ("greater_equal", "ge")):
    setattr(GraphTensor, f"__{_dunder}__", _operator(_name))
GraphTensor.__neg__ = lambda self: Op(lambda x: -x, (self,), {}, "neg")
GraphTensor.__getitem__ = lambda self, key: Op(lambda x, k: x[k], (self, key), {},
                                               "strided_slice")


class Placeholder(GraphTensor):
    """An input that exists only to be fed (tf.placeholder); running it unfed raises."""

    def _compute(self, run):
        dims = "<unknown>" if self._shape.rank is None else \
            "[" + ",".join("?" if d is None else str(d) for d in self._shape) + "]"
        raise InvalidArgumentError(
            f"You must feed a value for placeholder tensor '{self.name[:-2]}' with dtype "
            f"{self.dtype.name} and shape {dims}")


def placeholder(dtype, shape=None, name=None):
    """A v1 placeholder of `dtype` and `shape` (None: any), fed with feed_dict."""
    return Placeholder(_unique(name or "Placeholder"), dtype, shape)


class Variable(GraphTensor):
    """TensorFlow 1's Variable: it has no value until its `initializer` runs (alone, or in
    `global_variables_initializer()` unless `collections=[]`); its initial value may be a
    placeholder fed at that run."""

    def __init__(self, initial_value=None, trainable=True, collections=None, name=None,
                 dtype=None, validate_shape=True, **unused):
        super().__init__(_unique(name or "Variable"), dtype,
                         getattr(initial_value, "shape", None) if validate_shape else None)
        self._initial, self.trainable, self._value = initial_value, bool(trainable), None
        self._dtype_arg = dtype
        keys = [GraphKeys.GLOBAL_VARIABLES] if collections is None else list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in keys:
            keys.append(GraphKeys.TRAINABLE_VARIABLES)
        for key in keys:
            _collections[key].append(self)
        self.initializer = GraphOperation(f"{self.name[:-2]}/Assign", [], self._initialize)

    def _initialize(self, run):
        import texflow as tf
        value = run.resolve(self._initial)
        self._value = tf.Variable(value, trainable=self.trainable, name=self.name[:-2],
                                  dtype=self._dtype_arg)
        if self.dtype is None:
            self.dtype = self._value.dtype

    def _compute(self, run):
        if self._value is None:
            raise FailedPreconditionError(f"Attempting to use uninitialized value "
                                          f"{self.name[:-2]}")
        return self._value

    def __array__(self, dtype=None, copy=None):
        """The value as numpy (preloaded data handed to slice_input_producer)."""
        value = np.asarray(self._compute(None))
        return value if dtype is None else value.astype(dtype)

    def initialized_value(self):
        return self

    def read_value(self):
        return self

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return Op(lambda v: self._compute(None).assign(v), (value,), {}, "Assign")

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return Op(lambda d: self._compute(None).assign_add(d), (delta,), {}, "AssignAdd")

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return Op(lambda d: self._compute(None).assign_sub(d), (delta,), {}, "AssignSub")


class GraphOperation(Operation):
    """An op run for its effect (an initializer, tf.group, an enqueue); fetching gives None."""

    def __init__(self, name, inputs, effect=None):
        super().__init__(name)
        self.inputs, self.effect = list(inputs), effect

    def _execute(self, run):
        for x in self.inputs:
            run.resolve(x)
        if self.effect is not None:
            self.effect(run)

    def run(self, feed_dict=None, session=None):
        return (session or Session.default()).run(self, feed_dict)


def group(*inputs, name=None):
    """One op running all of `inputs` (tf.group)."""
    return GraphOperation(name or "group_deps", structure.flatten(list(inputs)))


def no_op(name=None):
    return GraphOperation(name or "NoOp", [])


def _initializer(key, name):
    return GraphOperation(name, [], lambda run: [v._initialize(run) for v in _collections[key]])


def global_variables_initializer():
    """Initializes the variables of GLOBAL_VARIABLES (not those with collections=[])."""
    return _initializer(GraphKeys.GLOBAL_VARIABLES, "init")


def local_variables_initializer():
    """Initializes LOCAL_VARIABLES (texflow's epoch counters live in the queues)."""
    return _initializer(GraphKeys.LOCAL_VARIABLES, "init_1")


def variables_initializer(var_list, name="init"):
    return GraphOperation(name, [], lambda run: [v._initialize(run) for v in var_list])


class _Run:
    """One Session.run: the feeds and each node's value, computed once."""

    def __init__(self, feed_dict):
        self.values = {}
        for key, value in (feed_dict or {}).items():
            if not isinstance(key, GraphTensor):
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: {key!r} is not a "
                                "placeholder or a tensor of the graph")
            data = value.numpy() if isinstance(value, NDArray) else np.asarray(
                value, dtype=None if key.dtype is None else structure.host_dtype(key.dtype))
            if not key.shape.is_compatible_with(data.shape):
                raise ValueError(f"Cannot feed value of shape {data.shape} for Tensor "
                                 f"{key.name}, which has shape {key.shape}")
            self.values[key.id] = data

    def resolve(self, x):
        if isinstance(x, GraphTensor):
            if x.id not in self.values:
                self.values[x.id] = x._compute(self)
            return self.values[x.id]
        if isinstance(x, GraphOperation):
            x._execute(self)
            return None
        if isinstance(x, (list, tuple)):
            return type(x)(self.resolve(v) for v in x)
        if isinstance(x, dict):
            return {k: self.resolve(v) for k, v in x.items()}
        return x


class Session(_QueueSession):
    """TensorFlow 1's Session: runs the v1 graph with `feed_dict` and dequeues the input
    pipeline's batches (data/queue_batch.py)."""

    @staticmethod
    def default():
        return _QueueSession._default or Session()

    _v1_run = None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        previous, self._v1_run = self._v1_run, _Run(feed_dict)  # runs may nest (queue runners)
        try:
            return super().run(fetches, None, options, run_metadata)
        finally:
            self._v1_run = previous

    def _value(self, x, batches, records):
        if isinstance(x, (GraphTensor, GraphOperation)):
            value = self._v1_run.resolve(x)
            return value.numpy() if isinstance(value, NDArray) else value
        return super()._value(x, batches, records)

    def as_default(self):
        return self


class FIFOQueue(_Queue):
    """A first-in first-out queue of tensors (tf.FIFOQueue). Enqueue and dequeue ops run
    in Session.run; a dequeue from an empty queue runs the queue's runners (added with
    tf.train.add_queue_runner, started by start_queue_runners) in-line, and where
    nothing can fill it raises instead of blocking forever."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        super().__init__(name)
        self.capacity = int(capacity)
        self.single = not isinstance(dtypes, (list, tuple))
        self.dtypes = [dtypes] if self.single else list(dtypes)
        self.items = collections.deque()
        self.closed = False
        self.runners = []

    def _components(self, vals, run):
        vals = run.resolve(vals)
        vals = [vals] if not isinstance(vals, (list, tuple)) else list(vals)
        if len(vals) != len(self.dtypes):
            raise InvalidArgumentError(f"{self.name}: expected {len(self.dtypes)} components, "
                                       f"received {len(vals)}")
        return [np.asarray(v.numpy() if isinstance(v, NDArray) else v,
                           structure.host_dtype(d)) for v, d in zip(vals, self.dtypes)]

    def _put(self, parts):
        if self.closed:
            raise FailedPreconditionError(f"FIFOQueue '{self.name}' is closed.")
        if len(self.items) >= self.capacity:
            raise FailedPreconditionError(f"FIFOQueue '{self.name}' is full (capacity "
                                          f"{self.capacity}): TensorFlow would block here "
                                          "forever waiting for a dequeue")
        self.items.append(parts)

    def enqueue(self, vals, name=None):
        return GraphOperation(name or f"{self.name}_enqueue", [],
                              lambda run: self._put(self._components(vals, run)))

    def enqueue_many(self, vals, name=None):
        def effect(run):
            parts = self._components(vals, run)
            for row in zip(*parts):
                self._put(list(row))
        return GraphOperation(name or f"{self.name}_EnqueueMany", [], effect)

    def _take(self, n):
        while len(self.items) < n and not self.closed and self.started and self.runners:
            self._fill()
        if len(self.items) < n:
            if self.closed or (self.started and self.runners):
                raise OutOfRangeError(f"FIFOQueue '{self.name}' is closed and has "
                                      f"insufficient elements (requested {n}, current size "
                                      f"{len(self.items)})")
            raise FailedPreconditionError(
                f"FIFOQueue '{self.name}' has {len(self.items)} of the {n} elements asked for "
                "and nothing will fill it: enqueue first or start its queue runners "
                "(TensorFlow would block here forever)")
        return [self.items.popleft() for _ in range(n)]

    def _fill(self):
        session = Session.default()
        for runner in list(self.runners):
            try:
                for op in runner.enqueue_ops:
                    session.run(op)
            except OutOfRangeError:
                self.runners.remove(runner)
        if not self.runners:
            self.closed = True

    def _out(self, parts):
        return parts[0] if self.single else list(parts)

    def dequeue(self, name=None):
        return Op(lambda: self._out(self._take(1)[0]), (), {}, f"{self.name}_Dequeue")

    def dequeue_many(self, n, name=None):
        def take():
            rows = self._take(int(n))
            return self._out([np.stack(c) for c in zip(*rows)])
        return Op(take, (), {}, f"{self.name}_DequeueMany")

    def size(self, name=None):
        return Op(lambda: np.int32(len(self.items)), (), {}, f"{self.name}_Size")

    def close(self, cancel_pending_enqueues=False, name=None):
        return GraphOperation(name or f"{self.name}_Close", [],
                              lambda run: setattr(self, "closed", True))

    def is_closed(self, name=None):
        return Op(lambda: self.closed, (), {}, f"{self.name}_IsClosed")
