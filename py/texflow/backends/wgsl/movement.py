"""WGSL kernels of the movement ops: transpose, broadcast_to, slice, strided_slice, tile, concat,
pad, gather and unsorted_segment_sum.

Most are one strided copy (`copy_step`): element i of a shape is read at
src_offset + sum(c_k * src_strides[k]) and written at dst_offset +
sum(c_k * dst_strides[k]), with axes merged first. A slice offsets the
source, a tile reads a split shape with zero strides along the repeats, a
concat writes each input into its region of the output.
"""

import numpy as np

from ..base import kernel
from ..layout import (collapse, contiguous_strides, reverse_view, slice_view, strided_view,
                      tile_view, transpose_view)
from .elementwise import map_step, operand
from .program import (GLOBAL_INDEX, STORAGE, Program, Step, dot_strides, global_index,
                      grid_for, header, render, size_of, unravel)

_programs = {}


def _program(key, n_in, make):
    """The program cached under `key`, made by `make()` on first use."""
    if key not in _programs:
        _programs[key] = Program(key, n_in, 1, make)
    return _programs[key]


def _main(body_lines):
    body = "\n  ".join([global_index(), "if (i >= params[0]) { return; }"] + body_lines)
    return f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n"


def transpose_step(x_ref, shape, dtype, perm, out_ref):
    """A Step writing the `perm` transpose of contiguous `shape` to `out_ref`."""
    out_shape = tuple(shape[p] for p in perm)
    t = STORAGE[dtype]
    return map_step("transpose", "x0", None, out_shape, dtype,
                    [(x_ref, t, t, transpose_view(shape, perm))], out_ref)


def copy_step(src, dst, dtype, shape, src_strides, src_offset=0, dst_strides=None,
              dst_offset=0):
    """A Step copying `shape` elements between strided views of buffers src and dst."""
    if dst_strides is None:
        dst_strides = contiguous_strides(shape)
    dims, (ss, ds) = collapse(shape, [src_strides, dst_strides])
    rank = len(dims)
    t = STORAGE[dtype]

    def make():
        return header([t], [t]) + _main(unravel(rank, "i", 3) + [
            f"out0[params[2] + {dot_strides(rank, 3 + 2 * rank)}] = "
            f"in0[params[1] + {dot_strides(rank, 3 + rank)}];"])
    n = size_of(shape)
    return Step(_program(("copy", t, rank), 1, make), [n, src_offset, dst_offset, *dims, *ss,
                                                       *ds], grid_for(n), (src, dst))


@kernel("transpose", "wgsl")
def transpose(k, *inputs, perm):
    x = inputs[0]
    k.add(transpose_step(0, x.shape, x.dtype, perm, k.out))
    return k.recipe()


@kernel("broadcast_to", "wgsl")
def broadcast_to(k, *inputs, shape):
    t = STORAGE[k.out_dtype]
    k.add(map_step("copy", "x0", None, k.out_shape, k.out_dtype,
                   [operand(inputs, 0, k.out_shape, t)], k.out))
    return k.recipe()


@kernel("slice", "wgsl")
def slice_(k, *inputs, begin, size):
    x = inputs[0]
    own, offset = slice_view(x.shape, begin)
    k.add(copy_step(0, k.out, k.out_dtype, k.out_shape, own, offset))
    return k.recipe()


@kernel("strided_slice", "wgsl")
def strided_slice(k, *inputs, window, shape, **spec):
    x = inputs[0]
    counts, src, offset = strided_view(x.shape, window)
    k.add(copy_step(0, k.out, k.out_dtype, counts, src, offset))
    return k.recipe()


@kernel("reverse", "wgsl")
def reverse(k, *inputs, axes):
    strides, offset = reverse_view(inputs[0].shape, axes)
    k.add(copy_step(0, k.out, k.out_dtype, k.out_shape, strides, offset))
    return k.recipe()


@kernel("tile", "wgsl")
def tile(k, *inputs, multiples):
    split, strides = tile_view(inputs[0].shape, multiples)
    k.add(copy_step(0, k.out, k.out_dtype, split, strides))
    return k.recipe()


@kernel("concat", "wgsl")
def concat(k, *inputs, axis):
    out_strides = contiguous_strides(k.out_shape)
    start = 0
    for i, x in enumerate(inputs):
        if x.size:
            k.add(copy_step(i, k.out, k.out_dtype, x.shape, contiguous_strides(x.shape), 0,
                            out_strides, start * out_strides[axis]))
        start += x.shape[axis]
    return k.recipe()


def _bits(value, dtype):
    """`value` in `dtype`'s storage, as the int32 with the same bits (for params)."""
    if dtype == "bool":
        value = bool(value)
    return int(np.asarray(value).astype(np.float32 if dtype == "float32" else np.int32)
               .view(np.int32))


def _file_program(name, in_types, out_type, **fields):
    """A program from shader file `<name>.wgsl` with `fields` filled in."""
    key = (name, in_types, out_type, tuple(sorted(fields.items())))
    return _program(key, len(in_types), lambda: header(list(in_types), [out_type]) + render(
        f"{name}.wgsl", builtins=GLOBAL_INDEX, index=global_index(), **fields))


@kernel("pad", "wgsl")
def pad(k, *inputs, paddings, constant_values):
    x = inputs[0]
    t = STORAGE[k.out_dtype]
    r = len(k.out_shape)
    in_at, before_at, strides_at = 2 + r, 2 + 2 * r, 2 + 3 * r
    offsets = []
    for j in range(r):  # coordinate j of the input, its bounds, its offset
        offsets += [f"let t{j} = c{j} - params[{before_at + j}];",
                    f"inside = inside && t{j} >= 0 && t{j} < params[{in_at + j}];",
                    f"src = src + t{j} * params[{strides_at + j}];"]
    program = _file_program("pad", (t,), t, coords="\n  ".join(unravel(r, "i", 2)),
                            offsets="\n  ".join(offsets),
                            fill="bitcast<f32>(params[1])" if t == "f32" else "params[1]")
    n = size_of(k.out_shape)
    meta = [n, _bits(constant_values, k.out_dtype), *k.out_shape, *x.shape,
            *(a for a, _ in paddings), *contiguous_strides(x.shape)]
    k.add(Step(program, meta, grid_for(n), (0, k.out)))
    return k.recipe()


@kernel("gather", "wgsl")
def gather(k, *inputs, axis):
    params, indices = inputs
    t = STORAGE[k.out_dtype]
    n = size_of(k.out_shape)
    meta = [n, indices.size, size_of(params.shape[axis + 1:]), params.shape[axis],
            *_BAD_PARAMS]
    k.add(Step(_file_program("gather", (t, "i32"), t, T=t, bad=_bad(t, 4)), meta,
               grid_for(n), (0, 1, k.out)))
    return k.recipe()


# What a kernel writes for an index it cannot raise about: nothing plausible. The bits
# travel in params: a NaN constant does not compile in Chrome's WGSL compiler.
_NAN_BITS, _INT_MIN = 0x7fc00000, -2**31


def _bad(t, at):
    return f"bitcast<f32>(params[{at}])" if t == "f32" else f"params[{at + 1}]"


_BAD_PARAMS = [_NAN_BITS, _INT_MIN]


@kernel("unsorted_segment_sum", "wgsl")
def unsorted_segment_sum(k, *inputs, num_segments):
    """segment_sum.wgsl, each output scanning every id, or where that passes the
    backend's LOOP_BUDGET, parts of the ids each, added up by segment_parts.wgsl."""
    data = inputs[0]
    t = STORAGE[k.out_dtype]
    store = "select(0, 1, acc != 0)" if k.out_dtype == "bool" else "acc"
    n, ids = size_of(k.out_shape), data.shape[0]
    budget = k.backend.LOOP_BUDGET
    parts = 1 if budget is None else max(1, -(-ids // budget))
    per = -(-ids // parts)
    meta = [n * parts, size_of(data.shape[1:]), ids, num_segments, *_BAD_PARAMS, n, per]
    if parts == 1:
        k.add(Step(_file_program("segment_sum", (t, "i32"), t, T=t, bad=_bad(t, 4),
                                 finish=f"out0[i] = select({store}, {_bad(t, 4)}, bad);"),
                   meta, grid_for(n), (0, 1, k.out)))
        return k.recipe()
    ref = k.temp(4 * (n + 1) * parts)
    finish = f"out0[i] = acc; if (o == 0) {{ out0[parts_end + p] = select({t}(0), {t}(1), bad); }}"
    k.add(Step(_file_program("segment_sum", (t, "i32"), t, T=t, bad=_bad(t, 4),
                             finish=finish.replace("parts_end", "params[0]")),
               meta, grid_for(n * parts), (0, 1, ref)))
    k.add(Step(_file_program("segment_parts", (t,), t, T=t, store=store, bad=_bad(t, 2)),
               [n, parts, *_BAD_PARAMS], grid_for(n), (ref, k.out)))
    return k.recipe()
