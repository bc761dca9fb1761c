"""`tf.keras.optimizers`: Keras 3's SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, Adadelta,
Nadam, Lion and Ftrl.

Update rules and defaults are Keras 3's (they differ from TensorFlow 1's
`tf.AdamOptimizer` and friends: Adam's epsilon is 1e-7 and added after the
square root, RMSprop's mean square starts at 0, Adagrad adds epsilon inside
the square root). Updates are ops on the variables' backend.

State for checkpoints: `optimizer.iterations` (the step count) and
`optimizer.variables` (iteration, learning_rate, then each slot), every one a
KerasVariable with a stable path ("adam/sequential_dense_kernel_momentum").
`get_state()` / `set_state()` give and restore them by path.

One hook for distribution: `apply_gradients` passes the (gradient, variable)
pairs through `optimizer.gradient_aggregator` (when set) before clipping and
updating, so a strategy can all-reduce gradients there.
"""

from ..serialization import deserialize_keras_object, get_object, serialize_keras_object
from . import schedules  # noqa: F401  (tf.keras.optimizers.schedules)
from .base import Optimizer, clip_by_global_norm, clip_by_norm  # noqa: F401
from .rules import SGD, Adagrad, Adam, AdamW, RMSprop
from .rules_extra import Adadelta, Adamax, Ftrl, Lion, Nadam

_ALIASES = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adamax": Adamax, "adadelta": Adadelta, "nadam": Nadam, "lion": Lion,
            "ftrl": Ftrl}


def get(identifier):
    """An optimizer from a name ('adam', 'sgd', 'rmsprop', 'adagrad', 'adamw', 'adamax',
    'adadelta', 'nadam', 'lion', 'ftrl'), a config dict or an instance (returned as is).

    >>> type(tf.keras.optimizers.get("rmsprop")).__name__
    'RMSprop'
    """
    classes = dict(_ALIASES)
    classes.update((cls.__name__, cls) for cls in _ALIASES.values())
    if isinstance(identifier, str) and identifier.lower() in _ALIASES:
        identifier = identifier.lower()
    if callable(identifier) and not isinstance(identifier, (Optimizer, type)):
        raise ValueError(f"Could not interpret optimizer identifier: {identifier!r} (expected "
                         "a name such as 'adam' or a tf.keras.optimizers.Optimizer)")
    return get_object(identifier, "optimizer", Optimizer, classes=classes)


def serialize(optimizer):
    return serialize_keras_object(optimizer)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, custom_objects, what="optimizer")
