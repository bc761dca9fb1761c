"""The WGSL kernels of `fused_elementwise` and `fused_elementwise_multi`: one map step
whose expression nests the specs of elementwise.py (the ones each op's own kernel
uses); every input buffer is read once per element and only the program's outputs
are written. A node read more than once (`y * y`: fusion makes `y` one node), or
written, is a `let` of its own, computed once.

A kernel binds its inputs, its outputs and its parameters as storage buffers; when
they exceed the device's limit (`max_storage_buffers`: 8 by default in WebGPU,
runtimes request their adapter's maximum) the outputs are split over several
launches, each computing what its outputs need.
"""

import re
import struct

from ..base import kernel
from ..layout import broadcast_strides
from .elementwise import _convert, map_step, spec
from .program import STORAGE

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


def opaque(expr):
    """f32 `expr` as a value the shader compiler cannot see into. GPU compilers contract
    a product feeding a sum into one fma (SPIR-V allows it where an instruction lacks
    NoContraction, which WGSL cannot ask for; NVIDIA's Vulkan driver does), rounding
    once where eager's two launches round twice: fused results then differ from
    eager's by an ulp. OR-ing the bits with a run-time zero (params[0], a count in
    every kernel, is never negative: its sign shifted down is 0) rounds and keeps each
    op's value as its own kernel stores it, for one integer OR."""
    return f"bitcast<f32>(bitcast<u32>({expr}) | bitcast<u32>(params[0] >> 31u))"


@kernel("fused_elementwise", "wgsl")
def fused_elementwise(k, *inputs, program):
    in_dtypes = [x.dtype for x in inputs]
    shared = {j for j, n in enumerate(program.reads) if n > 1}
    if shared:  # computed once into `let`s, then the result from them
        n = len(program.nodes)
        text, lets, files, _ = _compose(program, in_dtypes, range(n), shared, renumber=False)
        expr = (tuple(lets), (text[n - 1],))
    else:
        expr, files = tree_expression(program, in_dtypes)
    k.add(map_step("fused", expr, files, k.out_shape, k.out_dtype,
                   _operands(inputs, range(len(inputs)), k.out_shape), k.out))
    return k.recipe()


def tree_expression(program, in_dtypes):
    """(WGSL of FusedProgram `program`'s result over inputs `x0`, `x1`, ... in the storage
    types of `in_dtypes`, the op files and sources it calls): the nodes' specs nested,
    each the one its op's own kernel uses."""
    n = len(program.nodes)
    text, _, files, _ = _compose(program, in_dtypes, range(n), (), renumber=False)
    return text[n - 1][1:-1], files


@kernel("fused_elementwise_multi", "wgsl")
def fused_elementwise_multi(k, *inputs, program, output_index=None):
    in_dtypes = [x.dtype for x in inputs]
    named = {j for j, n in enumerate(program.reads) if n > 1} | set(program.outputs)
    limit = getattr(k.backend, "max_storage_buffers", 8)
    chunk = []
    for j in range(len(program.outputs)):
        # each launch binds its inputs, its outputs and its parameters
        if chunk and len(_needs(program, chunk + [j])[1]) + len(chunk) + 2 > limit:
            k.add(_launch(k, program, inputs, in_dtypes, chunk, named))
            chunk = []
        chunk.append(j)
    k.add(_launch(k, program, inputs, in_dtypes, chunk, named))
    return k.recipe()


def _needs(program, chunk):
    """The nodes outputs `chunk` (positions in program.outputs) need, and their inputs."""
    needed, inputs, todo = set(), set(), [program.outputs[k] for k in chunk]
    while todo:
        j = todo.pop()
        if j in needed:
            continue
        needed.add(j)
        for kind, v in program.nodes[j][2]:
            if kind == "node":
                todo.append(v)
            elif kind == "in":
                inputs.add(v)
    return sorted(needed), inputs


def _launch(k, program, inputs, in_dtypes, chunk, named):
    """The step computing outputs `chunk` (positions in program.outputs), which lie in
    k's table from k.out on."""
    nodes, _ = _needs(program, chunk)
    text, lets, files, used = _compose(program, in_dtypes, nodes, named)
    results = tuple(text[program.outputs[j]] for j in chunk)
    return map_step("fused", (tuple(lets), results), files, k.out_shape, program.dtype,
                    _operands(inputs, used, k.out_shape), tuple(k.out + j for j in chunk))


def _operands(inputs, used, out_shape):
    return [(k, STORAGE[inputs[k].dtype], STORAGE[inputs[k].dtype],
             broadcast_strides(inputs[k].shape, out_shape)) for k in used]


def _compose(program, in_dtypes, nodes, named, renumber=True):
    """WGSL of program nodes `nodes` (indices, in order) over operands x0, x1, ... (the
    program's inputs, of `in_dtypes`, in order of first use when `renumber`): (text per
    node, `let` statements of the `named` nodes, ops files, the inputs used in order)."""
    text, lets, files, used = {}, [], [], {}
    for j in nodes:
        name, attrs, operands = program.nodes[j]
        protos, parts = [], []
        for kind, v in operands:
            if kind == "in":
                x = used.setdefault(v, len(used)) if renumber else v
                protos.append(_Typed(in_dtypes[v]))
                parts.append((f"x{x}", STORAGE[in_dtypes[v]]))
            elif kind == "node":
                protos.append(_Typed(program.node_dtypes[v]))
                t = STORAGE[program.node_dtypes[v]]
                parts.append((opaque(text[v]) if t == "f32" else text[v], t))
            else:
                protos.append(v)
                parts.append((v, None))
        expr, ops_file, computes = spec(name, protos, program.node_dtypes[j], attrs)
        for f in (ops_file if isinstance(ops_file, tuple) else (ops_file,)):
            if f and f not in files:
                files.append(f)
        args = [_literal(e, c) if t is None else _convert(e, t, c)
                for (e, t), c in zip(parts, computes)]
        expr = _OPERAND.sub(lambda m: args[int(m.group(1))], expr)
        if j in named:
            lets.append(f"let n{j} = {expr};")
            text[j] = f"n{j}"
        else:
            text[j] = f"({expr})"
    return text, lets, tuple(files), list(used)
