"""GLSL kernels of the sorting primitives.

argsort is a bitonic sort of each row, padded to P (a power of two >= 4), carrying
(key, index) pairs in two int textures (two render targets): the first launch turns
values into int keys that order as they do, so the passes are integer compares with no
branches and no lookups through indices. It also sorts each texel's four lanes; then,
per block size k >= 8, one launch per distance j >= 4 (partner texels) and one for
j = 2 and 1 together (lanes of the same texel); a last launch copies the indices out.
permute_last_axis is a per-row gather.
"""

from ... import dtypes
from ..base import kernel
from ..layout import axis_view, pow2_at_least
from .elementwise import map_launch
from .program import Arg, fill, head, vec4_type

_SWAP1 = "  stage(ka, ia, ka.yxwz, ia.yxwz, p0, uK, 1);"
_SWAP2 = "  stage(ka, ia, ka.zwxy, ia.zwxy, p0, uK, 2);"
_BODIES = {
    # keys of a texel of the row (padding past uN), its lanes sorted: stages k = 2 and 4
    "load": """  int row = (t << 2) / uP;
  ivec4 ka, ia;
  for (int c = 0; c < 4; c++) {
    int pos = p0 + c;
    int key = pos < uN ? sort_key(get0(row * uN + pos)) : 0;
    ka[c] = pos < uN ? (uDesc == 1 ? ~key : key) : 2147483647;
    ia[c] = pos;
  }
  stage(ka, ia, ka.yxwz, ia.yxwz, p0, 2, 1);
  stage(ka, ia, ka.zwxy, ia.zwxy, p0, 4, 2);
  stage(ka, ia, ka.yxwz, ia.yxwz, p0, 4, 1);""",
    "far": """  int u = t ^ (uJ >> 2);
  ivec4 ka = texel0(t);
  ivec4 ia = texel1(t);
  stage(ka, ia, texel0(u), texel1(u), p0, uK, uJ);""",
    "near": "  ivec4 ka = texel0(t);\n  ivec4 ia = texel1(t);\n" + _SWAP2 + "\n" + _SWAP1,
}


def bitonic_plan(n):
    """(padded length P, [(k, j)] of the passes after the first): j >= 4 passes, and
    j == 2 standing for the fused distances 2 and 1."""
    p = pow2_at_least(n, 4)
    passes = []
    k = 8
    while k <= p:
        j = k // 2
        while j >= 4:
            passes.append((k, j))
            j //= 2
        passes.append((k, 2))
        k *= 2
    return p, passes


def _source(kind, t):
    return fill("sort.frag", head=head([t] if kind == "load" else ["int", "int"], "int", 2),
                body=_BODIES[kind])


@kernel("argsort", "glsl")
def argsort(b, x, descending):
    rows, n, _ = axis_view(x.shape, -1)
    p, passes = bitonic_plan(n)
    t = x.type
    pairs = [[b.temp((rows, p), dtypes.int32), b.temp((rows, p), dtypes.int32)]
             for _ in range(2 if passes else 1)]
    uniforms = {"uN": n, "uP": p, "uK": 4, "uJ": 1, "uDesc": int(descending)}
    b.launch(("argsort", t, "load"), lambda: _source("load", t), pairs[0], [x], uniforms)
    for step, (k, j) in enumerate(passes):
        src, dst = pairs[step % 2], pairs[(step + 1) % 2]
        kind = "far" if j >= 4 else "near"  # int keys and indices, whatever x's type
        b.launch(("argsort", kind), lambda kind=kind: _source(kind, "int"), dst, src,
                 dict(uniforms, uK=k, uJ=j))
    indices = pairs[len(passes) % 2][1]
    # the first n positions of each row, as int32
    out = Arg(b.out.ref, (rows, n), dtypes.int32)
    map_launch(b, out, [(indices, "int", [p, 1])], "x0", "copy")


@kernel("permute_last_axis", "glsl")
def permute_last_axis(b, x, perm):
    t = x.type

    def source():
        return fill("permute.frag", head=head([t, "int"], t), T=t, T4=vec4_type(t))
    b.launch(("permute", t), source, b.out, [x, perm], {"uN": x.shape[-1]})
