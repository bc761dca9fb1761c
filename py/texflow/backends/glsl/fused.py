"""The GLSL kernels of `fused_elementwise` and `fused_elementwise_multi`: one map
program whose body nests the op bodies of elementwise.py (the ones each op's own
kernel uses); every input texture is fetched once per texel and only the
program's outputs are written, several as render targets of one launch. A node
read more than once (`y * y`: fusion makes `y` one node), or written, is a local
variable of its own, computed once."""

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
    shared = {j for j, n in enumerate(program.reads) if n > 1}
    if shared:  # computed once into locals, then the result from them
        text, lets = compose(program, _inputs(args), shared)
        body = (tuple(lets), (text[-1],))
    else:
        body = tree_body(program, _inputs(args))
    map_launch(b, b.out, [(a, a.type, None) for a in args], body, "fused")


@kernel("fused_elementwise_multi", "glsl")
def fused_elementwise_multi(b, *args, program, output_index=None, strides=None):
    """`strides`: per input, its strides over the output's shape or None (broadcast as
    numpy does); for callers reading an input in another order (matmul.py)."""
    named = {j for j, n in enumerate(program.reads) if n > 1} | set(program.outputs)
    text, lets = compose(program, _inputs(args), named)
    outs = [b.out] + [b.output() for _ in program.outputs[1:]]
    per_launch = b.backend.max_draw_buffers  # at least 4 (WebGL2), as many as fusion makes
    strides = strides or [None] * len(args)
    for k in range(0, len(outs), per_launch):
        results = tuple(text[j] for j in program.outputs[k:k + per_launch])
        map_launch(b, outs[k:k + per_launch], [(a, a.type, s) for a, s in zip(args, strides)],
                   (tuple(lets), results), "fused")


def _inputs(args):
    return [(f"x{i}", a.type, a.dtype) for i, a in enumerate(args)]


def tree_body(program, inputs):
    """GLSL of FusedProgram `program`'s result: its nodes' bodies nested, each the body
    its op's own kernel uses. `inputs`: per input, (expression, GLSL type, dtype)."""
    return compose(program, inputs, ())[0][-1][1:-1]


def compose(program, inputs, named):
    """GLSL per node of `program` over `inputs` (as in `tree_body`), and the declarations
    of the `named` nodes (which the others then refer to by name)."""
    text, lets = [], []
    out_types = [glsl_type(d) for d in program.node_dtypes]

    def operand(kind, v):  # (expression, its GLSL type, dtype; None type for a scalar)
        if kind == "in":
            return inputs[v]
        if kind == "node":
            return text[v], out_types[v], program.node_dtypes[v]
        return v, None, dtypes.scalar_dtype(v)

    for j, ((name, attrs, operands), t) in enumerate(zip(program.nodes, out_types)):
        ops = [operand(kind, v) for kind, v in operands]
        arity = getattr(elementwise_spec(name), "arity", 0)
        if arity == 1:
            expr = unary_body(name, ops[0][0], ops[0][1], t)
        elif arity == 2:
            compute = binary_compute(name, ops[0][2], ops[1][2], t)
            (x, tx, _), (y, ty, _) = [(_literal(e, compute), compute, d) if et is None
                                      else (e, et, d) for e, et, d in ops]
            expr = binary_body(name, x, tx, y, ty, t, compute)
        elif name == "where":
            (c, tc, _), (x, tx, _), (y, ty, _) = [
                (_literal(e, "int" if k == 0 else t), "int" if k == 0 else t, d)
                if et is None else (e, et, d) for k, (e, et, d) in enumerate(ops)]
            expr = where_body(c, tc, x, tx, y, ty, t)
        elif name == "cast":
            expr = cast_body(ops[0][0], attrs["dtype"])
        else:
            raise KeyError(f"fused_elementwise: no GLSL body for op {name!r}")
        if j in named:
            lets.append(f"{t} n{j} = {expr};")
            text.append(f"n{j}")
        else:
            text.append(f"({expr})")
    return text, lets
