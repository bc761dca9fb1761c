"""The chief's ClusterCoordinator when the cluster has ps and worker tasks (processes).

Variables live on the ps tasks, placed round-robin in the order closures first read
them ("ps<i>/<session>/v<n>" ids, the session this coordinator's), with the chief's
value at that moment. `schedule(fn, args)` traces `fn` once per signature
(distribute/ps_trace.py; the run that tracing is here is undone, as tf.function's
trace is not a call) and queues every call, the first too. One
dispatcher thread per worker task sends a call to its worker when the worker is free,
after running the call's chief-side host steps, and with the worker's dataset the
first time. A worker that fails (its connection breaks) gets its call put back at the
head of the queue for the next free worker, which runs it on its own next element, so
a call runs at least once, and more than once in part if the worker had pushed some
of its update (TensorFlow's `schedule` promises the same); its dispatcher reconnects
to it every half second and sends it its traces again, and its dataset, which it
iterates from the start, as TensorFlow rebuilds a recovered worker's datasets. `join()` waits for
every call and then pulls the ps values into the chief's own Variables, so that code
after it (evaluate, save, printing a weight) reads the trained values.
"""

import collections
import collections.abc
import logging
import os
import pickle
import threading
import time
import warnings

import numpy as np

from ..autodiff.function import Function, _as_tensors, _canonical, _converted
from ..engine import trace
from ..engine.ndarray import from_numpy
from . import ps_server
from .parameter_server import ClusterCoordinator, PerWorkerIterator, PerWorkerValues, \
    RemoteValue
from .ps_trace import DISPATCH, ClosureTrace, _to_numpy, host_problem, traced_host_outputs
from .ps_trace import variable_ps as _ps_of
from .strategy import _entered

log = logging.getLogger("texflow.distribute")
RECONNECT_EVERY = 0.5


class _Closure:
    def __init__(self, trace_, tensors, value):
        self.trace, self.tensors, self.value = trace_, tensors, value
        self.host = None  # the host steps' outputs, made at the first dispatch


class _Queue:
    """Closures waiting for a worker; a failed one goes back to the head."""

    def __init__(self):
        self._items = collections.deque()
        self._ready = threading.Condition()

    def put(self, item, front=False):
        with self._ready:
            (self._items.appendleft if front else self._items.append)(item)
            self._ready.notify()

    def get(self):
        with self._ready:
            while not self._items:
                self._ready.wait()
            return self._items.popleft()


class RemoteLogs(collections.abc.Mapping):
    """A Keras `fit` step's logs on the workers: read (which waits for that step) only
    when a callback asks for them, so that steps run asynchronously meanwhile."""

    def __init__(self, coordinator, value):
        self.coordinator, self._value, self._logs = coordinator, value, None

    def _get(self):
        if self._logs is None:
            self._logs = self._value.get()
        return self._logs

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())


class RemoteCoordinator(ClusterCoordinator):
    """ClusterCoordinator over ps and worker processes (see the module docstring)."""

    def __init__(self, strategy):
        if not self._first_init(strategy):
            return
        spec = strategy.cluster_resolver.cluster_spec()
        self._ps_addresses = spec.job_tasks("ps")
        self._worker_addresses = spec.job_tasks("worker")
        self._ps = [None] * len(self._ps_addresses)
        self._ps_lock = threading.Lock()
        self._chief = threading.RLock()  # tracing, host steps, chief-run calls
        # a restarted chief (or a second coordinator) names its variables and traces anew
        self._session = os.urandom(4).hex()
        self._registered = {}            # id(variable) -> variable id
        self._synced = {}                # variable id -> the chief's value as last pulled
        self._variables = []             # (variable id, Variable), in registration order
        self._traces = {}                # signature key -> ClosureTrace
        self._keep = []                  # what the keys name by id
        self._queue = _Queue()
        self._pending = 0
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._errors = []
        self._warned = set()
        self.restarts = 0                # calls put back after a worker failed
        self.runs = [0] * len(self._worker_addresses)  # calls each worker ran
        self._closed = threading.Event()
        for w, address in enumerate(self._worker_addresses):
            threading.Thread(target=self._dispatch, args=(w, address), daemon=True,
                             name=f"texflow-ps-dispatch-{w}").start()

    # -- the public API ------------------------------------------------------------------

    def schedule(self, fn, args=None, kwargs=None):
        """Runs `fn(*args, **kwargs)` on a free worker; returns a RemoteValue at once
        (the first call of a signature is traced, and so run, on the chief)."""
        args, kwargs = tuple(args or ()), dict(kwargs or {})
        value = RemoteValue(self)
        args, kwargs = _traceable((args, kwargs), self._ship_datasets)
        args, kwargs = _converted((args, kwargs))
        tensors = []
        python_fn = fn.python_function if isinstance(fn, Function) else fn
        key = (id(python_fn), _canonical((args, kwargs), tensors))
        with self._lock:
            self._pending += 1
        closure_trace = self._traces.get(key)
        closure = _Closure(closure_trace, tensors, value)
        if closure_trace is None:
            self._keep.append((python_fn, args, kwargs))
            try:
                closure.trace, closure.host, result = self._trace(python_fn, tensors, args,
                                                                  kwargs)
                self._traces[key] = closure.trace
            except Exception as e:
                self._fail(value, e)
                self._finished()
                return value
            if closure.host is None:  # its calls run on the chief: this one already ran
                value._set(_to_numpy(result))
                self._finished()
                return value
        self._queue.put(closure)
        return value

    def join(self):
        with self._idle:
            while self._pending:
                self._idle.wait()
            errors, self._errors = self._errors, []
        self._sync()
        if errors:
            raise errors[0]

    def ps_values(self):
        """{variable name: its value on the ps tasks} (what the workers train)."""
        values = self._pull([key for key, _ in self._variables])
        return {v.name: value for (_, v), value in zip(self._variables, values)}

    def _wait(self, event):
        event.wait()

    def _close(self):
        """Stops the dispatchers (their workers keep serving); for tests and shutdown."""
        self._closed.set()
        for _ in self._worker_addresses:
            self._queue.put(None, front=True)

    def _run_eagerly(self, fn, args):
        """Runs `fn(*args)` on the chief, not traced (Keras's first step, which makes the
        variables that the step creates lazily); what it changed in ps variables is
        pushed as deltas. Returns a RemoteValue holding its result."""
        value = RemoteValue(self)
        with self._chief:
            pulled = self._sync()
            with _entered(self.strategy):
                result = self.strategy.extended._run(fn, args, {})
            updates = []
            for key, variable in self._variables:
                new = variable.numpy()
                if not np.array_equal(new, pulled[key]):
                    updates.append(("delta", key, new - pulled[key]))
            self._request("push", updates)
            self._chief_values_pushed()
        value._set(_to_numpy(result))
        return value

    # -- tracing and variables on the chief --------------------------------------------------

    def _trace(self, fn, tensors, args, kwargs):
        """Traces `fn` on the chief, as tf.function does. Returns (ClosureTrace, the first
        call's host inputs, the traced run's result).

        The run that tracing is here is not the call (as tf.function's trace is not): its
        updates are undone (the Variables it assigned back to their values before it,
        those it created to their initial ones) and the call queues for a worker, which
        reads its own next element of a per-worker dataset that goes to the workers (the
        one the chief drew from its copy is given back to that copy). The run's other
        host steps stand as the call's own (the optimizer's step count and scalars,
        random draws, an element made on the chief), so that each happens once per call.
        A trace whose calls run on the chief (ClosureTrace.problem) keeps its run as
        its first call, whose update is pushed (host None)."""
        with self._chief:
            pulled = self._sync()
            tracer = trace.Tracer(getattr(fn, "__name__", "function"))
            for x in tensors:
                tracer.add_argument(x)
            DISPATCH.worker, DISPATCH.taken = 0, []
            try:
                with trace.tracing(tracer), _entered(self.strategy):
                    try:
                        result = _as_tensors(self.strategy.extended._run(fn, args, kwargs))
                        outputs = tracer.structure(result)
                    except BaseException:
                        tracer.restore_variables()
                        _give_back(DISPATCH.taken)
                        raise
            finally:
                taken, DISPATCH.taken = DISPATCH.taken, None
            host = None
            if host_problem(tracer) is None:
                host, on_workers = traced_host_outputs(tracer)
                tracer.restore_variables()
                _give_back([t for t, worker_reads in zip(taken, on_workers) if worker_reads])
            else:
                tracer.release_saved()
            new = {}
            for slot, variable in tracer.captures:
                if slot in tracer.state_slots and id(variable) not in self._registered:
                    new[self._register(variable)] = variable.numpy()
            self._create(new)
            closure_trace = ClosureTrace(f"{self._session}/t{len(self._traces)}", tracer,
                                         outputs, self._registered)
            if host is None:
                self._push(closure_trace, pulled, skip=new)
                self._warn(closure_trace)
            self._chief_values_pushed()
            return closure_trace, host, result

    def _register(self, variable):
        n = len(self._variables)
        key = f"ps{n % len(self._ps_addresses)}/{self._session}/v{n}"
        self._registered[id(variable)] = key
        self._variables.append((key, variable))
        return key

    def _sync(self):
        """Pulls every ps variable into the chief's Variable; returns {id: value}."""
        if not self._variables:
            return {}
        with self._chief:
            keys = [key for key, _ in self._variables]
            values = self._pull(keys)
            for (_, variable), value in zip(self._variables, values):
                variable.assign(from_numpy(value))
            self._synced = dict(zip(keys, values))
            return dict(self._synced)

    def _chief_values_pushed(self):
        """Records the chief's values as its own (after it pushed a call's update)."""
        self._synced = {key: variable.numpy() for key, variable in self._variables}

    def _write_changed(self, variables):
        """Writes to the ps tasks what code on the chief set in `variables` since the
        chief last pulled or pushed (Keras's `reset_metrics` at an epoch's start)."""
        with self._chief:
            updates = []
            for variable in variables:
                key = self._registered.get(id(variable))
                if key is not None and not np.array_equal(variable.numpy(), self._synced[key]):
                    updates.append(("write", key, variable.numpy()))
                    self._synced[key] = variable.numpy()
            self._request("push", updates)

    def _push(self, closure_trace, pulled, skip=()):
        """Pushes what a call made on the chief assigned (as a worker would)."""
        updates = []
        for slot, kind in closure_trace.assigns.items():
            key = self._registered[id(closure_trace.variables[slot])]
            if key in skip:
                continue
            new = closure_trace.variables[slot].numpy()
            updates.append(("delta", key, new - pulled[key]) if kind == "delta"
                           else ("write", key, new))
        self._request("push", updates)

    def _create(self, values):
        by_ps = {}
        for key, value in values.items():
            by_ps.setdefault(_ps_of(key), {})[key] = value
        for ps, part in by_ps.items():
            ps_server.call(self._ps_conn(ps), "create", part)

    def _pull(self, keys):
        return self._request("pull", keys)

    def _request(self, kind, items):
        by_ps = {}
        for i, item in enumerate(items):
            by_ps.setdefault(_ps_of(item if kind == "pull" else item[1]), []).append(i)
        answers = [None] * len(items)
        for ps, indices in by_ps.items():
            got = ps_server.call(self._ps_conn(ps), kind, [items[i] for i in indices])
            if kind == "pull":
                for i, value in zip(indices, got):
                    answers[i] = value
        return answers

    def _ps_conn(self, ps):
        with self._ps_lock:
            if self._ps[ps] is None:
                self._ps[ps] = ps_server.connect(self._ps_addresses[ps])
            return self._ps[ps]

    def _ship_datasets(self, group):
        """Per-worker datasets go to their workers (pickled: a dataset made of arrays and
        tf.data's own transformations; not one with a Python function in it, whose
        batches are then made on the chief and travel with each call, as a warning says)."""
        if hasattr(group, "_ship_id") or not hasattr(group, "_datasets"):
            return
        group._ship_id = None
        try:
            group._shipped = [pickle.dumps(d) for d in group._datasets]
        except Exception as e:
            warnings.warn(f"the per-worker dataset cannot be sent to the workers ({e}): its "
                          "batches are made on the chief and travel with each call",
                          stacklevel=4)
            return
        group._ship_id = f"{self._session}/d{id(group)}"

    def _warn(self, closure_trace):
        if closure_trace.name not in self._warned:
            self._warned.add(closure_trace.name)
            warnings.warn(f"coordinator.schedule({closure_trace.name}): "
                          f"{closure_trace.problem}; its calls run on the chief, not on the "
                          "workers", stacklevel=4)

    # -- dispatch ----------------------------------------------------------------------

    def _dispatch(self, worker, address):
        conn, sent = None, set()
        while not self._closed.is_set():
            if conn is None:
                conn, sent = self._connect(address), set()
                if conn is None:
                    return
            closure = self._queue.get()
            if closure is None:
                break
            try:
                self._run_closure(worker, conn, sent, closure)
            except (EOFError, OSError) as e:
                log.warning("worker %d (%s) failed (%s): its closure %s goes back to the "
                            "queue", worker, address, e, closure.trace.name)
                self.restarts += 1
                self._queue.put(closure, front=True)
                conn.close()
                conn = None
                time.sleep(RECONNECT_EVERY)
        if conn is not None:
            conn.close()

    def _connect(self, address):
        while not self._closed.is_set():
            try:
                return ps_server.connect(address, timeout=RECONNECT_EVERY)
            except ConnectionError:
                time.sleep(RECONNECT_EVERY)

    def _run_closure(self, worker, conn, sent, closure):
        closure_trace = closure.trace
        try:
            if closure_trace.payload is None:
                out = self._run_on_chief(worker, closure)
            else:
                if closure.host is None:
                    with self._chief:
                        DISPATCH.worker = worker
                        closure.host = closure_trace.host_inputs(closure.tensors)
                if closure_trace.id not in sent:
                    ps_server.call(conn, "trace", closure_trace.id, closure_trace.payload)
                    sent.add(closure_trace.id)
                for group in closure_trace.worker_next.values():
                    if group._ship_id not in sent:  # the worker's own pipeline, from the start
                        ps_server.call(conn, "dataset", group._ship_id, group._shipped[worker])
                        sent.add(group._ship_id)
                out = ps_server.call(conn, "run", closure_trace.id,
                                     [x.numpy() for x in closure.tensors], closure.host)
                self.runs[worker] += 1
            closure.value._set(out)
        except (EOFError, OSError):
            raise
        except Exception as e:
            self._fail(closure.value, e)
        self._finished()

    def _run_on_chief(self, worker, closure):
        with self._chief:
            DISPATCH.worker = worker
            pulled = self._sync()
            with _entered(self.strategy):
                result = closure.trace.concrete._replay(list(closure.tensors))
            self._push(closure.trace, pulled)
            self._chief_values_pushed()
            return _to_numpy(result)

    def _fail(self, value, error):
        value._set(error=error)
        with self._lock:
            self._errors.append(error)

    def _finished(self):
        with self._idle:
            self._pending -= 1
            self._idle.notify_all()


def _give_back(taken):
    """The per-worker elements (group, worker, element) go back to the chief's copies."""
    for group, worker, element in reversed(taken):
        group._give_back(worker, element)


def _traceable(structure, prepare):
    """Per-worker iterators replaced by what stands for them in a trace (`prepare`d)."""
    if isinstance(structure, PerWorkerIterator):
        prepare(structure)
        return structure._traced()
    if isinstance(structure, PerWorkerValues):
        raise NotImplementedError("coordinator.schedule on ps and worker tasks takes per-worker "
                                  "iterators (iter(create_per_worker_dataset(fn))) and tensors; "
                                  f"received {type(structure).__name__}")
    if isinstance(structure, dict):
        return {k: _traceable(v, prepare) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_traceable(v, prepare) for v in structure)
    return structure
