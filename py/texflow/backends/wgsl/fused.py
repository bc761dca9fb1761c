"""The WGSL kernel of `fused_elementwise`: one map step whose expression nests the
specs of elementwise.py (the ones each op's own kernel uses); every input buffer
is read once per element and only the tree's result is written."""

import re
import struct

from ..base import kernel
from ..layout import broadcast_strides
from .elementwise import _convert, map_step, spec
from .program import STORAGE, Recipe, size_of

_OPERAND = re.compile(r"\bx(\d+)\b")


class _Typed:
    """Stands for an array operand in a spec: specs look only at the dtype."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype


def _literal(value, t):
    """Python scalar `value` as a WGSL constant of type `t`, bit-exact."""
    if t == "f32":
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        if bits & 0x7f800000 == 0x7f800000:
            # WGSL rejects a constant expression that is infinite or NaN: make it a
            # run-time value (params[0] is the element count, never negative)
            return f"bitcast<f32>({bits:#010x}u | u32(params[0] & 0))"
        return f"bitcast<f32>({bits:#010x}u)"
    if t == "bool":
        return "true" if value else "false"
    return f"bitcast<i32>({int(value) & 0xffffffff:#010x}u)"


@kernel("fused_elementwise", "wgsl")
def fused_elementwise(be, inputs, out_shape, out_dtype, program):
    expr, files = tree_expression(program, [x.dtype for x in inputs])
    operands = [(k, STORAGE[x.dtype], STORAGE[x.dtype], broadcast_strides(x.shape, out_shape))
                for k, x in enumerate(inputs)]
    step = map_step("fused", expr, files, out_shape, out_dtype, operands, len(inputs))
    return Recipe([step], 4 * size_of(out_shape))


def tree_expression(program, in_dtypes):
    """(WGSL of FusedProgram `program`'s result over inputs `x0`, `x1`, ... in the storage
    types of `in_dtypes`, the op files and sources it calls): the nodes' specs nested,
    each the one its op's own kernel uses."""
    exprs, files = [], []
    for (name, attrs, operands), dtype in zip(program.nodes, program.node_dtypes):
        protos, parts = [], []
        for kind, v in operands:
            if kind == "in":
                protos.append(_Typed(in_dtypes[v]))
                parts.append((f"x{v}", STORAGE[in_dtypes[v]]))
            elif kind == "node":
                protos.append(_Typed(program.node_dtypes[v]))
                parts.append((f"({exprs[v]})", STORAGE[program.node_dtypes[v]]))
            else:
                protos.append(v)
                parts.append((v, None))
        expr, ops_file, computes = spec(name, protos, dtype, attrs)
        for f in (ops_file if isinstance(ops_file, tuple) else (ops_file,)):
            if f and f not in files:
                files.append(f)
        args = [_literal(e, c) if t is None else _convert(e, t, c)
                for (e, t), c in zip(parts, computes)]
        exprs.append(_OPERAND.sub(lambda m: args[int(m.group(1))], expr))
    return exprs[-1], tuple(files)
