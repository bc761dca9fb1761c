"""`tf.keras.models`: Model, Sequential and the functional Model."""

from .functional import Functional
from .model import Model
from .sequential import Sequential

__all__ = ["Functional", "Model", "Sequential", "clone_model", "model_from_json"]


def model_from_json(json_string, custom_objects=None):
    """The model a `model.to_json()` string describes (new, untrained weights)."""
    import json

    from ..serialization import deserialize_keras_object
    return deserialize_keras_object(json.loads(json_string), custom_objects, what="model")


def clone_model(model, custom_objects=None):
    """A new model with `model`'s architecture (new layers, newly initialized weights)."""
    from ..serialization import deserialize_keras_object, serialize_keras_object
    return deserialize_keras_object(serialize_keras_object(model), custom_objects, what="model")
