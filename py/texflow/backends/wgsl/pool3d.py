"""WGSL kernels of max_pool3d, its gradient and the gradient's gradient
(shaders/wgsl/pool3d.wgsl, pool3d_grad.wgsl, pool3d_grad_grad.wgsl),
by TensorFlow 2.21's rules (ops/pool3d.py): one output element per invocation, a loop over
its box (the gradient: over the boxes covering the position)."""

from ..base import kernel
from .program import (GLOBAL_INDEX, Program, Step, check_loops, global_index, grid_for,
                      header, render, size_of)

_programs = {}
# the params every pool3d program reads (total, N, D, H, W, C, OD, OH, OW, window (3),
# strides (3), pads before (3)), and an output element's position
_GEOMETRY = ("let D = params[2]; let H = params[3]; let W = params[4]; let C = params[5];\n"
             "  let OD = params[6]; let OH = params[7]; let OW = params[8];")
_AT_OUTPUT = ("let c = i % C; let r1 = i / C; let ox = r1 % OW; let r2 = r1 / OW;\n"
              "  let oy = r2 % OH; let r3 = r2 / OH; let oz = r3 % OD; let n = r3 / OD;")


def _add(k, name, inputs, total, x_shape, out_dhw, ksize, strides, pads):
    """One dispatch of shaders/wgsl/<name>.wgsl over `total` elements: volume `x_shape`
    (NDHWC), pooled `out_dhw`, boxes `ksize` at `strides`, `pads` (before and after)."""
    n_in = len(inputs)
    check_loops(k.backend, name, x_shape, ksize[0] * (1 + ksize[1] * (1 + ksize[2])))
    if name not in _programs:
        _programs[name] = Program((name,), n_in, 1, lambda: header(["f32"] * n_in, ["f32"]) + (
            render(f"{name}.wgsl", builtins=GLOBAL_INDEX, index=global_index(),
                   geometry=_GEOMETRY, at_output=_AT_OUTPUT)))
    meta = [total, *x_shape, *out_dhw, *ksize, *strides, pads[0], pads[2], pads[4]]
    k.add(Step(_programs[name], meta, grid_for(total), (*inputs, k.out)))
    return k.recipe()


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
