"""GLSL kernels of the sorting primitives: argsort as a bitonic sort of each row (one
launch per pass, log2(P) (log2(P) + 1) / 2 passes for rows padded to P, a power of
two), and permute_last_axis, a per-row gather."""

from ... import dtypes
from ..base import kernel
from .program import fill, head, vec4_type


def bitonic_passes(n):
    """(padded length P, [(block k, distance j)]) sorting rows of `n`."""
    p = 2
    while p < n:
        p *= 2
    passes = []
    k = 2
    while k <= p:
        j = k // 2
        while j >= 1:
            passes.append((k, j))
            j //= 2
        k *= 2
    return p, passes


@kernel("argsort", "glsl")
def argsort(b, x, descending):
    n = x.shape[-1]
    rows = x.size // n
    p, passes = bitonic_passes(n)
    temps = [b.temp((rows, p), dtypes.int32) for _ in range(min(len(passes) - 1, 2))]
    t = x.type
    src = None
    for step, (k, j) in enumerate(passes):
        left = len(passes) - 1 - step
        dst = b.out if left == 0 else temps[left % len(temps)]
        first = src is None

        def source(first=first):
            index = "i" if first else "get1(row * uP + i)"
            return fill("sort.frag", head=head([t] if first else [t, "int"], "int"),
                        index=index)
        b.launch(("argsort", t, first), source, dst, [x] if first else [x, src],
                 {"uN": n, "uP": p, "uOutN": n if left == 0 else p, "uK": k, "uJ": j,
                  "uDesc": int(descending)})
        src = dst


@kernel("permute_last_axis", "glsl")
def permute_last_axis(b, x, perm):
    t = x.type

    def source():
        return fill("permute.frag", head=head([t, "int"], t), T=t, T4=vec4_type(t))
    b.launch(("permute", t), source, b.out, [x, perm], {"uN": x.shape[-1]})
