"""tf.distribute.Strategy: the base every strategy shares, the default strategy, and the
contexts (`get_strategy`, `get_replica_context`, `in_cross_replica_context`).

A strategy runs a step on its replicas: the local ones one after another (each under
its device: `tf.device` picks a backend, so numpy and wgpu, or webgl and webgpu, can
be replicas of one process), and the other workers' at the same time in their own
processes or pages. What crosses workers goes through the coordinator in one message
(`StrategyExtended._cross_worker`); the default is one worker, where it returns its
input. Replicas of one process share one set of variables (kept on the device they were
made on; ops read them from any backend), so an optimizer's update waits for the last
local replica and applies the sum of their gradients once (`_gradient_aggregator`).
"""

import contextlib
import threading

import numpy as np

from ..engine import scope as scopes
from ..engine import trace
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from . import values as values_lib
from .keras_support import KerasSupport
from .values import PerReplica, ReduceOp, ValueContext, regroup, unwrap


class _Contexts(threading.local):
    def __init__(self):
        self.scopes = []      # strategies whose scope() is entered, innermost last
        self.replica = None   # the ReplicaContext of the replica running in `run`


_ctx = _Contexts()


def get_strategy():
    """The strategy in effect: the innermost `scope()` or `run`, else the default."""
    if _ctx.replica is not None:
        return _ctx.replica.strategy
    return _ctx.scopes[-1] if _ctx.scopes else _default()


def has_strategy():
    """Whether a strategy other than the default is in effect."""
    return get_strategy() is not _default()


def in_cross_replica_context():
    """True inside a strategy's `scope()` and outside its `run`."""
    return _ctx.replica is None and bool(_ctx.scopes)


def get_replica_context():
    """The ReplicaContext in `run` (or the default one outside any strategy); None in a
    strategy's cross-replica context."""
    if _ctx.replica is not None:
        return _ctx.replica
    if _ctx.scopes:
        return None
    return ReplicaContext(_default(), 0)


def get_cross_replica_context():
    """The strategy in cross-replica context, else None."""
    return _ctx.scopes[-1] if in_cross_replica_context() else None


def experimental_set_strategy(strategy):
    """Makes `strategy` the one in effect (None: back to the default)."""
    while _ctx.scopes:
        _ctx.scopes.pop()
    if strategy is not None:
        _ctx.scopes.append(strategy)


class ReplicaContext:
    """The replica running in `strategy.run`: its id and collectives among replicas."""

    def __init__(self, strategy, replica_id_in_sync_group, local_index=0):
        self.strategy = strategy
        self._replica_id = replica_id_in_sync_group
        self.local_index = local_index   # among this worker's replicas

    @property
    def replica_id_in_sync_group(self):
        return self._replica_id

    @property
    def num_replicas_in_sync(self):
        return self.strategy.num_replicas_in_sync

    @property
    def devices(self):
        return (self.strategy.extended._device_of_local(self._replica_id),)

    def all_reduce(self, reduce_op, value):
        """Only for one local replica per worker: reduces `value` over the workers."""
        ext = self.strategy.extended
        if len(ext.devices) > 1:
            raise NotImplementedError("ReplicaContext.all_reduce with several replicas in one "
                                      "process; return the values from run() and use "
                                      "strategy.reduce")
        return ext._reduce_values(values_lib.reduce_op(reduce_op), [value], None)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        return merge_fn(self.strategy, *args, **(kwargs or {}))


class StrategyExtended(KerasSupport):
    """What a strategy does, below its public API (`strategy.extended`).

    Args:
        strategy: the Strategy it belongs to.
        devices: the backends of this worker's replicas (None: the active backend).
    """

    def __init__(self, strategy, devices=(None,)):
        self._strategy = strategy
        self.devices = tuple(devices)
        self.worker_count, self.worker_index = 1, 0
        self._held = {}        # optimizer id -> the gradients of earlier local replicas
        self.recovery = None   # a multi-worker group's recovery_keras.KerasRecovery

    # -- the workers (one here; the multi-worker strategy overrides these) ----------------

    def _cross_worker(self, arrays, op="sum"):
        """`arrays` (numpy) reduced over the workers."""
        return arrays

    def _gather_workers(self, arrays):
        """`arrays` (numpy) concatenated along axis 0 over the workers, in rank order."""
        return arrays

    def _broadcast_from_chief(self, arrays):
        return arrays

    @property
    def should_checkpoint(self):
        return self.worker_index == 0

    @property
    def should_save_summary(self):
        return self.worker_index == 0

    def _write_path(self, path):
        """(where this worker saves a file meant for `path`, the temporary folder to
        remove afterwards or None): the chief writes `path`, the others
        `<dir>/workertemp_<index>/<name>`, as TensorFlow's tutorials and callbacks do."""
        if self.should_checkpoint:
            return path, None
        import os
        folder = os.path.join(os.path.dirname(path), f"workertemp_{self.worker_index}")
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, os.path.basename(path)), folder

    @property
    def parameter_devices(self):
        return tuple(self._device_name(d) for d in self.devices)

    @property
    def worker_devices(self):
        return self.parameter_devices

    def _device_name(self, backend):
        from .. import config
        if backend is None:
            from ..engine import context
            backend = context.get_backend()
        return config.device_name(backend)

    def _device_of_local(self, replica):
        return self._device_name(self.devices[replica])

    # -- running replicas ------------------------------------------------------------------

    @contextlib.contextmanager
    def _replica(self, index):
        from .. import config
        previous = _ctx.replica
        _ctx.replica = ReplicaContext(self._strategy, self.worker_index * len(self.devices) +
                                      index, index)
        device = self.devices[index]
        try:
            with config.device(device) if device is not None else contextlib.nullcontext():
                yield _ctx.replica
        finally:
            _ctx.replica = previous

    def _run(self, fn, args, kwargs):
        results = []
        for r in range(len(self.devices)):
            a = unwrap(args, r)
            k = unwrap(kwargs, r)
            with self._replica(r):
                results.append(fn(*a, **k))
        return regroup(results)

    # -- reduce and gather -----------------------------------------------------------------

    def _local_values(self, value, reduce_op=None):
        n = len(self.devices)
        if isinstance(value, values_lib.DistributedValues):
            if len(value.values) != n:
                raise InvalidArgumentError(f"a distributed value of {len(value.values)} "
                                           f"replicas given to a strategy with {n} here")
            return list(value.values)
        if n > 1 and reduce_op is ReduceOp.SUM:
            raise ValueError("A non-DistributedValues value cannot be reduced with SUM over "
                             f"{n} replicas of one process (it would be counted {n} times); "
                             "return it from strategy.run")
        return [value] * n

    def _reduce_values(self, reduce_op, local, axis):
        if trace.traced():  # a host call: fresh at every replay
            return trace.host_call(lambda values: self._reduce_now(reduce_op, values, axis),
                                   list(local))
        return self._reduce_now(reduce_op, local, axis)

    def _reduce_now(self, reduce_op, local, axis):
        arrays = [_host(v) for v in local]
        dtype = arrays[0].dtype
        if axis is None:
            total = np.sum(np.stack(arrays), axis=0)
            count = np.asarray(float(self._strategy.num_replicas_in_sync))
        else:
            axis = _axis(axis, arrays[0].ndim)
            total = np.sum([np.sum(a, axis=axis) for a in arrays], axis=0)
            count = np.asarray(float(sum(a.shape[axis] for a in arrays)))
        # (a dry trace, get_concrete_function's, sends nothing: its values are discarded)
        if self.worker_count > 1 and not trace.dry():
            total, worker_count = self._cross_worker(
                [total.astype(dtype), count.astype(np.float64)], "sum")
            if axis is not None:
                count = worker_count
        if reduce_op is ReduceOp.MEAN:
            # truediv, as TensorFlow's: integers give floats (float32 here, float64 there)
            out = dtype if dtype.kind == "f" else np.float32
            return _tensor((total / count).astype(out))
        return _tensor(np.asarray(total).astype(dtype))

    def _gather(self, value, axis):
        if self.worker_count == 1 and not isinstance(value, values_lib.DistributedValues):
            return _as_tensor(value)  # one copy of it: TensorFlow's Mirrored returns it
        # a host call: a tf.function's replay gathers its own values
        return trace.host_call(lambda values: self._gather_now(values, axis),
                               list(self._local_values(value)))

    def _gather_now(self, local, axis):
        arrays = [_host(v) for v in local]
        axis = _axis(axis, arrays[0].ndim)
        joined = np.concatenate(arrays, axis=axis)
        if self.worker_count > 1 and trace.dry():  # sends nothing; the shape is right
            joined = np.concatenate([joined] * self.worker_count, axis=axis)
        elif self.worker_count > 1:
            moved = np.ascontiguousarray(np.moveaxis(joined, axis, 0))
            joined = np.moveaxis(self._gather_workers([moved])[0], 0, axis)
        return _tensor(joined)

    # -- the optimizer's hook -----------------------------------------------------------------

    def _gradient_aggregator(self, optimizer):
        """The function an optimizer made in this strategy's scope passes its (gradient,
        variable) pairs through: the sum over replicas (None for all but the last local
        replica of a step, whose call applies the sum)."""
        def aggregate(pairs):
            return self._aggregate(optimizer, pairs)
        aggregate.strategy = self._strategy
        return aggregate

    def _aggregate(self, optimizer, pairs):
        replica = _ctx.replica
        local = replica.local_index if replica is not None else None
        n = len(self.devices)
        key = id(optimizer)
        if local is not None and n > 1:
            held = self._held.setdefault(key, [])
            if local < n - 1:  # kept past the replica's scope until the last one sums
                held.append([(scopes.keep(g), v) for g, v in pairs])
                return None
            del self._held[key]
            pairs = _sum_pairs(held + [pairs])
            for earlier in held:
                for g, _ in earlier:
                    g.dispose()
        if self.worker_count > 1:
            # A host call: a tf.function's replay all-reduces its own step's gradients.
            summed = trace.host_call(self._sum_over_workers, [g for g, _ in pairs])
            pairs = [(s, v) for s, (_, v) in zip(summed, pairs)]
        return pairs

    def _sum_over_workers(self, grads):
        if trace.dry():  # get_concrete_function sends nothing; the values are discarded
            return list(grads)
        return [_tensor(s) for s in self._cross_worker([_host(g) for g in grads], "sum")]

    def _initial_value(self, value):
        """A new variable's initial value: the chief's, on every worker (one message per
        variable, as TensorFlow's multi-worker strategy broadcasts at creation), so
        workers whose initializers drew differently start from the same point."""
        if self.worker_count == 1 or self.recovery is not None and self.recovery.late:
            return value  # a late joiner gets the running job's state at fit instead
        return np.asarray(self._broadcast_from_chief([np.asarray(value)])[0]).astype(
            value.dtype, copy=False)

    def _sync_variables(self, variables):
        """Every worker's `variables` take the chief's values (one message), so workers
        whose initializers drew differently start from the same point."""
        if self.worker_count == 1 or not variables:
            return
        got = self._broadcast_from_chief([np.asarray(v.numpy()) for v in variables])
        if self.worker_index != 0:
            for v, value in zip(variables, got):
                v.assign(value)


class Strategy:
    """Distributes a computation over replicas (`tf.distribute.Strategy`)."""

    def __init__(self, extended):
        self._extended = extended
        self._scope_depth = 0

    @property
    def extended(self):
        return self._extended

    @property
    def num_replicas_in_sync(self):
        """Replicas taking part in one step, over every worker."""
        ext = self._extended
        return len(ext.devices) * ext.worker_count

    @property
    def cluster_resolver(self):
        return None

    def scope(self):
        """`with strategy.scope():` models, optimizers and metrics made here are
        distributed by this strategy; `get_strategy()` returns it."""
        return _entered(self)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Runs `fn(*args, **kwargs)` on every replica; PerReplica arguments give each
        replica its own value. Returns the replicas' results (a PerReplica, or the value
        itself when this worker has one replica)."""
        with _entered(self):
            return self._extended._run(fn, tuple(args), dict(kwargs or {}))

    def reduce(self, reduce_op, value, axis):
        """Combines a value over all replicas (of every worker): SUM or MEAN; with `axis`,
        also over that dimension of each replica's value (MEAN divides by the total number
        of rows). Returns a tensor every worker gets (a structure of values: the same
        structure of tensors, leaf by leaf, as TensorFlow's).

        >>> float(tf.distribute.get_strategy().reduce("SUM", 1., axis=None))
        1.0
        """
        if isinstance(value, (list, tuple, dict)):
            return values_lib.map_structure(lambda v: self.reduce(reduce_op, v, axis), value)
        op = values_lib.reduce_op(reduce_op)
        ext = self._extended
        if (op is ReduceOp.MEAN and axis is None and ext.worker_count == 1
                and not isinstance(value, values_lib.DistributedValues)):
            return _as_tensor(value)  # the same on every replica: its mean is itself
        local = ext._local_values(value, op)
        return self._extended._reduce_values(op, local, axis)

    def gather(self, value, axis):
        """Concatenates the replicas' values along `axis`, in replica order, on every
        worker (a structure of values: leaf by leaf)."""
        if isinstance(value, (list, tuple, dict)):
            return values_lib.map_structure(lambda v: self.gather(v, axis), value)
        return self._extended._gather(value, axis)

    def experimental_local_results(self, value):
        """The values of this worker's replicas, as a tuple (of structures, for a
        structure of per-replica values; a plain value once, as TensorFlow's)."""
        if isinstance(value, values_lib.DistributedValues):
            return value.values
        if isinstance(value, (list, tuple, dict)):
            return tuple(unwrap(value, r) for r in range(len(self._extended.devices)))
        return (value,)

    def experimental_distribute_dataset(self, dataset, options=None):
        """The dataset, batched with the global batch size, split over the replicas:
        each worker takes its part of every batch (auto-sharding per the dataset's
        `options().experimental_distribute.auto_shard_policy`), and each local replica
        its share of that."""
        from .input_lib import DistributedDataset
        return DistributedDataset(self, dataset, options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """`dataset_fn(input_context)` makes this worker's dataset (batched with the
        per-replica batch size, sharded as the function chooses); its elements go to the
        local replicas in turn."""
        from .input_lib import DistributedDatasetsFromFunction
        return DistributedDatasetsFromFunction(self, dataset_fn, options)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn):
        """A PerReplica of `value_fn(ValueContext)` for each local replica."""
        ext = self._extended
        got = [value_fn(ValueContext(ext.worker_index * len(ext.devices) + r,
                                     self.num_replicas_in_sync))
               for r in range(len(ext.devices))]
        return got[0] if len(got) == 1 else PerReplica(got)

    def __enter__(self):
        raise RuntimeError("use `with strategy.scope():`, not `with strategy:`")

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def _entered(strategy):
    current = [s for s in _ctx.scopes if s is not _default()]
    if current and current[-1] is not strategy and _ctx.replica is None:
        raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {strategy!r} "
                           f"is not {current[-1]!r}")
    _ctx.scopes.append(strategy)
    try:
        yield strategy
    finally:
        _ctx.scopes.pop()


class _DefaultStrategy(Strategy):
    """The strategy in effect when no other is: `run(fn)` calls `fn`."""

    def __init__(self):
        super().__init__(StrategyExtended(self))

    def run(self, fn, args=(), kwargs=None, options=None):
        return fn(*args, **(kwargs or {}))


_default_strategy = []


def _default():
    if not _default_strategy:
        _default_strategy.append(_DefaultStrategy())
    return _default_strategy[0]


# -- helpers ------------------------------------------------------------------------------


def _sum_pairs(held):
    """The sum of the local replicas' gradients, variable by variable."""
    from ..ops import elementwise as ew
    out = []
    for i, (g, v) in enumerate(held[-1]):
        total = g
        for pairs in held[:-1]:
            if pairs[i][1] is not v:
                raise InvalidArgumentError("the replicas of one step applied gradients to "
                                           "different variables")
            total = ew.add(total, pairs[i][0])
        out.append((total, v))
    return out


def _host(value):
    if isinstance(value, NDArray):
        return np.asarray(value.numpy())
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        return np.asarray(value.numpy())
    arr = np.asarray(value)
    return arr.astype(np.float32) if arr.dtype == np.float64 else arr


def _as_tensor(value):
    return value if isinstance(value, NDArray) else _tensor(_host(value))


def _tensor(array):
    from ..ops.creation import constant
    return constant(np.asarray(array))


def _axis(axis, ndim):
    if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
        raise InvalidArgumentError(f"axis {axis!r} is out of range for values of rank {ndim}"
                                   + (" (a scalar has no axis: use axis=None)" if ndim == 0
                                      else ""))
    return int(axis) % ndim
