"""GLSL prologues: a reduction computing each element it reads with an elementwise
tree (ops/prologue.py) instead of fetching a stored input.

The reduction's first pass (reduce.py) reads element e of its [A, R, B] view through
`prologue(e)` and texel t (elements 4t..4t+3) through `prologue4(t)` where its own
kernel calls `get0` and `texel0`. `Prologue` writes both for a FusedProgram: the
tree's body from the same op bodies the elementwise kernels use (fused.py
`tree_body`), its arrays bound as textures 0, 1, ... and read at e, at element 0, or
by strides (layout.py `prologue_reads`: no transpose is made for a view that needs
one); where every array is read at e or element 0, `prologue4` fetches whole texels.
The passes and their order of combining are the reduction's own.
"""

from ..base import inline_bodies
from ..layout import prologue_reads
from .elementwise import conv
from .fused import tree_body
from .program import functions, glsl_type, vec4_type

_FILES = ("math.glsl", "unary_ops.glsl", "binary_ops.glsl", "reduce_ops.glsl")


class Prologue:
    """FusedProgram `program` over Args `leaves`, the input of a reduction over `axes`
    whose passes combine values of GLSL type `t`.

    Attributes: `a`, `r`, `b` (the [A, R, B] view), `textures` (the Args to bind, in
    order), `types` (their GLSL types), `uniforms`, `key`.
    """

    def __init__(self, program, leaves, axes, t):
        _, self.a, self.r, self.b, dims, self.modes, strided = prologue_reads(
            program.shape, axes, [x.shape for x in leaves])
        self.t = t
        self.textures = list(leaves)
        self.types = [x.type for x in leaves]
        inputs = [(f"x{k}", x.type, x.dtype) for k, x in enumerate(leaves)]
        self.body = conv(tree_body(program, inputs), glsl_type(program.dtype), t)
        self.rank = len(dims) if strided else 0
        self.uniforms = {}
        if strided:
            self.uniforms["uPShape"] = list(dims)
            slots = iter(strided)
            for k, mode in enumerate(self.modes):
                if mode == "s":
                    self.uniforms[f"uPStride{k}"] = list(next(slots))
        self.key = ("prologue", self.body, tuple(self.modes), tuple(self.types), self.rank)

    def functions(self, names):
        """Source of the GLSL functions `names` (and helpers) with the op bodies the tree
        calls: one set, so a helper both need is defined once."""
        called = set(w for w in self.body.replace("(", " ").split() if w.startswith("op_"))
        return functions(list(names) + sorted(called), _FILES, inline_bodies("glsl"))

    def source(self):
        """GLSL of `prologue(int e)` and `prologue4(int t)`."""
        t, t4, n, rank = self.t, vec4_type(self.t), len(self.modes), self.rank
        params = ", ".join(f"{tk} x{k}" for k, tk in enumerate(self.types))
        lines = [f"{t} prologue_lane({params}) {{\n  return {self.body};\n}}"]
        if rank:
            lines.append(f"uniform int uPShape[{rank}];")
            lines += [f"uniform int uPStride{k}[{rank}];" for k, m in enumerate(self.modes)
                      if m == "s"]
        fetch = []
        for k, mode in enumerate(self.modes):
            fetch.append(f"get{k}(e)" if mode == "c" else f"get{k}(0)" if mode == "z"
                         else f"get{k}(o{k})")
        body = [f"{t} prologue(int e) {{"]
        strided = [k for k, m in enumerate(self.modes) if m == "s"]
        if strided:
            body.append("  int rest = e;")
            body += [f"  int o{k} = 0;" for k in strided]
            body.append(f"  for (int d = {rank - 1}; d >= 0; d--) {{\n"
                        "    int c = rest % uPShape[d];\n    rest /= uPShape[d];")
            body += [f"    o{k} += c * uPStride{k}[d];" for k in strided]
            body.append("  }")
        body.append(f"  return prologue_lane({', '.join(fetch)});\n}}")
        lines.append("\n".join(body))
        if strided:
            lanes = ", ".join(f"prologue(e + {c})" for c in range(4))
            lines.append(f"{t4} prologue4(int t) {{\n  int e = t << 2;\n"
                         f"  return {t4}({lanes});\n}}")
        else:  # whole texels of the arrays read at e
            loads = "\n".join(
                f"  {vec4_type(tk)} v{k} = " + (f"texel{k}(t);" if m == "c" else
                                                f"{vec4_type(tk)}(get{k}(0));")
                for k, (tk, m) in enumerate(zip(self.types, self.modes)))
            lanes = ", ".join("prologue_lane({})".format(", ".join(
                f"v{k}.{c}" for k in range(n))) for c in "xyzw")
            lines.append(f"{t4} prologue4(int t) {{\n{loads}\n  return {t4}({lanes});\n}}")
        return "\n\n".join(lines)
