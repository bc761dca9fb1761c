"""The small types of tf.distribute: ReduceOp, PerReplica (and `unwrap`/`regroup`, which
take structures of them apart and put them together), InputContext, the
communication options, and InputOptions.

A `PerReplica` holds one value per replica of this worker (what `strategy.run`
returns when a worker has several replicas, and what a distributed dataset
yields to them); with one replica per worker, as MultiWorkerMirroredStrategy
has, TensorFlow hands out the plain value, and so does texflow.
"""

import enum

from ..errors import InvalidArgumentError


class ReduceOp(enum.Enum):
    """How `strategy.reduce` combines the replicas' values (`tf.distribute.ReduceOp`)."""
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name in ("SUM", "MEAN"):
            return ReduceOp[name]
        raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                         "`tf.distribute.ReduceOp` type")


def reduce_op(value):
    """A ReduceOp from a ReduceOp or its name ("SUM", "mean"), as TensorFlow accepts both."""
    if isinstance(value, ReduceOp):
        return value
    if isinstance(value, str) and value.upper() in ReduceOp.__members__:
        return ReduceOp[value.upper()]
    raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or .MEAN (or 'SUM', "
                     f"'MEAN'); received {value!r}")


class DistributedValues:
    """Values of a distributed computation, one per replica of this worker."""

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        """The per-replica values, in replica order."""
        return self._values

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        inner = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{inner}\n}}"


class PerReplica(DistributedValues):
    """One (possibly different) value per replica (`tf.distribute.DistributedValues`)."""


class Mirrored(DistributedValues):
    """The same value on every replica."""


class InputContext:
    """What an input function given to `distribute_datasets_from_function` needs to know
    to shard and batch its data (`tf.distribute.InputContext`).

    Args:
        num_input_pipelines: how many input pipelines there are (one per worker).
        input_pipeline_id: this pipeline's index, in [0, num_input_pipelines).
        num_replicas_in_sync: replicas taking part in one step.
    """

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        if not 0 <= input_pipeline_id < num_input_pipelines:
            raise InvalidArgumentError(f"input_pipeline_id must be in [0, "
                                       f"{num_input_pipelines}); received {input_pipeline_id}")
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    @property
    def num_input_pipelines(self):
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self):
        return self._input_pipeline_id

    def get_per_replica_batch_size(self, global_batch_size):
        """`global_batch_size / num_replicas_in_sync`; raises if it does not divide."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible "
                             f"by `num_replicas_in_sync` {self._num_replicas_in_sync}")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")


class ValueContext:
    """What `strategy.experimental_distribute_values_from_function` tells its function
    (`tf.distribute.experimental.ValueContext`)."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync


class InputReplicationMode(enum.Enum):
    """How input functions are replicated: one per worker (PER_WORKER, the default) or
    one per replica (PER_REPLICA)."""
    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputOptions:
    """`tf.distribute.InputOptions`: accepted (texflow feeds replicas from the host)."""

    def __init__(self, experimental_fetch_to_device=None, experimental_replication_mode=
                 InputReplicationMode.PER_WORKER, experimental_place_dataset_on_device=False,
                 experimental_per_replica_buffer_size=1):
        self.experimental_fetch_to_device = experimental_fetch_to_device
        self.experimental_replication_mode = experimental_replication_mode
        self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
        self.experimental_per_replica_buffer_size = experimental_per_replica_buffer_size


class CommunicationImplementation(enum.Enum):
    """Cross-worker communication (`tf.distribute.experimental.CommunicationImplementation`).

    texflow's workers always talk through the coordinator (a star over WebSockets, which
    browsers can use); RING and NCCL are accepted and mean the same.
    """
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation  # TensorFlow 2.0's name


class CommunicationOptions:
    """`tf.distribute.experimental.CommunicationOptions`.

    Args:
        bytes_per_pack: accepted (texflow packs all of a step's gradients into one
            message).
        timeout_seconds: a collective that takes longer raises DeadlineExceededError
            (None or 0: no limit).
        implementation: a CommunicationImplementation.
    """

    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}.")
        if isinstance(implementation, str) and \
                implementation.upper() in CommunicationImplementation.__members__:
            implementation = CommunicationImplementation[implementation.upper()]
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("implementation should be a "
                             "tf.distribute.experimental.CommunicationImplementation; "
                             f"received {implementation!r}")
        if timeout_seconds is not None and not timeout_seconds >= 0:
            raise ValueError(f"timeout_seconds must be a number of seconds >= 0 (0: none, as "
                             f"in TensorFlow) or None; received {timeout_seconds!r}")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


def map_structure(fn, structure):
    """`structure` (dicts, lists, tuples, namedtuples) with `fn` applied to each leaf."""
    if isinstance(structure, dict):
        return {k: map_structure(fn, v) for k, v in structure.items()}
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(map_structure(fn, v) for v in structure))
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, v) for v in structure)
    return fn(structure)


def unwrap(structure, replica):
    """`structure` with every DistributedValues replaced by its value for `replica`."""
    return map_structure(lambda v: v.values[replica] if isinstance(v, DistributedValues)
                         else v, structure)


def regroup(results):
    """The replicas' results: one value as itself, several as PerReplica leaves in the
    results' shared structure."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    if isinstance(first, dict) and all(isinstance(r, dict) and r.keys() == first.keys()
                                       for r in results):
        return {k: regroup([r[k] for r in results]) for k in first}
    if isinstance(first, (list, tuple)) and all(
            type(r) is type(first) and len(r) == len(first) for r in results):
        parts = [regroup([r[i] for r in results]) for i in range(len(first))]
        return type(first)(*parts) if hasattr(first, "_fields") else type(first)(parts)
    return PerReplica(results)
