"""A replayed step on the numpy backend as one prepared list: `build_host`, `HostProgram`.

The numpy backend's data are numpy arrays and its kernels numpy functions, so a
replay's cost outside the kernels is Python: per launch an NDArray, a Storage, the
memory counters, scope tracking and a dispose, an input list, a flat reshape. After
a trace's first untaped replay (every launcher prepared, engine/run.py `prepare`),
`build_host` binds every step once:

- a value made and used only by kernels is kept as the bare numpy array the kernel
  returned (in its dtype and shape, contiguous, as eager execution stores it), read by
  the next kernels directly and dropped at its last use: no NDArray;
- a value Python must see as an array (the step's outputs, values assigned to
  Variables, arguments of host code, inputs of an op Python runs, views of those) is
  an NDArray made at the launch that computes it, tracked by the replay's scope, as
  eagerly;
- each kernel's inputs are bound as (bare value | NDArray read at the call | Python
  scalar of the trace), its attrs and output shapes once; a kernel that offers
  `prepared(attrs)` (the fused kernels) is planned for its one signature.

The kernels called are the ones eager execution calls, on the same arrays, so results
are the same bits. The arrays are never written after they are made (no kernel
writes into its inputs), so a bare value that views another array's data is safe.
"""

import numpy as np

from .. import dtypes
from ..backends.numpy import Call
from ..engine import scope as scopes
from ..engine.ndarray import Storage
from ..engine.run import run_into
from ..engine.trace import python_slots, step_reads
from .replay import _moved

_SCALARS = (float, int, bool)
_KERNEL, _PY, _BARE_VIEW, _PY_VIEW, _ASSIGN, _HOST = range(6)


class HostProgram:
    """One trace's prepared replay on the numpy backend (see the module docstring)."""

    def __init__(self, backend, events):
        self.backend = backend
        self.events = events

    def valid(self):
        return True

    def run(self, values, run_host):
        be = self.backend
        stack = scopes._local.stack
        tracked = stack[-1].tracked if stack else None
        for event in self.events:
            kind = event[0]
            if kind is _KERNEL:
                _, fn, k, attrs, args, bare_in, nd_in, outs, joint, bare_free, nd_free = event
                args = args.copy()  # the trace's Python scalars in place
                for p, k in bare_in:
                    args[p] = values[k]
                for p, k, dims in nd_in:
                    storage = values[k]._storage
                    if storage is None or storage.backend is not be:
                        storage = _moved(values[k], be)
                    args[p] = storage.handle.reshape(dims)
                result = be.call(fn, k, args, attrs)
                if joint:
                    for out, r in zip(outs, result):
                        _store(values, out, r, be, tracked)
                else:
                    _store(values, outs[0], result, be, tracked)
                for k in bare_free:
                    values[k] = None
                for k in nd_free:
                    values[k].dispose()
                continue
            if kind is _BARE_VIEW:
                values[event[2]] = values[event[1]].reshape(event[3])
            elif kind is _ASSIGN:
                values[event[1]].assign(values[event[2]])
            elif kind is _PY_VIEW:
                values[event[2]] = values[event[1]]._view(event[3])
            elif kind is _HOST:
                run_host(event[1], values)
            else:  # an op Python runs through run_op (host-only ops, several outputs)
                _, op, ins, attrs, outs, view = event[1]
                run_into(values, outs, op, [values[k] for k in ins], attrs, view)
            bare_free, nd_free = event[-2], event[-1]
            for k in bare_free:
                values[k] = None
            for k in nd_free:
                values[k].dispose()


def _store(values, out, r, be, tracked):
    """Kernel result `r` in slot `out[0]`, in its dtype, shape and layout as eager execution
    stores it: bare, or as an NDArray (tracked by the replay's scope) when `out[3]`."""
    k, dims, np_dtype, wrap = out
    if type(r) is not np.ndarray or r.dtype != np_dtype:
        r = np.asarray(r).astype(np_dtype, copy=False)
    if r.shape != dims:
        r = np.broadcast_to(r, dims)
    if not r.flags.c_contiguous:
        r = np.ascontiguousarray(r)
    if wrap is None:
        values[k] = r
    else:
        cls, shape, dtype, size = wrap
        y = values[k] = cls(Storage(size, dtype, None, be, r.reshape(-1)), shape, dtype)
        if tracked is not None:
            tracked.append(y)


def _input_dims(key, n):
    """Per input of a prepared launcher's signature `key` (`n` inputs): its dims, or None
    for a Python scalar."""
    dims, i = [], 1
    for _ in range(n):
        if key[i] in _SCALARS:
            dims.append(None)
            i += 1
        else:  # shape, dtype
            dims.append(tuple(key[i]))
            i += 2
    return dims


def build_host(steps, launchers, template, out_slots, state_slots, free, backend):
    """The HostProgram of `steps` (fused, untaped) on the numpy `backend`, from the
    `launchers` the first replay prepared."""
    scalar = [type(v) in _SCALARS for v in template]

    def is_scalar(k):
        return k < len(scalar) and scalar[k]

    read_slots = set(out_slots)
    for step in steps:
        read_slots.update(step_reads(step))
    kinds = []
    for i, step in enumerate(steps):
        kind = step[0]
        if kind == "view":
            kinds.append("dead" if step[3] not in read_slots else "alias")
        elif kind == "op":
            launch = launchers[i]
            if step[5] is not None:
                kinds.append("alias")
            elif launch is None or not hasattr(launch, "key") or step[1].num_outputs not in (
                    1, None):
                kinds.append("py")
            else:
                kinds.append("kernel")
        else:
            kinds.append(kind)
    need = python_slots(steps, kinds, out_slots, is_scalar)
    for i in range(len(steps) - 1, -1, -1):  # a view Python needs needs its source
        if kinds[i] == "alias":
            src, out = _alias(steps[i])
            if out in need or src in state_slots:
                need.add(src)
    bare = set()
    for i, step in enumerate(steps):
        if kinds[i] == "kernel":
            bare.update(k for k in step[4] if k not in need)
        elif kinds[i] == "alias":
            src, out = _alias(step)
            if src in bare and out not in need:
                bare.add(out)
            else:
                kinds[i] = "pyview"
                need.add(src)
    events = []
    for i, step in enumerate(steps):
        kind = kinds[i]
        frees = (tuple(k for k in free[i] if k in bare),
                 tuple(k for k in free[i] if k not in bare))
        if kind == "kernel":
            _, op, ins, attrs, outs, _ = step
            launch = launchers[i]
            args, bare_in, nd_in = [], [], []
            for p, (k, dims) in enumerate(zip(ins, _input_dims(launch.key, len(ins)))):
                args.append(template[k] if is_scalar(k) else None)
                if k in bare:
                    bare_in.append((p, k))
                elif not is_scalar(k):
                    nd_in.append((p, k, dims))
            made, made_outs = [], []
            for k, (shape, dtype, size, cls, dims) in zip(outs, launch.plan.outputs):
                wrap = None if k in bare else (cls, shape, dtype, size)
                made.append((k, dims, np.dtype(dtypes.NUMPY[dtype]), wrap))
                made_outs.append((dims, dtype))
            context = Call(*made_outs[0], tuple(made_outs) if len(made_outs) > 1 else None)
            fn, attrs = launch.fn, dict(attrs or {})
            prepared = getattr(fn, "prepared", None)  # a kernel planned for one signature
            if prepared is not None:
                fn, attrs = prepared(attrs), {}
            events.append((_KERNEL, fn, context, attrs, args, tuple(bare_in), tuple(nd_in),
                           tuple(made), op.num_outputs is None) + frees)
        elif kind == "dead":
            continue
        elif kind == "alias":
            src, out = _alias(step)
            events.append((_BARE_VIEW, src, out, tuple(_view_shape(step))) + frees)
        elif kind == "pyview":
            if step[0] == "op":
                events.append((_PY, step) + frees)
            else:
                events.append((_PY_VIEW, step[1], step[3], step[2]) + frees)
        elif kind == "assign":
            events.append((_ASSIGN, step[1], step[2]) + frees)
        elif kind == "host":
            events.append((_HOST, step) + frees)
        else:
            events.append((_PY, step) + frees)
    return HostProgram(backend, events)


def _alias(step):
    """(source slot, output slot) of a view step or a view op."""
    return (step[2][0], step[4][0]) if step[0] == "op" else (step[1], step[3])


def _view_shape(step):
    return step[5] if step[0] == "op" else step[2]
