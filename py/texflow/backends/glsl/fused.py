"""The GLSL kernel of `fused_elementwise`: one map program whose body nests the op
bodies of elementwise.py (the ones each op's own kernel uses); every input texture
is fetched once per texel and only the tree's result is written."""

import struct

from ... import dtypes
from ..base import elementwise_spec, kernel
from .elementwise import (binary_body, binary_compute, cast_body, map_launch, unary_body,
                          where_body)
from .program import glsl_type


def _literal(value, t):
    """Python scalar `value` as a GLSL constant of type `t`, bit-exact."""
    if t == "float":
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        return f"uintBitsToFloat({bits:#010x}u)"
    return f"int({int(value) & 0xffffffff:#010x}u)"


@kernel("fused_elementwise", "glsl")
def fused_elementwise(b, *args, program):
    body = tree_body(program, [(f"x{i}", a.type, a.dtype) for i, a in enumerate(args)])
    map_launch(b, b.out, [(a, a.type, None) for a in args], body, "fused")


def tree_body(program, inputs):
    """GLSL of FusedProgram `program`'s result: its nodes' bodies nested, each the body
    its op's own kernel uses. `inputs`: per input, (expression, GLSL type, dtype)."""
    exprs = []
    out_types = [glsl_type(d) for d in program.node_dtypes]

    def operand(kind, v):  # (expression, its GLSL type, dtype; None type for a scalar)
        if kind == "in":
            return inputs[v]
        if kind == "node":
            return f"({exprs[v]})", out_types[v], program.node_dtypes[v]
        return v, None, dtypes.scalar_dtype(v)

    for (name, attrs, operands), t in zip(program.nodes, out_types):
        ops = [operand(kind, v) for kind, v in operands]
        arity = getattr(elementwise_spec(name), "arity", 0)
        if arity == 1:
            exprs.append(unary_body(name, ops[0][0], ops[0][1], t))
        elif arity == 2:
            compute = binary_compute(name, ops[0][2], ops[1][2], t)
            (x, tx, _), (y, ty, _) = [(_literal(e, compute), compute, d) if et is None
                                      else (e, et, d) for e, et, d in ops]
            exprs.append(binary_body(name, x, tx, y, ty, t, compute))
        elif name == "where":
            (c, tc, _), (x, tx, _), (y, ty, _) = [
                (_literal(e, "int" if k == 0 else t), "int" if k == 0 else t, d)
                if et is None else (e, et, d) for k, (e, et, d) in enumerate(ops)]
            exprs.append(where_body(c, tc, x, tx, y, ty, t))
        elif name == "cast":
            exprs.append(cast_body(ops[0][0], attrs["dtype"]))
        else:
            raise KeyError(f"fused_elementwise: no GLSL body for op {name!r}")
    return exprs[-1]
