"""GLSL kernels of max_pool3d, its gradient and the gradient's gradient
(shaders/glsl/pool3d.frag, pool3d_grad.frag, pool3d_grad_grad.frag),
by TensorFlow 2.21's rules (ops/pool3d.py): one output element per lane, a loop over
its box (the gradient: over the boxes covering the position)."""

from ..base import kernel
from .program import fill, head


def _launch(b, name, inputs, x_shape, out_dhw, ksize, strides, pads):
    """One launch of shaders/glsl/<name>.frag over `inputs`: volume `x_shape` (NDHWC),
    pooled planes, rows and columns `out_dhw`, boxes `ksize` at `strides`, `pads`
    (before and after, per axis)."""
    def source():
        return fill(f"{name}.frag", head=head(["float"] * len(inputs), "float"))
    b.launch((name,), source, b.out, list(inputs),
             {"uImage": list(x_shape), "uGrid": list(out_dhw), "uWin": list(ksize),
              "uStride": list(strides), "uPad": [pads[0], pads[2], pads[4]]})


@kernel("max_pool3d", "glsl")
def max_pool3d(b, x, ksize, strides, pads):
    _launch(b, "pool3d", [x], x.shape, b.out_shape[1:4], ksize, strides, pads)


@kernel("max_pool3d_grad", "glsl")
def max_pool3d_grad(b, x, y, dy, ksize, strides, pads):
    _launch(b, "pool3d_grad", [x, y, dy], x.shape, y.shape[1:4], ksize, strides, pads)


@kernel("max_pool3d_grad_grad", "glsl")
def max_pool3d_grad_grad(b, x, y, g, ksize, strides, pads):
    _launch(b, "pool3d_grad_grad", [x, y, g], x.shape, y.shape[1:4], ksize, strides, pads)


@kernel("max_pool_grad_grad", "glsl")
def max_pool_grad_grad(b, x, y, g, ksize, strides, pads):
    """2-D MaxPoolGradGrad: the 3-D program on one-plane volumes (flat data is the same)."""
    n, h, w, c = x.shape
    _launch(b, "pool3d_grad_grad", [x, y, g], (n, 1, h, w, c), (1, *y.shape[1:3]),
            (1, *ksize), (1, *strides), (0, 0, *pads))
