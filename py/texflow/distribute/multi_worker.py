"""MultiWorkerMirroredStrategy: synchronous training over workers through the coordinator.

How a worker finds its group, in order:

1. `TEXFLOW_COORDINATOR` (and `TEXFLOW_TOKEN`) set, as `texflow worker` and the
   worker page set them: it connects there and the coordinator assigns its rank
   (TF_CONFIG is not needed; if set, its task asks for the matching rank).
2. TF_CONFIG with more than one "chief"/"worker" task, as TensorFlow's tutorials set
   it: the chief (the "chief" task, else worker 0) starts a coordinator in its own
   process at its own TF_CONFIG address, and every task connects to it asking for
   its rank (chief 0, then the workers in order). The join token is $TEXFLOW_TOKEN,
   else one derived from the cluster, so processes started with the same TF_CONFIG
   find each other as TensorFlow's do (set TEXFLOW_TOKEN where others could reach
   the port: TensorFlow's gRPC servers take anyone). $TEXFLOW_CHECKPOINT_DIR, if set,
   is where that coordinator keeps the chief's checkpoints of the job's state
   (`texflow coordinator --checkpoint-dir`), from which a job whose workers all
   restarted resumes.
3. Neither: a single worker (TensorFlow's "Single-worker MultiWorkerMirroredStrategy").

Each worker has one replica (on its active backend). Gradients of a step cross the
workers in one all-reduce message; variables start from the chief's values
(broadcast on the first step), so workers whose initializers drew differently still
train one model.
"""

import atexit
import hashlib
import json
import logging
import os
import time

from ..errors import DeadlineExceededError, UnavailableError
from . import cluster_resolver as resolvers
from .recovery import COORDINATOR_HINT
from .strategy import Strategy, StrategyExtended
from .values import CommunicationOptions

log = logging.getLogger("texflow.distribute")

CONNECT_TIMEOUT = 300.0   # seconds to wait for every worker (TensorFlow waits as long)
# How a TF_CONFIG job has its chief's coordinator keep checkpoints (it has no command line)
TF_CONFIG_HINT = ("set TEXFLOW_CHECKPOINT_DIR=DIR for the chief (the coordinator it starts "
                  "keeps them there), or give fit a tf.keras.callbacks.BackupAndRestore("
                  "backup_dir), as in TensorFlow")


class CollectiveExtended(StrategyExtended):
    """The multi-worker strategy's workings: `group` is the collective.Group (None for a
    single worker), `coordinator` the CoordinatorThread the chief started (or None)."""

    def __init__(self, strategy, cluster_resolver, communication_options):
        super().__init__(strategy, (None,))
        self.communication_options = communication_options or CommunicationOptions()
        self.group = None
        self.coordinator = None
        self._aborted = None  # why a collective timed out (every later one raises)
        self.checkpoint_hint = COORDINATOR_HINT  # said when the coordinator keeps none
        resolver = cluster_resolver or resolvers.TFConfigClusterResolver()
        spec = resolver.cluster_spec()
        if os.environ.get("TEXFLOW_COORDINATOR"):
            self._join_given(resolver, spec)
        elif spec and resolvers.num_sync_workers(spec) > 1:
            self._join_tf_config(resolver, spec)
        else:
            self.resolver = resolver
        if self.group is not None:
            self.worker_count, self.worker_index = self.group.size, self.group.rank
            from .recovery_keras import KerasRecovery  # fit outlives lost workers
            self.recovery = KerasRecovery(self)
            self.recovery.at_connect()

    def _join_given(self, resolver, spec):
        from . import collective
        wanted = None
        provisional = os.environ.get(resolvers.PROVISIONAL) == "coordinator"
        if spec and resolver.task_type in resolvers.JOB_ORDER and not provisional:
            wanted = resolvers.rank_of(spec, resolver.task_type, resolver.task_id)
        self.group = collective.connect(task_type=resolver.task_type or "worker",
                                        task_id=wanted, timeout=CONNECT_TIMEOUT)
        if provisional:  # the job's TF_CONFIG (set_job_tf_config) takes the given rank
            spec = resolvers.settle_job_tf_config(self.group.size, self.group.rank)
        if not spec:
            workers = [f"texflow-worker-{i}" for i in range(self.group.size)]
            spec = resolvers.ClusterSpec({"worker": workers})
        task_type, task_id = resolvers.task_of(spec, self.group.rank)
        self.resolver = resolvers.SimpleClusterResolver(spec, task_type=task_type,
                                                        task_id=task_id)
        atexit.register(self._leave)

    def _join_tf_config(self, resolver, spec):
        self.group, self.coordinator = join_tf_config(resolver, spec)
        self.resolver = resolver
        self.checkpoint_hint = TF_CONFIG_HINT
        atexit.register(self._leave)

    def _leave(self):
        leave(self.group, self.coordinator)

    # -- collectives -------------------------------------------------------------------

    def _timeout(self):
        return self.communication_options.timeout_seconds or None  # 0: none, as in TF

    def _bounded(self, call, *args, **kwargs):
        """`call` with CommunicationOptions.timeout_seconds: one that takes longer raises
        DeadlineExceededError, and so does every later one (its contribution may still
        arrive, so the group's collectives no longer line up), as TensorFlow's do."""
        if self._aborted is not None:
            raise DeadlineExceededError(f"Collective ops is aborted by: {self._aborted}. The "
                                        "error could be from a previous operation: restart "
                                        "the workers to reset")
        timeout = self._timeout()
        try:
            return list(call(*args, timeout=timeout, **kwargs))
        except DeadlineExceededError:  # the group's: it is aborted too
            self._aborted = (f"a collective of worker {self.worker_index} of "
                             f"{self.worker_count} took longer than "
                             f"CommunicationOptions.timeout_seconds={timeout}")
            raise DeadlineExceededError(self._aborted) from None

    def _cross_worker(self, arrays, op="sum"):
        return self._bounded(self.group.all_reduce, list(arrays), op=op)

    def _gather_workers(self, arrays):
        return self._bounded(self.group.all_gather, list(arrays))

    def _broadcast_from_chief(self, arrays):
        return self._bounded(self.group.broadcast, list(arrays), root=0)


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training on several workers (native processes, browser pages, or
    both) through a texflow coordinator (`tf.distribute.MultiWorkerMirroredStrategy`).

    Args:
        cluster_resolver: where the cluster and this task come from (default:
            TFConfigClusterResolver, i.e. TF_CONFIG); see the module docstring.
        communication_options: a CommunicationOptions (its timeout_seconds bounds each
            collective; every implementation goes through the coordinator).

    >>> strategy = tf.distribute.MultiWorkerMirroredStrategy()   # no TF_CONFIG: one worker
    >>> strategy.num_replicas_in_sync
    1
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        super().__init__(CollectiveExtended(self, cluster_resolver, communication_options))
        ext = self.extended
        kind = "Multi-worker" if ext.worker_count > 1 else "Single-worker"
        log.info("texflow: %s MultiWorkerMirroredStrategy: worker %d of %d, communication = "
                 "%s", kind, ext.worker_index, ext.worker_count,
                 ext.communication_options.implementation)

    @property
    def cluster_resolver(self):
        """The cluster and this task (task_type, task_id: the coordinator's rank)."""
        return self.extended.resolver

    def __deepcopy__(self, memo):
        return self


def join_tf_config(resolver, spec):
    """Joins the group TF_CONFIG describes: the chief (rank 0) first starts the coordinator
    in its own process at its TF_CONFIG address; every task connects there asking for its
    rank. Returns (collective.Group, the chief's CoordinatorThread or None)."""
    from . import collective
    task_type, task_id = resolver.task_type, resolver.task_id
    if task_type is None or task_id is None:
        raise ValueError(f"TF_CONFIG gives a cluster but no task ({{'type': ..., 'index': "
                         f"...}}): {spec!r}")
    rank = resolvers.rank_of(spec, task_type, task_id)
    size = resolvers.num_sync_workers(spec)
    chief = spec.task_address(*resolvers.task_of(spec, 0))
    host, port = _host_port(chief)
    token = os.environ.get("TEXFLOW_TOKEN") or _cluster_token(spec)
    coordinator = None
    if rank == 0:
        from ..coordinator import CoordinatorThread
        coordinator = CoordinatorThread(
            num_workers=size, host=host, port=port, token=token,
            checkpoint_dir=os.environ.get("TEXFLOW_CHECKPOINT_DIR") or None,
            **_liveness()).start()
        log.info("texflow: chief %s:%d started the coordinator for %d workers",
                 host, port, size)
    url = f"ws://{_url_host(host)}:{port}/ws"
    try:
        return _connect_retrying(collective, url, token, task_type, rank), coordinator
    except BaseException:
        if coordinator is not None:
            coordinator.stop()
        raise


def leave(group, coordinator, wait=30.0):
    """Leaves the group at exit: the chief's coordinator (if `coordinator`) first serves
    the others until they leave (up to `wait` seconds), then stops."""
    try:
        if coordinator is not None:
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and _others_connected(coordinator):
                time.sleep(0.05)
        if group is not None:
            group.close()
    except Exception:  # exiting anyway; the others see this worker leave
        pass
    finally:
        if coordinator is not None:
            coordinator.stop()


def _host_port(address):
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"a TF_CONFIG address must be host:port; received {address!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def _url_host(host):
    return f"[{host}]" if ":" in host else host


def _cluster_token(spec):
    text = json.dumps(spec.as_dict(), sort_keys=True)
    return hashlib.sha256(b"texflow TF_CONFIG " + text.encode()).hexdigest()[:32]


def _connect_retrying(collective, url, token, task_type, rank):
    """Connects, trying again while the chief's coordinator is not up yet."""
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        try:
            return collective.connect(url, token, task_type=task_type, task_id=rank,
                                      timeout=max(1.0, deadline - time.monotonic()))
        except (UnavailableError, OSError) as e:
            if time.monotonic() > deadline:
                raise UnavailableError(f"no coordinator at {url} (the chief's TF_CONFIG "
                                       f"address) after {CONNECT_TIMEOUT:.0f} s: {e}") from e
            time.sleep(0.25)


def _liveness():
    """The chief's coordinator's heartbeat settings: the coordinator's defaults, or
    $TEXFLOW_HEARTBEAT / $TEXFLOW_HEARTBEAT_TIMEOUT (seconds; a machine so loaded that a
    busy worker cannot answer a ping in 5 s needs a longer timeout)."""
    out = {}
    for key, name in (("heartbeat", "TEXFLOW_HEARTBEAT"),
                      ("heartbeat_timeout", "TEXFLOW_HEARTBEAT_TIMEOUT")):
        raw = os.environ.get(name)
        if raw:
            try:
                out[key] = float(raw)
            except ValueError:
                raise ValueError(f"${name} must be a number of seconds; received "
                                 f"{raw!r}") from None
    return out


def _others_connected(thread):
    members = thread.coordinator.membership.members
    return any(slot.alive and rank != 0 for rank, slot in list(members.items()))
