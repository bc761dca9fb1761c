"""The variables Keras layers, metrics and optimizers hold.

A KerasVariable is a texflow Variable (ops read it, a GradientTape watches it
when trainable) that also carries Keras 3's `path`: the name scope it was made
in plus its name ("sequential/dense/kernel"). Paths are unique within a model
and stable from run to run, so checkpoints key weights and optimizer slots by
them; `name` is the short name ("kernel"), as in Keras 3.
"""

import numpy as np

from ..autodiff.variable import Variable
from ..engine.ndarray import NDArray
from . import backend


class KerasVariable(Variable):
    """A Variable with a Keras path, an optional regularizer and constraint.

    >>> v = tf.keras.Variable(np.zeros((2,), np.float32), name="kernel")
    >>> v.name, v.path
    ('kernel', 'kernel')
    """

    __slots__ = ("path", "regularizer")  # constraint: a Variable slot

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, name=None,
                 regularizer=None, constraint=None):
        name = name or "variable"
        if callable(initializer) and not isinstance(initializer, (NDArray, np.ndarray)):
            if shape is None:
                raise ValueError(f"variable {name!r}: an initializer needs a shape")
            value = initializer(tuple(shape), dtype or "float32")
        else:
            value = initializer
        if isinstance(value, NDArray):
            value = value.numpy()
        value = np.asarray(value)
        if shape is not None and tuple(value.shape) != tuple(shape):
            raise ValueError(f"variable {name!r}: the initial value has shape "
                             f"{value.shape}, expected {tuple(shape)}")
        super().__init__(value, trainable=trainable, name=name, dtype=dtype)
        self.name = name  # Keras 3's short name, whatever tf.name_scope is open
        scope = backend.current_path()
        self.path = f"{scope}/{name}" if scope else name
        self.regularizer = regularizer
        self.constraint = constraint

    def __repr__(self):
        if self._storage is None:
            return f"<KerasVariable path={self.path} (disposed)>"
        return (f"<KerasVariable shape={self.shape}, dtype={self.dtype}, path={self.path}>")
