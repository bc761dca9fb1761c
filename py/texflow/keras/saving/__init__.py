"""`tf.keras.saving`: `.keras` archives, safetensors weights files, custom objects.

- `save_model(model, "m.keras")` / `load_model("m.keras", custom_objects, compile)`
  (also `model.save` and `tf.keras.models.load_model`): archive.py.
- `save_weights(model, "w.weights.safetensors")` / `load_weights(...)`: weights.py.
- `register_keras_serializable(package, name)`, `get_custom_objects()`,
  `serialize_keras_object`, `deserialize_keras_object`, `custom_object_scope`.
- walk.py: how Keras objects are laid out in weights files and checkpoints.
"""

from ..serialization import (_REGISTERED, custom_object_scope,  # noqa: F401
                             deserialize_keras_object, get_registered_name,
                             get_registered_object, register_keras_serializable,
                             serialize_keras_object)
from . import walk  # noqa: F401  (registers Keras objects with texflow.checkpoint)
from .archive import load_model, save_model
from .weights import load_weights, save_weights

CustomObjectScope = custom_object_scope

__all__ = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object",
           "load_model", "load_weights", "register_keras_serializable", "save_model",
           "save_weights", "serialize_keras_object"]


def get_custom_objects():
    """The global dict of registered custom objects (`"package>name": object`); adding
    entries makes them deserializable by name.

    >>> isinstance(tf.keras.saving.get_custom_objects(), dict)
    True
    """
    return _REGISTERED
