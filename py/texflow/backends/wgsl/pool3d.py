"""WGSL kernels of max_pool3d, its gradient and the gradient's gradient
(shaders/wgsl/pool3d.wgsl, pool3d_grad.wgsl, pool3d_grad_grad.wgsl),
by TensorFlow 2.21's rules (ops/pool3d.py): one output element per invocation, a loop over
its box (the gradient: over the boxes covering the position)."""

from ..base import kernel
from .program import (GLOBAL_INDEX, Program, global_index, grid_for, header, nest_bounds,
                      part_steps, render, size_of, tap_parts, window_fields)

_programs = {}
# the params every pool3d program reads (total, N, D, H, W, C, OD, OH, OW, window (3),
# strides (3), pads before (3)), and an output element's position
_GEOMETRY = ("let D = params[2]; let H = params[3]; let W = params[4]; let C = params[5];\n"
             "  let OD = params[6]; let OH = params[7]; let OW = params[8];")
_AT_OUTPUT = ("let c = i % C; let r1 = i / C; let ox = r1 % OW; let r2 = r1 / OW;\n"
              "  let oy = r2 % OH; let r3 = r2 / OH; let oz = r3 % OD; let n = r3 / OD;")


def _add(k, name, inputs, total, x_shape, out_dhw, ksize, strides, pads):
    """One dispatch of shaders/wgsl/<name>.wgsl over `total` elements: volume `x_shape`
    (NDHWC), pooled `out_dhw`, boxes `ksize` at `strides`, `pads` (before and after); past
    the loop budget one per range of the box's taps (program.py tap_parts), each taking up
    what the one before left (pool3d_grad_grad: with whether a tap was found, in a
    temporary)."""
    n_in = len(inputs)
    backward = name == "pool3d_grad"  # its loops: columns, rows, planes, descending
    parts = tap_parts(k.backend, ksize[::-1] if backward else ksize)
    fields = _fields(name, parts)
    key = (name, parts is not None)
    outs = ["f32", "i32"] if name == "pool3d_grad_grad" and parts else ["f32"]
    if key not in _programs:
        _programs[key] = Program(key, n_in, len(outs), lambda: header(["f32"] * n_in, outs) + (
            render(f"{name}.wgsl", builtins=GLOBAL_INDEX, index=global_index(),
                   geometry=_GEOMETRY, at_output=_AT_OUTPUT, **fields)))
    meta = [total, *x_shape, *out_dhw, *ksize, *strides, pads[0], pads[2], pads[4]]
    refs = (*inputs, k.out) if len(outs) == 1 else (*inputs, k.out, k.temp(4 * total))
    for step in part_steps(_programs[key], meta, grid_for(total), refs, parts):
        k.add(step)
    return k.recipe()


_BOX = (("a", "params[9]"), ("b", "params[10]"), ("e", "params[11]"))


def _fields(name, parts):
    """The loops' bounds of shader `name` over a whole box, or (`parts`) a range of its
    taps at params[18] and params[19], and what a part takes up from the one before."""
    if name == "pool3d_grad_grad":
        fields = window_fields(parts, 18, _BOX, "result = out0[i]; found = out1[i] != 0;")
        return dict(fields, save="" if parts is None else "\n  out1[i] = select(0, 1, found);")
    if name == "pool3d":
        return window_fields(parts, 18, _BOX, "acc = out0[i];")
    # pool3d_grad counts each loop down from its length - 1 to 0 (`<v>1` to `<v>0`)
    fields = window_fields(parts, 18, (), "acc = out0[i];")
    loops = _BOX[::-1]
    if parts is None:
        return dict(fields, **{f"{v}1": f"{d} - 1" for v, d in loops},
                    **{f"{v}0": "0" for v, _ in loops})
    ups = [f"({d} - 1 - {v})" for v, d in loops]  # the loops counted up
    for (v, d), (lo, hi) in zip(loops, nest_bounds(ups, [d for _, d in loops], 18)):
        fields.update({f"{v}1": f"{d} - 1 - {lo}", f"{v}0": f"{d} - {hi}"})
    return fields


@kernel("max_pool3d", "wgsl")
def max_pool3d(k, x, ksize, strides, pads):
    return _add(k, "pool3d", (0,), size_of(k.out_shape), x.shape, k.out_shape[1:4], ksize,
                strides, pads)


@kernel("max_pool3d_grad", "wgsl")
def max_pool3d_grad(k, x, y, dy, ksize, strides, pads):
    return _add(k, "pool3d_grad", (0, 1, 2), size_of(x.shape), x.shape, y.shape[1:4], ksize,
                strides, pads)


@kernel("max_pool3d_grad_grad", "wgsl")
def max_pool3d_grad_grad(k, x, y, g, ksize, strides, pads):
    return _add(k, "pool3d_grad_grad", (0, 1, 2), size_of(y.shape), x.shape, y.shape[1:4],
                ksize, strides, pads)


@kernel("max_pool_grad_grad", "wgsl")
def max_pool_grad_grad(k, x, y, g, ksize, strides, pads):
    """2-D MaxPoolGradGrad: the 3-D program on one-plane volumes (flat data is the same)."""
    n, h, w, c = x.shape
    return _add(k, "pool3d_grad_grad", (0, 1, 2), size_of(y.shape), (n, 1, h, w, c),
                (1, *y.shape[1:3]), (1, *ksize), (1, *strides), (0, 0, *pads))
