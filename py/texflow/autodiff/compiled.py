"""A traced function's replayable form: `ConcreteFunction`.

A trace (engine/trace.py) is a list of steps over numbered slots. Planning
it once gives, per step, the slots whose values die there, so a replay frees
every intermediate right after its last use (its GPU buffer or texture goes
back to the pool and is reused by the next step that needs that size), and
runs inside its own scope so that nothing else is left behind. Ops computed
from constants alone run once (fusion_constants.py); chains of elementwise ops
are fused first (autodiff/fusion.py), then elementwise epilogues
into the matmul or conv2d feeding them (fusion_epilogue.py), then trees into
kernels of several outputs (fusion.py `fuse_outputs`; on WebGL a matmul into the
one that reads it), then the trees left into the
reductions reading them (fusion_prologue.py). Replaying calls the
same kernels eager execution calls, so results are identical to eager ones.
"""

import weakref

from ..engine import context
from ..engine import scope as scopes
from ..engine.run import prepare, run_into
from ..engine.trace import Slot, flatten_arrays, slots_in, step_reads
from ..tensor_spec import TensorSpec
from .fusion import fuse, fuse_outputs
from .fusion_constants import fold_constants
from .fusion_epilogue import fuse_epilogues, fuse_multi_epilogues
from .fusion_prologue import fuse_prologues
from .replay import NotPrepared, build
from .replay_host import build_host
from .trace_rewrite import fuse_conv_pools, rewrite

FUSION = [True]  # fuse elementwise chains (False: replay the trace's ops one by one)
PROGRAMS = [True]  # prepared launch programs where the backend has them (autodiff/replay.py)

_OP, _ASSIGN, _HOST, _VIEW = "op", "assign", "host", "view"
_UNPREPARED = object()


class ConcreteFunction:
    """One trace of a `tf.function`, for one input signature; calling it replays.

    Attributes: `name`, `structured_input_signature` (the specs of the traced
    tensor arguments), `structured_outputs`, `num_steps` (steps after fusion), `num_traced_ops` (ops
    recorded before fusion).
    """

    def __init__(self, name, tracer, outputs, specs, bind):
        self.name = name
        self.structured_input_signature = specs
        self._bind = bind               # the call's arguments -> flat list of tensors
        self._num_args = tracer.num_args
        self.num_traced_ops = sum(1 for s in tracer.steps if s[0] == _OP)
        template = [None] * tracer.num_slots
        for slot, value in tracer.captures:
            template[slot] = value
        self._template = template
        self._captured = {slot for slot, _ in tracer.captures}
        self._outputs = outputs
        out_slots = set()
        slots_in(outputs, out_slots)
        self._output_meta = {k: tracer.meta[k] for k in out_slots}
        self._unfused = list(tracer.steps)
        self._steps = self._unfused
        if FUSION[0]:
            rewritten = rewrite(self._unfused, tracer.meta, out_slots, tracer.state_slots)
            template.extend([None] * (max(tracer.meta, default=-1) + 1 - len(template)))
            rewritten = fold_constants(rewritten, tracer.meta, out_slots, tracer.constant,
                                       template, self._captured)
            fusing = (rewritten, tracer.meta, out_slots, tracer.state_slots)
            self._steps = fuse(*fusing)
            for fusion_pass in (fuse_epilogues, fuse_conv_pools, fuse_outputs,
                                fuse_multi_epilogues, fuse_prologues):
                self._steps = fusion_pass(self._steps, *fusing[1:])
        self.num_steps = len(self._steps)
        self._free = _plan_frees(self._steps, out_slots, self._captured, tracer.num_args)
        self._launchers = {}  # backend -> per step: its launcher, None (run_op) or unprepared
        self._out_slots = out_slots
        self._state_slots = tracer.state_slots
        self._programs = {}   # backend -> its Program (autodiff/replay.py), or False

    @property
    def structured_outputs(self):
        """The function's results as traced, each tensor a TensorSpec of its shape and
        dtype (TensorFlow's are the graph's symbolic tensors)."""
        specs = {k: TensorSpec(*meta) if type(meta) is tuple else meta
                 for k, meta in self._output_meta.items()}
        return _fill(self._outputs, specs)

    def __call__(self, *args, **kwargs):
        tensors = self._bind(args, kwargs)
        specs = self.structured_input_signature
        if len(tensors) != len(specs) or any(
                tuple(x.shape) != tuple(spec.shape) or x.dtype != spec.dtype
                for x, spec in zip(tensors, specs)):
            got = [f"{list(x.shape)} {x.dtype}" for x in tensors]
            raise TypeError(f"{self.name}: this concrete function was traced for tensors "
                            f"{[f'{list(s.shape)} {s.dtype}' for s in specs]}, received "
                            f"{got}; call the tf.function itself to trace new shapes")
        return self._replay(tensors)

    def _replay(self, tensors):
        if len(tensors) != self._num_args:
            raise TypeError(f"{self.name}: this concrete function takes {self._num_args} "
                            f"tensors, received {len(tensors)}")
        values = list(self._template)
        values[:self._num_args] = tensors
        # An outer GradientTape needs every op (a fused kernel has no gradient) and every
        # intermediate for its backward pass.
        taped = bool(scopes.recorders())
        backend = context._current[0] or context.current()
        # On WebGL the step is a prepared launch program after its first replay
        program = None if taped else self._programs.get(backend)
        if program:
            if program.valid():
                return self._run_program(program, values, backend)
            self._programs.pop(backend)
        free = None if taped else self._free
        steps = self._unfused if taped else self._steps
        # Untaped, ops go straight to their kernels (engine/run.py `prepare`), made once
        # per backend: no signature key, plan lookup or recorder call per op.
        launchers = None
        if not taped:
            launchers = self._launchers.get(backend)
            if launchers is None:
                launchers = self._launchers[backend] = [_UNPREPARED] * len(steps)
        with self._replaying(backend) as result:
            for i, step in enumerate(steps):
                kind = step[0]
                if kind is _OP:
                    _, op, ins, attrs, outs, view = step
                    inputs = [values[k] for k in ins]
                    if launchers is not None and view is None:
                        launch = launchers[i]
                        if launch is _UNPREPARED:
                            launch = launchers[i] = prepare(op, inputs, attrs, backend)
                        if launch is not None:
                            y = launch(inputs)
                            if len(outs) == 1:
                                values[outs[0]] = y
                            else:
                                for k, v in zip(outs, y):
                                    values[k] = v
                            for k in free[i]:
                                values[k].dispose()
                            continue
                    run_into(values, outs, op, inputs, attrs, view)
                elif kind is _ASSIGN:
                    values[step[1]].assign(values[step[2]])
                elif kind is _VIEW:
                    values[step[3]] = values[step[1]]._view(step[2])
                else:
                    _run_host(step, values)
                if free is not None:
                    for k in free[i]:
                        values[k].dispose()
            result[0] = _fill(self._outputs, values, self._captured)
        if launchers is not None and program is None and PROGRAMS[0] and (
                hasattr(backend, "add_program") or getattr(backend, "host_programs", False)):
            self._prepare_program(backend, launchers)
        return result[0]

    def _prepare_program(self, backend, launchers):
        """After a replay that made every plan: the step as one launch program."""
        if not hasattr(backend, "add_program"):  # numpy: bound steps, bare intermediates
            self._programs[backend] = build_host(self._steps, launchers, self._template,
                                                 self._out_slots, self._state_slots,
                                                 self._free, backend)
            return
        try:
            program = build(self._steps, launchers, self._template, self._out_slots,
                            self._state_slots, self._free, backend)
        except NotPrepared:
            return
        self._programs[backend] = program
        weakref.finalize(program, backend.delete_program, program.pid)

    def _run_program(self, program, values, backend):
        with self._replaying(backend) as result:
            program.run(values, _run_host)
            result[0] = _fill(self._outputs, values, self._captured)
        return result[0]

    def _replaying(self, backend):
        """Where a replay runs (`with ... as result`): its own scope, which hands the
        result (`result[0]`, set by the body) to the caller's and frees the rest, and in
        the browser (WebGPU, WebGL) one list of launches sent to JS per call."""
        return _Replaying(self.name, backend)

    def __repr__(self):
        return (f"<texflow ConcreteFunction {self.name} ({self.num_traced_ops} ops traced, "
                f"{self.num_steps} steps)>")


class _Replaying:
    """`ConcreteFunction._replaying`'s context (a class: a generator-based context manager
    costs a replayed step ~10 us more in Pyodide)."""

    __slots__ = ("scope", "backend", "result")

    def __init__(self, name, backend):
        self.scope = scopes.Scope(name)
        self.backend = backend if hasattr(backend, "begin_batch") else None
        self.result = [None]

    def __enter__(self):
        self.scope.__enter__()
        if self.backend is not None:
            self.backend.begin_batch()
        return self.result

    def __exit__(self, *exc):
        try:
            if self.backend is not None:
                self.backend.end_batch()
        finally:
            self.scope.end(self.result[0])
        return False


def _run_host(step, values):
    _, fn, args, kwargs, outs = step
    result = fn(*_fill(args, values), **_fill(kwargs, values))
    flat = []
    flatten_arrays(result, flat)
    for k, y in zip(outs, flat):
        values[k] = y


def _plan_frees(steps, out_slots, captured, num_args):
    """Per step, the op-output slots whose value is used for the last time there."""
    last = {}
    made = []
    for i, step in enumerate(steps):
        for k in step_reads(step):
            last[k] = i
        if step[0] is _OP:
            made.extend((k, i) for k in step[4])
    free = [[] for _ in steps]
    for k, i in made:
        if k in out_slots or k in captured or k < num_args:
            continue
        free[max(last.get(k, i), i)].append(k)
    return free


def _fill(value, values, fresh=()):
    """`value` with Slots replaced by their values (a new view for a captured one, so
    that the caller may dispose what it gets)."""
    t = type(value)  # the common cases first: host code's arguments, at every replay
    if t is Slot:
        x = values[value.index]
        return x._view(x.shape) if value.index in fresh else x
    if t is tuple or t is list:
        return t([_fill(v, values, fresh) for v in value])
    if t is dict and not value:
        return {}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_fill(v, values, fresh) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_fill(v, values, fresh) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, values, fresh) for k, v in value.items()}
    return value
