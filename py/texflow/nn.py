"""`tf.nn`: TensorFlow's neural-network op names (the same functions as `tf.*`)."""

from .ops.conv import avg_pool, conv2d, max_pool
from .ops.elementwise import elu, relu, relu6, sigmoid, softplus, tanh
from .ops.nn import (batch_normalization, bias_add, compute_average_loss, dropout, gelu,
                     l2_loss, leaky_relu, log_softmax, moments,
                     sigmoid_cross_entropy_with_logits, silu, softmax,
                     softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits,
                     swish)
from .ops.math_extra import l2_normalize
from .ops.sort import top_k

max_pool2d = max_pool
avg_pool2d = avg_pool

__all__ = ["avg_pool", "avg_pool2d", "batch_normalization", "bias_add", "compute_average_loss",
           "conv2d", "dropout", "elu", "gelu", "l2_loss", "l2_normalize", "leaky_relu",
           "log_softmax", "max_pool", "max_pool2d",
           "moments", "relu", "relu6", "sigmoid", "sigmoid_cross_entropy_with_logits", "silu",
           "softmax", "softmax_cross_entropy_with_logits", "softplus",
           "sparse_softmax_cross_entropy_with_logits", "swish", "tanh", "top_k"]
