"""`tf.math` and `tf.linalg`: TensorFlow's namespaced names for texflow's ops."""

from .engine.registry import install_exports as _install_exports
from .ops import elementwise as _elementwise  # noqa: F401  (declares the elementwise ops)
from .ops.array_ops import add_n  # noqa: F401
from .ops.composed import confusion_matrix, count_nonzero, is_inf, segment_sum  # noqa: F401
from .ops.creation import eye
from .ops.einsum import einsum
from .ops.linalg import global_norm, norm, tensordot
from .ops.math_extra import (divide_no_nan, l2_normalize, round,  # noqa: F401,A004
                              squared_difference)
from .ops.matmul import matmul  # noqa: F401
from .ops.movement import unsorted_segment_sum  # noqa: F401
from .ops.reduce import (reduce_all, reduce_any, reduce_prod, reduce_std,  # noqa: F401
                         reduce_variance)
from .ops.scan import cumprod, cumsum  # noqa: F401
from .ops.sort import top_k  # noqa: F401
from .ops.nn import log_softmax, softmax  # noqa: F401
from .ops.reduce import argmax, argmin, logsumexp, max, mean, min, sum  # noqa: F401

reduce_sum = sum
reduce_mean = mean
reduce_max = max
reduce_min = min
reduce_logsumexp = logsumexp


class linalg:  # noqa: N801  (a namespace, as tf.linalg)
    """`tf.linalg`: matmul, eye, einsum, tensordot, norm, global_norm."""
    matmul = staticmethod(matmul)
    eye = staticmethod(eye)
    einsum = staticmethod(einsum)
    tensordot = staticmethod(tensordot)
    norm = staticmethod(norm)
    global_norm = staticmethod(global_norm)


class bitwise:  # noqa: N801  (a namespace, as tf.bitwise)
    """`tf.bitwise`: bit operations on int32 tensors (bitwise_and, bitwise_or, bitwise_xor,
    invert)."""


# Elementwise ops state their names where they are declared (ops/elementwise.py): they
# are installed here, and any declared later too.
_install_exports("math", globals().__setitem__)
_install_exports("bitwise", lambda name, fn: setattr(bitwise, name, staticmethod(fn)))
