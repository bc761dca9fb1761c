"""TensorFlow 2's framework names: `tf.is_tensor`, `tf.newaxis`, `tf.executing_eagerly`,
`tf.init_scope`, `tf.inside_function`, `tf.get_static_value`, `tf.group`, ... (`tf.TensorSpec`
is in tensor_spec.py, below the layers that use it)."""

import contextlib
import logging

from .autodiff.graph import SymbolicTensor
from .data.sparse import SparseTensor
from .engine import nest, trace
from .engine.ndarray import NDArray
from .tensor_spec import TensorSpec  # noqa: F401

newaxis = None

_TENSOR_TYPES = [NDArray, SparseTensor, SymbolicTensor]


def register_tensor_type(cls):
    """Makes `tf.is_tensor` true for instances of `cls` (symbolic tensors of other layers)."""
    if cls not in _TENSOR_TYPES:
        _TENSOR_TYPES.append(cls)


def is_tensor(x):
    """Whether `x` is a tensor: a tf.Tensor (NDArray), a Variable, a SparseTensor or a
    symbolic tensor; False for numpy data, lists and numbers, as in TensorFlow.

    >>> tf.is_tensor(tf.constant(1.0)), tf.is_tensor(np.zeros(2)), tf.is_tensor([1])
    (True, False, False)
    """
    return isinstance(x, tuple(_TENSOR_TYPES))


def executing_eagerly():
    """True, except while a tf.function traces its function (as in TensorFlow)."""
    return not trace.traced()


def inside_function():
    """True while a tf.function traces its function (also in a `tf.init_scope` there)."""
    return trace.inside_function()


@contextlib.contextmanager
def init_scope():
    """A context manager that lifts its block out of a tracing tf.function (and pauses
    every GradientTape): its ops run eagerly, once, at trace time, and a trace uses what
    they make as constants, as TensorFlow's `init_scope` (`executing_eagerly()` is True
    in it). Outside tf.function it only pauses the tapes.

    >>> @tf.function
    ... def f(x):
    ...     with tf.init_scope():
    ...         eager = tf.executing_eagerly()
    ...     return x, eager
    >>> bool(f(tf.constant(1.0))[1])
    True
    """
    with trace.lifted():
        yield


def control_dependencies(control_inputs):
    """A context manager whose block runs after `control_inputs` (None or a list of
    tensors and operations): texflow runs ops in program order, eagerly and in a
    tf.function, so this only checks nothing and gives back a null context, as
    TensorFlow's eager one does."""
    return contextlib.nullcontext()


def get_static_value(tensor, partial=False):
    """The value of `tensor` when it is known without running a computation: a tensor's
    numpy value eagerly; inside a tf.function, that of a constant or of a static shape
    (`tf.shape(x)`), None for anything computed by the function's ops (even from
    constants) and for Variables, as TensorFlow's. Non-tensors come back unchanged.

    >>> tf.get_static_value(tf.constant([1, 2]))
    array([1, 2], dtype=int32)
    """
    if isinstance(tensor, SymbolicTensor):
        return None
    if not isinstance(tensor, NDArray):
        return tensor
    if getattr(tensor, "_traced_as_state", False):  # a Variable: its value may change
        return None
    tracer = trace.active()
    if tracer is not None and (tracer.slots.get(id(tensor)) is not None or
                               id(tensor._storage) in tracer.storage_slots) \
            and id(tensor) not in tracer.captured:
        return None  # made by the trace's ops
    return trace.known_value(tensor) if tracer is not None else tensor.numpy()


def group(*inputs, **kwargs):
    """Groups ops: eagerly and in a tf.function everything has run already, so this
    returns None, as TensorFlow 2's; in a TensorFlow 1 graph (tensors of
    `tf.compat.v1`) it is `tf.compat.v1.group`, one operation running all of them."""
    from .compat import v1_graph

    flat = nest.flatten(list(inputs))
    if any(isinstance(x, (SymbolicTensor, v1_graph.Operation)) for x in flat):
        return v1_graph.group(*inputs, name=kwargs.get("name"))
    return None


def no_op(name=None):
    """Does nothing (TensorFlow's `tf.no_op`, which returns None eagerly)."""
    return None


def tuple_(tensors, control_inputs=None, name=None):
    """`tf.tuple`: the tensors, as a list, once all have been computed (as they are,
    eagerly and in program order)."""
    return list(tensors)


def get_logger():
    """The logger texflow writes its warnings to (TensorFlow's `tf.get_logger`)."""
    return logging.getLogger("texflow")
