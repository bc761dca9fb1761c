"""tf.distribute for texflow: strategies (strategy.py, mirrored.py, multi_worker.py),
distributed input (input_lib.py), TF_CONFIG (cluster_resolver.py), the collectives
through the coordinator they use across workers (collective.py), and `recovery`, which
keeps training going through lost workers and restarts.

>>> strategy = tf.distribute.get_strategy()       # the default strategy
>>> strategy.num_replicas_in_sync
1
"""

import types

from . import cluster_resolver, collective, recovery
from .mirrored import (CentralStorageStrategy, CrossDeviceOps, HierarchicalCopyAllReduce,
                       MirroredStrategy, NcclAllReduce, OneDeviceStrategy,
                       ReductionToOneDevice)
from .multi_worker import MultiWorkerMirroredStrategy
from .parameter_server import (ClusterCoordinator, ParameterServerStrategy, RemoteValue,
                               Server)
from .strategy import (ReplicaContext, Strategy, StrategyExtended,
                       experimental_set_strategy, get_cross_replica_context,
                       get_replica_context, get_strategy, has_strategy,
                       in_cross_replica_context)
from .values import (CollectiveCommunication, CommunicationImplementation,
                     CommunicationOptions, DistributedValues, InputContext, InputOptions,
                     InputReplicationMode, PerReplica, ReduceOp, ValueContext)

__all__ = ["CentralStorageStrategy", "ClusterCoordinator", "CrossDeviceOps",
           "DistributedValues", "HierarchicalCopyAllReduce", "InputContext", "InputOptions",
           "InputReplicationMode", "MirroredStrategy", "MultiWorkerMirroredStrategy",
           "NcclAllReduce", "OneDeviceStrategy", "ParameterServerStrategy", "PerReplica",
           "ReduceOp", "ReductionToOneDevice", "RemoteValue", "ReplicaContext", "Server",
           "Strategy", "StrategyExtended", "cluster_resolver", "collective", "coordinator",
           "experimental", "experimental_set_strategy", "get_cross_replica_context",
           "get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context",
           "recovery"]


class _ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """TensorFlow 2.0's `tf.distribute.experimental.MultiWorkerMirroredStrategy(
    communication=CollectiveCommunication.AUTO, cluster_resolver=None)`."""

    def __init__(self, communication=CommunicationImplementation.AUTO, cluster_resolver=None,
                 communication_options=None):
        options = communication_options or CommunicationOptions(implementation=communication)
        super().__init__(cluster_resolver=cluster_resolver, communication_options=options)


coordinator = types.SimpleNamespace(ClusterCoordinator=ClusterCoordinator,
                                    RemoteValue=RemoteValue)

experimental = types.SimpleNamespace(
    ParameterServerStrategy=ParameterServerStrategy,
    coordinator=coordinator,
    MultiWorkerMirroredStrategy=_ExperimentalMultiWorkerMirroredStrategy,
    CentralStorageStrategy=CentralStorageStrategy,
    CommunicationOptions=CommunicationOptions,
    CommunicationImplementation=CommunicationImplementation,
    CollectiveCommunication=CollectiveCommunication,
    ValueContext=ValueContext,
)


def _replicas_in_sync(caller):
    """compute_average_loss's and scale_regularization_loss's count of replicas: only in a
    replica's context (or with no strategy), as TensorFlow's."""
    if has_strategy() and in_cross_replica_context():
        raise RuntimeError(f"You are calling `{caller}` in cross replica context, while it was "
                           "expected to be called in replica context (inside strategy.run).")
    return get_strategy().num_replicas_in_sync


def _install_hooks():
    """Layers below this one ask it for the strategy in effect through hooks."""
    from ..autodiff import variable
    from ..keras import backend
    from ..ops import nn
    backend.set_strategy_getter(lambda: get_strategy() if has_strategy() else None)
    nn.set_replica_counter(_replicas_in_sync)
    variable.initial_value_hooks.append(
        lambda value: get_strategy().extended._initial_value(value))


_install_hooks()
