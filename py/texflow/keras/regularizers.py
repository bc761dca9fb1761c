"""`tf.keras.regularizers`: weight penalties that join the training loss.

A layer given `kernel_regularizer=L2(1e-4)` adds `1e-4 * sum(kernel ** 2)` to
`layer.losses` (and `model.losses`), computed from the current weights each
time it is read, so `fit` adds it to every step's loss and its gradient.
"""

from ..ops import elementwise as ew
from ..ops import reduce as rd
from .serialization import (Configurable, deserialize_keras_object, get_object,
                            serializable, serialize_keras_object)

_MODULE = "keras.regularizers"


def _penalty(value, name):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, received {value!r}") from None
    if value < 0 or value != value:
        raise ValueError(f"{name} must be a non-negative number, received {value}")
    return value


@serializable(_MODULE)
class Regularizer(Configurable):
    """Base class: `regularizer(weight)` returns a scalar penalty.

    >>> class Sum(tf.keras.regularizers.Regularizer):
    ...     def __call__(self, x):
    ...         return 0.1 * tf.reduce_sum(x)
    >>> layer = tf.keras.layers.Dense(1, kernel_regularizer=Sum())
    """

    def __call__(self, x):
        return 0.0


@serializable(_MODULE)
class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x ** 2).

    >>> tf.keras.regularizers.L1L2(l1=0.5, l2=0.5)(tf.constant([1.0, -2.0])).numpy()
    np.float32(4.0)
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _penalty(l1, "l1")
        self.l2 = _penalty(l2, "l2")

    def __call__(self, x):
        total = None
        if self.l1:
            total = ew.mul(rd.sum(ew.abs(x)), self.l1)
        if self.l2:
            term = ew.mul(rd.sum(ew.square(x)), self.l2)
            total = term if total is None else ew.add(total, term)
        return total if total is not None else ew.mul(rd.sum(x), 0.0)

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


@serializable(_MODULE)
class L1(L1L2):
    """l1 * sum(|x|) (Keras's default l1 is 0.01).

    >>> tf.keras.regularizers.L1(0.5)(tf.constant([1.0, -2.0])).numpy()
    np.float32(1.5)
    """

    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


@serializable(_MODULE)
class L2(L1L2):
    """l2 * sum(x ** 2) (Keras's default l2 is 0.01).

    >>> tf.keras.regularizers.L2(1e-4)(tf.constant([3.0, 4.0])).numpy()
    np.float32(0.0025)
    """

    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


l1, l2, l1_l2 = L1, L2, L1L2
_ALIASES = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2}


def get(identifier):
    """A Regularizer from a name ('l2'), a config dict or an instance; None stays None."""
    return get_object(identifier, "regularizer", Regularizer, classes=_ALIASES)


def serialize(regularizer):
    return serialize_keras_object(regularizer)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, custom_objects, what="regularizer")
