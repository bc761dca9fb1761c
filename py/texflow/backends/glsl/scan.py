"""GLSL kernels of the cumulative ops: scans in ceil(log2 n) passes (Hillis-Steele: pass
k combines each element with the one 2^k positions back), one launch each.

Where the scanned axis keeps a texel's four lanes together (scan_texels.frag), a pass
reads two texels per fragment: along the innermost axis (length a multiple of 4) a
first pass scans within each texel and then passes combine with the running total of
texels 2^k back, so log2(n / 4) + 1 passes; across an inner size that is a multiple of
4, lanes are independent columns. Otherwise (scan.frag) each lane reads its two elements.
An exclusive scan adds a pass that shifts the inclusive one by a position.
Cost: n log2(n) reads per row instead of n, in few launches.
"""

from ..base import kernel
from ..layout import axis_view
from .program import fill, functions, head, vec4_type

_FILES = ("math.glsl", "binary_ops.glsl", "reduce_ops.glsl")
_SYMBOL = {"sum": "+", "prod": "*"}
_TEXEL_BODIES = {
    ("local", False): "  ${T4} s = cur;\n  s.y = comb(s.x, cur.y);\n"
                      "  s.z = comb(s.y, cur.z);\n  s.w = comb(s.z, cur.w);\n  outValue = s;",
    ("local", True): "  ${T4} s = cur;\n  s.z = comb(s.w, cur.z);\n"
                     "  s.y = comb(s.z, cur.y);\n  s.x = comb(s.y, cur.x);\n  outValue = s;",
    ("combine", "columns"): "  outValue = inside ? comb4(texel0(t - uStep * uStride), cur) : cur;",
    ("combine", False): "  outValue = inside ? comb4(texel0(t - uStep).wwww, cur) : cur;",
    ("combine", True): "  outValue = inside ? comb4(texel0(t - uStep).xxxx, cur) : cur;",
    ("shift", "columns"): "  outValue = inside ? texel0(t - uStep * uStride) : id;",
    ("shift", False): "  ${T4} other = inside ? texel0(t - uStep) : id;\n"
                      "  outValue = ${T4}(other.w, cur.xyz);",
    ("shift", True): "  ${T4} other = inside ? texel0(t - uStep) : id;\n"
                     "  outValue = ${T4}(cur.yzw, other.x);",
}


def scan_passes(n, exclusive, reverse):
    """(step, shift) of each lane-by-lane pass scanning `n` elements: signed steps, shift
    1 for the exclusive shift."""
    sign = -1 if reverse else 1
    passes = [(sign, 1)] if exclusive else []
    s = 1
    while s < n:
        passes.append((sign * s, 0))
        s *= 2
    return passes or [(n, 0)]  # one element: a pass that reads nothing else (a copy)


def _texel_passes(n, inner, exclusive, reverse):
    """[(kind, body key, uniforms)] of a texel-wise scan, or None if lanes must be read
    one by one."""
    sign = -1 if reverse else 1
    if inner % 4 == 0:
        layout, length, stride = "columns", n, inner // 4
        passes = []
    elif inner == 1 and n % 4 == 0:
        layout, length, stride = reverse, n // 4, 1
        passes = [("local", (("local", reverse)), {"uLen": length, "uStride": 1, "uStep": 0})]
    else:
        return None
    s = 1
    while s < length:
        passes.append(("combine", ("combine", layout),
                       {"uLen": length, "uStride": stride, "uStep": sign * s}))
        s *= 2
    if exclusive:
        passes.append(("shift", ("shift", layout),
                       {"uLen": length, "uStride": stride, "uStep": sign}))
    return passes or [("combine", ("combine", layout),
                       {"uLen": length, "uStride": stride, "uStep": length})]


def _scan(b, x, axis, exclusive, reverse, op, identity):
    _, n, inner = axis_view(x.shape, axis)
    t = x.type
    t4 = vec4_type(t)
    texel_passes = _texel_passes(n, inner, exclusive, reverse)
    if texel_passes is not None:
        def texel_source(key):
            body = _TEXEL_BODIES[key].replace("${T4}", t4)
            return fill("scan_texels.frag", head=head([t], t), T=t, T4=t4, sym=_SYMBOL[op],
                        identity=identity, body=body)
        launches = [(("scan_texels", op, t, key), lambda key=key: texel_source(key), u)
                    for _, key, u in texel_passes]
    else:
        def source():
            return fill("scan.frag", head=head([t], t), T=t, T4=t4, op=op,
                        functions=functions([f"red_{op}"], _FILES), identity=identity)
        launches = [(("scan", op, t), source, {"uN": n, "uB": inner, "uStep": step,
                                                "uShift": shift})
                    for step, shift in scan_passes(n, exclusive, reverse)]
    temps = [b.temp(x.shape, x.dtype) for _ in range(min(len(launches) - 1, 2))]
    src = x
    for k, (key, source, uniforms) in enumerate(launches):
        left = len(launches) - 1 - k
        dst = b.out if left == 0 else temps[left % len(temps)]
        b.launch(key, source, dst, [src], uniforms)
        src = dst


@kernel("cumsum", "glsl")
def cumsum(b, x, axis, exclusive, reverse):
    _scan(b, x, axis, exclusive, reverse, "sum", "0")


@kernel("cumprod", "glsl")
def cumprod(b, x, axis, exclusive, reverse):
    _scan(b, x, axis, exclusive, reverse, "prod", "1")
