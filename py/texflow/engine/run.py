"""Running one op: validate -> shape/dtype -> make inputs resident -> kernel -> record.

This is the hot path of every op, kept short: the shape/dtype rule's answer
is cached per (op, input signature, attrs) together with everything else
derived from it, so a repeated op costs one signature tuple, one dict lookup,
the kernel call and the bookkeeping of its output. After a signature's first run
on a device backend, its plan also keeps a launcher (`_Plan.fast`): a closure the
backend made for that signature's kernel plan (`Backend.launcher`), called with
the inputs, with no second lookup of the key, so that issuing a tiny op from
Pyodide costs little more than its one call into JavaScript.
"""

import numpy as np

from .. import dtypes
from ..errors import DisposedError, TexflowError
from ..tensor_shape import known
from . import context, scope
from .ndarray import NDArray, Storage, from_numpy, to_numpy, view_class

_SCALARS = (float, int, bool)
_EMPTY = {}
_plans = {}
_PLAN_CACHE_LIMIT = 20000


class _Plan:
    """What an op signature resolves to: output shapes, dtypes, sizes and classes."""

    __slots__ = ("outputs", "host", "fast")

    def __init__(self, op, inputs, meta):
        metas = [meta] if op.num_outputs == 1 else list(meta)
        self.outputs = []
        empty_input = any(type(x) not in _SCALARS and x.size == 0 for x in inputs)
        host = op.host_only or empty_input
        for shape, dtype in metas:
            size = 1
            for d in shape:
                size *= d
            host = host or size == 0
            # Built once per plan: every output of this signature shares these objects.
            # Backends get the plain tuple (numpy converts tuple subclasses slowly).
            self.outputs.append((known(shape), dtypes.device_dtype(dtype), size,
                                 view_class(len(shape)), tuple(shape)))
        self.host = host
        # (backend, its plan_generation, launch(inputs) -> output) once made: _fast_path
        self.fast = None


def _convert(op, inputs):
    """Inputs with lists/numpy converted to temporary NDArrays (and the temporaries)."""
    inputs = list(inputs)
    temps = []
    for i, x in enumerate(inputs):
        if type(x) in _SCALARS:
            continue
        if isinstance(x, NDArray):
            if x._storage is None:
                raise DisposedError(f"input {i} of {op.name!r} (shape {list(x.shape)}, "
                                    f"{x.dtype}) was disposed")
        elif isinstance(x, np.generic):
            inputs[i] = x.item()
        elif isinstance(x, (list, tuple, np.ndarray)):
            inputs[i] = from_numpy(to_numpy(x))
            temps.append(inputs[i])
        else:
            raise TypeError(f"{op.name}: input {i} must be an NDArray, a number, a list or a "
                            f"numpy array, received {type(x).__name__}: {x!r:.80}")
    return inputs, temps


def run_op(op, inputs, attrs=None, backend=None):
    """Runs `op` on `inputs` with `attrs`; returns its output NDArray (or a tuple)."""
    if attrs is None:
        attrs = _EMPTY
    key = [op]
    for x in inputs:
        if isinstance(x, NDArray) and x._storage is not None:
            key.append(x.shape)
            key.append(x.dtype)
        elif type(x) in _SCALARS:
            key.append(type(x))
        else:  # lists, numpy data, numpy scalars, a disposed array or an error to raise
            inputs, temps = _convert(op, inputs)
            return _run_with_temps(op, inputs, temps, attrs, backend)
    if attrs:
        key.append(tuple(attrs.values()))
    key = tuple(key)
    plan = _plans.get(key)
    if plan is None:
        plan = _plan(key, op, inputs, attrs)
    be = backend if backend is not None else (context._current[0] or context.current())
    fast = plan.fast
    if fast is not None and fast[0] is be and fast[2] is not None and \
            fast[1] == be.plan_generation:
        result = fast[2](inputs)
        local = scope._local
        stack = local.stack
        if stack:
            stack[-1].tracked.append(result)
    else:
        result = _run_planned(op, inputs, attrs, key, plan, be)
        local = scope._local
    if local.recorders:
        for record in local.recorders:
            record(op, inputs, attrs, result)
    return result


def _run_planned(op, inputs, attrs, key, plan, be):
    """run_op's general path (the first run of a signature on `be`, host-run signatures,
    ops of several outputs, backends without launchers): its output(s), tracked."""
    if plan.host:
        outputs = [_run_on_host(op, inputs, out, attrs, k if op.num_outputs != 1 else None)
                   for k, out in enumerate(plan.outputs)]
    else:
        for x in inputs:
            if type(x) not in _SCALARS:
                storage = x._storage
                if storage.backend is not be:
                    storage.move_to(be)
        fn = be.kernels.get(op.name) or be.find_kernel(op.name)
        if op.num_outputs is None:  # one kernel call makes every output
            handles = be.execute_joint(fn, inputs, [(o[4], o[1]) for o in plan.outputs],
                                       attrs, key)
            outputs = [cls(Storage(size, dtype, None, be, handle), shape, dtype)
                       for (shape, dtype, size, cls, _), handle in zip(plan.outputs, handles)]
        else:
            outputs = []
            for k, (shape, dtype, size, cls, dims) in enumerate(plan.outputs):
                if op.num_outputs == 1:
                    handle = be.execute(fn, inputs, dims, dtype, attrs, key)
                else:
                    handle = be.execute(fn, inputs, dims, dtype, dict(attrs, output_index=k),
                                        (key, k))
                outputs.append(cls(Storage(size, dtype, None, be, handle), shape, dtype))
            fast = plan.fast
            if op.num_outputs == 1 and (fast is None or fast[0] is not be or
                                        fast[1] != be.plan_generation):
                plan.fast = _fast_path(plan, inputs, attrs, key, fn, be)
    stack = scope._local.stack
    if stack:
        stack[-1].tracked.extend(outputs)
    return outputs[0] if op.num_outputs == 1 else tuple(outputs)


def _fast_path(plan, inputs, attrs, key, fn, be):
    """`plan.fast` for a single-output signature just run on backend `be`: (be, its plan
    generation, launch(inputs) -> the untracked output NDArray, or None when `be` makes
    no launcher for it: Backend.launcher)."""
    (shape, dtype, size, cls, dims), = plan.outputs
    device = be.launcher(fn, inputs, dims, dtype, attrs, key)
    if device is None:
        return be, be.plan_generation, None
    arrays = tuple(i for i, x in enumerate(inputs) if type(x) not in _SCALARS)

    def launch(inputs):
        for i in arrays:
            storage = inputs[i]._storage
            if storage.backend is not be:
                storage.move_to(be)
        return cls(Storage(size, dtype, None, be, device(inputs)), shape, dtype)
    return be, be.plan_generation, launch


def _plan(key, op, inputs, attrs):
    plan = _Plan(op, inputs, op.infer(inputs, attrs))
    if len(_plans) >= _PLAN_CACHE_LIMIT:
        _plans.clear()
    _plans[key] = plan
    return plan


def _run_with_temps(op, inputs, temps, attrs, backend):
    try:
        return run_op(op, inputs, attrs, backend)
    finally:
        for t in temps:
            t.dispose()


def _run_on_host(op, inputs, out, attrs, output_index):
    """Computes an op with its numpy kernel on host copies (size-0 cases, host-only ops)."""
    shape, dtype, size, cls, dims = out
    host = context.backend_instance("numpy")
    args = [x if type(x) in _SCALARS else x._storage.host_values().reshape(tuple(x.shape))
            for x in inputs]
    if output_index is not None:
        attrs = dict(attrs, output_index=output_index)
    values = host.compute(host.find_kernel(op.name), args, dims, dtype, attrs)
    if values.size != size:
        raise TexflowError(f"numpy kernel of {op.name!r} returned {values.size} values "
                           f"for output shape {list(shape)}")
    return cls(Storage(size, dtype, values), shape, dtype)


def run_view(op, x, shape, attrs=None):
    """Runs an op whose output shares `x`'s storage with a new shape (no copy)."""
    if not isinstance(x, NDArray):
        x = from_numpy(to_numpy(x))
    storage = x._storage
    if storage is None:
        raise DisposedError(f"the input of {op.name!r} (shape {list(x.shape)}, {x.dtype}) "
                            "was disposed")
    out = scope.track_new(view_class(len(shape))(storage, shape, x.dtype))
    recorders = scope.recorders()
    if recorders:
        for record in recorders:
            record(op, (x,), attrs or {}, out)
    return out


def run_into(values, outs, op, inputs, attrs, view):
    """Runs one traced step (a view when `view` is its shape) and stores its output(s)
    in `values` at the slots `outs` (a replay's slot list, autodiff/compiled.py)."""
    if view is not None:
        values[outs[0]] = run_view(op, inputs[0], view, attrs)
    elif len(outs) == 1:
        values[outs[0]] = run_op(op, inputs, attrs or None)
    else:
        for k, y in zip(outs, run_op(op, inputs, attrs or None)):
            values[k] = y


def prepare(op, inputs, attrs, backend):
    """What `run_op(op, inputs, attrs)` does on `backend` for this exact signature, made
    once for a replayed trace (autodiff/compiled.py): returns `launch(inputs)` giving
    the output(s) with no signature key, plan lookup or recorder call, or None when
    the signature runs on the host (size 0, host-only ops; run_op then). Inputs must be
    NDArrays and Python scalars of the same shapes, dtypes and scalar types."""
    if attrs is None:
        attrs = _EMPTY
    key = [op]
    for x in inputs:
        t = type(x)
        if t in _SCALARS:
            key.append(t)
        elif isinstance(x, NDArray):
            key.append(x.shape)
            key.append(x.dtype)
        else:
            return None
    if attrs:
        key.append(tuple(attrs.values()))
    key = tuple(key)
    plan = _plans.get(key) or _plan(key, op, inputs, attrs)
    if plan.host:
        return None
    fn = backend.kernels.get(op.name) or backend.find_kernel(op.name)
    execute = backend.execute
    arrays = [i for i, x in enumerate(inputs) if type(x) not in _SCALARS]
    local = scope._local
    def resident(inputs):
        for i in arrays:
            storage = inputs[i]._storage
            if storage is None or storage.backend is not backend:
                if storage is None:
                    raise DisposedError(f"input {i} of {op.name!r} (shape "
                                        f"{list(inputs[i].shape)}) was disposed")
                storage.move_to(backend)

    if op.num_outputs is None:  # one kernel call makes every output
        outputs = plan.outputs
        outs = [(o[4], o[1]) for o in outputs]

        def launch_joint(inputs):
            resident(inputs)
            handles = backend.execute_joint(fn, inputs, outs, attrs, key)
            made = tuple(cls(Storage(size, dtype, None, backend, handle), shape, dtype)
                         for (shape, dtype, size, cls, _), handle in zip(outputs, handles))
            stack = local.stack
            if stack:
                stack[-1].tracked.extend(made)
            return made
        # for a launch program (autodiff/replay.py, replay_host.py)
        launch_joint.key, launch_joint.plan, launch_joint.fn = key, plan, fn
        return launch_joint
    if op.num_outputs != 1:
        def launch_all(inputs):
            return run_op(op, inputs, attrs, backend)
        launch_all.key, launch_all.plan = key, plan  # for a launch program
        return launch_all
    (shape, dtype, size, cls, dims), = plan.outputs

    def launch(inputs):
        resident(inputs)
        out = cls(Storage(size, dtype, None, backend,
                          execute(fn, inputs, dims, dtype, attrs, key)), shape, dtype)
        stack = local.stack
        if stack:
            stack[-1].tracked.append(out)
        return out
    launch.key, launch.plan, launch.fn = key, plan, fn  # for a launch program
    return launch
