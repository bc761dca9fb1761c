"""`tf.keras.constraints`: functions of a weight that Keras optimizers apply after each
update (`v.assign(constraint(v))`), as Keras 3's: MaxNorm, MinMaxNorm, NonNeg,
UnitNorm. Norms are taken along `axis` (0: each column of a Dense kernel, each filter
of a conv kernel with axis=[0, 1, 2]) with Keras's epsilon (1e-7) in the division.
"""

from ..ops import elementwise as ew
from ..ops import reduce as rd
from .serialization import (Configurable, deserialize_keras_object, get_object,
                            serializable, serialize_keras_object)

_MODULE = "keras.constraints"
_EPSILON = 1e-7


def _axis(axis):
    return list(axis) if isinstance(axis, (list, tuple)) else axis


def _norms(w, axis):
    return ew.sqrt(rd.sum(ew.square(w), axis=_axis(axis), keepdims=True))


@serializable(_MODULE)
class Constraint(Configurable):
    """Base class: `constraint(w)` returns the constrained weight (here `w` itself).

    >>> class Clip(tf.keras.constraints.Constraint):
    ...     def __call__(self, w):
    ...         return tf.clip_by_value(w, -1.0, 1.0)
    >>> layer = tf.keras.layers.Dense(1, kernel_constraint=Clip())
    """

    def __call__(self, w):
        return w


@serializable(_MODULE)
class MaxNorm(Constraint):
    """Scales the slices along `axis` whose norm exceeds `max_value` down to it.

    >>> tf.keras.constraints.MaxNorm(2.0)(tf.constant([[3.0], [4.0]])).numpy().round(4)
    array([[1.2],
           [1.6]], dtype=float32)
    """

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = ew.minimum(norms, float(self.max_value))  # norms are >= 0
        return ew.mul(w, ew.div(desired, ew.add(norms, _EPSILON)))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


@serializable(_MODULE)
class MinMaxNorm(Constraint):
    """Moves the norm of each slice along `axis` toward [min_value, max_value] by `rate`
    (1: all the way): desired = rate * clip(norm) + (1 - rate) * norm.

    >>> tf.keras.constraints.MinMaxNorm(1.0, 2.0)(tf.constant([[0.3], [0.4]])).numpy().round(4)
    array([[0.6],
           [0.8]], dtype=float32)
    """

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        clipped = ew.minimum(ew.maximum(norms, float(self.min_value)), float(self.max_value))
        desired = ew.add(ew.mul(clipped, float(self.rate)),
                         ew.mul(norms, 1.0 - float(self.rate)))
        return ew.mul(w, ew.div(desired, ew.add(norms, _EPSILON)))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


@serializable(_MODULE)
class NonNeg(Constraint):
    """Zeroes the negative entries.

    >>> tf.keras.constraints.NonNeg()(tf.constant([-1.0, 2.0])).numpy()
    array([0., 2.], dtype=float32)
    """

    def __call__(self, w):
        return ew.maximum(w, 0.0)


@serializable(_MODULE)
class UnitNorm(Constraint):
    """Scales each slice along `axis` to norm 1.

    >>> tf.keras.constraints.UnitNorm()(tf.constant([[3.0], [4.0]])).numpy().round(4)
    array([[0.6],
           [0.8]], dtype=float32)
    """

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return ew.div(w, ew.add(_norms(w, self.axis), _EPSILON))

    def get_config(self):
        return {"axis": self.axis}


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm
_ALIASES = {"max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg,
            "unit_norm": UnitNorm, "MaxNorm": MaxNorm, "MinMaxNorm": MinMaxNorm,
            "NonNeg": NonNeg, "UnitNorm": UnitNorm}


def get(identifier):
    """A Constraint from a name ('max_norm'), a config dict, an instance or a function;
    None stays None."""
    return get_object(identifier, "constraint", Constraint, classes=_ALIASES)


def serialize(constraint):
    return serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, custom_objects, what="constraint")
