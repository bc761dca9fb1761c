"""GLSL kernels of the reductions: sum, max, min, argmax, argmin.

The input is viewed as [A, R, B] with R the reduced elements: directly when
the reduced axes are adjacent (after dropping size-1 axes), else after a
transpose that moves them last (B = 1). Each pass reduces windows of at most
`MAX_WINDOW` elements of R, so no fragment loops over a million elements:
[A, R, B] -> [A, ceil(R / w), B] -> ... -> [A, 1, B], the output. Two fast
variants read whole texels: rows (B == 1, windows on texel boundaries) and
columns (B % 4 == 0: four adjacent outputs per texel). argmax/argmin passes
after the first carry candidate indices and look the values up in x.
"""

from ... import dtypes
from ..base import kernel
from ..layout import reduction_view
from .movement import transpose_into
from .program import fill, functions, head
from .prologue import Prologue

MAX_WINDOW = 256
_FILES = ("math.glsl", "binary_ops.glsl", "reduce_ops.glsl")


def windows(r):
    """Window lengths of the passes reducing `r` elements (one per pass)."""
    out = []
    while r > 1 or not out:
        if r <= MAX_WINDOW:
            out.append(r)
            break
        passes = 1
        while MAX_WINDOW ** passes < r:
            passes += 1
        w = -(-round(r ** (1.0 / passes)) // 4) * 4   # a multiple of 4: texel-aligned windows
        w = max(4, min(w, MAX_WINDOW))
        out.append(w)
        r = -(-r // w)
    return out


def as_arb(b, x, axes):
    """(Arg, A, R, B): `x`, or a transposed temporary, viewed as [A, R, B]."""
    perm, a, r, bb = reduction_view(x.shape, axes)
    if perm is None:
        return x, a, r, bb
    moved = b.temp(tuple(x.shape[p] for p in perm), x.dtype)
    transpose_into(b, moved, x, perm)
    return moved, a, r, bb


def reduce_into(b, x, axes, op, out=None, prologue=None):
    """Records the passes reducing Arg `x` over `axes` with `op` into Arg `out` (default:
    the kernel's output); with a Prologue (prologue.py; `x` None), the first pass
    computes each element it reads from the Prologue's arrays."""
    if prologue is None:
        src, a, r, bb = as_arb(b, x, axes)
        dtype, t, srcs = x.dtype, x.type, [src]
    else:
        a, r, bb = prologue.a, prologue.r, prologue.b
        dtype, t, srcs = (out or b.out).dtype, (out or b.out).type, prologue.textures
    wins = windows(r)
    for k, w in enumerate(wins):
        rout = -(-r // w)
        last = k == len(wins) - 1
        dst = (out or b.out) if last else b.temp((a, rout, bb), dtype)
        if bb == 1 and r % 4 == 0 and w % 4 == 0:
            variant = "rows"
        elif bb % 4 == 0:
            variant = "columns"
        else:
            variant = "scalar"
        pro = prologue if k == 0 else None

        def source(variant=variant, t=t, pro=pro):
            t4 = "vec4" if t == "float" else "ivec4"
            body = fill(f"reduce_{variant}.glsl", T=t, T4=t4, op=op)
            if pro is None:
                return fill("reduce.frag", head=head([t], t), T=t, T4=t4, op=op,
                            functions=functions([f"red_{op}"], _FILES), body=body)
            body = body.replace("texel0(", "prologue4(").replace("get0(", "prologue(")
            return fill("reduce.frag", head=head(pro.types, t), T=t, T4=t4, op=op,
                        functions=pro.functions([f"red_{op}"]) + "\n\n" + pro.source(),
                        body=body)
        uniforms = {"uR": r, "uB": bb, "uWin": w, "uRout": rout}
        if pro is not None:
            uniforms.update(pro.uniforms)
        b.launch(("reduce", op, t, variant, pro and pro.key), source, dst, srcs, uniforms)
        srcs, r = [dst], rout


def _arg_reduce(b, x, axis, op):
    src, a, r, bb = as_arb(b, x, (axis,))
    r0 = r
    cand = None
    wins = windows(r)
    for k, w in enumerate(wins):
        rout = -(-r // w)
        dst = b.out if k == len(wins) - 1 else b.temp((a, rout, bb), dtypes.int32)
        first = cand is None
        t = x.type

        def source(first=first, t=t):
            index = "r0" if first else "get1(off)"
            nxt = "r0 + r" if first else "get1(off)"
            return fill("argreduce.frag", head=head([t] if first else [t, "int"], "int"),
                        functions=functions([f"better_{op}"], _FILES), T=t, op=op,
                        index=index, next_index=nxt)
        b.launch(("argreduce", op, t, first), source, dst, [src] if first else [src, cand],
                 {"uR": r, "uR0": r0, "uB": bb, "uWin": w, "uRout": rout})
        cand, r = dst, rout


@kernel("sum", "glsl")
def reduce_sum(b, x, axes, keepdims):
    reduce_into(b, x, axes, "sum")


@kernel("prod", "glsl")
def reduce_prod(b, x, axes, keepdims):
    reduce_into(b, x, axes, "prod")


@kernel("max", "glsl")
def reduce_max(b, x, axes, keepdims):
    reduce_into(b, x, axes, "max")


@kernel("min", "glsl")
def reduce_min(b, x, axes, keepdims):
    reduce_into(b, x, axes, "min")


@kernel("reduce_prologue", "glsl")
def reduce_prologue(b, *leaves, program, reduction, axes, keepdims):
    prologue = Prologue(program, leaves, axes, b.out.type)
    reduce_into(b, None, axes, reduction, prologue=prologue)


@kernel("argmax", "glsl")
def argmax(b, x, axis, keepdims):
    _arg_reduce(b, x, axis, "max")


@kernel("argmin", "glsl")
def argmin(b, x, axis, keepdims):
    _arg_reduce(b, x, axis, "min")
