"""The deeplearn.js Graph and Session: build a graph of symbolic Tensors, then
evaluate or train it with fed data.

A Graph holds no data, only connectivity and shapes: every graph method runs
the corresponding texflow op on shape-only arrays (the meta backend) when the
graph is built, so shape errors surface there, naming both shapes. A Session
plans once per (fetches, feeds) signature: the nodes to run in order and, for
each step, which intermediates die, so they are freed as soon as possible.
Training runs the planned forward pass under a GradientTape per example
(deeplearn.js graphs have no batch axis), averages the gradients over the
batch and applies the optimizer, all on the session's backend.
"""

import itertools
import re

from ..backends.meta import MetaBackend
from ..engine import context, scope as scopes
from ..engine.ndarray import NDArray, Storage, from_numpy, normalize_shape, to_numpy, view_class
from ..errors import TexflowError, missing_attribute
from ..tensor_shape import TensorShape
from .variable import Variable

_META = MetaBackend()
_ids = itertools.count()


class CostReduction:
    """How `Session.train` reduces the per-example costs it returns."""
    NONE = 0  # the cost is not accumulated; train returns a zero Scalar (as deeplearn.js)
    SUM = 1
    MEAN = 2


class SymbolicTensor:
    """A symbolic value of a deeplearn.js Graph: a shape and a dtype, no data
    (`tf.SymbolicTensor`; eager values are `tf.Tensor`). A `None` dimension (a
    placeholder's batch axis) is decided by the feed at run time."""

    __slots__ = ("graph", "node", "index", "shape", "dtype", "id")

    def __init__(self, graph, node, index, shape, dtype):
        self.graph, self.node, self.index = graph, node, index
        self.shape, self.dtype = TensorShape(shape), dtype
        self.id = next(_ids)

    @property
    def name(self):
        return self.node.name if self.index == 0 else f"{self.node.name}:{self.index}"

    def __repr__(self):
        return f"<SymbolicTensor {self.name!r} shape={list(self.shape)} dtype={self.dtype}>"


Tensor = SymbolicTensor  # the deeplearn.js name, for code written before tf.Tensor


class _Node:
    __slots__ = ("kind", "name", "fn", "args", "kwargs", "value", "outputs")

    def __init__(self, kind, name, fn=None, args=(), kwargs=None, value=None):
        self.kind, self.name, self.fn = kind, name, fn
        self.args, self.kwargs, self.value = args, kwargs or {}, value
        self.outputs = []

    def inputs(self):
        """The Tensors this node reads, in argument order (nested lists included)."""
        found = []
        for a in itertools.chain(self.args, self.kwargs.values()):
            _collect(a, found)
        return found


def _collect(value, found):
    if isinstance(value, SymbolicTensor):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _collect(v, found)


def _substitute(value, lookup):
    if isinstance(value, SymbolicTensor):
        return lookup(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_substitute(v, lookup) for v in value)
    return value


# Sizes a None dimension takes when a graph infers shapes at build time: inference runs
# with each, and an output dimension that differs between the runs is None. Both are
# divisible by 1..10, 12, 14, 15, 16, so reshapes of a batch axis infer as they run.
_FILLS = (5040, 10080)


def _meta(t, fill=_FILLS[0]):
    shape = tuple(fill if d is None else d for d in t.shape)
    size = 1
    for d in shape:
        size *= d
    return view_class(len(shape))(Storage(size, t.dtype, None, _META, None), shape, t.dtype)


class Graph:
    """A deeplearn.js computation graph.

    Methods mirror texflow's ops (`g.matmul`, `g.add`, `g.relu`, `g.conv2d`,
    `g.reshape`, ...) and take and return Tensors; `g.mean_squared_cost` and
    `g.softmax_cross_entropy_cost` are the deeplearn.js costs.

    >>> g = tf.Graph()
    >>> x = g.placeholder("input", [3])
    >>> w = g.variable("multiplier", tf.Array2D.rand_normal([1, 3], seed=0))
    >>> g.matmul(w, x).shape
    TensorShape([1])
    """

    def __init__(self):
        self.nodes = []
        self._names = set()

    def _name(self, name, default):
        base = name or default
        name, k = base, 1
        while name in self._names:
            name, k = f"{base}_{k}", k + 1
        self._names.add(name)
        return name

    def _add(self, node, metas):
        self.nodes.append(node)
        node.outputs = [SymbolicTensor(self, node, i, m[0], m[1]) for i, m in enumerate(metas)]
        return node.outputs[0] if len(node.outputs) == 1 else tuple(node.outputs)

    def placeholder(self, name, shape, dtype="float32"):
        """An input fed at run time (a FeedEntry or feed dict gives its data).

        A `None` dimension (`[None, 784]`: a batch axis) takes its size from the feed.
        """
        from ..dtypes import device_dtype
        shape = TensorShape(shape)
        if shape.rank is None:
            raise TexflowError(f"placeholder {name!r} needs a shape (its rank at least); "
                               "use None for dimensions the feed decides")
        normalize_shape([0 if d is None else d for d in shape])  # the same errors as arrays
        return self._add(_Node("placeholder", self._name(name, "placeholder")),
                         [(shape, device_dtype(dtype))])

    def variable(self, name, initial):
        """A trainable tf.Variable initialised from `initial` (copied)."""
        name = self._name(name, "variable")
        var = initial if isinstance(initial, Variable) else Variable(initial, name=name)
        return self._add(_Node("variable", name, value=var), [(var.shape, var.dtype)])

    def constant(self, value, name=None):
        """A constant array (copied, kept for the graph's life)."""
        arr = from_numpy(to_numpy(value))
        arr._kept = True
        return self._add(_Node("constant", self._name(name, "constant"), value=arr),
                         [(arr.shape, arr.dtype)])

    def apply(self, fn, *args, name=None, **kwargs):
        """A node computing `fn(*args, **kwargs)` with Tensors in the arguments."""
        for t in _inputs_of(args, kwargs):
            if t.graph is not self:
                raise TexflowError(f"{t!r} belongs to another graph")
        node = _Node("op", self._name(name, getattr(fn, "__name__", "op")), fn, args, kwargs)
        metas = _infer(fn, args, kwargs, _FILLS[0])
        if any(d is None for t in _inputs_of(args, kwargs) for d in t.shape):
            metas = [(_merge(node.name, s1, s2), d1)
                     for (s1, d1), (s2, _) in zip(metas, _infer(fn, args, kwargs, _FILLS[1]))]
        return self._add(node, metas)

    def mean_squared_cost(self, label, prediction, name=None):
        """mean((label - prediction)^2) over all elements (a scalar)."""
        return self.apply(_mean_squared, label, prediction, name=name or "mean_squared_cost")

    def softmax_cross_entropy_cost(self, logits, label, name=None):
        """Cross-entropy of softmax(logits) against the distribution `label`."""
        return self.apply(_softmax_cost, logits, label, name=name or "softmax_cross_entropy")

    def variables(self):
        return [n.value for n in self.nodes if n.kind == "variable"]

    def __getattr__(self, name):
        from ..ops.ndarray_math import lookup
        fn = lookup(name)
        if fn is None:
            raise missing_attribute("Graph", name, lambda n: lookup(n) or hasattr(Graph, n))
        return lambda *args, **kwargs: self.apply(fn, *args, **kwargs)


def _infer(fn, args, kwargs, fill):
    """(shape, dtype) of each output of `fn` on shape-only arrays, None dims as `fill`."""
    def meta(t):
        return _meta(t, fill)
    try:
        with context.using(_META), scopes.scope():
            out = fn(*_substitute(args, meta), **{k: _substitute(v, meta)
                                                  for k, v in kwargs.items()})
            outs = out if isinstance(out, tuple) else (out,)
            return [(o.shape, o.dtype) for o in outs]
    except TexflowError as e:
        # The shape error names the stand-in size; say None, as the graph was built.
        if e.args and isinstance(e.args[0], str) and any(
                d is None for t in _inputs_of(args, kwargs) for d in t.shape):
            text = re.sub(rf"\b{fill}\b", "None", e.args[0])
            e.args = (text,) + e.args[1:]
            if hasattr(e, "message"):
                e.message = text
        raise


def _merge(name, a, b):
    if len(a) != len(b):
        raise TexflowError(f"the rank of {name!r}'s output depends on the size of a None "
                           f"dimension ({list(a)} or {list(b)}); give the placeholder a shape")
    return TensorShape([x if x == y else None for x, y in zip(a, b)])


def _inputs_of(args, kwargs):
    found = []
    for a in itertools.chain(args, kwargs.values()):
        _collect(a, found)
    return found


def _mean_squared(label, prediction):
    from ..ops import elementwise as ew, reduce as rd
    return rd.mean(ew.square(ew.sub(label, prediction)))


def _softmax_cost(logits, label):
    from ..ops import nn
    return nn.softmax_cross_entropy_with_logits(label, logits)
