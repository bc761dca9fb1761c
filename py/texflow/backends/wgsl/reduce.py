"""WGSL kernels of the reductions: sum, max, min, argmax, argmin.

A reduction is brought to the form [A, R, B] -> [A, B] (R reduced): merged
axes give it directly when the reduced axes are adjacent (after dropping
size-1 axes); otherwise a transpose into a temporary buffer moves them last.
Each pass then reduces chunks: output (a, g, b) of a pass combines the
elements r = g, g + G, g + 2G, ... (at most CHUNK of them) of row (a, :, b),
so neighbouring invocations read neighbouring addresses. Passes repeat until
G is 1: a million-element sum takes three launches.

argmax / argmin carry (value, index) pairs between passes; ties go to the
lower index and NaN beats everything (numpy's rules), whatever the order in
which chunks meet.
"""

from ...dtypes import int32
from ..base import kernel
from ..layout import reduction_view
from .elementwise import map_step
from .movement import transpose_step
from .prologue import Prologue
from .program import (GLOBAL_INDEX, STORAGE, Program, Step, global_index, grid_for,
                      header)

CHUNK = 256
_programs = {}

# Per (op, type): the identity element and the update of `acc` by `v`.
_FOLD = {
    ("sum", "f32"): ("0.0", "acc = acc + v;"),
    ("sum", "i32"): ("0", "acc = acc + v;"),  # wraps, as numpy int32
    ("prod", "f32"): ("1.0", "acc = acc * v;"),
    ("prod", "i32"): ("1", "acc = acc * v;"),  # wraps, as numpy int32
    ("max", "f32"): ("-inf_f32()", "if (v > acc || is_nan_f32(v)) { acc = v; }"),
    ("max", "i32"): ("i32(-2147483647 - 1)", "acc = max(acc, v);"),
    ("min", "f32"): ("inf_f32()", "if (v < acc || is_nan_f32(v)) { acc = v; }"),
    ("min", "i32"): ("2147483647", "acc = min(acc, v);"),
}

# Whether value v at index r beats the best so far, (acc, best).
_BEATS = {
    "argmax": "v > acc || (v == acc && r < best)",
    "argmin": "v < acc || (v == acc && r < best)",
}


def _program(op, t, first, last, vec=False, prologue=None):
    """The pass program of `op` over type `t` (arg ops: with an index input unless
    first); `vec`: the input is read as vec4 (contiguous rows, B = 1); `prologue`: a
    first pass computes its input with that Prologue (prologue.py)."""
    key = ("reduce", op, t, first, last, vec, prologue and prologue.key)
    program = _programs.get(key)
    if program is None:
        arg = op.startswith("arg")
        n_in = len(prologue.types) if prologue else 1 if (first or not arg) else 2
        n_out = 2 if (arg and not last) else 1
        program = _programs[key] = Program(
            key, n_in, n_out, lambda: _source(op, t, first, last, n_in, n_out, vec, prologue))
    return program


def _source(op, t, first, last, n_in, n_out, vec, prologue):
    arg = op.startswith("arg")
    in_types = [f"vec4<{t}>" if vec else t] + (["i32"] if n_in == 2 else [])
    load = "in0[base + q * B]"
    if prologue is not None:
        in_types = prologue.types
        load = f"prologue{4 if vec else ''}(base + q * B)"
    out_types = (["i32"] if last else [t, "i32"]) if arg else [t]
    lines = [
        global_index("o"),
        "if (o >= params[0]) { return; }",
        "let R = params[1]; let B = params[2]; let G = params[3]; let C = params[4];",
        "let b = o % B; let ag = o / B; let g = ag % G;",
        "let base = (ag / G) * R * B + b;",
    ]
    if arg:
        init = "-inf_f32()" if t == "f32" else "0"
        lines.append(f"var acc = {init}; var best = -1;")
    else:
        init, update = _FOLD[(op, t)]
        lines.append(f"var acc = {init};")
    lines += ["for (var j = 0; j < C; j = j + 1) {",
              "  let q = g + G * j;",
              "  if (q >= R) { break; }"]
    if vec:  # four elements per step: SwiftShader's cost is per loop step, not per load
        lines.append(f"  let w = {load};")
        lines += [f"  {{ let v = w.{c}; {update} }}" for c in "xyzw"]
    else:
        lines.append(f"  let v = {load};")
    if arg:
        lines.append("  let r = " + ("q;" if first else "in1[base + q * B];"))
        beats = _BEATS[op]
        if t == "f32":  # a NaN beats numbers; between NaNs the lower index wins
            beats = (f"select({beats}, is_nan_f32(v) && (!is_nan_f32(acc) || r < best), "
                     "is_nan_f32(v) || is_nan_f32(acc))")
        lines.append(f"  if (best < 0 || {beats}) {{ acc = v; best = r; }}")
    elif not vec:
        lines.append("  " + update)
    lines.append("}")
    if arg and last:
        lines.append("out0[o] = best;")
    elif arg:
        lines.append("out0[o] = acc; out1[o] = best;")
    else:
        lines.append("out0[o] = acc;")
    body = "\n  ".join(lines)
    extra = "" if prologue is None else "\n" + prologue.source(5)
    return (header(in_types, out_types, extra) +
            f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n")


def _plan(k, op, x, axes, prologue=None):
    """Adds to `k` the passes reducing input `x` (or, with a Prologue, the arrays it
    computes its input from: all of k's inputs) and returns k's recipe."""
    out_dtype = k.out_dtype
    t = STORAGE[out_dtype] if not op.startswith("arg") else STORAGE[x.dtype]
    if prologue is None:
        perm, a, r, b = reduction_view(x.shape, axes)
    else:  # (more than one element per output: fusion_prologue.py)
        perm, a, r, b = None, prologue.a, prologue.r, prologue.b
    n_out = a * b
    src = tuple(range(k.out))
    if perm is not None:
        ref = k.temp(4 * x.size)
        k.add(transpose_step(0, x.shape, x.dtype, perm, ref))
        src = (ref,)
    if r == 1:  # nothing to reduce (reduced axes of size 1): a converting copy
        k.add(map_step("copy", "0" if op.startswith("arg") else "x0", None, (n_out,),
                       out_dtype, [(src[0], STORAGE[x.dtype], t, (1,))], k.out))
        return k.recipe(4 * n_out)
    first = True
    vec = b == 1 and r % 4 == 0 and not op.startswith("arg")
    if vec:
        r //= 4
    while True:
        g = -(-r // CHUNK)
        last = g == 1
        program = _program(op, t, first, last, vec, prologue if first else None)
        vec = False
        n = a * g * b
        meta = [n, r, b, g, min(r, CHUNK)] + (prologue.meta if first and prologue else [])
        if last:
            dst = (k.out,)
        elif program.n_out == 2:
            dst = (k.temp(4 * n), k.temp(4 * n))
        else:
            dst = (k.temp(4 * n),)
        k.add(Step(program, meta, grid_for(n), src + dst))
        if last:
            return k.recipe(4 * n_out)
        src, r, first = dst, g, False


def _reduction(op):
    def plan(k, *inputs, axes, keepdims):
        return _plan(k, op, inputs[0], axes)
    kernel(op, "wgsl")(plan)


def _arg_reduction(op):
    def plan(k, *inputs, axis, keepdims):
        assert k.out_dtype == int32
        return _plan(k, op, inputs[0], (axis,))
    kernel(op, "wgsl")(plan)


for _op in ("sum", "prod", "max", "min"):
    _reduction(_op)


@kernel("reduce_prologue", "wgsl")
def reduce_prologue(k, *inputs, program, reduction, axes, keepdims):
    prologue = Prologue(program, inputs, axes, STORAGE[k.out_dtype])
    return _plan(k, reduction, None, axes, prologue)
for _op in ("argmax", "argmin"):
    _arg_reduction(_op)
