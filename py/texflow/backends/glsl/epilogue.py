"""GLSL epilogues: a product kernel (matmul, conv2d) applying an elementwise tree to
its output texel before writing it (ops/epilogue.py).

A product's final pass ends in `outValue = epilogue(acc);`. `Epilogue` writes that
function for a FusedProgram: the tree's body from the same op bodies the
elementwise kernels use (fused.py `tree_body`), its other arrays read per lane as
`map_launch` reads inputs (elementwise.py `MapInputs`), bound after the pass's own
textures; a pass without one gets the identity.
"""

from ... import dtypes
from .elementwise import MapInputs, body_functions
from .fused import tree_body


class Epilogue:
    """FusedProgram `program` (input 0 the product's value, k >= 1 Arg `extras[k - 1]`)
    for a pass writing Arg `out` whose own textures are units 0..`first` - 1.

    Attributes: `textures` (the Args to bind after the pass's own), `uniforms`, `key`
    (for the pass's program cache key).
    """

    def __init__(self, out, extras, program, first):
        self.reads = MapInputs(out, [(e, e.type, None) for e in extras], first)
        self.body = tree_body(program, [("x0", "float", dtypes.float32)] + [
            (f"x{k}", e.type, e.dtype) for k, e in enumerate(extras, 1)])
        self.textures = list(extras)
        self.uniforms = self.reads.uniforms
        self.key = ("epilogue", self.body, self.reads.key)

    def source(self, texel=False):
        """GLSL defining `vec4 epilogue(vec4 acc)`, which needs `out_texel()`, or with
        `texel`, `vec4 epilogue(vec4 acc, int t)` for texel t of the output (a pass
        applying it to values it does not write: conv2d_pool)."""
        decls, loads = self.reads.source()
        n = len(self.textures)
        params = ", ".join(["float x0"] + [f"{e.type} x{k}" for k, e in
                                             enumerate(self.textures, 1)])
        lanes = ", ".join("epilogue_lane({})".format(", ".join(
            [f"acc.{c}"] + [f"v{i}.{c}" for i in range(n)])) for c in "xyzw")
        return "\n".join([body_functions(self.body),
                          f"float epilogue_lane({params}) {{\n  return {self.body};\n}}",
                          decls,
                          "vec4 epilogue(vec4 acc, int t) {\n  int base = t << 2;" if texel
                          else "vec4 epilogue(vec4 acc) {\n  int base = out_texel() << 2;",
                          loads, f"  return vec4({lanes});\n}}"])


def source(epilogue, t4="vec4"):
    """The epilogue function of a pass writing `t4` texels: Epilogue `epilogue`'s, or
    the identity for None."""
    return f"{t4} epilogue({t4} v) {{ return v; }}" if epilogue is None else epilogue.source()
