"""TensorFlow 2's framework names: `tf.is_tensor`, `tf.newaxis`, `tf.executing_eagerly`
(`tf.TensorSpec` is in tensor_spec.py, below the layers that use it)."""

from .autodiff.graph import SymbolicTensor
from .data.sparse import SparseTensor
from .engine import trace
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
