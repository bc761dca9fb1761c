"""Python operators on NDArray (+ - * / ** @, unary -, abs, comparisons, indexing).

Installed onto the engine's NDArray class here so the engine never imports ops.
"""

import numpy as np

from ..dtypes import bool_
from ..engine.ndarray import NDArray
from . import elementwise as ew
from . import indexing
from .matmul import matmul
from .movement import reshape, transpose


def _compare(fn):
    def method(self, other):
        if other is None or not isinstance(other, (NDArray, int, float, list, tuple,
                                                   np.ndarray, np.generic)):
            return NotImplemented
        return fn(self, other)
    return method


def _flip(fn):
    return lambda self, other: fn(other, self)


def _logical_or_bitwise(logical, bitwise):
    """`&`, `|`, `^` as TensorFlow: logical on bool tensors, bitwise on int32."""
    def method(self, other):
        if not isinstance(other, (NDArray, int, bool, list, tuple, np.ndarray, np.generic)):
            return NotImplemented
        return (logical if self.dtype == bool_ else bitwise)(self, other)
    return method


_AND = _logical_or_bitwise(ew.logical_and, ew.bitwise_and)
_OR = _logical_or_bitwise(ew.logical_or, ew.bitwise_or)
_XOR = _logical_or_bitwise(ew.logical_xor, ew.bitwise_xor)


def _invert(self):
    return ew.logical_not(self) if self.dtype == bool_ else ew.invert(self)


def _reshape_method(self, *shape):
    """`x.reshape(2, 3)` or `x.reshape([2, 3])`: a view with a new shape."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return reshape(self, shape)


def install():
    methods = {
        "__add__": ew.add, "__radd__": _flip(ew.add),
        "__sub__": ew.sub, "__rsub__": _flip(ew.sub),
        "__mul__": ew.mul, "__rmul__": _flip(ew.mul),
        "__truediv__": ew.div, "__rtruediv__": _flip(ew.div),
        "__pow__": ew.pow, "__rpow__": _flip(ew.pow),
        "__matmul__": matmul, "__rmatmul__": _flip(matmul),
        "__floordiv__": ew.floordiv, "__rfloordiv__": _flip(ew.floordiv),
        "__mod__": ew.floormod, "__rmod__": _flip(ew.floormod),
        # and, or, xor commute: the reflected methods are the same
        "__and__": _AND, "__rand__": _AND, "__or__": _OR, "__ror__": _OR,
        "__xor__": _XOR, "__rxor__": _XOR,
        "__invert__": _invert,
        "__neg__": ew.neg, "__abs__": ew.abs, "__pos__": lambda self: self,
        "__eq__": _compare(ew.equal), "__ne__": _compare(ew.not_equal),
        "__lt__": _compare(ew.less), "__le__": _compare(ew.less_equal),
        "__gt__": _compare(ew.greater), "__ge__": _compare(ew.greater_equal),
        "__getitem__": indexing.getitem, "__iter__": indexing.iterate,
        "__len__": indexing.length,
        "reshape": _reshape_method,
        "transpose": lambda self, perm=None: transpose(self, perm),
        "as_type": ew.cast, "astype": ew.cast,
        "flatten": lambda self: reshape(self, (-1,)),
        "as_1d": lambda self: reshape(self, (-1,)),
        "as_scalar": lambda self: reshape(self, ()),
        "as_2d": lambda self, rows, cols: reshape(self, (rows, cols)),
        "as_3d": lambda self, *shape: reshape(self, shape),
        "as_4d": lambda self, *shape: reshape(self, shape),
    }
    for name, fn in methods.items():
        setattr(NDArray, name, fn)
    NDArray.T = property(lambda self: transpose(self))
