"""Symbolic tensors and the nodes that connect layers in a functional model.

`tf.keras.Input(shape)` returns a KerasTensor: a shape (None for the batch)
and a dtype, no data. Calling a layer on KerasTensors builds the layer,
computes the output shapes and records a Node (the layer, its call arguments,
its output KerasTensors); `tf.keras.Model(inputs, outputs)` walks those nodes
back from the outputs to find its layers and the order to run them in.
"""

import numpy as np

from ...data import structure
from ...engine import context
from ...engine import scope as scopes
from ...engine.ndarray import NDArray, Storage, view_class
from .. import backend


class KerasTensor:
    """A symbolic tensor of a functional model: shape, dtype, and where it came from.

    `_keras_history` is (layer, node_index, tensor_index): the layer call that
    produced it. Arithmetic (`x + y`, `x * 2`, `-x`) adds a layer computing it.

    >>> x = tf.keras.Input((4,))
    >>> x.shape, x.dtype
    ((None, 4), 'float32')
    """

    def __init__(self, shape, dtype="float32", name=None):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = dtype
        self.name = name
        self._keras_history = None

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        name = f", name={self.name}" if self.name else ""
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}{name}>"

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise TypeError("a symbolic KerasTensor has no truth value: it holds no data. "
                        "Use it as a layer input inside a functional model")

    def __array__(self, *args, **kwargs):
        raise TypeError(f"{self!r} is symbolic and cannot become a numpy array; call the "
                        "model on data instead")

    def _op(self, op, *others, reverse=False):
        from .merging import OpLayer
        return OpLayer(op, reverse=reverse, name=_op_name(op))(self, *others)

    def __add__(self, other):
        return self._op("add", other)

    def __radd__(self, other):
        return self._op("add", other, reverse=True)

    def __sub__(self, other):
        return self._op("subtract", other)

    def __rsub__(self, other):
        return self._op("subtract", other, reverse=True)

    def __mul__(self, other):
        return self._op("multiply", other)

    def __rmul__(self, other):
        return self._op("multiply", other, reverse=True)

    def __truediv__(self, other):
        return self._op("divide", other)

    def __rtruediv__(self, other):
        return self._op("divide", other, reverse=True)

    def __neg__(self):
        return self._op("negative")

    def __matmul__(self, other):
        return self._op("matmul", other)


def _op_name(op):
    from .. import backend
    return backend.unique_name(op)


def is_symbolic(value):
    return any(isinstance(x, KerasTensor) for x in structure.flatten(value))


class Node:
    """One call of a layer on KerasTensors: its arguments and its outputs."""

    def __init__(self, layer, call_args=(), call_kwargs=None, outputs=None):
        self.layer = layer
        self.call_args = tuple(call_args)
        self.call_kwargs = dict(call_kwargs or {})
        self.outputs = outputs
        self.output_tensors = [t for t in structure.flatten(outputs)
                               if isinstance(t, KerasTensor)]
        self.input_tensors = [t for t in structure.flatten((self.call_args, self.call_kwargs))
                              if isinstance(t, KerasTensor)]
        self.is_input = not self.input_tensors and getattr(layer, "_is_input_layer", False)
        layer._inbound_nodes.append(self)
        index = len(layer._inbound_nodes) - 1
        for i, t in enumerate(self.output_tensors):
            t._keras_history = (layer, index, i)

    @property
    def parent_nodes(self):
        parents = []
        for t in self.input_tensors:
            layer, index, _ = t._keras_history
            parents.append(layer._inbound_nodes[index])
        return parents

    def __repr__(self):
        return f"<Node of {self.layer.name}: {len(self.input_tensors)} inputs>"


def meta_output_spec(layer, args, kwargs):
    """Runs `layer.call` on shape-only arrays (the meta backend) to learn its outputs."""
    from ...backends.meta import MetaBackend

    meta = _META[0] or MetaBackend()
    _META[0] = meta
    batch_unknown = all(t.shape and t.shape[0] is None
                        for t in structure.flatten((args, kwargs)) if isinstance(t, KerasTensor))

    def to_meta(value):
        if not isinstance(value, KerasTensor):
            return value
        shape = tuple(1 if d is None else d for d in value.shape)
        size = int(np.prod(shape)) if shape else 1
        return view_class(len(shape))(Storage(size, value.dtype, None, meta, None), shape,
                                      value.dtype)

    call_kwargs = {k: structure.map_structure(to_meta, v) for k, v in kwargs.items()}
    if layer._call_has_training_arg:
        call_kwargs["training"] = False
    else:
        call_kwargs.pop("training", None)
    with context.using(meta), scopes.scope(), backend.call_context(False), \
            backend.name_scope(layer.name):
        out = layer.call(*structure.map_structure(to_meta, list(args)), **call_kwargs)
        specs = structure.map_structure(
            lambda o: KerasTensor(((None,) + tuple(o.shape[1:])) if batch_unknown and o.shape
                                  else o.shape, o.dtype) if isinstance(o, NDArray) else o, out)
    return specs


_META = [None]
