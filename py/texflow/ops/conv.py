"""Convolution and pooling on NHWC images (filters HWIO), with their gradients.

The wrappers turn TensorFlow's arguments (strides, padding 'SAME'/'VALID' or
explicit, dilations) into explicit attrs once: `strides` (sh, sw),
`dilations` (dh, dw) and `pads` (top, bottom, left, right), so kernels only
index. Gradients are ops of their own (`conv2d_backprop_input`,
`conv2d_backprop_filter`, `max_pool_grad`, `avg_pool_grad`) with a kernel per
backend, so the backward pass of a conv net stays on the device.
"""

from ..dtypes import float32, int32
from ..engine.ndarray import as_array
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..errors import InvalidArgumentError, OpDTypeError, ShapeError, UnimplementedError


def _pair(name, value, what):
    """(h, w) from an int, a pair or TensorFlow's 4-list [1, h, w, 1]."""
    if isinstance(value, int):
        pair = (value, value)
    else:
        value = [int(v) for v in value]
        if len(value) == 4:
            if value[0] != 1 or value[3] != 1:
                raise ShapeError(f"{name}: {what} {value} may not step over the batch or "
                                 "channel axes (they must be 1)")
            pair = (value[1], value[2])
        elif len(value) == 2:
            pair = tuple(value)
        elif len(value) == 1:
            pair = (value[0], value[0])
        else:
            raise ShapeError(f"{name}: {what} must be an int, 2 ints or 4 ints, "
                             f"received {value}")
    if min(pair) < 1:
        raise ShapeError(f"{name}: {what} must be positive, received {list(pair)}")
    return pair


def _padding(name, padding, in_hw, window, strides, dilations):
    """(top, bottom, left, right) for TensorFlow's padding argument."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return (0, 0, 0, 0)
        if mode == "SAME":  # output ceil(n / s); the odd pixel of padding goes after
            eff = [(k - 1) * d + 1 for k, d in zip(window, dilations)]
            totals = [max((-(-n // s) - 1) * s + e - n, 0)
                      for n, s, e in zip(in_hw, strides, eff)]
            return (totals[0] // 2, totals[0] - totals[0] // 2,
                    totals[1] // 2, totals[1] - totals[1] // 2)
        raise ShapeError(f"{name}: padding must be 'SAME', 'VALID' or explicit pairs, "
                         f"received {padding!r}")
    pairs = [tuple(int(v) for v in p) for p in padding]
    if len(pairs) == 4:
        if pairs[0] != (0, 0) or pairs[3] != (0, 0):
            raise ShapeError(f"{name}: explicit padding of the batch and channel axes must "
                             f"be 0, received {pairs}")
        pairs = pairs[1:3]
    if len(pairs) != 2 or min(min(p) for p in pairs) < 0:
        raise ShapeError(f"{name}: explicit padding needs [[top, bottom], [left, right]] of "
                         f"non-negative ints, received {padding!r}")
    return (pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1])


def _check_image(name, x, what="input"):
    if len(x.shape) != 4:
        raise ShapeError(f"{name}: {what} must be NHWC of rank 4, received shape "
                         f"{list(x.shape)}")
    if x.dtype != float32:
        raise OpDTypeError(f"{name}: {what} must be float32, received {x.dtype}")


# -- conv2d ----------------------------------------------------------------------------

def _out_hw(in_hw, window, attrs):
    """Output height and width from explicit pads (what every padding mode becomes)."""
    pads = attrs["pads"]
    out = []
    for i, (n, k, s, d) in enumerate(zip(in_hw, window, attrs["strides"],
                                         attrs.get("dilations", (1, 1)))):
        span = n + pads[2 * i] + pads[2 * i + 1] - (k - 1) * d - 1
        out.append(span // s + 1 if span >= 0 else 0)
    return tuple(out)


def _conv2d_infer(inputs, attrs):
    x, w = inputs
    _check_image("conv2d", x)
    if len(w.shape) != 4:
        raise ShapeError(f"conv2d: filter must be HWIO of rank 4, received shape "
                         f"{list(w.shape)}")
    if w.dtype != float32:
        raise OpDTypeError(f"conv2d: filter must be float32, received {w.dtype}")
    if x.shape[3] != w.shape[2]:
        raise ShapeError(f"conv2d: input shape {list(x.shape)} has {x.shape[3]} channels but "
                         f"filter shape {list(w.shape)} expects {w.shape[2]}")
    oh, ow = _out_hw(x.shape[1:3], w.shape[:2], attrs)
    return (x.shape[0], oh, ow, w.shape[3]), float32


def _conv2d_grad(dy, inputs, y, attrs, needs=(True, True)):
    x, w = inputs
    dx = run_op(_backprop_input, (dy, w), dict(attrs, input_shape=x.shape)) if needs[0] \
        else None
    dw = run_op(_backprop_filter, (x, dy), dict(attrs, filter_shape=w.shape)) if needs[1] \
        else None
    return dx, dw


_conv2d = def_op("conv2d", _conv2d_infer, grad=_conv2d_grad, grad_needs=True)


def _backprop_input_grad(g, inputs, y, attrs, needs=(True, True)):
    """conv2d_backprop_input (tf.nn.conv2d_transpose) is linear in each input: its
    gradient for dy is conv2d of g, for the filter conv2d's filter gradient of g by dy."""
    dy, w = inputs
    forward = {k: attrs[k] for k in ("strides", "dilations", "pads")}
    ddy = run_op(_conv2d, (g, w), forward) if needs[0] else None
    dw = run_op(_backprop_filter, (g, dy), dict(forward, filter_shape=w.shape)) if needs[1] \
        else None
    return ddy, dw


_backprop_input = def_op(
    "conv2d_backprop_input", lambda inputs, attrs: (attrs["input_shape"], float32),
    grad=_backprop_input_grad, grad_needs=True)
_backprop_filter = def_op(
    "conv2d_backprop_filter", lambda inputs, attrs: (attrs["filter_shape"], float32))


def _conv_attrs(name, x_shape, window, strides, padding, dilations):
    strides = _pair(name, strides, "strides")
    dilations = _pair(name, dilations, "dilations")
    pads = _padding(name, padding, x_shape[1:3], window, strides, dilations)
    return {"strides": strides, "dilations": dilations, "pads": pads}


@export("tf", "dl")  # tf.nn.conv2d: ops/tfnn.py (TensorFlow's signature)
def conv2d(input, filters, strides=1, padding="VALID", data_format="NHWC",  # noqa: A002
           dilations=1, name=None):
    """2-D convolution of NHWC `input` with HWIO `filters` (TensorFlow's tf.nn.conv2d, with
    texflow's defaults: strides 1, padding 'VALID').

    Args:
        input: float32 [batch, height, width, in_channels].
        filters: float32 [filter_height, filter_width, in_channels, out_channels].
        strides: an int, (sh, sw) or [1, sh, sw, 1].
        padding: 'SAME', 'VALID', or explicit [[top, bottom], [left, right]].
        data_format: 'NHWC' (the only layout texflow's kernels take). A number or a
            sequence fifth is deeplearn.js's order (`conv2d(x, f, 1, 'SAME', dilations)`):
            it is taken as the dilations.
        dilations: an int, (dh, dw) or [1, dh, dw, 1].

    >>> tf.conv2d(tf.ones([1, 5, 5, 1]), tf.ones([3, 3, 1, 2]), padding="SAME").shape
    TensorShape([1, 5, 5, 2])
    """
    if data_format is not None and not isinstance(data_format, str):
        data_format, dilations = "NHWC", data_format  # deeplearn.js: dilations fifth
    _check_layout("conv2d", data_format)
    input, filters = as_array(input), as_array(filters)
    _check_image("conv2d", input)
    if len(filters.shape) != 4:
        raise ShapeError(f"conv2d: filter must be HWIO of rank 4, received shape "
                         f"{list(filters.shape)}")
    if filters.shape[2] and input.shape[3] != filters.shape[2]:
        filters = _grouped_filter(input, filters)
    attrs = _conv_attrs("conv2d", input.shape, filters.shape[:2], strides, padding, dilations)
    return run_op(_conv2d, (input, filters), attrs)


def _grouped_filter(x, w):
    """A grouped convolution's filter [kh, kw, C / G, O] (TensorFlow's rule: input channels
    a multiple G of the filter's) as one conv2d's [kh, kw, C, O], zero outside each group's
    block: output channel o reads group o // (O / G). G times the multiply-adds in one
    launch; gradients through the mask pick each group's block."""
    from .creation import eye
    from .elementwise import mul
    from .movement import reshape
    kh, kw, cg, o = w.shape
    groups = x.shape[3] // cg
    if x.shape[3] % cg:
        raise ShapeError(f"conv2d: input depth must be evenly divisible by filter depth: "
                         f"{x.shape[3]} vs {cg} (input shape {list(x.shape)}, filter shape "
                         f"{list(w.shape)})")
    if o % groups:
        raise ShapeError(f"conv2d: output depth must be evenly divisible by number of groups: "
                         f"{o} vs {groups} (filter shape {list(w.shape)})")
    block = mul(reshape(w, [kh, kw, 1, cg, groups, o // groups]),
                reshape(eye(groups), [groups, 1, groups, 1]))
    return reshape(block, [kh, kw, groups * cg, o])


# -- pooling -----------------------------------------------------------------------------

def _pool_infer(name):
    def infer(inputs, attrs):
        x = inputs[0]
        _check_image(name, x)
        oh, ow = _out_hw(x.shape[1:3], attrs["ksize"], attrs)
        return (x.shape[0], oh, ow, x.shape[3]), float32
    return infer


def _max_pool_grad_grad(dd, inputs, y, attrs):
    """max_pool_grad's gradient for dy, TensorFlow's MaxPoolGradGrad (ops/pool3d.py)."""
    from .pool3d import max_pool_grad_grad
    x = inputs[0]
    return None, max_pool_grad_grad(x, run_op(_max_pool, (x,), attrs), dd, attrs)


_max_pool_grad = def_op("max_pool_grad", lambda inputs, attrs: (inputs[0].shape, float32),
                        grad=_max_pool_grad_grad)
# avg_pool_grad is linear in dy: its gradient is avg_pool's (TensorFlow's AvgPoolGradGrad)
_avg_pool_grad = def_op(
    "avg_pool_grad", lambda inputs, attrs: (attrs["input_shape"], float32),
    grad=lambda dd, inputs, y, attrs: (run_op(_avg_pool, (dd,), {
        k: attrs[k] for k in ("ksize", "strides", "pads")}),))
_max_pool = def_op("max_pool", _pool_infer("max_pool"),
                   grad=lambda dy, inputs, y, attrs: (
                       run_op(_max_pool_grad, (inputs[0], dy), attrs),))
# A trace's pooling whose gradient is also computed (autodiff/trace_rewrite.py
# `record_pool_taps`): the forward writes each window's first maximum by MaxPoolGrad's
# rule (in the kernel language's own int32 encoding: the tap ky * KW + kx on numpy and
# GLSL, the image element's index on WGSL) next to the pooled values, in one launch
# where the backend can, and the gradient routes dy by it instead of finding it again.
# Not used eagerly (an eager max_pool cannot know whether a gradient will follow).
def _taps_infer(inputs, attrs):
    shape, dtype = _pool_infer("max_pool")(inputs, attrs)
    return [(shape, dtype), (shape, int32)]


_max_pool_taps = def_op("max_pool_taps", _taps_infer, num_outputs=None)
_max_pool_grad_taps = def_op("max_pool_grad_taps",
                             lambda inputs, attrs: (attrs["input_shape"], float32))
# And (autodiff/trace_rewrite.py `fuse_conv_pools`) a conv2d, through its epilogue when
# it has one (`program`, None without), whose result only such a pooling reads: one
# kernel computes the convolution per window position and pools it (`conv_shape` the
# convolution's result, never stored where the backend can; `ksize`, `pool_strides`,
# `pool_pads`, `pooled_shape` the pooling's), giving max_pool_taps's two outputs.
conv2d_pool = def_op("conv2d_pool", lambda inputs, attrs: [
    (attrs["pooled_shape"], float32), (attrs["pooled_shape"], int32)], num_outputs=None)
_avg_pool = def_op("avg_pool", _pool_infer("avg_pool"),
                   grad=lambda dy, inputs, y, attrs: (
                       run_op(_avg_pool_grad, (dy,), dict(attrs,
                                                          input_shape=inputs[0].shape)),))


def _check_layout(name, data_format):
    if data_format not in (None, "NHWC"):
        # TensorFlow's CPU kernels raise these classes for NCHW
        error = UnimplementedError if name == "conv2d" else InvalidArgumentError
        raise error(f"{name}: texflow's kernels take data_format='NHWC' only "
                                   f"(channels last), received {data_format!r}; transpose "
                                   f"the input to NHWC")


def _pool(op, x, ksize, strides, padding):
    x = as_array(x)
    _check_image(op.name, x)
    ksize = _pair(op.name, ksize, "ksize")
    strides = _pair(op.name, strides if strides is not None else ksize, "strides")
    pads = _padding(op.name, padding, x.shape[1:3], ksize, strides, (1, 1))
    return run_op(op, (x,), {"ksize": ksize, "strides": strides, "pads": pads})


# tf.nn.max_pool2d, avg_pool2d, max_pool, avg_pool: ops/tfnn.py (TensorFlow's signatures)
@export("tf", "dl")
def max_pool(input, ksize, strides=None, padding="VALID", data_format=None, name=None):
    """Max pooling of NHWC `x` (texflow's own name: tf.nn.max_pool2d with strides
    defaulting to `ksize` and padding to 'VALID'); padded positions are ignored.

    >>> tf.max_pool(tf.ones([1, 4, 4, 1]), 2).shape
    TensorShape([1, 2, 2, 1])
    """
    _check_layout("max_pool", data_format)
    return _pool(_max_pool, input, ksize, strides, padding)


@export("tf", "dl")
def avg_pool(input, ksize, strides=None, padding="VALID", data_format=None, name=None):
    """Average pooling of NHWC `x` (texflow's own name: tf.nn.avg_pool2d with `max_pool`'s
    defaults); with 'SAME' padding each window averages only the positions inside the
    image, as TensorFlow does.

    >>> tf.avg_pool(tf.ones([1, 4, 4, 1]), 2).shape
    TensorShape([1, 2, 2, 1])
    """
    _check_layout("avg_pool", data_format)
    return _pool(_avg_pool, input, ksize, strides, padding)

