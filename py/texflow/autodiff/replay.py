"""A replayed step as one prepared launch program (WebGL, WebGPU): `build`, `Program.run`.

After a trace's first untaped replay on a backend that offers it (`add_program`),
every kernel launch of the step is known: its backend plan, which textures or
buffers it reads and writes, its scalar operands. `build` turns the fused steps into
a program of launches over numbered registers, stored once in JavaScript:

- a value made and used only by kernels gets an arena register; registers whose
  lives do not overlap share a texture or buffer (first fit per pool key); the
  arena is taken from the pool at the first replay and parked with the program
  between replays (backends/parking.py), so JS keeps those registers;
- a value Python needs as an array (the step's outputs, values assigned to
  Variables, arguments of host code) gets a pool texture or buffer of its own at
  the launch that makes it, wrapped as an NDArray as eager execution would; one
  Python needs only to assign to a Variable (an optimizer's update) goes straight
  into the Variable's storage when nothing else shares it ("install": no NDArray,
  Storage or `assign` per update; the storage's old texture goes back to the pool);
- arguments, captured arrays, Variables and host results are read into external
  registers by id when the replay reaches them.

A replay then walks a short list of events in Python: per segment of launches
it sends the ids of its external registers and "run launches a..b"; between
segments it runs host code (random draws, Keras's step scalars) and anything that
could not be prepared (host-only ops, views Python must see); after a segment it
does the segment's Variable assignments and frees. Everything goes into the
backend's batch, so a step reaches JavaScript in one call (small host uploads
ride along; a read sends what is pending first).

What a backend provides: `program_plan(key)` (the plan made for an engine key, or
None), `plan_buffers(plan, n_outputs)` (pool keys of its outputs and temporaries),
`plan_launches(plan, in_regs, scalars, out_regs, scratch_regs)` (its launch records
over registers), `add_program(records, number, n_registers)` (stores them in JS;
returns the id and each record's position there), `delete_program(id)`,
`program_pool` (acquire/release by pool key, park/unpark), `plan_generation` and
`_batch` (the pending launch list: -2 sets registers, -1 runs launches).
"""

from ..engine import memory
from ..engine import scope as scopes
from ..engine.ndarray import Storage
from ..engine.run import run_into
from ..engine.trace import python_slots, step_reads
from .variable import Variable

_SCALARS = (float, int, bool)


class NotPrepared(Exception):
    """A step whose kernels are not planned yet (the caller replays the usual way)."""


class Program:
    """One trace's launch program on one backend (see the module docstring)."""

    def __init__(self, backend, pid, arena_keys, events, generation):
        self.backend = backend
        self.pid = pid
        self.arena_keys = arena_keys
        self.events = events
        self.generation = generation

    def valid(self):
        return self.generation == self.backend.plan_generation

    def run(self, values, run_host):
        be = self.backend
        pool = be.program_pool
        pid = self.pid
        stack = scopes._local.stack
        tracked = stack[-1].tracked if stack else None
        # The arena stays with the program between replays ("parked", counted as pooled),
        # so JS keeps its registers and bind groups; the pool takes it back when it
        # would otherwise allocate (a miss), so it never holds memory others need.
        arena = pool.unpark(pid)
        if arena is None:
            arena = [pool.acquire(k) for k in self.arena_keys]
            sets = [-2, pid, len(arena)]
            for p, h in enumerate(arena):
                sets += (p, h if type(h) is int else h.id)
            be._batch += sets
        try:
            for event in self.events:
                kind = event[0]
                if kind == "seg":
                    _, reads, made, start, end, launches, post = event
                    sets = []
                    for reg, slot in reads:
                        storage = values[slot]._storage
                        if storage is None or storage.backend is not be:
                            storage = _moved(values[slot], be)
                        h = storage.handle
                        sets += (reg, h if type(h) is int else h.id)
                    for m in made:  # [reg, slot, key, cls, shape, dtype, size, last, before]
                        # the handle this value had two replays ago, if free: a Variable's
                        # new value then alternates between two buffers, whose bind
                        # groups WebGPU keeps
                        h = pool.acquire_as(m[2], m[8])
                        m[8] = m[7]
                        m[7] = h
                        if m[3] is None:  # to install in a Variable (the segment's post)
                            values[m[1]] = h
                        else:
                            y = values[m[1]] = m[3](Storage(m[6], m[5], None, be, h), m[4],
                                                    m[5])
                            if tracked is not None:
                                tracked.append(y)
                        sets += (m[0], h if type(h) is int else h.id)
                    be._batch += (-2, pid, len(sets) >> 1, *sets, -1, pid, start, end)
                    memory._state["num_launches"] += launches
                    _post(post, values, be)
                elif kind == "host":
                    run_host(event[1], values)
                    _post(event[2], values)
                elif kind == "pyview":
                    values[event[3]] = values[event[1]]._view(event[2])
                    _post(event[4], values)
                else:  # "py": an op Python runs (host-only ops, views it must see)
                    _, op, ins, attrs, outs, view, post = event
                    inputs = [values[k] for k in ins]
                    run_into(values, outs, op, inputs, attrs, view)
                    _post(post, values)
        finally:
            pool.park(pid, arena)


def _moved(x, backend):
    storage = x._storage
    if storage is None:
        from ..errors import DisposedError
        raise DisposedError(f"an input of the replayed step (shape {list(x.shape)}, "
                            f"{x.dtype}) was disposed")
    storage.move_to(backend)
    return storage


def _post(post, values, be=None):
    for kind, a, b in post:
        if kind == "assign":
            values[a].assign(values[b])
        elif kind == "install":
            _install(values[a], values, b, be)
        else:
            values[a].dispose()


def _install(var, values, made, be):
    """Assigns the texture or buffer `values[slot]` (a handle, `made` = (slot, cls,
    shape, dtype, size)) to Variable `var`: in its storage when nothing else shares it
    (any earlier read of it holds its own reference), else as an assign would."""
    slot, cls, shape, dtype, size = made
    h = values[slot]
    values[slot] = None
    storage = var._storage
    if (storage is not None and storage.refs == 1 and storage.backend is be
            and type(var).assign is _ASSIGN):
        old = storage.handle
        storage.handle = h
        storage.values = None  # the host copy of the old value
        be.free(old)
        return
    y = cls(Storage(size, dtype, None, be, h), shape, dtype)
    var.assign(y)
    y.dispose()


_ASSIGN = Variable.assign


def build(steps, launchers, template, out_slots, state_slots, free, backend):
    """The Program of `steps` (fused, untaped) on `backend`, whose `launchers` (from the
    first replay: engine/run.py `prepare`) name each op's plan. Raises NotPrepared
    when a kernel's plan is not made yet."""
    scalar = [type(v) in _SCALARS for v in template]

    def is_scalar(k):
        return k < len(scalar) and scalar[k]

    root, gpu_made = {}, set()
    kinds = []
    read_slots = set(out_slots)
    for step in steps:
        read_slots.update(step_reads(step))
    for i, step in enumerate(steps):
        kind = step[0]
        if kind == "view" and step[3] not in read_slots:
            kinds.append("dead")  # a Variable's old value kept for readers: there are none
        elif kind == "op":
            launch = launchers[i]
            if step[5] is not None:
                kinds.append("alias")
                root[step[4][0]] = root.get(step[2][0], step[2][0])
            elif launch is None or not hasattr(launch, "key"):
                kinds.append("py")
            else:
                kinds.append("gpu")
                gpu_made.update(step[4])
        elif kind == "view":
            kinds.append("alias")
            root[step[3]] = root.get(step[1], step[1])
        else:
            kinds.append(kind)
    need = python_slots(steps, kinds, out_slots, is_scalar)
    # an alias Python needs, or one of a Variable (whose value changes), is made in Python
    for i in range(len(steps) - 1, -1, -1):
        if kinds[i] == "alias":
            step = steps[i]
            src, out = (step[2][0], step[4][0]) if step[0] == "op" else (step[1], step[3])
            if out in need or src in state_slots or root.get(src, src) in state_slots:
                kinds[i] = "py" if step[0] == "op" else "pyview"
                need.add(src)
                root.pop(out, None)
    for i, step in enumerate(steps):  # roots again, without the Python-made aliases
        if kinds[i] == "alias":
            src, out = (step[2][0], step[4][0]) if step[0] == "op" else (step[1], step[3])
            root[out] = root.get(src, src)

    def R(k):
        return root.get(k, k)

    escaping = {k for k in need if k in gpu_made}
    install = _installs(steps, kinds, out_slots, is_scalar, gpu_made, state_slots)
    # -- registers and segments -------------------------------------------------------------
    vregs = []            # arena registers: [key, first step, last step]
    arena_of = {}         # slot -> arena register
    ext_of = {}           # slot -> external register
    var_reg = {}          # Variable slot -> register of its current value
    num_ext = [0]
    records = []          # [(js plan id, outs, ins, s0, s1)] with symbolic registers
    events = []
    seg = None

    def new_ext():
        num_ext[0] += 1
        return ("e", num_ext[0] - 1)

    def open_seg():
        nonlocal seg
        if seg is None:
            seg = {"reads": [], "made": [], "start": len(records), "post": [], "n": 0}
        return seg

    def close_seg():
        nonlocal seg
        if seg is not None:
            events.append(seg)
            seg = None

    def read(k, i):
        """The register holding slot `k`'s value when step `i` reads it."""
        if k in state_slots:
            reg = var_reg.get(k)
            if reg is None:
                reg = var_reg[k] = new_ext()
                open_seg()["reads"].append((reg, k))
            return reg
        r = R(k)
        if r in arena_of:
            v = arena_of[r]
            vregs[v][2] = max(vregs[v][2], i)
            return ("a", v)
        reg = ext_of.get(r)
        if reg is None:
            reg = ext_of[r] = new_ext()
            open_seg()["reads"].append((reg, r))
        return reg

    def dispose_after(i, post):
        for k in free[i]:
            if kinds_of_slot.get(k) == "python":
                post.append(("dispose", k, None))

    kinds_of_slot = {}
    for i, step in enumerate(steps):
        kind = kinds[i]
        if kind == "gpu":
            _, op, ins, attrs, outs, _ = step
            launch = launchers[i]
            in_regs = [None if is_scalar(k) else read(k, i) for k in ins]
            scalars = [template[k] if is_scalar(k) else None for k in ins]
            s = open_seg()
            for plan, made in _kernel_plans(backend, op, launch, outs):
                out_keys, scratch_keys = backend.plan_buffers(plan, len(made))
                out_regs = []
                for j, key in zip(made, out_keys):
                    o = outs[j]
                    if o in escaping:
                        reg = ext_of[o] = new_ext()
                        shape, dtype, size, cls, _ = launch.plan.outputs[j]
                        if o in install:
                            install[o] = (o, cls, shape, dtype, size)
                            cls = None
                        s["made"].append((reg, o, key, cls, shape, dtype, size))
                        kinds_of_slot[o] = "python" if cls is not None else "install"
                    else:
                        vregs.append([key, i, i])
                        arena_of[o] = len(vregs) - 1
                        reg = ("a", len(vregs) - 1)
                    out_regs.append(reg)
                temps = []
                for key in scratch_keys:
                    vregs.append([key, i, i])
                    temps.append(("a", len(vregs) - 1))
                launches = backend.plan_launches(plan, in_regs, scalars, out_regs, temps)
                records.extend(launches)
                s["n"] += len(launches)
            dispose_after(i, s["post"])
        elif kind == "alias" or kind == "dead":
            pass  # shares its source's register, or is never read
        elif kind == "assign":
            var, value = step[1], step[2]
            var_reg[var] = read(value, i)
            post = open_seg()["post"]
            if install.get(value):
                post.append(("install", var, install[value]))
            else:
                post.append(("assign", var, value))
            dispose_after(i, post)
        else:  # host code, an op Python runs, a view of a Variable: ends the segment
            close_seg()
            var_reg = {}  # host code may assign Variables
            post = []
            if kind == "host":
                events.append(("host", step, post))
                outs = step[4]
            elif kind == "pyview":
                events.append(("pyview", step[1], step[2], step[3], post))
                outs = (step[3],)
            else:
                _, op, ins, attrs, outs, view = step
                events.append(("py", op, ins, attrs, outs, view, post))
            for o in outs:
                kinds_of_slot[o] = "python"
            dispose_after(i, post)
    close_seg()
    # -- arena: registers whose lives do not overlap share a texture --------------------
    by_first, by_last = {}, {}
    for v, (key, first, last) in enumerate(vregs):
        by_first.setdefault(first, []).append(v)
        by_last.setdefault(last, []).append(v)
    physical, arena_keys, spare = {}, [], {}
    for i in range(len(steps)):
        for v in by_first.get(i, ()):
            key = vregs[v][0]
            pool = spare.get(key)
            if pool:
                physical[v] = pool.pop()
            else:
                physical[v] = len(arena_keys)
                arena_keys.append(key)
        for v in by_last.get(i, ()):
            spare.setdefault(vregs[v][0], []).append(physical[v])
    base = len(arena_keys)

    def number(reg):
        return physical[reg[1]] if reg[0] == "a" else base + reg[1]

    pid, offsets = backend.add_program(records, number, base + num_ext[0])
    final = []
    for event in events:
        if type(event) is dict:
            reads = [(number(reg), slot) for reg, slot in event["reads"]]
            made = [[number(m[0]), *m[1:], None, None] for m in event["made"]]
            start, end = offsets[event["start"]], offsets[event["start"] + event["n"]]
            final.append(("seg", reads, made, start, end, event["n"], event["post"]))
        else:
            final.append(event)
    return Program(backend, pid, arena_keys, final, backend.plan_generation)


def _installs(steps, kinds, out_slots, is_scalar, gpu_made, state_slots):
    """{slot: None} of the values a kernel makes that Python needs only to assign to a
    Variable, the one assign of its value and of that Variable in the step."""
    others = python_slots(steps, ["-" if k == "assign" else k for k in kinds], out_slots,
                          is_scalar)
    values, variables = {}, {}
    for step, kind in zip(steps, kinds):
        if kind == "pyview":
            others.add(step[1])
        elif kind == "assign":
            values[step[2]] = values.get(step[2], 0) + 1
            variables[step[1]] = variables.get(step[1], 0) + 1
    return {value: None for step, kind in zip(steps, kinds) if kind == "assign"
            for value in (step[2],)
            if value in gpu_made and value not in others and value not in state_slots
            and values[value] == 1 and variables[step[1]] == 1}


def _kernel_plans(backend, op, launch, outs):
    """[(a backend plan, the indices of the outputs it makes)] for one op's launch."""
    key = launch.key
    if op.num_outputs == 1 or op.num_outputs is None:
        plan = backend.program_plan(key)
        if plan is None:
            raise NotPrepared(op.name)
        return [(plan, range(len(outs)))]
    result = []
    for k in range(len(outs)):
        plan = backend.program_plan((key, k))
        if plan is None:
            raise NotPrepared(op.name)
        result.append((plan, (k,)))
    return result
