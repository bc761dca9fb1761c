"""The numpy kernels of `fused_elementwise` and `fused_elementwise_multi`: the program
evaluated node by node, each node's value in its op's dtype as a separate launch would
store it.

A program is planned once per signature of its inputs (shapes, dtypes, scalar types):
a node whose op is one of `_UFUNCS` and whose operands are float32 arrays (a bool mask
for mul), int or float scalars becomes that ufunc writing with `out=` into a buffer
the kernel allocated itself: a dead node's (in place, once nothing else reads it),
or a new one. These are the calls the ops' registry kernels make on such operands,
so the values are the same bits; the ufunc writes into memory it already has instead
of new memory per node. Any other node runs its registry kernel, and its value's
buffer is never reused (a kernel may return a view of its operand). Inputs are never
written. (Measured: evaluating in cache-sized blocks did not beat this on the 8-op
chain, so there is none.)
"""

import numpy as np

from ... import dtypes
from ..base import kernel, kernels_for

_F32, _BOOL = np.dtype(np.float32), np.dtype(np.bool_)
_PLAN_LIMIT = 4096
_plans = {}


def _relu(x, out):
    return np.maximum(x, _F32.type(0), out=out)


def _square(x, out):
    return np.multiply(x, x, out=out)


# op name -> (numpy call writing into `out`, its result dtype on float32 operands): what
# the op's registry kernel (backends/numpy/elementwise.py) computes on such operands
_UFUNCS = {
    "add": (np.add, _F32), "sub": (np.subtract, _F32), "mul": (np.multiply, _F32),
    "div": (np.divide, _F32), "maximum": (np.maximum, _F32), "minimum": (np.minimum, _F32),
    "neg": (np.negative, _F32), "abs": (np.absolute, _F32), "relu": (_relu, _F32),
    "square": (_square, _F32), "sqrt": (np.sqrt, _F32), "exp": (np.exp, _F32),
    "log": (np.log, _F32), "tanh": (np.tanh, _F32),
    "equal": (np.equal, _BOOL), "not_equal": (np.not_equal, _BOOL),
    "less": (np.less, _BOOL), "less_equal": (np.less_equal, _BOOL),
    "greater": (np.greater, _BOOL), "greater_equal": (np.greater_equal, _BOOL),
}


def _signature(args):
    return tuple((a.shape, a.dtype) if type(a) is np.ndarray else type(a) for a in args)


def _make_plan(args, program):
    """Per node: (ufunc or None, registry kernel, attrs, operands as (0 node | 1 input |
    2 constant, value), (dtype, shape) of a ufunc node's buffer or the dtype of a
    kernel's result, node whose buffer to reuse or None, nodes to drop after it)."""
    table = kernels_for("numpy")
    info = []       # per node: (numpy dtype, shape), shape None when not known
    fast = []
    readers_fast = [True] * len(program.nodes)  # no registry kernel reads the node
    for name, attrs, operands in program.nodes:
        shapes, f32 = [], False
        ufunc = _UFUNCS.get(name)
        ok = ufunc is not None and not attrs
        for kind, v in operands:
            if kind == "const":
                ok = ok and type(v) in (int, float)
                continue
            dtype, shape = (args[v].dtype, args[v].shape) if kind == "in" and \
                type(args[v]) is np.ndarray else info[v] if kind == "node" else (None, None)
            shapes.append(shape)
            f32 = f32 or dtype == _F32
            ok = ok and (dtype == _F32 or name == "mul" and dtype == _BOOL)
        known = all(s is not None for s in shapes)
        ok = ok and f32 and known
        dtype = np.dtype(dtypes.NUMPY[program.node_dtypes[len(info)]])
        ok = ok and dtype == ufunc[1]
        info.append((dtype, np.broadcast_shapes(*shapes) if known else None))
        fast.append(ok)
        if not ok:
            for kind, v in operands:
                if kind == "node":
                    readers_fast[v] = False
    nodes = []
    spare = {}      # (dtype, shape) -> dead ufunc nodes whose buffer is free
    for j, (name, attrs, operands) in enumerate(program.nodes):
        drop = []
        for v in program.dead[j]:  # free before node j writes: in place is exact
            if fast[v] and readers_fast[v]:
                spare.setdefault(info[v], []).append(v)
            else:
                drop.append(v)
        reuse = spare[info[j]].pop() if fast[j] and spare.get(info[j]) else None
        ops = tuple((0, v) if kind == "node" else (1, v) if kind == "in" else
                    (2, _F32.type(v) if fast[j] and name == "div" else v)
                    for kind, v in operands)
        if fast[j]:
            nodes.append((_UFUNCS[name][0], None, attrs, ops, info[j], reuse, tuple(drop)))
        else:
            nodes.append((None, table[name].compute, attrs, ops, info[j][0], None,
                          tuple(drop)))
    return tuple(nodes)


def evaluate(args, program):
    """Every node's value of `program` on `args` (planned once per signature)."""
    key = (program, _signature(args))
    plan = _plans.get(key)
    if plan is None:
        if len(_plans) >= _PLAN_LIMIT:
            _plans.clear()
        plan = _plans[key] = _make_plan(args, program)
    return _run(plan, args)


def _run(plan, args):
    values = []
    with np.errstate(all="ignore"):
        for ufunc, fn, attrs, ops, out, reuse, drop in plan:
            ins = [values[v] if k == 0 else args[v] if k == 1 else v for k, v in ops]
            if ufunc is not None:
                values.append(ufunc(*ins, out=np.empty(out[1], out[0]) if reuse is None
                                    else values[reuse]))
            else:
                values.append(_cast(fn(*ins, **attrs), out))
            for v in drop:
                values[v] = None
    return values


def _prepared(program, multi):
    """The kernel for a caller whose inputs keep one signature (a replay's host program,
    autodiff/replay_host.py): planned at its first call, with no signature after."""
    plan = []

    def fused(k, *args):
        if not plan:
            plan.append(_make_plan(args, program))
        values = _run(plan[0], args)
        return tuple(values[j] for j in program.outputs) if multi else values[-1]
    return fused


def _cast(result, np_dtype):
    if type(result) is not np.ndarray or result.dtype != np_dtype:
        result = np.asarray(result).astype(np_dtype)
    return result


def node_value(table, name, ins, attrs, dtype):
    """Op `name`'s values by its kernel from `table` on `ins`, as a numpy array of `dtype`
    (the node's value as a separate launch would store it)."""
    return _cast(table[name].compute(*ins, **attrs), dtypes.NUMPY[dtype])


@kernel("fused_elementwise", "numpy")
def fused_elementwise(k, *args, program):
    return evaluate(args, program)[-1]


@kernel("fused_elementwise_multi", "numpy")
def fused_elementwise_multi(k, *args, program, output_index=None):
    values = evaluate(args, program)
    if output_index is not None:  # one output (the engine's host path)
        return values[program.outputs[output_index]]
    return tuple(values[j] for j in program.outputs)


# for callers that keep one signature: prepared(attrs) -> kernel(k, *args)
fused_elementwise.prepared = lambda attrs: _prepared(attrs["program"], False)
fused_elementwise_multi.prepared = lambda attrs: _prepared(attrs["program"], True)
