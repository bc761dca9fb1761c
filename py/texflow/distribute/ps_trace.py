"""Scheduled functions as traces: recorded on the chief, shipped to and replayed by workers.

The chief traces a scheduled function once per input signature with texflow's tracer
(engine/trace.py), as `tf.function` does, and undoes that run (ps_remote.py): every
call, the first too, runs on a worker, and the trace's run's host steps stand as the
first call's. The trace's steps go to a worker once, ops by registry name with their
attrs, captured constants as numpy, Variables as ids of the ps variables that hold
them. A per-worker iterator's `next` runs on the worker, on its own copy of its
dataset (`_WorkerNext`); other host steps (the optimizer's step scalars and count,
random draws) run on the chief when a worker takes the call, and their results travel
with the call's arguments; a trace whose host steps read values computed in
the function (a `tf.print` of a tensor) cannot be split so, and its calls run on the
chief (`ClosureTrace.problem`, warned about once). Assignments push as deltas when the
trace computed them as `variable + x` or `variable - x` (assign_add, assign_sub: an
update made concurrently by another worker is kept) and as writes otherwise.
"""

import pickle
import sys
import threading
import types

from ..autodiff.compiled import ConcreteFunction
from ..engine import trace
from ..engine.ndarray import NDArray, from_numpy
from ..engine.registry import get_op
from . import ps_server


class _Dispatch(threading.local):
    worker = 0  # the worker a call's host steps run for (its per-worker iterator)
    taken = None  # while the chief traces: [(per-worker iterator, worker, element)] drawn


DISPATCH = _Dispatch()
DELTA_OPS = ("add", "sub")


def delta_or_write(steps):
    """{variable slot: "delta" | "write"} for the Variables the steps assign."""
    made_by = {}
    kinds = {}
    for step in steps:
        if step[0] == "op":
            for slot in step[4]:
                made_by[slot] = step
        elif step[0] == "assign":
            var, value = step[1], step[2]
            op = made_by.get(value)
            delta = op is not None and op[1].name in DELTA_OPS and op[2][0] == var
            kinds[var] = "delta" if delta and kinds.get(var, "delta") == "delta" else "write"
    return kinds


class ClosureTrace:
    """One traced signature of a scheduled function, on the chief."""

    def __init__(self, trace_id, tracer, outputs, variable_ids):
        self.id = trace_id
        self.name = tracer.name
        self.num_args = tracer.num_args
        self.host_steps = [s for s in tracer.steps if s[0] == "host"]
        # {host step index: its per-worker iterator}: `next` made by the worker itself
        self.worker_next = _worker_next(self.host_steps)
        self.assigns = delta_or_write(tracer.steps)
        self.variables = {slot: v for slot, v in tracer.captures if slot in tracer.state_slots}
        self._constants = {slot: v for slot, v in tracer.captures
                           if slot not in tracer.state_slots}
        self.problem = host_problem(tracer)
        # the chief's own replay, for calls that cannot be shipped
        self.concrete = ConcreteFunction(self.name, tracer, outputs, [], None)
        self.payload = None if self.problem else \
            _payload(tracer, outputs, variable_ids, self.worker_next)

    def host_inputs(self, tensors):
        """Runs the host steps for one call (DISPATCH.worker says whose iterator);
        returns their outputs as numpy, one list per host step."""
        values = dict(self._constants)
        values.update(enumerate(tensors))
        results = []
        for i, (_, fn, args, kwargs, outs) in enumerate(self.host_steps):
            if i in self.worker_next:
                results.append(None)
                continue
            got = fn(*_fill(args, values), **_fill(kwargs, values))
            flat = []
            trace.flatten_arrays(got, flat)
            results.append([y.numpy() for y in flat])
            for slot, y in zip(outs, flat):
                values[slot] = y
        return results


def _worker_next(host_steps):
    """The host steps that are a per-worker iterator's `next` whose datasets go to the
    workers (`_ship_id` set by ps_remote), unless a chief host step reads their output."""
    found = {}
    for i, step in enumerate(host_steps):
        group = getattr(step[1], "__self__", None)
        if getattr(step[1], "__name__", "") == "_next_for_dispatch" and \
                getattr(group, "_ship_id", None) is not None:
            found[i] = group
    made = {slot for i in found for slot in host_steps[i][4]}
    for i, step in enumerate(host_steps):
        if i not in found and trace.step_reads(step) & made:
            return {}
    return found


def host_problem(tracer):
    computed = set(tracer.state_slots)
    for step in tracer.steps:
        if step[0] == "op":
            computed.update(step[4])
        elif step[0] == "view":
            computed.add(step[3])
        elif step[0] == "host" and trace.step_reads(step) & computed:
            name = getattr(step[1], "__qualname__", repr(step[1]))
            return (f"its host step {name} reads values computed in the function (or a "
                    "Variable), so the chief cannot run it before the worker's replay")
    return None


def traced_host_outputs(tracer):
    """What the host steps of a trace's own run gave, to stand as its call's host inputs
    (ps_remote.py): numpy, one list per host step (None for a per-worker iterator's next
    that the worker makes itself); and for each per-worker iterator's next, in order,
    whether the worker makes it (the element the chief drew then goes back)."""
    arrays = {}
    for x in tracer.held:
        if isinstance(x, NDArray) and id(x) in tracer.slots:
            arrays.setdefault(tracer.slots[id(x)], x)
    host_steps = [s for s in tracer.steps if s[0] == "host"]
    on_worker = _worker_next(host_steps)
    host, worker_reads = [], []
    for i, step in enumerate(host_steps):
        if getattr(step[1], "__name__", "") == "_next_for_dispatch":
            worker_reads.append(i in on_worker)
        host.append(None if i in on_worker else [arrays[s].numpy() for s in step[4]])
    return host, worker_reads


def _fill(value, values):
    if isinstance(value, trace.Slot):
        return values[value.index]
    if isinstance(value, (list, tuple)):
        return type(value)(_fill(v, values) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    return value


def _payload(tracer, outputs, variable_ids, worker_next):
    """The trace as plain data (pickled to the worker)."""
    steps = []
    host = 0
    for step in tracer.steps:
        if step[0] == "op":
            steps.append(("op", step[1].name) + tuple(step[2:]))
        elif step[0] == "host":
            group = worker_next.get(host)
            steps.append(("host", step[4], None if group is None else group._ship_id))
            host += 1
        else:
            steps.append(step)
    constants, variables = {}, {}
    for slot, value in tracer.captures:
        if slot in tracer.state_slots:
            variables[slot] = variable_ids[id(value)]
        else:
            constants[slot] = value.numpy() if isinstance(value, NDArray) else value
    return {"name": tracer.name, "num_args": tracer.num_args, "num_slots": tracer.num_slots,
            "meta": dict(tracer.meta), "state_slots": set(tracer.state_slots),
            "steps": steps, "constants": constants, "variables": variables,
            "assigns": delta_or_write(tracer.steps), "outputs": outputs}


# -- the worker's side ---------------------------------------------------------------------

class WorkerService:
    """A worker task: replays traces on its own variables' copies, pulled from and pushed
    to the ps tasks at every call."""

    def __init__(self, spec):
        self._ps_addresses = spec.job_tasks("ps") if "ps" in spec.jobs else []
        self._ps = {}          # ps index -> connection
        self._traces = {}      # trace id -> _WorkerTrace
        self._variables = {}   # variable id -> local Variable
        self._iterators = {}   # per-worker dataset id -> this worker's iterator
        self._lock = threading.Lock()  # one call at a time: the backend and the copies

    def handle(self, kind, *args):
        with self._lock:
            if kind == "trace":
                trace_id, payload = args
                self._traces[trace_id] = _WorkerTrace(payload, self._iterators)
                return trace_id
            if kind == "dataset":  # this worker's own input pipeline, as TensorFlow's
                key, dataset = args
                self._iterators[key] = iter(pickle.loads(dataset))
                return key
            if kind == "run":
                return self._run(*args)
        raise ValueError(f"a worker task has no request {kind!r}")

    def _run(self, trace_id, args, host):
        from ..autodiff.variable import Variable
        replay = self._traces.get(trace_id)
        if replay is None:
            raise KeyError(f"this worker has no trace {trace_id!r} (a restarted worker is "
                           "sent its traces again)")
        ids = replay.variable_ids
        pulled = dict(zip(ids, self._request("pull", ids)))
        for key, value in pulled.items():
            local = self._variables.get(key)
            if local is None:
                self._variables[key] = Variable(value, trainable=False, name=key)
            else:
                local.assign(from_numpy(value))
        outputs = replay.run([from_numpy(a) for a in args], host, self._variables)
        updates = []
        for key, kind in replay.assigns.items():
            new = self._variables[key].numpy()
            updates.append(("delta", key, new - pulled[key]) if kind == "delta"
                           else ("write", key, new))
        if updates:
            self._request("push", updates)
        return outputs

    def _request(self, kind, items):
        """Sends `items` (variable ids, or updates naming them) to their ps tasks."""
        by_ps = {}
        for i, item in enumerate(items):
            key = item if kind == "pull" else item[1]
            by_ps.setdefault(variable_ps(key), []).append((i, item))
        answers = [None] * len(items)
        for ps, entries in by_ps.items():
            conn = self._ps.get(ps)
            if conn is None:
                conn = self._ps[ps] = ps_server.connect(self._ps_addresses[ps])
            got = ps_server.call(conn, kind, [item for _, item in entries])
            if kind == "pull":
                for (i, _), value in zip(entries, got):
                    answers[i] = value
        return answers


def variable_ps(key):
    """The ps task index in a variable id ("ps<i>/<session>/v<n>")."""
    return int(key.split("/", 1)[0][2:])


class _WorkerTrace:
    def __init__(self, payload, iterators):
        self._host = []
        steps = []
        k = 0
        for step in payload["steps"]:
            if step[0] == "op":
                steps.append((sys.intern("op"), get_op(step[1])) + tuple(step[2:]))
            elif step[0] == "host":
                given = _Given(self._host, k) if step[2] is None else \
                    _WorkerNext(iterators, step[2])
                steps.append((sys.intern("host"), given, (), {}, step[1]))
                k += 1
            else:  # the replay tells kinds apart by identity: unpickled strings are copies
                steps.append((sys.intern(step[0]),) + tuple(step[1:]))
        self._variable_slots = payload["variables"]
        self.variable_ids = sorted(set(self._variable_slots.values()))
        self.assigns = {self._variable_slots[s]: kind for s, kind in payload["assigns"].items()}
        self._payload = payload
        self._steps = steps
        self._concrete = None

    def run(self, args, host, variables):
        if self._concrete is None:  # the Variables exist once the first call pulled them
            p = self._payload
            captures = [(s, variables[key]) for s, key in self._variable_slots.items()]
            for slot, value in p["constants"].items():
                if not isinstance(value, (bool, int, float)):
                    value = from_numpy(value)
                    value._kept = True
                captures.append((slot, value))
            tracer = types.SimpleNamespace(
                name=p["name"], num_args=p["num_args"], num_slots=p["num_slots"],
                meta=p["meta"], state_slots=p["state_slots"], steps=self._steps,
                captures=captures, constant=set(p["constants"]))
            self._concrete = ConcreteFunction(p["name"], tracer, p["outputs"], [], None)
        self._host[:] = host
        result = self._concrete._replay(args)
        out = _to_numpy(result)
        flat = []
        trace.flatten_arrays(result, flat)
        for y in flat:
            if not getattr(y, "_kept", False):
                y.dispose()
        return out


class _Given:
    """A host step on the worker: gives the values the chief computed for this call."""

    def __init__(self, holder, index):
        self._holder, self._index = holder, index

    def __call__(self):
        return [from_numpy(a) for a in self._holder[self._index]]


class _WorkerNext:
    """A host step on the worker: the next element of its own per-worker iterator."""

    def __init__(self, iterators, key):
        self._iterators, self._key = iterators, key

    def __call__(self):
        return next(self._iterators[self._key])


def _to_numpy(value):
    from ..data import structure
    return structure.map_structure(lambda v: v.numpy() if isinstance(v, NDArray) else v,
                                   value)
