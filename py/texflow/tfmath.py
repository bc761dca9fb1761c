"""`tf.math`, `tf.linalg` and `tf.bitwise`: TensorFlow's namespaced names for texflow's ops.

Each op states its public names where it is defined (`@export("math", ...)`, or the
`exports` of an elementwise declaration); they are installed here, and any defined later.
"""

from . import ops as _ops  # noqa: F401  (defines every op)
from .engine.registry import install_exports as _install_exports


class linalg:  # noqa: N801  (a namespace, as tf.linalg)
    """`tf.linalg`: matmul, eye, einsum, tensordot, norm, the matrix helpers (ops/matrix.py),
    decompositions and solvers (ops/solve.py, ops/decomp.py)."""


class bitwise:  # noqa: N801  (a namespace, as tf.bitwise)
    """`tf.bitwise`: bit operations on int32 tensors (bitwise_and, bitwise_or, bitwise_xor,
    invert)."""


def _into(namespace):
    return lambda name, fn: setattr(namespace, name, staticmethod(fn))


_install_exports("math", globals().__setitem__)
_install_exports("linalg", _into(linalg))
_install_exports("bitwise", _into(bitwise))
