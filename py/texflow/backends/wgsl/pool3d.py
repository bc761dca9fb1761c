"""WGSL kernels of max_pool3d, its gradient and the gradient's gradient
(shaders/wgsl/pool3d.wgsl, pool3d_grad.wgsl, pool3d_grad_grad.wgsl),
by TensorFlow 2.21's rules (ops/pool3d.py): one output element per invocation, a loop over
its box (the gradient: over the boxes covering the position)."""

from ..base import kernel
from .program import (GLOBAL_INDEX, Program, Step, global_index, grid_for, header, render,
                      size_of)

_programs = {}


def _program(name, n_in):
    if name not in _programs:
        _programs[name] = Program((name,), n_in, 1, lambda: header(["f32"] * n_in, ["f32"]) + (
            render(f"{name}.wgsl", builtins=GLOBAL_INDEX, index=global_index())))
    return _programs[name]


def _meta(total, x_shape, out_dhw, ksize, strides, pads):
    return [total, *x_shape, *out_dhw, *ksize, *strides, pads[0], pads[2], pads[4]]


@kernel("max_pool3d", "wgsl")
def max_pool3d(k, x, ksize, strides, pads):
    total = size_of(k.out_shape)
    k.add(Step(_program("pool3d", 1), _meta(total, x.shape, k.out_shape[1:4], ksize, strides,
                                              pads), grid_for(total), (0, k.out)))
    return k.recipe()


@kernel("max_pool3d_grad", "wgsl")
def max_pool3d_grad(k, x, y, dy, ksize, strides, pads):
    total = size_of(x.shape)
    k.add(Step(_program("pool3d_grad", 3), _meta(total, x.shape, y.shape[1:4], ksize, strides,
                                                   pads), grid_for(total), (0, 1, 2, k.out)))
    return k.recipe()


@kernel("max_pool3d_grad_grad", "wgsl")
def max_pool3d_grad_grad(k, x, y, g, ksize, strides, pads):
    total = size_of(y.shape)
    k.add(Step(_program("pool3d_grad_grad", 3), _meta(total, x.shape, y.shape[1:4], ksize,
                                                        strides, pads), grid_for(total),
               (0, 1, 2, k.out)))
    return k.recipe()


@kernel("max_pool_grad_grad", "wgsl")
def max_pool_grad_grad(k, x, y, g, ksize, strides, pads):
    """2-D MaxPoolGradGrad: the 3-D program on one-plane volumes (flat data is the same)."""
    n, h, w, c = x.shape
    total = size_of(y.shape)
    k.add(Step(_program("pool3d_grad_grad", 3), _meta(total, (n, 1, h, w, c),
                                                        (1, *y.shape[1:3]), (1, *ksize),
                                                        (1, *strides), (0, 0, *pads)),
               grid_for(total), (0, 1, 2, k.out)))
    return k.recipe()
