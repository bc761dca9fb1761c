"""ParameterServerStrategy and ClusterCoordinator: TensorFlow's API, in one process.

TensorFlow's coordinator program holds the variables on parameter-server tasks and
ships traced functions to remote workers. texflow cannot ship Python functions to
other processes or pages, so its parameter-server training runs in the coordinator's
own process: the process holds the variables (the parameter server), and
`ClusterCoordinator.schedule(fn)` queues `fn` for the workers (one per "worker" task
of the cluster), which take closures as they come free, each reading the variables
as the closures before it left them (pull) and applying its own update without a
barrier with the others (push). The closures run one at a time (`_running`): a
variable's storage is reference-counted without locks, and Keras builds layers and
optimizer slots on first use, so concurrent closures are not safe. Natively the
workers are threads; in Pyodide, which has no threads, queued closures run when
`join()` or `fetch()` waits for them. README "tf.distribute: strategies" says what
this is not.
"""

import queue
import sys
import threading

from . import cluster_resolver as resolvers
from .strategy import Strategy, StrategyExtended, _entered
from .values import InputContext

THREADS = sys.platform != "emscripten"


class ParameterServerStrategy(Strategy):
    """Asynchronous data-parallel training through a ClusterCoordinator
    (`tf.distribute.ParameterServerStrategy`); see the module docstring.

    Args:
        cluster_resolver: the cluster (default: TF_CONFIG); its "worker" tasks set how
            many workers take scheduled functions (1 without one).
        variable_partitioner: accepted (variables are not partitioned).
    """

    def __init__(self, cluster_resolver=None, variable_partitioner=None):
        self._resolver = cluster_resolver or resolvers.TFConfigClusterResolver()
        spec = self._resolver.cluster_spec()
        self.num_workers = spec.num_tasks("worker") if "worker" in spec.jobs else 1
        self.num_ps = spec.num_tasks("ps") if "ps" in spec.jobs else 1
        self.variable_partitioner = variable_partitioner
        super().__init__(StrategyExtended(self))

    @property
    def cluster_resolver(self):
        return self._resolver


class Server:
    """`tf.distribute.Server`, what TensorFlow's "worker" and "ps" tasks run (`Server(
    cluster_resolver.cluster_spec(), job_name=..., task_index=...).join()`): texflow has
    none, and says so where the script makes one (see ParameterServerStrategy)."""

    def __init__(self, server_or_cluster_def=None, job_name=None, task_index=None,
                 protocol=None, config=None, start=True):
        raise NotImplementedError(
            f"texflow has no tf.distribute.Server (received job_name={job_name!r}, "
            f"task_index={task_index!r}): ParameterServerStrategy runs its workers and holds "
            "its variables in the coordinator's own process, so no worker or ps task needs "
            "to be started; run only the coordinator's (chief's) program")


class RemoteValue:
    """The result of a scheduled function (`tf.distribute.experimental.coordinator.
    RemoteValue`): `fetch()` waits for it and returns it as numpy; `get()` as it is."""

    def __init__(self, coordinator):
        self._coordinator = coordinator
        self._done = threading.Event()
        self._value = self._error = None

    def _set(self, value=None, error=None):
        self._value, self._error = value, error
        self._done.set()

    def get(self):
        self._coordinator._wait(self._done)
        if self._error is not None:
            raise self._error
        return self._value

    def fetch(self):
        return _numpy(self.get())


class PerWorkerValues:
    """One value per worker; a scheduled function receives its worker's."""

    def __init__(self, values):
        self._values = tuple(values)


class PerWorkerIterator(PerWorkerValues):
    """One iterator per worker: pass it to `schedule`, whose function calls `next` on
    its worker's."""

    def __iter__(self):
        return self

    def __next__(self):
        raise TypeError("a per-worker iterator is read by the scheduled functions: pass it "
                        "to coordinator.schedule(fn, args=(iterator,)) and call next() there")


class PerWorkerDataset:
    """What `create_per_worker_dataset` returns: `iter()` gives one iterator per worker."""

    def __init__(self, datasets):
        self._datasets = datasets

    def __iter__(self):
        return PerWorkerIterator(iter(d) for d in self._datasets)


class ClusterCoordinator:
    """Schedules functions on the workers of a ParameterServerStrategy
    (`tf.distribute.coordinator.ClusterCoordinator`).

    >>> coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)  # doctest: +SKIP
    >>> value = coordinator.schedule(step_fn, args=(iter(per_worker_dataset),))
    >>> coordinator.join(); value.fetch()
    """

    def __init__(self, strategy):
        if not isinstance(strategy, ParameterServerStrategy):
            raise ValueError(f"ClusterCoordinator takes a ParameterServerStrategy; received "
                             f"{type(strategy).__name__}")
        self.strategy = strategy
        self._queue = queue.Queue()
        self._pending = 0
        self._lock = threading.Lock()
        self._running = threading.Lock()  # one closure at a time updates the variables
        self._idle = threading.Condition(self._lock)
        self._errors = []
        self._next_worker = 0
        self._threads = []
        if THREADS:
            for w in range(strategy.num_workers):
                t = threading.Thread(target=self._work, args=(w,), daemon=True,
                                     name=f"texflow-ps-worker-{w}")
                t.start()
                self._threads.append(t)

    def schedule(self, fn, args=None, kwargs=None):
        """Queues `fn(*args, **kwargs)` for the next free worker; returns a RemoteValue.
        PerWorkerValues arguments (a per-worker iterator) become the worker's own."""
        value = RemoteValue(self)
        with self._lock:
            self._pending += 1
        self._queue.put((fn, tuple(args or ()), dict(kwargs or {}), value))
        return value

    def join(self):
        """Waits for every scheduled function; raises the first error one of them raised
        (the others still ran)."""
        if not THREADS:
            self._drain()
        with self._idle:
            while self._pending:
                self._idle.wait()
            errors, self._errors = self._errors, []
        if errors:
            raise errors[0]

    def done(self):
        """Whether every scheduled function has finished (raises as `join` does)."""
        with self._lock:
            if self._pending:
                return False
        self.join()
        return True

    def fetch(self, val):
        """Numpy values of a RemoteValue (or a structure of them), waiting for them."""
        from ..data import structure
        return structure.map_structure(
            lambda v: v.fetch() if isinstance(v, RemoteValue) else _numpy(v), val)

    def create_per_worker_dataset(self, dataset_fn):
        """`dataset_fn(input_context)` (or `dataset_fn()`, or a Dataset) for each worker."""
        n = self.strategy.num_workers
        datasets = []
        for w in range(n):
            if callable(dataset_fn):
                context = InputContext(n, w, self.strategy.num_replicas_in_sync)
                try:
                    datasets.append(dataset_fn(context))
                except TypeError:
                    datasets.append(dataset_fn())
            else:
                datasets.append(dataset_fn)
        return PerWorkerDataset(datasets)

    # -- the workers --------------------------------------------------------------------

    def _work(self, worker):
        while True:
            self._run_one(worker, self._queue.get())

    def _drain(self):
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            self._run_one(self._next_worker, item)
            self._next_worker = (self._next_worker + 1) % self.strategy.num_workers

    def _run_one(self, worker, item):
        fn, args, kwargs, value = item
        try:
            args, kwargs = _for_worker(args, worker), _for_worker(kwargs, worker)
            with self._running, _entered(self.strategy):
                out = self.strategy.extended._run(fn, args, kwargs)
            value._set(out)
        except Exception as e:  # reported by join() and by the RemoteValue
            value._set(error=e)
            with self._lock:
                self._errors.append(e)
        finally:
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()

    def _wait(self, event):
        if not THREADS and not event.is_set():
            self._drain()
        event.wait()


def _for_worker(structure, worker):
    if isinstance(structure, PerWorkerValues):
        return structure._values[worker]
    if isinstance(structure, dict):
        return {k: _for_worker(v, worker) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_for_worker(v, worker) for v in structure)
    return structure


def _numpy(value):
    import numpy as np
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return value
