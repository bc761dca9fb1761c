"""Tracing: what a Python function does with arrays, recorded as a list of steps.

`tf.function` (autodiff/function.py) runs a function once per input signature
with a `Tracer` active. The tracer is an op recorder (as a GradientTape is):
every op the function runs becomes a step naming its input and output slots.
Besides ops it records the two other things a step can do: replace a
Variable's value (`assign`) and run host code whose result must be fresh on
every call (`host_call`: random draws, tf.print). Anything else the function
does in Python happens at trace time only, as in TensorFlow.

Reading a traced value on the host (`bool(x)`, `x.numpy()`) while tracing
would freeze a value that differs per call into the trace, so it raises.
"""

import functools
import threading

from ..errors import OperatorNotAllowedInGraphError
from . import ndarray, scope
from .ndarray import NDArray

_SCALARS = (float, int, bool)


class _Local(threading.local):
    def __init__(self):
        self.tracers = []
        self.lifted = 0   # open `lifted` blocks that left a trace


_local = _Local()


def active():
    """The calling thread's innermost Tracer, or None when nothing is traced."""
    tracers = _local.tracers
    return tracers[-1] if tracers else None


def traced():
    """True while a tf.function traces on this thread (code may then keep values as
    tensors that it would otherwise read on the host)."""
    return bool(_local.tracers)


def dry():
    """True while `get_concrete_function` traces on this thread. As TensorFlow's tracing,
    it must change nothing: host code (`host_call`) then draws no random numbers (from
    no generator whose state a later call would see), prints nothing, takes no element
    from an iterator for good and sends nothing; its results are discarded, only their
    shapes and dtypes shape the trace."""
    tracers = _local.tracers
    return bool(tracers) and tracers[-1].dry


class Slot:
    """Marks where a traced value goes in a structure (host_call arguments, results)."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"Slot({self.index})"


class Tracer:
    """Records steps while a function runs (see the module docstring).

    Slots are integers: the traced arguments first, then captured values
    (Variables, read live at replay; other arrays and Python scalars, kept as
    they were), then step outputs. `steps` holds tuples:
    ("op", op, in_slots, attrs, out_slots, view_shape),
    ("assign", variable_slot, value_slot), ("view", slot, shape, new_slot) (an array
    sharing a traced value's data, made outside the recorder) and
    ("host", fn, args_structure, kwargs_structure, out_slots).
    """

    def __init__(self, name):
        self.name = name
        self.thread = threading.get_ident()
        self.slots = {}        # id(NDArray) -> slot
        self.held = []         # every array seen, so that ids stay unique while tracing
        self.captures = []     # (slot, value) filled before every replay
        self.captured = set()  # ids of captured arrays (not traced values)
        self.state_slots = set()  # slots of Variables
        self.num_args = 0
        self.num_slots = 0
        self.meta = {}         # slot -> (shape, dtype), or the Python scalar itself
        self.steps = []
        self.assigned = {}     # id(variable) -> (variable, its storage before the trace)
        # id(storage) -> (slot, shape) of the first value seen with that storage: an
        # array made outside the recorder (a GradientTape's own view) is found here
        self.storage_slots = {}
        self._paused = 0
        self.dry = False       # a get_concrete_function trace (see `dry()`)
        # slots whose values are the same at every call: captured arrays (not Variables)
        # and Python scalars, and what ops compute from them alone (`known_value`)
        self.constant = set()
        self.random_ops = 0    # random ops traced so far (engine/seeds.py)
        self.streams = []      # their streams (seeds._TraceStream), in order
        # Variables made while tracing: `variables_made` counts them; where the function
        # may not make any (`no_variables`, TensorFlow's message) they raise ValueError
        self.variables_made = 0
        self.no_variables = None

    # -- slots ---------------------------------------------------------------------------

    def _new_slot(self, x):
        slot = self.num_slots
        self.num_slots += 1
        self.meta[slot] = x if type(x) in _SCALARS else (tuple(x.shape), x.dtype)
        if isinstance(x, NDArray):
            self.slots[id(x)] = slot
            self.held.append(x)
            storage = x._storage
            if id(storage) not in self.storage_slots:
                self.storage_slots[id(storage)] = (slot, tuple(x.shape))
                self.held.append(storage)
        return slot

    def add_argument(self, x):
        """Registers traced argument `x` (an NDArray); returns its slot."""
        self.num_args += 1
        slot = self._new_slot(x)
        if getattr(x, "_traced_as_state", False):
            self.state_slots.add(slot)
        return slot

    def slot_of(self, x):
        """The slot of input `x`, capturing it when it comes from outside the trace."""
        if type(x) in _SCALARS:
            slot = self._new_slot(x)
            self.captures.append((slot, x))
            self.constant.add(slot)
            return slot
        slot = self.slots.get(id(x))
        if slot is not None:
            return slot
        known = self.storage_slots.get(id(x._storage))
        if known is not None:  # a view of a value of the trace
            source, shape = known
            if shape == tuple(x.shape):
                self.slots[id(x)] = source
                self.held.append(x)
                return source
            slot = self._new_slot(x)
            self.steps.append(("view", source, tuple(x.shape), slot))
            if source in self.constant:
                self.constant.add(slot)
            return slot
        slot = self._new_slot(x)
        self.captured.add(id(x))
        if getattr(x, "_traced_as_state", False):
            self.captures.append((slot, x))       # a Variable: read when the step runs
            self.state_slots.add(slot)
        else:
            snapshot = x._view(x.shape)           # shares the data; outlives `x`
            snapshot._kept = True
            self.captures.append((slot, snapshot))
            self.constant.add(slot)
        return slot

    def variable_made(self):
        """A Variable is being made while this trace runs (tf.Variable's constructor)."""
        if self.no_variables is not None:
            raise ValueError(self.no_variables)
        self.variables_made += 1

    def is_traced(self, x):
        return id(x) in self.slots and id(x) not in self.captured

    # -- recording ---------------------------------------------------------------------

    def record(self, op, inputs, attrs, result):
        """The engine's recorder hook: one op ran on `inputs` giving `result`."""
        if self._paused:
            return
        ins = tuple(self.slot_of(x) for x in inputs)
        outs = result if type(result) is tuple else (result,)
        view = None
        if len(outs) == 1 and inputs and isinstance(inputs[0], NDArray) and \
                result._storage is inputs[0]._storage:
            view = tuple(result.shape)            # run_view: shares its input's storage
        out_slots = tuple(self._new_slot(y) for y in outs)
        if all(k in self.constant for k in ins):  # computed from constants alone
            self.constant.update(out_slots)
        self.steps.append(("op", op, ins, dict(attrs) if attrs else {}, out_slots, view))

    def record_assign(self, variable, value):
        """Variable `variable` takes `value`'s storage (called before the swap)."""
        if id(variable) not in self.assigned:
            # host code's assignments too (an optimizer's step count), which a replay
            # makes again but `restore_variables` must undo as well
            storage = variable._storage
            storage.refs += 1
            self.assigned[id(variable)] = (variable, storage)
        if self._paused:
            return
        old = self.storage_slots.get(id(variable._storage))
        if old is not None and old[0] == self.slot_of(variable):
            # views of the value being replaced keep it: read it into a slot of its own
            slot = self.num_slots
            self.num_slots += 1
            self.steps.append(("view", old[0], tuple(variable.shape), slot))
            self.storage_slots[id(variable._storage)] = (slot, old[1])
        self.steps.append(("assign", self.slot_of(variable), self.slot_of(value)))

    def restore_variables(self):
        """Gives assigned Variables back the values they had before the trace."""
        for variable, storage in self.assigned.values():
            current = variable._storage
            variable._storage = storage
            current.release()
        self.assigned = {}

    def release_saved(self):
        """Forgets the pre-trace values (the trace's assignments stand)."""
        for _, storage in self.assigned.values():
            storage.release()
        self.assigned = {}

    def structure(self, value, capture=True):
        """`value` with NDArrays replaced by Slots (capturing unknown ones)."""
        if isinstance(value, NDArray):
            return Slot(self.slot_of(value))
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*[self.structure(v) for v in value])
        if isinstance(value, (list, tuple)):
            return type(value)(self.structure(v) for v in value)
        if isinstance(value, dict):
            return {k: self.structure(v) for k, v in value.items()}
        return value

    # -- the read guard ------------------------------------------------------------------

    def check_read(self, x, what):
        if self._paused or threading.get_ident() != self.thread:
            return
        state = getattr(x, "_traced_as_state", False)
        if not state and (not self.is_traced(x) or self.slots[id(x)] in self.constant):
            return  # not traced, or the same at every call (`known_value`): tf.shape(x)[0]
        kind = "a Variable's value" if state else "a traced tensor"
        if what == "bool":
            raise OperatorNotAllowedInGraphError(
                f"Using {kind} (shape {list(x.shape)}, {x.dtype}) as a Python bool is not "
                f"allowed inside tf.function {self.name!r}: a data-dependent Python `if` or "
                "`while` would be decided once, at trace time. Use tf.cond, tf.where or "
                "tf.while_loop, or move the test out of the function.")
        raise OperatorNotAllowedInGraphError(
            f"Reading {kind} (shape {list(x.shape)}, {x.dtype}) on the host ({what}) is not "
            f"allowed inside tf.function {self.name!r}: its value differs per call but "
            "would be frozen at trace time. Compute with tensor ops, or read it outside "
            "the function.")


class tracing:
    """`with tracing(tracer):` records the block's ops, assignments and host calls."""

    def __init__(self, tracer):
        self.tracer = tracer

    def __enter__(self):
        _local.tracers.append(self.tracer)
        scope.recorders().append(self.tracer.record)
        ndarray._read_guard[0] = _guard
        return self.tracer

    def __exit__(self, *exc):
        scope.recorders().remove(self.tracer.record)
        _local.tracers.remove(self.tracer)
        if not _local.tracers:
            ndarray._read_guard[0] = None
        return False


class lifted:
    """`with lifted():` runs the block as if nothing were traced or taped (tf.init_scope):
    its ops run eagerly, unrecorded, and what they make is captured as a constant where
    a trace uses it; `inside_function()` stays true."""

    def __enter__(self):
        self.saved = (list(_local.tracers), list(scope.recorders()), ndarray._read_guard[0])
        _local.lifted += bool(_local.tracers)
        del _local.tracers[:]
        del scope.recorders()[:]
        ndarray._read_guard[0] = None
        return None

    def __exit__(self, *exc):
        tracers, recorders, guard = self.saved
        _local.tracers[:] = tracers
        scope.recorders()[:] = recorders
        ndarray._read_guard[0] = guard
        _local.lifted -= bool(tracers)
        return False


def inside_function():
    """True while a tf.function traces its function, in a `tf.init_scope` inside it too.

    >>> tf.inside_function()
    False
    """
    return bool(_local.tracers) or _local.lifted > 0


def _guard(x, what):
    tracer = active()
    if tracer is not None:
        tracer.check_read(x, what)


def known_value(x):
    """The host value of NDArray `x` when it is the same at every call of the function
    being traced: an array made outside the recorder (`tf.constant`, `tf.shape` of a
    traced value, whose shape a trace fixes) or computed by ops from such arrays and
    Python numbers alone. None for a value that depends on the function's arguments,
    Variables or host code (random draws), and when nothing is traced. Ops whose result's
    shape depends on values (`tf.range`) fold such a value into the trace, as
    TensorFlow's constant folding gives them a static shape."""
    tracer = active()
    if tracer is None or not isinstance(x, NDArray) or \
            getattr(x, "_traced_as_state", False):
        return None
    slot = tracer.slots.get(id(x))
    if slot is None:  # a view of a value of the trace?
        slot = tracer.storage_slots.get(id(x._storage), (None,))[0]
    if slot is not None and slot not in tracer.constant:
        return None
    # an array the recorder has not seen yet is captured as a constant when used
    tracer._paused += 1
    try:
        return x.numpy()
    finally:
        tracer._paused -= 1


def record_assign(variable, value):
    """Called by Variable.assign: records the assignment when tracing."""
    tracer = active()
    if tracer is not None:
        tracer.record_assign(variable, value)


def host_call(fn, *args, **kwargs):
    """Calls `fn(*args, **kwargs)`; when tracing, a replay calls it again.

    For host code whose result must be fresh on every call (random draws) or
    which must happen on every call (printing). Its NDArray arguments may be
    traced values: a replay passes the values of that call. It returns an
    NDArray, a structure of them, or None.
    """
    tracer = active()
    if tracer is None or tracer._paused:
        return fn(*args, **kwargs)
    arg_slots = tracer.structure(args)
    kwarg_slots = tracer.structure(kwargs)
    tracer._paused += 1
    try:
        result = fn(*args, **kwargs)
    finally:
        tracer._paused -= 1
    outs = []
    flatten_arrays(result, outs)
    out_slots = tuple(tracer._new_slot(y) for y in outs)
    tracer.steps.append(("host", fn, arg_slots, kwarg_slots, out_slots))
    return result


def argument_check(fn, x, key=None):
    """Calls `fn(x)`, a check that raises or returns a value. When `x` is an argument of
    the function being traced (or a view of one of its shape), or a result of its host
    code (`next()` of a dataset), a replay calls `fn` again with that call's value, before
    the first step or right after that host code: there a check, reading no value the
    kernels compute, splits no group of fused kernels. A value the trace computes is
    checked at trace time only. `key`, a hashable, names what the check asserts (checks
    sharing a key accept the same values): a replay skips a check of a value whose key an
    earlier check of that value already asserted, since it could only pass (a Keras
    loss and the op it calls both check the same labels). Returns `fn(x)`."""
    tracer = active()
    result = fn(x)
    if tracer is None or tracer._paused or not isinstance(x, NDArray) or \
            id(x) in tracer.captured:
        return result
    slot = tracer.slots.get(id(x))
    where = 0 if slot is not None and slot < tracer.num_args else None
    for k, step in enumerate(tracer.steps):
        if slot is not None and where is None and step[0] == "host" and slot in step[4]:
            where = k + 1
    if where is None:
        return result
    while where < len(tracer.steps) and getattr(tracer.steps[where][1], "check", False):
        earlier = tracer.steps[where]
        if key is not None and earlier[2][0].index == slot and \
                getattr(earlier[1], "key", None) == key:
            return result
        where += 1  # after the checks already there: in the order eager runs them

    def check(value):
        fn(value)
    check.check = True
    check.key = key
    tracer.steps.insert(where, ("host", check, (Slot(slot),), {}, ()))
    return result


def fresh_each_call(fn):
    """Decorates host code that `host_call` should run again at every replay."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _local.tracers:
            return fn(*args, **kwargs)
        return host_call(fn, *args, **kwargs)
    return wrapper


def check_each_call(check):
    """Decorates a host check (it raises or returns None): eagerly it runs at once, inside
    tf.function at every call on that call's values (`fresh_each_call`), as TensorFlow's
    assert ops; not in get_concrete_function's dry trace, whose values are zeros."""
    @fresh_each_call
    @functools.wraps(check)
    def checked(*args, **kwargs):
        return None if dry() else check(*args, **kwargs)
    return checked


def step_reads(step):
    """The slots a step reads."""
    kind = step[0]
    if kind == "op":
        return step[2]
    if kind == "assign":
        return (step[1], step[2])
    if kind == "view":
        return (step[1],)
    slots = set()
    slots_in((step[2], step[3]), slots)
    return slots


def slots_in(value, out):
    """Adds the index of every Slot in structure `value` to set `out`."""
    if isinstance(value, Slot):
        out.add(value.index)
    elif isinstance(value, (list, tuple)):
        for v in value:
            slots_in(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            slots_in(v, out)


def flatten_arrays(value, out):
    """Appends the NDArrays in `value` (nested lists, tuples and dicts) to `out`."""
    if isinstance(value, NDArray):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            flatten_arrays(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            flatten_arrays(v, out)


def python_slots(steps, kinds, out_slots, is_scalar):
    """The slots a replay program must keep as NDArrays, as Python sees them: the
    outputs, values assigned to Variables ("assign" steps), host code's arguments
    ("host") and the array inputs of ops Python runs ("py"), by `kinds[i]` of step i."""
    need = set(out_slots)
    for step, kind in zip(steps, kinds):
        if kind == "assign":
            need.add(step[2])
        elif kind == "host":
            slots_in((step[2], step[3]), need)
        elif kind == "py":
            need.update(k for k in step[2] if not is_scalar(k))
    return need
