"""GLSL kernels of the cumulative ops: a scan in ceil(log2 n) passes (see scan.frag),
plus one shift pass when exclusive; passes alternate between two temporaries and end
on the output. Cost: n log2(n) reads per row instead of n, in few launches."""

from ..base import kernel
from .program import fill, functions, head, vec4_type

_FILES = ("math.glsl", "binary_ops.glsl", "reduce_ops.glsl")


def scan_passes(n, exclusive, reverse):
    """(step, shift) of each pass scanning `n` elements: signed steps, 1 for the shift."""
    sign = -1 if reverse else 1
    passes = [(sign, 1)] if exclusive else []
    s = 1
    while s < n:
        passes.append((sign * s, 0))
        s *= 2
    return passes or [(n, 0)]  # one element: a pass that reads nothing else (a copy)


def _scan(b, x, axis, exclusive, reverse, op, identity):
    inner = 1
    for d in x.shape[axis + 1:]:
        inner *= d
    n = x.shape[axis]
    t = x.type
    passes = scan_passes(n, exclusive, reverse)
    temps = [b.temp(x.shape, x.dtype) for _ in range(min(len(passes) - 1, 2))]

    def source():
        return fill("scan.frag", head=head([t], t), functions=functions([f"red_{op}"], _FILES),
                    T=t, T4=vec4_type(t), op=op, identity=identity)
    src = x
    for k, (step, shift) in enumerate(passes):
        left = len(passes) - 1 - k
        dst = b.out if left == 0 else temps[left % len(temps)]
        b.launch(("scan", op, t), source, dst, [src],
                 {"uN": n, "uB": inner, "uStep": step, "uShift": shift})
        src = dst


@kernel("cumsum", "glsl")
def cumsum(b, x, axis, exclusive, reverse):
    _scan(b, x, axis, exclusive, reverse, "sum", "0")


@kernel("cumprod", "glsl")
def cumprod(b, x, axis, exclusive, reverse):
    _scan(b, x, axis, exclusive, reverse, "prod", "1")
