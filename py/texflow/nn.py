"""`tf.nn`: TensorFlow's neural-network op names (the same functions as `tf.*`)."""

from .ops.conv import avg_pool, conv2d, max_pool
from .engine.registry import install_exports as _install_exports
from .ops import elementwise as _elementwise  # noqa: F401  (declares the elementwise ops)
from .ops.nn import (batch_normalization, bias_add, compute_average_loss, dropout, gelu,
                     l2_loss, leaky_relu, log_softmax, moments,
                     sigmoid_cross_entropy_with_logits, silu, softmax,
                     softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits,
                     swish)
from .ops.composed import embedding_lookup, selu
from .ops.math_extra import l2_normalize
from .ops.sort import top_k

max_pool2d = max_pool
avg_pool2d = avg_pool

__all__ = ["avg_pool", "avg_pool2d", "batch_normalization", "bias_add", "compute_average_loss",
           "conv2d", "dropout", "embedding_lookup", "gelu", "l2_loss", "l2_normalize", "leaky_relu",
           "log_softmax", "max_pool", "max_pool2d",
           "moments", "selu", "sigmoid_cross_entropy_with_logits", "silu",
           "softmax", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "swish", "top_k"]


def _install(name, fn):
    globals()[name] = fn
    if name not in __all__:
        __all__.append(name)


# Elementwise ops (relu, sigmoid, softplus, ...) state their names where they are
# declared (ops/elementwise.py): they are installed here, and any declared later too.
_install_exports("nn", _install)
