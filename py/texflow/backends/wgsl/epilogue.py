"""WGSL epilogues: a product kernel (matmul, and conv2d through it) applying an
elementwise tree to each output element before storing it (ops/epilogue.py).

A product program stores through `epilogue(v, e)` (element `e` of the output) or
`epilogue4(v, o)` (vec4 `o`). `Epilogue` writes both for a FusedProgram: the tree's
expression from the same specs the elementwise kernels use (fused.py
`tree_expression`), its other arrays bound after the product's operands and read
per element as `map_step` reads operands (at the output index, element 0, or by
strides from the launch parameters). `identity` gives a program without one.
"""

from ...dtypes import float32
from ..layout import broadcast_strides, collapse, contiguous_strides
from .elementwise import render_ops
from .fused import tree_expression
from .program import STORAGE, dot_strides, unravel


def identity(t):
    """WGSL of `epilogue` and `epilogue4` leaving values of scalar type `t` as they are."""
    return (f"fn epilogue(v: {t}, e: i32) -> {t} {{ return v; }}\n"
            f"fn epilogue4(v: vec4<{t}>, o: i32) -> vec4<{t}> {{ return v; }}\n")


class Epilogue:
    """FusedProgram `program` (input 0 the product's value, k >= 1 `extras[k - 1]`, each
    with `shape`, `dtype` and `ref`, its buffer-table index) on an output of
    `out_shape`, for a program whose own inputs are bindings 0..`first` - 1.

    Attributes: `refs` and `types` (the extra bindings' buffer-table indices and WGSL
    element types), `meta` (launch parameters to append), `key`.
    """

    def __init__(self, program, extras, out_shape, first):
        self.expr, self.files = tree_expression(program, [float32] + [e.dtype for e in extras])
        dims, sets = collapse(out_shape, [contiguous_strides(out_shape)] +
                              [broadcast_strides(e.shape, out_shape) for e in extras])
        self.modes, strided = [], []
        for s in sets[1:]:
            mode = "c" if s == sets[0] else ("z" if not any(s) else "s")
            self.modes.append(mode)
            if mode == "s":
                strided.append(s)
        self.rank = len(dims) if strided else 0
        self.meta = list(dims) + [v for s in strided for v in s] if strided else []
        self.refs = [e.ref for e in extras]
        self.types = [STORAGE[e.dtype] for e in extras]
        self.first = first
        self.key = ("epilogue", self.expr, tuple(self.modes), tuple(self.types), self.rank)

    def source(self, at):
        """WGSL of `epilogue` and `epilogue4` (f32), its parameters at params[at:]."""
        lines = loads(self.modes, self.rank, at, self.first, 1)
        body = "\n  ".join(lines + [f"return {self.expr};"])
        return (render_ops(self.files) + "\n"
                f"fn epilogue(x0: f32, e: i32) -> f32 {{\n  {body}\n}}\n"
                "fn epilogue4(v: vec4<f32>, o: i32) -> vec4<f32> {\n"
                "  let e = 4 * o;\n  return vec4<f32>(epilogue(v.x, e), epilogue(v.y, e + 1), "
                "epilogue(v.z, e + 2), epilogue(v.w, e + 3));\n}\n")


def loads(modes, rank, at, first, name):
    """WGSL loading `x{name}`, `x{name + 1}`, ... from bindings `first`, ... at element e,
    per mode (layout.py `prologue_reads`): "c" at e, "z" at 0, "s" by the strides at
    params[at + rank * (1 + j)] (j counting the "s" arrays; the merged shape at
    params[at:]) over e's coordinates."""
    lines = unravel(rank, "e", at, "e")
    strided = 0
    for k, mode in enumerate(modes):
        if mode == "s":
            index = dot_strides(rank, at + rank * (1 + strided), "e")
            strided += 1
        else:
            index = "e" if mode == "c" else "0"
        lines.append(f"let x{name + k} = in{first + k}[{index}];")
    return lines


def source(epilogue, at, t="f32"):
    """The epilogue functions of a program storing `t`: Epilogue `epilogue`'s (its
    parameters at params[at:]), or the identity for None."""
    return identity(t) if epilogue is None else epilogue.source(at)
