"""`tf.distribute.cluster_resolver`: who the workers are (TF_CONFIG) and which one this is.

TF_CONFIG is TensorFlow's: a JSON object with "cluster" ({job: ["host:port", ...]})
and "task" ({"type": job, "index": i}). texflow reads it the same way; the
multi-worker strategy turns it into a coordinator address (the chief's) and a rank.
"""

import json
import os

__all__ = ["ClusterSpec", "ClusterResolver", "SimpleClusterResolver",
           "TFConfigClusterResolver"]

# The order of the ranks: the chief (when there is one) first, then the workers.
JOB_ORDER = ("chief", "worker")


class ClusterSpec:
    """The jobs of a cluster and their tasks' addresses (`tf.train.ClusterSpec`).

    >>> ClusterSpec({"worker": ["localhost:12345", "localhost:23456"]}).num_tasks("worker")
    2
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if cluster is None:
            cluster = {}
        if not isinstance(cluster, dict):
            raise TypeError(f"ClusterSpec takes a dict of job name to a list of addresses; "
                            f"received {type(cluster).__name__}")
        self._jobs = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, dict):
                tasks = [tasks[i] for i in sorted(tasks)]
            if isinstance(tasks, str) or not all(isinstance(t, str) for t in tasks):
                raise TypeError(f"the tasks of job {job!r} must be a list of 'host:port' "
                                f"strings; received {tasks!r}")
            self._jobs[str(job)] = list(tasks)

    @property
    def jobs(self):
        return list(self._jobs)

    def as_dict(self):
        return {job: list(tasks) for job, tasks in self._jobs.items()}

    def num_tasks(self, job_name):
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return len(self._jobs[job_name])

    def task_indices(self, job_name):
        return list(range(self.num_tasks(job_name)))

    def task_address(self, job_name, task_index):
        tasks = self._jobs.get(job_name)
        if tasks is None:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        if not 0 <= task_index < len(tasks):
            raise ValueError(f"No task with index {task_index} in job {job_name!r}")
        return tasks[task_index]

    def job_tasks(self, job_name):
        return list(self._jobs[job_name])

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


class ClusterResolver:
    """Base class: `cluster_spec()`, `task_type`, `task_id`, `master()`."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        spec = self.cluster_spec()
        if task_type is None or task_id is None or not spec or task_type not in spec.jobs:
            return ""
        address = spec.task_address(task_type, task_id)
        rpc_layer = rpc_layer or self.rpc_layer
        return f"{rpc_layer}://{address}" if rpc_layer else address

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        from .. import config
        return {"GPU": len(config.list_logical_devices("GPU"))}


class SimpleClusterResolver(ClusterResolver):
    """A cluster given directly: `SimpleClusterResolver(ClusterSpec(...), task_type=...,
    task_id=...)`."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None,
                 environment="", num_accelerators=None, rpc_layer=None):
        self._spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type, self.task_id = task_type, task_id
        self.environment, self.rpc_layer = environment, rpc_layer

    def cluster_spec(self):
        return self._spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return self._master or super().master(task_type, task_id, rpc_layer)


class TFConfigClusterResolver(ClusterResolver):
    """The cluster from the TF_CONFIG environment variable, read when asked (as
    TensorFlow's is): `task_type`, `task_id` and `cluster_spec()` are None, None and an
    empty spec without it.

    Raises:
        ValueError: TF_CONFIG is not JSON, or its task names a job or index the cluster
            does not have (the message shows the value received).
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type, self._task_id = task_type, task_id
        self._rpc_layer, self._environment = rpc_layer, environment

    @staticmethod
    def _config():
        return load_tf_config()

    @property
    def task_type(self):
        if self._task_type is not None:
            return self._task_type
        return self._config().get("task", {}).get("type")

    @task_type.setter
    def task_type(self, value):
        self._task_type = value

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        index = self._config().get("task", {}).get("index")
        return None if index is None else int(index)

    @task_id.setter
    def task_id(self, value):
        self._task_id = value

    @property
    def rpc_layer(self):
        return self._rpc_layer or self._config().get("rpc_layer")

    @property
    def environment(self):
        return self._environment or self._config().get("environment", "")

    def cluster_spec(self):
        return ClusterSpec(self._config().get("cluster", {}))


def load_tf_config():
    """TF_CONFIG as a dict ({} when unset or empty), its task checked against its cluster."""
    raw = os.environ.get("TF_CONFIG", "")
    if not raw.strip():
        return {}
    try:
        config = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON ({e}); received {raw[:200]!r}") from None
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object; received {raw[:200]!r}")
    cluster, task = config.get("cluster") or {}, config.get("task") or {}
    if task and cluster:
        job, index = task.get("type"), task.get("index", 0)
        if job not in cluster:
            raise ValueError(f"TF_CONFIG's task type {job!r} is not a job of its cluster "
                             f"{sorted(cluster)}")
        if not isinstance(index, int) or not 0 <= index < len(cluster[job]):
            raise ValueError(f"TF_CONFIG's task index {index!r} is not in [0, "
                             f"{len(cluster[job])}) for job {job!r}")
    return config


def rank_of(spec, task_type, task_id):
    """The global rank of a task: the chief first, then the workers in order."""
    rank = 0
    for job in JOB_ORDER:
        if job == task_type:
            return rank + task_id
        if job in spec.jobs:
            rank += spec.num_tasks(job)
    raise ValueError(f"texflow's multi-worker training takes 'chief' and 'worker' tasks; "
                     f"this task is {task_type!r}")


def task_of(spec, rank):
    """(task_type, task_id) of a global rank (the inverse of `rank_of`)."""
    for job in JOB_ORDER:
        if job in spec.jobs:
            n = spec.num_tasks(job)
            if rank < n:
                return job, rank
            rank -= n
    return "worker", rank


def num_sync_workers(spec):
    """How many tasks train in sync: the chief and the workers."""
    return sum(spec.num_tasks(job) for job in JOB_ORDER if job in spec.jobs)


# Set (to "coordinator") beside a TF_CONFIG that set_job_tf_config made: its task index is
# provisional, and the multi-worker strategy replaces it with the rank it is given.
PROVISIONAL = "TEXFLOW_TF_CONFIG_FROM"


def set_job_tf_config(num_workers, environ=None):
    """Gives a coordinator's job (`texflow worker`, a browser worker page) the TF_CONFIG
    TensorFlow's tutorials read before they make a strategy (the cluster's size, the task),
    when none is set: `num_workers` workers, task index $TEXFLOW_TASK_ID or 0. The index is
    provisional (the coordinator assigns ranks as workers join): MultiWorkerMirroredStrategy
    writes the rank it gets into TF_CONFIG. Returns whether it set one."""
    environ = os.environ if environ is None else environ
    if environ.get("TF_CONFIG") or not num_workers:
        return False
    wanted = environ.get("TEXFLOW_TASK_ID", "")
    environ["TF_CONFIG"] = _worker_config(int(num_workers),
                                          int(wanted) if wanted.isdigit() else 0)
    environ[PROVISIONAL] = "coordinator"
    return True


def settle_job_tf_config(size, rank):
    """After the coordinator gave this worker `rank` of `size`: TF_CONFIG says so (only
    where set_job_tf_config made it). Returns the ClusterSpec it names, or None."""
    if os.environ.get(PROVISIONAL) != "coordinator":
        return None
    os.environ["TF_CONFIG"] = _worker_config(size, rank)
    return ClusterSpec(json.loads(os.environ["TF_CONFIG"])["cluster"])


def _worker_config(size, index):
    workers = [f"texflow-worker-{i}:0" for i in range(size)]
    return json.dumps({"cluster": {"worker": workers},
                       "task": {"type": "worker", "index": index}})
