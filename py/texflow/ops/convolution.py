"""tf.nn's transposed, depthwise, separable and 1-D convolutions, built on conv2d's
kernels (ops/conv.py) with TensorFlow 2's signatures, shape checks and errors.

- conv2d_transpose is conv2d's gradient for its input (the `conv2d_backprop_input` op,
  whose own gradients are conv2d and conv2d_backprop_filter): no kernel of its own.
- depthwise_conv2d convolves each input channel with its own `channel_multiplier`
  filters. Up to BLOCK_DIAGONAL_MAX input channels it is one conv2d with a block-diagonal
  filter (zeros off each channel's block): a launch or two on a GPU, forward and
  backward, for C times the multiply-adds; past it (where those would dominate) a sum
  over the window's taps of strided slices times the taps' weights.
- The 1-D ops are the 2-D ones over a height of 1.
"""

import numpy as np

from ..engine.ndarray import NDArray, as_array
from ..engine.registry import export
from ..engine.run import run_op
from ..errors import InvalidArgumentError, ShapeError, UnimplementedError
from . import conv
from . import elementwise as ew
from .creation import eye
from .movement import expand_dims, pad, reshape, squeeze

BLOCK_DIAGONAL_MAX = 64  # input channels up to which depthwise_conv2d is one conv2d


def _ints(value):
    if isinstance(value, NDArray):
        value = value.numpy()
    return [int(v) for v in np.asarray(value).reshape(-1)] if not isinstance(
        value, (list, tuple)) else [int(v) for v in value]


def _dilations(value):
    return 1 if value is None else value


def _check_filter(name, w, rank=4):
    if len(w.shape) != rank:
        raise InvalidArgumentError(f"{name}: filter must be {rank}-dimensional, received "
                                   f"shape {list(w.shape)}")


def _spatial(attrs):
    return attrs["strides"], attrs["dilations"]


# -- conv2d_transpose ----------------------------------------------------------------------

def _transpose_2d(name, x, w, output_shape, strides, padding, dilations):
    """conv2d's input gradient: NHWC `x` [N, H, W, in] with filters [kh, kw, out, in] into
    an NHWC image of `output_shape` (4 values, or 2: its height and width)."""
    _check_filter(name, w)
    conv._check_image(name, x)
    shape = _ints(output_shape)
    if len(shape) == 2:  # height and width: the batch is the input's, the depth the filter's
        shape = [x.shape[0], shape[0], shape[1], w.shape[2]]
    if len(shape) != 4:
        raise InvalidArgumentError(f"{name}: output_shape must have 4 values or 2 values, "
                                   f"received {shape}")
    if shape[0] != x.shape[0]:
        raise InvalidArgumentError(
            f"{name}: input and out_backprop must have the same batch size. Input batch: "
            f"{shape[0]}, outbackprop batch: {x.shape[0]}, batch_dim: 0")
    if shape[3] != w.shape[2]:
        raise InvalidArgumentError(f"{name}: input depth must be evenly divisible by filter "
                                   f"depth: {shape[3]} vs {w.shape[2]} (output_shape "
                                   f"{shape}, filter shape {list(w.shape)})")
    if x.shape[3] != w.shape[3]:
        raise InvalidArgumentError(f"{name}: filter and out_backprop must have the same "
                                   f"out_depth: filter shape {list(w.shape)}, input shape "
                                   f"{list(x.shape)}")
    attrs = conv._conv_attrs(name, shape, w.shape[:2], strides, padding, dilations)
    expected = conv._out_hw(shape[1:3], w.shape[:2], attrs)
    for dim in (0, 1):
        if expected[dim] != x.shape[1 + dim]:
            raise InvalidArgumentError(
                f"{name}: Size of out_backprop doesn't match computed: actual = "
                f"{x.shape[1 + dim]}, computed = {expected[dim]} spatial_dim: {1 + dim} "
                f"input: {shape[1 + dim]} filter: {w.shape[dim]} output: {x.shape[1 + dim]} "
                f"stride: {attrs['strides'][dim]} dilation: {attrs['dilations'][dim]}")
    return run_op(conv._backprop_input, (x, w), dict(attrs, input_shape=tuple(shape)))


@export("nn")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NHWC", dilations=None, name=None):
    """The transpose of conv2d (its gradient for its input): NHWC `input` [N, H, W, in]
    with `filters` [height, width, out, in] into an image of `output_shape`
    (tf.nn.conv2d_transpose).

    Args:
        input: float32 [batch, height, width, in_channels].
        filters: float32 [filter_height, filter_width, out_channels, in_channels].
        output_shape: [batch, out_height, out_width, out_channels] (or the two spatial
            sizes): the shape of the conv2d input this is the gradient for. conv2d of that
            shape with these strides, padding and dilations must give `input`'s shape.
        strides: an int, (sh, sw) or [1, sh, sw, 1].
        padding: 'SAME', 'VALID' or explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
        data_format: 'NHWC' only.
        dilations: None (1), an int, (dh, dw) or [1, dh, dw, 1].

    >>> tf.nn.conv2d_transpose(tf.ones([1, 4, 4, 3]), tf.ones([3, 3, 2, 3]),
    ...                        [1, 8, 8, 2], 2).shape
    TensorShape([1, 8, 8, 2])
    """
    conv._check_layout("conv2d_transpose", data_format)
    return _transpose_2d("conv2d_transpose", as_array(input), as_array(filters), output_shape,
                         strides, padding, _dilations(dilations))


@export("nn")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """conv2d_transpose with dilations `rate` and stride 1 (tf.nn.atrous_conv2d_transpose).

    >>> tf.nn.atrous_conv2d_transpose(tf.ones([1, 4, 4, 3]), tf.ones([3, 3, 2, 3]),
    ...                               [1, 8, 8, 2], 2, "VALID").shape
    TensorShape([1, 8, 8, 2])
    """
    if int(rate) < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return _transpose_2d("atrous_conv2d_transpose", as_array(value), as_array(filters),
                         output_shape, 1, padding, int(rate))


@export("nn")
def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with dilations `rate` and stride 1 (tf.nn.atrous_conv2d).

    >>> tf.nn.atrous_conv2d(tf.ones([1, 5, 5, 1]), tf.ones([3, 3, 1, 2]), 2, "SAME").shape
    TensorShape([1, 5, 5, 2])
    """
    if int(rate) < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return conv.conv2d(value, filters, 1, padding, "NHWC", int(rate))


# -- 1-D: the 2-D ops over a height of 1 -------------------------------------------------

def _one_d(name, value, what):
    """The 2-D form [1, v] of a 1-D stride or dilation (an int, or 1 or 3 values)."""
    if value is None:
        return (1, 1)
    if isinstance(value, (int, np.integer)):
        return (1, int(value))
    values = _ints(value)
    if len(values) == 1:
        return (1, values[0])
    if len(values) == 3:
        return [1, 1, values[1], 1] if (values[0], values[2]) == (1, 1) else values
    raise ValueError(f"{name}: {what} should be of length 1 or 3 but was {len(values)}")


def _check_1d(name, x, data_format, what="input"):
    if data_format not in (None, "NWC"):
        raise ValueError(f"{name}: texflow's kernels take data_format='NWC' only (channels "
                         f"last), received {data_format!r}")
    if len(x.shape) != 3:
        raise InvalidArgumentError(f"{name}: {what} must be 3-dimensional (NWC), received "
                                   f"shape {list(x.shape)}")


def _padding_1d(padding):
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    return padding


@export("nn")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None):
    """1-D convolution of NWC `input` [N, W, in] with `filters` [width, in, out]
    (tf.nn.conv1d: conv2d over a height of 1).

    >>> tf.nn.conv1d(tf.ones([2, 7, 3]), tf.ones([3, 3, 4]), 2, "SAME").shape
    TensorShape([2, 4, 4])
    """
    x, w = as_array(input), as_array(filters)
    _check_1d("conv1d", x, data_format)
    _check_filter("conv1d", w, 3)
    y = conv.conv2d(expand_dims(x, 1), expand_dims(w, 0), _one_d("conv1d", stride, "stride"),
                    _padding_1d(padding), "NHWC", _one_d("conv1d", dilations, "dilations"))
    return squeeze(y, 1)


@export("nn")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """The transpose of conv1d: NWC `input` [N, W, in] with `filters` [width, out, in] into
    an NWC image of `output_shape` [N, out_width, out] (tf.nn.conv1d_transpose).

    >>> tf.nn.conv1d_transpose(tf.ones([2, 4, 4]), tf.ones([3, 3, 4]), [2, 8, 3], 2).shape
    TensorShape([2, 8, 3])
    """
    x, w = as_array(input), as_array(filters)
    _check_1d("conv1d_transpose", x, data_format)
    _check_filter("conv1d_transpose", w, 3)
    shape = _ints(output_shape)
    if len(shape) != 3:
        raise ValueError(f"conv1d_transpose: output_shape must have length 3, received "
                         f"{shape}")
    y = _transpose_2d("conv1d_transpose", expand_dims(x, 1), expand_dims(w, 0),
                      [shape[0], 1, shape[1], shape[2]],
                      _one_d("conv1d_transpose", strides, "strides"), _padding_1d(padding),
                      _one_d("conv1d_transpose", dilations, "dilations"))
    return squeeze(y, 1)


# -- depthwise and separable -------------------------------------------------------------

def _depthwise_strides(name, strides):
    if not isinstance(strides, (list, tuple, np.ndarray, NDArray)):
        raise TypeError(f"Expected list for 'strides' argument to 'depthwise_conv2d_native' "
                        f"Op, not {strides!r}.")
    values = _ints(strides)
    if len(values) != 4:
        raise InvalidArgumentError(f"{name}: Sliding window strides field must specify 4 "
                                   f"dimensions, received {values}")
    if values[0] != 1 or values[3] != 1:
        raise UnimplementedError(f"{name}: Current implementation does not yet support "
                                 f"strides in the batch and depth dimensions: {values}")
    if values[1] != values[2]:
        raise InvalidArgumentError(f"{name}: Current implementation only supports equal "
                                   f"length strides in the row and column dimensions, "
                                   f"received {values}")
    return (values[1], values[2])


def depthwise(name, x, w, strides, padding, dilations):
    """NHWC `x` [N, H, W, C] with `w` [kh, kw, C, M] into [N, OH, OW, C * M], output
    channel c * M + m from input channel c and filter w[:, :, c, m]."""
    conv._check_image(name, x)
    _check_filter(name, w)
    c, m = w.shape[2], w.shape[3]
    if x.shape[3] != c:
        raise InvalidArgumentError(f"{name}: input and filter must have the same depth: "
                                   f"{x.shape[3]} vs {c} (input shape {list(x.shape)}, "
                                   f"filter shape {list(w.shape)})")
    attrs = conv._conv_attrs(name, x.shape, w.shape[:2], strides, padding, dilations)
    if c <= BLOCK_DIAGONAL_MAX:
        # [kh, kw, C (in), C, M] zero where in != c: one conv2d, C times the multiply-adds
        block = ew.mul(reshape(w, [w.shape[0], w.shape[1], 1, c, m]),
                            reshape(eye(c), [c, c, 1]))
        return run_op(conv._conv2d, (x, reshape(block, [w.shape[0], w.shape[1], c, c * m])),
                      attrs)
    return _tap_sum(x, w, attrs)


def _tap_sum(x, w, attrs):
    """The depthwise convolution as a sum over the window's taps of strided slices of
    the padded input times each tap's [C, M] weights."""
    n, _, _, c = x.shape
    kh, kw, _, m = w.shape
    (sh, sw), (dh, dw) = _spatial(attrs)
    top, bottom, left, right = attrs["pads"]
    oh, ow = conv._out_hw(x.shape[1:3], (kh, kw), attrs)
    xp = expand_dims(pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]]), 4)
    total = None
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dh, kx * dw
            # (an empty output reads nothing: the end never falls below the start)
            tap = xp[:, y0:y0 + max((oh - 1) * sh + 1, 0):sh,
                     x0:x0 + max((ow - 1) * sw + 1, 0):sw] * w[ky, kx]
            total = tap if total is None else total + tap
    return reshape(total, [n, oh, ow, c * m])


@export("nn")
def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """Depthwise 2-D convolution (tf.nn.depthwise_conv2d): each of NHWC `input`'s C channels
    convolved with its own `channel_multiplier` filters, giving C * multiplier channels
    (channel c * multiplier + m from input channel c and filter[:, :, c, m]).

    Args:
        input: float32 [batch, height, width, in_channels].
        filter: float32 [filter_height, filter_width, in_channels, channel_multiplier].
        strides: 4 ints [1, s, s, 1] (equal along height and width, as TensorFlow's).
        padding: 'SAME', 'VALID' or explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
        data_format: 'NHWC' (None) only.
        dilations: None (1), an int or (dh, dw): the rate.

    >>> tf.nn.depthwise_conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 2]), [1, 1, 1, 1],
    ...                        "SAME").shape
    TensorShape([1, 5, 5, 6])
    """
    conv._check_layout("depthwise_conv2d", data_format)
    strides = _depthwise_strides("depthwise_conv2d", strides)
    return depthwise("depthwise_conv2d", as_array(input), as_array(filter), strides, padding,
                      _dilations(dilations))


@export("nn")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides,  # noqa: A002
                     padding, data_format=None, dilations=None, name=None):
    """A depthwise convolution, then a 1x1 convolution mixing its channels
    (tf.nn.separable_conv2d).

    Args:
        input: float32 [batch, height, width, in_channels].
        depthwise_filter: [filter_height, filter_width, in_channels, channel_multiplier].
        pointwise_filter: [1, 1, in_channels * channel_multiplier, out_channels].
        strides, padding, data_format, dilations: as depthwise_conv2d's.

    >>> tf.nn.separable_conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 2]),
    ...                        tf.ones([1, 1, 6, 4]), [1, 1, 1, 1], "SAME").shape
    TensorShape([1, 5, 5, 4])
    """
    conv._check_layout("separable_conv2d", data_format)
    dw, pw = as_array(depthwise_filter), as_array(pointwise_filter)
    _check_filter("separable_conv2d", pw)
    if tuple(pw.shape[:2]) != (1, 1):
        raise ShapeError(f"separable_conv2d: pointwise_filter must be [1, 1, in, out], "
                         f"received shape {list(pw.shape)}")
    strides = _depthwise_strides("separable_conv2d", strides)
    y = depthwise("separable_conv2d", as_array(input), dw, strides, padding,
                   _dilations(dilations))
    if y.shape[3] != pw.shape[2]:
        raise InvalidArgumentError(f"separable_conv2d: input depth must be evenly divisible "
                                   f"by filter depth: {y.shape[3]} vs {pw.shape[2]} "
                                   f"(pointwise_filter shape {list(pw.shape)})")
    return conv.conv2d(y, pw, 1, "VALID")


@export("nn")
def convolution(input, filters, strides=None, padding="VALID",  # noqa: A002
                data_format=None, dilations=None, name=None):
    """conv1d, conv2d or conv3d by `input`'s rank (3: NWC, 4: NHWC, 5: NDHWC)
    (tf.nn.convolution).

    >>> tf.nn.convolution(tf.ones([2, 7, 3]), tf.ones([3, 3, 4]), 2, "SAME").shape
    TensorShape([2, 4, 4])
    """
    x = as_array(input)
    strides = 1 if strides is None else strides
    if len(x.shape) == 3:
        return conv1d(x, filters, strides, padding, data_format or "NWC", dilations)
    if len(x.shape) == 4:
        conv._check_layout("convolution", data_format)
        return conv.conv2d(x, filters, strides, padding, "NHWC", _dilations(dilations))
    if len(x.shape) == 5:
        from .conv3d import conv3d
        return conv3d(x, filters, _five(strides), padding, data_format or "NDHWC",
                      None if dilations is None else _five(dilations))
    raise ValueError(f"convolution: input must be of rank 3 (NWC), 4 (NHWC) or 5 (NDHWC), "
                     f"received shape {list(x.shape)}")


def _five(value):
    """tf.nn.convolution's N spatial values (or one int) as conv3d's [1, d, h, w, 1]."""
    values = [int(value)] if isinstance(value, (int, np.integer)) else _ints(value)
    return [1] + values * (3 // len(values)) + [1] if len(values) in (1, 3) else values
