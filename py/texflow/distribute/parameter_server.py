"""ParameterServerStrategy and ClusterCoordinator: TensorFlow's API.

With "ps" and "worker" tasks in the cluster (TF_CONFIG or a resolver) and natively,
training is TensorFlow's: the ps and worker tasks are processes running
`tf.distribute.Server(...).join()` (distribute/ps_server.py), the variables live on
the ps tasks and the chief's `ClusterCoordinator` ships each scheduled function's
trace to the workers, which pull the variables, replay it and push their updates
asynchronously (distribute/ps_remote.py, ps_trace.py).

Without ps tasks, or in Pyodide (no processes to start, no sockets), it runs in the
coordinator's own process: the process holds the variables, and `schedule(fn)` queues
`fn` for the workers (one per "worker" task of the cluster, threads), which take
closures as they come free, each reading the variables as the closures before it
left them (pull) and applying its own update without a barrier with the others
(push). Those closures run one at a time (`_running`): a variable's storage is
reference-counted without locks, and Keras builds layers and optimizer slots on first
use. In Pyodide, which has no threads, queued closures run when `join()` or `fetch()`
waits for them. README "tf.distribute: strategies" says what this is not.
"""

import queue
import sys
import threading

from ..engine import trace
from . import cluster_resolver as resolvers
from .ps_server import Server  # noqa: F401 (tf.distribute.Server)
from .strategy import Strategy, StrategyExtended, _entered
from .values import InputContext

THREADS = sys.platform != "emscripten"


class ParameterServerStrategy(Strategy):
    """Asynchronous data-parallel training through a ClusterCoordinator
    (`tf.distribute.ParameterServerStrategy`); see the module docstring.

    Args:
        cluster_resolver: the cluster (default: TF_CONFIG); its "worker" tasks set how
            many workers take scheduled functions (1 without one); with "ps" tasks too,
            they are processes (tf.distribute.Server) that hold the variables and run
            the scheduled functions.
        variable_partitioner: accepted (variables are not partitioned).
    """

    def __init__(self, cluster_resolver=None, variable_partitioner=None):
        self._resolver = cluster_resolver or resolvers.TFConfigClusterResolver()
        spec = self._resolver.cluster_spec()
        unknown = sorted(set(spec.jobs) - {"chief", "worker", "ps", "evaluator"})
        if unknown:
            raise ValueError(f"a parameter-server cluster has 'chief', 'worker', 'ps' (and "
                             f"'evaluator') tasks; received jobs {unknown} in "
                             f"{spec.as_dict()!r}")
        self.num_workers = spec.num_tasks("worker") if "worker" in spec.jobs else 1
        self.num_ps = spec.num_tasks("ps") if "ps" in spec.jobs else 1
        # processes to talk to: ps and worker tasks, natively (Pyodide has no sockets)
        self._remote = THREADS and "ps" in spec.jobs and "worker" in spec.jobs
        self.variable_partitioner = variable_partitioner
        super().__init__(ParameterServerExtended(self))

    @property
    def cluster_resolver(self):
        return self._resolver

    def _coordinator(self):
        """This strategy's ClusterCoordinator (made for Keras `fit` when there is none)."""
        if getattr(self, "_cluster_coordinator", None) is None:
            ClusterCoordinator(self)
        return self._cluster_coordinator


class ParameterServerExtended(StrategyExtended):
    """One replica per closure: `strategy.reduce` in a scheduled function is computed
    with tensor ops (no host step), so that the function's trace can go to a worker.
    With ps and worker tasks, Keras `fit` schedules each step on the workers."""

    def _keras_step(self, model, step, kind, compile=None):
        if kind != "train" or not self._strategy._remote:
            return super()._keras_step(model, step, kind, compile)
        from .ps_remote import RemoteLogs
        coordinator = self._strategy._coordinator()
        calls = []

        def run_step(data):
            calls.append(None)
            if len(calls) == 1:  # eager, on the chief: it builds the metrics and slots
                return RemoteLogs(coordinator, coordinator._run_eagerly(step, (data,)))
            # an epoch's start reset the metrics on the chief: so on the ps tasks
            coordinator._write_changed([v for m in model.metrics for v in m.variables])
            return RemoteLogs(coordinator, coordinator.schedule(step, args=(data,)))
        return run_step

    def _keras_global_logs(self, model, logs):
        from .ps_remote import RemoteLogs
        if isinstance(logs, RemoteLogs):  # fit's epoch end: every step done, then its logs
            logs.coordinator.join()
            return dict(logs)
        return super()._keras_global_logs(model, logs)

    def _reduce_values(self, reduce_op, local, axis):
        from ..ops import reduce as reductions
        from .values import ReduceOp
        if len(local) != 1:
            return super()._reduce_values(reduce_op, local, axis)
        value = local[0]
        if axis is None:
            return value
        reduce = reductions.mean if reduce_op is ReduceOp.MEAN else reductions.sum
        return reduce(value, axis=axis)


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
        return _tensors(self._value)

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

    def _traced(self):
        """What stands for it in a scheduled function's trace (distribute/ps_remote.py)."""
        if getattr(self, "_stand_in", None) is None:
            self._stand_in = _TracedIterator(self)
        return self._stand_in

    def _next_for_dispatch(self):
        """The next element of the chief's copy of the dispatching worker's iterator
        (what a trace drew and gave back first); recorded while a trace draws; only
        looked at in a dry trace (get_concrete_function changes no state: until
        2026-11-24 it took an element the chief's trace had given back)."""
        from .ps_trace import DISPATCH
        worker = DISPATCH.worker
        held = getattr(self, "_held", {}).get(worker)
        if trace.dry():  # get_concrete_function: the element stays the next one (a
            # dataset's iterator keeps it itself in a dry trace)
            return _tensors(held[0]) if held else next(self._values[worker])
        element = _tensors(held.pop(0)) if held else next(self._values[worker])
        if DISPATCH.taken is not None:
            DISPATCH.taken.append((self, worker, _numpy_structure(element)))
        return element

    def _give_back(self, worker, element):
        """`element` (numpy) comes first again from the chief's copy of `worker`'s
        iterator: the chief's trace of a scheduled function is not one of its calls."""
        if not hasattr(self, "_held"):
            self._held = {}
        self._held.setdefault(worker, []).insert(0, element)


class _TracedIterator:
    """A per-worker iterator in a trace: `next()` is a host step, run on the chief for
    the worker that takes the call."""

    def __init__(self, group):
        self._group = group

    def __iter__(self):
        return self

    def __next__(self):
        return trace.host_call(self._group._next_for_dispatch)

    get_next = __next__


class PerWorkerDataset:
    """What `create_per_worker_dataset` returns: `iter()` gives one iterator per worker."""

    def __init__(self, datasets):
        self._datasets = datasets

    def __iter__(self):
        iterator = PerWorkerIterator(iter(d) for d in self._datasets)
        iterator._datasets = self._datasets  # the workers make their own (ps_remote.py)
        return iterator


class ClusterCoordinator:
    """Schedules functions on the workers of a ParameterServerStrategy
    (`tf.distribute.coordinator.ClusterCoordinator`).

    >>> coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)  # doctest: +SKIP
    >>> value = coordinator.schedule(step_fn, args=(iter(per_worker_dataset),))
    >>> coordinator.join(); value.fetch()
    """

    def __new__(cls, strategy):
        if not isinstance(strategy, ParameterServerStrategy):
            raise ValueError(f"ClusterCoordinator takes a ParameterServerStrategy; received "
                             f"{type(strategy).__name__}")
        # one coordinator per strategy, as TensorFlow keeps it (Keras fit finds it there)
        if getattr(strategy, "_cluster_coordinator", None) is not None:
            return strategy._cluster_coordinator
        if cls is ClusterCoordinator and strategy._remote:
            from .ps_remote import RemoteCoordinator
            cls = RemoteCoordinator
        return super().__new__(cls)

    def __init__(self, strategy):
        if not self._first_init(strategy):
            return
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

    def _first_init(self, strategy):
        """False when this coordinator was made before (ClusterCoordinator(strategy) again
        returns it, and Python calls __init__ again)."""
        if getattr(self, "_has_initialized", False):
            return False
        self._has_initialized = True
        self.strategy = strategy
        strategy._cluster_coordinator = self
        return True

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


def _tensors(value):
    import numpy as np
    from ..data import structure
    from ..engine.ndarray import from_numpy
    return structure.map_structure(
        lambda v: from_numpy(v) if isinstance(v, (np.ndarray, np.generic)) else v, value)


def _numpy_structure(value):
    from ..data import structure
    return structure.map_structure(_numpy, value)


def _numpy(value):
    import numpy as np
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return value
