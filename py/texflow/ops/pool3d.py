"""3-D max pooling (tf.nn.max_pool3d) over NDHWC volumes, with TensorFlow 2.21's rules.

TensorFlow's CPU MaxPool3D is not its 2-D kernel in three dimensions (checked against
TensorFlow 2.21, tests/tfdiff/snippets_fidelity_gaps.py):

- The forward pass folds each box's taps in (depth, row, column) order from -inf, a
  tap in SAME padding counting as float32's lowest (-3.4028235e38). Eigen evaluates
  eight outputs at once (x86 AVX packets of 8 floats) where eight consecutive output
  elements, counted from a multiple of 8, are channels of one position and all exist;
  those take a tap only when it is greater, so NaN is never their maximum. Every other
  output (fewer than 8 channels, a group across positions, the last partial group) takes
  each tap unless it is less than the value so far: a NaN tap is taken and the next tap
  replaces it, so the box's result is NaN only when its last NaN has no tap after it.
  A box of -inf alone gives -inf (2-D max_pool gives the lowest).
- The gradient (MaxPool3DGrad) sends each output's dy to every tap of its box inside
  the volume whose value is within 1e-5 of the pooled value (|x - y| < 1e-5 in float32:
  every tie gets it, inf and NaN never do), summed per position with the boxes in
  TensorFlow's order (output columns, then rows, then planes).
- Its gradient (MaxPool3DGradGrad, for second-order gradients) gives each output the
  incoming gradient at the first tap of its box inside the volume, in (depth, row,
  column) order, exactly equal to the pooled value (none, 0, where no tap is: NaN).

Kernels: backends/numpy/pool3d.py, backends/glsl/pool3d.py, backends/wgsl/pool3d.py (the
packet width and the tie tolerance: backends/layout.py). An ARM build of TensorFlow
would use packets of 4.
"""

from ..dtypes import float32
from ..engine.registry import def_op, export, get_op
from ..engine.run import run_op
from ..errors import InvalidArgumentError
from .pooling import pool3d_args


def _out_dhw(shape, attrs):
    out = []
    for i, (n, k, s) in enumerate(zip(shape[1:4], attrs["ksize"], attrs["strides"])):
        span = n + attrs["pads"][2 * i] + attrs["pads"][2 * i + 1] - k
        out.append(span // s + 1 if span >= 0 else 0)
    return tuple(out)


def _infer(inputs, attrs):
    x = inputs[0]
    return (x.shape[0], *_out_dhw(x.shape, attrs), x.shape[4]), float32


# MaxPool3DGrad's gradient is MaxPool3DGradGrad's, and its gradient MaxPool3DGrad again
# (for dy; x and the pooled y get none, TensorFlow's zeros): each output takes the dy of
# the first tap of its box inside the volume (depth, row, column order) equal to it
_max_pool3d_grad_grad = def_op(
    "max_pool3d_grad_grad", lambda inputs, attrs: (inputs[1].shape, float32),
    grad=lambda dy, inputs, y, attrs: (
        None, None, run_op(_max_pool3d_grad, (inputs[0], inputs[1], dy), attrs)))
_max_pool3d_grad = def_op(
    "max_pool3d_grad", lambda inputs, attrs: (inputs[0].shape, float32),
    grad=lambda dy, inputs, y, attrs: (
        None, None, run_op(_max_pool3d_grad_grad, (inputs[0], inputs[1], dy), attrs)))
_max_pool3d = def_op("max_pool3d", _infer, grad=lambda dy, inputs, y, attrs: (
    run_op(_max_pool3d_grad, (inputs[0], y, dy), attrs),))
# 2-D max_pool_grad's gradient (ops/conv.py), MaxPoolGradGrad: the same rule, run by the 3-D
# kernels on a one-plane view; its own gradient is 2-D MaxPoolGrad's, the first maximum
_max_pool_grad_grad = def_op(
    "max_pool_grad_grad", lambda inputs, attrs: (inputs[1].shape, float32),
    grad=lambda dd, inputs, y, attrs: (
        None, None, run_op(get_op("max_pool_grad"), (inputs[0], dd), attrs)))


def max_pool_grad_grad(x, y, g, attrs):
    """TensorFlow's MaxPoolGradGrad of NHWC `x` pooled to `y` (max_pool's attrs): each
    pooled output takes `g` at the first in-image tap of its window equal to it."""
    return run_op(_max_pool_grad_grad, (x, y, g), attrs)


def _same_pads(n, k, s):
    total = max((-(-n // s) - 1) * s + k - n, 0)
    return total // 2, total - total // 2


@export("nn")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Max pooling of `input` [batch, depth, height, width, channels] over boxes of
    `ksize` (TensorFlow's tf.nn.max_pool3d, with its NaN, -inf and tie rules: see the
    module's docstring).

    Args:
        input: a float32 tensor [batch, depth, height, width, channels].
        ksize: the box: an int, 3 ints or [1, kd, kh, kw, 1].
        strides: the steps, as ksize (None steps by 1).
        padding: 'SAME' or 'VALID'.
        data_format: 'NDHWC' (TensorFlow's CPU kernel takes no other).

    >>> tf.nn.max_pool3d(tf.ones([1, 4, 4, 4, 2]), 2, 2, "VALID").shape
    TensorShape([1, 2, 2, 2, 2])
    """
    x, ksize, strides = pool3d_args("max_pool3d", input, ksize, strides, padding,
                                    data_format)
    if x.dtype != float32:
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype} is not in the list of "
                                   "allowed values: half, bfloat16, float (texflow: float)")
    pads = (0,) * 6 if padding == "VALID" else sum(
        (_same_pads(n, k, s) for n, k, s in zip(x.shape[1:4], ksize, strides)), ())
    return run_op(_max_pool3d, (x,), {"ksize": ksize, "strides": strides, "pads": pads})
