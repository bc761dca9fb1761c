"""`tf.keras.models`: Model, Sequential and the functional Model."""

from .functional import Functional
from .model import Model
from .sequential import Sequential

__all__ = ["Functional", "Model", "Sequential", "clone_model", "load_model", "model_from_json",
           "save_model"]


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model in a `.keras` archive (see `tf.keras.saving.load_model`)."""
    from ..saving import load_model as load
    return load(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Saves `model` to a `.keras` archive (see `tf.keras.saving.save_model`)."""
    from ..saving import save_model as save
    save(model, filepath, overwrite=overwrite, zipped=zipped, **kwargs)


def model_from_json(json_string, custom_objects=None):
    """The model a `model.to_json()` string describes (new, untrained weights)."""
    import json

    from ..serialization import deserialize_keras_object
    return deserialize_keras_object(json.loads(json_string), custom_objects, what="model")


def clone_model(model, custom_objects=None):
    """A new model with `model`'s architecture (new layers, newly initialized weights)."""
    from ..serialization import deserialize_keras_object, serialize_keras_object
    return deserialize_keras_object(serialize_keras_object(model), custom_objects, what="model")
