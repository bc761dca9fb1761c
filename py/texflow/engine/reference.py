"""`Tensor.ref()`: a hashable handle on an unhashable tensor (TensorFlow 2's)."""


class Reference:
    """What `NDArray.ref()` returns: hashes and compares by the array's identity."""

    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = array

    def deref(self):
        """The array this reference wraps."""
        return self._array

    def __hash__(self):
        return id(self._array)

    def __eq__(self, other):
        return isinstance(other, Reference) and other._array is self._array

    def __repr__(self):
        return f"<Reference wrapping {self._array!r}>"
