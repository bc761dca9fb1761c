"""WGSL prologues: a reduction computing each element it reads with an elementwise
tree (ops/prologue.py) instead of loading a stored input.

The reduction's first pass (reduce.py) reads element e of its [A, R, B] view through
`prologue(e)`, or four at a time through `prologue4(o)` (elements 4o..4o+3) where it
reads vec4s. `Prologue` writes both for a FusedProgram: the tree's expression from
the same specs the elementwise kernels use (fused.py `tree_expression`), each array
bound in order and read at e, at element 0, or by strides from the launch
parameters (layout.py `prologue_reads`: no transpose is made for a view that needs
one). The passes and their order of combining are the reduction's own.
"""

from ..layout import prologue_reads
from .elementwise import _convert, render_ops
from .epilogue import loads
from .fused import opaque, tree_expression
from .program import STORAGE


class Prologue:
    """FusedProgram `program` over arrays `leaves` (each with `shape` and `dtype`), the
    input of a reduction over `axes` whose passes combine values of WGSL type `t`.

    Attributes: `a`, `r`, `b` (the [A, R, B] view), `types` (the arrays' WGSL element
    types, bound first), `meta` (launch parameters to append), `key`.
    """

    def __init__(self, program, leaves, axes, t):
        _, self.a, self.r, self.b, dims, self.modes, strided = prologue_reads(
            program.shape, axes, [x.shape for x in leaves])
        expr, self.files = tree_expression(program, [x.dtype for x in leaves])
        if STORAGE[program.dtype] == "f32":  # as the stored input eager reduces
            expr = opaque(expr)
        self.expr = _convert(expr, STORAGE[program.dtype], t)
        self.t = t
        self.rank = len(dims) if strided else 0
        self.meta = list(dims) + [v for s in strided for v in s] if strided else []
        self.types = [STORAGE[x.dtype] for x in leaves]
        self.key = ("prologue", self.expr, tuple(self.modes), tuple(self.types), self.rank)

    def source(self, at):
        """WGSL of `prologue` and `prologue4`, their parameters at params[at:]."""
        lines = loads(self.modes, self.rank, at, 0, 0)
        body = "\n  ".join(lines + [f"return {self.expr};"])
        t = self.t
        return (render_ops(self.files) + "\n"
                f"fn prologue(e: i32) -> {t} {{\n  {body}\n}}\n"
                f"fn prologue4(o: i32) -> vec4<{t}> {{\n  let e = 4 * o;\n"
                f"  return vec4<{t}>(prologue(e), prologue(e + 1), prologue(e + 2), "
                "prologue(e + 3));\n}\n")
