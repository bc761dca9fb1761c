"""GLSL epilogues: a product kernel (matmul, conv2d) applying an elementwise tree to
its output texel before writing it (ops/epilogue.py).

A product's final pass ends in `outValue = epilogue(acc);`. `Epilogue` writes that
function for a FusedProgram: the tree's body from the same op bodies the
elementwise kernels use (fused.py `tree_body`), its other arrays read per lane as
`map_launch` reads inputs (elementwise.py `MapInputs`), bound after the pass's own
textures; a pass without one gets the identity. A program of several outputs
(matmul_epilogue_multi) gives `void epilogue(vec4 acc, out vec4 e0, ...)`, one result
per render target of the pass.
"""

from ... import dtypes
from .elementwise import MapInputs, body_functions
from .fused import compose, tree_body


class Epilogue:
    """FusedProgram `program` (input 0 the product's value, k >= 1 Arg `extras[k - 1]`)
    for a pass writing Arg `out` whose own textures are units 0..`first` - 1.

    Attributes: `textures` (the Args to bind after the pass's own), `uniforms`, `key`
    (for the pass's program cache key).
    """

    def __init__(self, out, extras, program, first):
        self.reads = MapInputs(out, [(e, e.type, None) for e in extras], first)
        inputs = [("x0", "float", dtypes.float32)] + [
            (f"x{k}", e.type, e.dtype) for k, e in enumerate(extras, 1)]
        self.outputs = len(program.outputs)
        if self.outputs > 1:  # locals for shared nodes and outputs, then each output
            named = {j for j, n in enumerate(program.reads) if n > 1} | set(program.outputs)
            text, lets = compose(program, inputs, named)
            self.body = (tuple(lets), tuple(text[j] for j in program.outputs))
        else:
            self.body = tree_body(program, inputs)
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
        args = [", ".join([f"acc.{c}"] + [f"v{i}.{c}" for i in range(n)]) for c in "xyzw"]
        if self.outputs > 1:
            return self._multi_source(params, args, decls, loads)
        lanes = ", ".join(f"epilogue_lane({a})" for a in args)
        return "\n".join([body_functions(self.body),
                          f"float epilogue_lane({params}) {{\n  return {self.body};\n}}",
                          decls,
                          "vec4 epilogue(vec4 acc, int t) {\n  int base = t << 2;" if texel
                          else "vec4 epilogue(vec4 acc) {\n  int base = out_texel() << 2;",
                          loads, f"  return vec4({lanes});\n}}"])

    def _multi_source(self, params, args, decls, loads):
        lets, results = self.body
        got = ", ".join(f"r{j}" for j in range(self.outputs))
        lane = (f"void epilogue_lane({params}, "
                + ", ".join(f"out float r{j}" for j in range(self.outputs)) + ") {\n"
                + "".join(f"  {s}\n" for s in lets)
                + "".join(f"  r{j} = {e};\n" for j, e in enumerate(results)) + "}")
        store = [f"  {{ float {got}; epilogue_lane({a}, {got}); "
                 + " ".join(f"e{j}.{c} = r{j};" for j in range(self.outputs)) + " }"
                 for c, a in zip("xyzw", args)]
        outs = ", ".join(f"out vec4 e{j}" for j in range(self.outputs))
        return "\n".join([body_functions(" ".join((*lets, *results))), lane, decls,
                          f"void epilogue(vec4 acc, {outs}) {{\n  int base = out_texel() << 2;",
                          loads, *store, "}"])

    def store(self, value):
        """GLSL writing the pass's outputs from its texel `value` through the epilogue."""
        if self.outputs == 1:
            return f"  outValue = epilogue({value});"
        names = ", ".join(f"e{j}" for j in range(self.outputs))
        return (f"  vec4 {names};\n  epilogue({value}, {names});\n"
                + "\n".join(f"  outValue{j} = e{j};" for j in range(self.outputs)))


def source(epilogue, t4="vec4"):
    """The epilogue function of a pass writing `t4` texels: Epilogue `epilogue`'s, or
    the identity for None."""
    return f"{t4} epilogue({t4} v) {{ return v; }}" if epilogue is None else epilogue.source()
