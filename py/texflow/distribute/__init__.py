"""tf.distribute for texflow: collectives through the coordinator (collective.py).

Strategies (MultiWorkerMirroredStrategy and friends) build on `collective`;
`recovery` keeps training going through lost workers and restarts.
"""

from . import collective, recovery

__all__ = ["collective", "recovery"]
