"""`tf.nn`: TensorFlow's neural-network op names (the same functions as `tf.*`).

Each op states its public names where it is defined (`@export("nn", ...)`, or the
`exports` of an elementwise declaration); they are installed here, and any defined later.
"""

from . import ops as _ops  # noqa: F401  (defines every op)
from .engine.registry import install_exports as _install_exports

__all__ = []


def _install(name, fn):
    globals()[name] = fn
    if name not in __all__:
        __all__.append(name)


_install_exports("nn", _install)
