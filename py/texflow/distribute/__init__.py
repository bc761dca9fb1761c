"""tf.distribute for texflow: collectives through the coordinator (collective.py).

Strategies (MultiWorkerMirroredStrategy and friends) build on `collective`.
"""

from . import collective

__all__ = ["collective"]
