"""`tf.keras`: layers, models (Sequential, functional, subclassed) with
compile/fit/evaluate/predict, losses, metrics, optimizers, callbacks,
activations, initializers, regularizers, constraints, `datasets.mnist`, and `saving` (`.keras`
archives, `.weights.safetensors` files).
"""

from . import (activations, backend, callbacks, constraints, datasets,  # noqa: F401
               initializers, layers, losses, metrics, models, optimizers, regularizers,
               saving, utils)
from .layers import Input, InputSpec, Layer  # noqa: F401
from .models import Model, Sequential  # noqa: F401
from .variables import KerasVariable as Variable  # noqa: F401

__version__ = "3.15.0"
