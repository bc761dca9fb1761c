"""`tf.TensorSpec`: the type of a tensor (shape with None dimensions, dtype, name)."""

from . import dtypes
from .engine.ndarray import NDArray
from .tensor_shape import TensorShape


def _spec_dtype(dtype):
    return dtypes.as_dtype(dtype)


class TensorSpec:
    """The type of a tensor: a shape (None for unknown dimensions), a dtype, a name.

    >>> spec = tf.TensorSpec([None, 3], tf.float32)
    >>> spec.is_compatible_with(tf.zeros([5, 3])), spec.is_compatible_with(tf.zeros([5, 4]))
    (True, False)
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = _spec_dtype(dtype)
        self._name = name

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of `tensor` (its shape and dtype)."""
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    def is_compatible_with(self, spec_or_tensor):
        """Whether a tensor or spec fits this spec: compatible shapes, the same dtype.

        A tensor's dtype matches a spec's int64 or float64 too: texflow stores those
        in int32 and float32 (see the README's deviation table).
        """
        other = spec_or_tensor
        if isinstance(other, TensorSpec):
            other_dtype = other.dtype
        elif hasattr(other, "shape") and hasattr(other, "dtype"):
            other_dtype = other.dtype
        else:
            return False
        if not self._shape.is_compatible_with(TensorShape(other.shape)):
            return False
        if isinstance(other, NDArray):
            try:
                return dtypes.device_dtype(self._dtype) == other_dtype
            except TypeError:
                return False
        return self._dtype == dtypes.as_dtype(other_dtype)

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for other in others:
            if not isinstance(other, TensorSpec) or other.dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(other.shape)
        return TensorSpec(shape, self._dtype, self._name)

    def __eq__(self, other):
        return (type(other) is type(self) and self._shape == other._shape
                and self._dtype == other._dtype and self._name == other._name)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((tuple(self._shape) if self._shape.rank is not None else None,
                     str(self._dtype), self._name))

    def __repr__(self):
        return (f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, "
                f"name={self._name!r})")
