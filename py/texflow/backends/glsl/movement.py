"""GLSL kernels of the movement ops.

transpose, broadcast_to, slice, strided_slice and tile are strided copies through the
elementwise generator (`map_launch`): a slice is the input's strides plus a
flat offset, a tile a broadcast of the input viewed with a size-1 axis before
each of its axes. pad, concat, gather and unsorted_segment_sum have programs of
their own (pad.frag, concat.frag, gather.frag, segment_sum.frag); each writes
a whole output texel per fragment, as whole input texels when the innermost
block it copies is a multiple of four elements ("vec"), else lane by lane.
"""

import struct

from ... import dtypes
from ..base import kernel
from ..layout import (axis_view, reverse_view, slice_view, strided_view, tile_view,
                      transpose_view)
from .elementwise import map_launch
from .program import Arg, fill, head, vec4_type

# Textures one concat launch reads (the previous pass's result is one of them).
CONCAT_INPUTS = 8


def transpose_into(b, out, x, perm):
    """Records a launch writing `x` transposed by `perm` into Arg `out`."""
    map_launch(b, out, [(x, x.type, transpose_view(x.shape, perm))], "x0", "copy")


@kernel("transpose", "glsl")
def transpose(b, x, perm):
    transpose_into(b, b.out, x, perm)


@kernel("broadcast_to", "glsl")
def broadcast_to(b, x, shape):
    map_launch(b, b.out, [(x, x.type, None)], "x0", "copy")


@kernel("slice", "glsl")
def slice_(b, x, begin, size):
    strides, offset = slice_view(x.shape, begin)
    map_launch(b, b.out, [(x, x.type, strides, offset)], "x0", "copy")


@kernel("strided_slice", "glsl")
def strided_slice(b, x, window, shape, **spec):
    # the output viewed as one axis per input axis (counts): a strided read of x
    counts, strides, offset = strided_view(x.shape, window)
    view = Arg(b.out.ref, counts, b.out.dtype)
    map_launch(b, view, [(x, x.type, strides, offset)], "x0", "copy")


@kernel("reverse", "glsl")
def reverse(b, x, axes):
    flipped, offset = reverse_view(x.shape, axes)
    map_launch(b, b.out, [(x, x.type, flipped, offset)], "x0", "copy")


@kernel("tile", "glsl")
def tile(b, x, multiples):
    split, strides = tile_view(x.shape, multiples)
    view = Arg(b.out.ref, split, b.out.dtype)
    map_launch(b, view, [(x, x.type, strides)], "x0", "copy")


def _constant_bits(value, dtype):
    """`value` converted to `dtype` as an int uniform: float32 travels as its bits
    (exact, and NaN or infinity survive JSON)."""
    if dtype == dtypes.float32:
        return struct.unpack("<i", struct.pack("<f", float(value)))[0]
    if dtype == dtypes.bool_:
        return int(bool(value))
    return int(value)


@kernel("pad", "glsl")
def pad(b, x, paddings, constant_values):
    # an axis padded by (0, 0) merges into the axis before it: [.., A, B] -> [.., A * B]
    dims = []
    for n, (lo, hi) in zip(x.shape, paddings):
        if dims and lo == hi == 0:
            prev = dims[-1]
            dims[-1] = [prev[0] * n, prev[1] * n, prev[2] * n]
        else:
            dims.append([n, lo, hi])
    rank = max(len(dims), 1)
    dims = dims or [[1, 0, 0]]
    t = x.type
    value = _constant_bits(constant_values, x.dtype)

    def source():
        fill_value = "intBitsToFloat(uValue)" if t == "float" else "uValue"
        return fill("pad.frag", head=head([t], t), R=rank, T=t, T4=vec4_type(t),
                    value=fill_value)
    b.launch(("pad", t, rank), source, b.out, [x],
             {"uInShape": [n for n, _, _ in dims], "uBefore": [lo for _, lo, _ in dims],
              "uShape": [n + lo + hi for n, lo, hi in dims], "uValue": value})


@kernel("concat", "glsl")
def concat(b, *values, axis):
    # A launch reads at most CONCAT_INPUTS textures, so many inputs take several
    # passes, each copying its group's blocks and the rest from the previous pass.
    out = b.out
    _, total, inner = axis_view(out.shape, axis)
    starts = [0]
    for v in values:
        starts.append(starts[-1] + v.shape[axis])
    groups, i = [], 0
    while i < len(values):
        take = CONCAT_INPUTS - (1 if groups else 0)
        groups.append(range(i, min(i + take, len(values))))
        i += take
    t, vec = out.type, inner % 4 == 0
    other = b.temp(out.shape, out.dtype) if len(groups) > 1 else None
    prev = None
    for p, group in enumerate(groups):
        # passes alternate between `other` and the output, ending on the output
        dst = out if (len(groups) - 1 - p) % 2 == 0 else other
        inputs = [values[j] for j in group] + ([prev] if prev is not None else [])
        count, has_prev = len(group), prev is not None

        def source(count=count, has_prev=has_prev):
            return _concat_source(t, count, has_prev, vec)
        b.launch(("concat", t, count, has_prev, vec), source, dst, inputs,
                 {"uTotal": total, "uInner": inner,
                  "uStart": [starts[j] for j in group] + [starts[group[-1] + 1]]})
        prev = dst


def _concat_source(t, count, has_prev, vec):
    t4 = vec4_type(t)
    get = "texel{j}({i} >> 2)" if vec else "get{j}({i})"
    lines = []
    for j in range(count):
        lines.append(f"    if (a < uStart[{j + 1}]) {{\n"
                     f"      int i = (outer * (uStart[{j + 1}] - uStart[{j}]) + a - uStart[{j}])"
                     f" * uInner + inner;\n"
                     f"      return {get.format(j=j, i='i')};\n    }}")
    rest = get.format(j=count, i="o") if has_prev else f"{t4 if vec else t}(0)"
    return fill("concat.frag", head=head([t] * (count + int(has_prev)), t),
                V=t4 if vec else t, T4=t4, K=count, select="\n".join(lines), rest=rest,
                result="pick(o)" if vec else
                f"{t4}(pick(o), pick(o + 1), pick(o + 2), pick(o + 3))")


@kernel("gather", "glsl")
def gather(b, params, indices, axis):
    outer, n, inner = axis_view(params.shape, axis)
    t, vec = params.type, inner % 4 == 0

    def source():
        return _lanes_source("gather.frag", [t, "int"], t, vec)
    b.launch(("gather", t, vec), source, b.out, [params, indices],
             {"uN": n, "uM": max(indices.size, 1), "uInner": inner})


# What a kernel writes for an index it cannot raise about: nothing plausible.
_BAD = {"float": "intBitsToFloat(0x7fc00000)", "int": "-2147483647 - 1"}


@kernel("unsorted_segment_sum", "glsl")
def unsorted_segment_sum(b, data, ids, num_segments):
    # Each output element scans every id: O(segments x rows) reads, as no scatter
    # (no atomics, no blending of int32 targets) exists in WebGL2 fragment shaders.
    inner = data.size // max(data.shape[0], 1)
    t, vec = data.type, inner % 4 == 0

    def source():
        return _lanes_source("segment_sum.frag", [t, "int"], t, vec)
    b.launch(("segment_sum", t, vec), source, b.out, [data, ids],
             {"uRows": data.shape[0], "uInner": inner, "uSegments": num_segments})


def _lanes_source(name, in_types, t, vec):
    """A program computing a texel by `pick(o)`: whole (vec) or lane by lane."""
    t4 = vec4_type(t)
    return fill(name, head=head(in_types, t), T=t, T4=t4, V=t4 if vec else t, bad=_BAD[t],
                fetch="texel0(i >> 2)" if vec else "get0(i)",
                result="pick(o)" if vec else
                f"{t4}(pick(o), pick(o + 1), pick(o + 2), pick(o + 3))")
