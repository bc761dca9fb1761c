"""tf.nn.conv3d and conv3d_transpose (NDHWC, filters [d, h, w, in, out]) on conv2d's kernels.

conv3d is one conv2d: the window's kd depth taps of the (depth-padded) input, strided
slices [N, OD, H, W, C], are stacked into the channels of an [N * OD, H, W, kd * C]
image, and the filter seen as [kh, kw, kd * C, out] convolves it over height and width
(their padding, strides and dilations are conv2d's). conv3d_transpose is its adjoint:
conv2d's input gradient gives each depth tap's [N, ID, H, W, C] part, spread to the
depth stride and added at its offset. Gradients come from the ops they are made of.
"""

import numpy as np

from ..engine.ndarray import NDArray, as_array
from ..engine.registry import export
from ..engine.run import run_op
from ..errors import InvalidArgumentError, OpDTypeError
from ..dtypes import float32
from . import conv
from .movement import expand_dims, pad, reshape, stack, transpose, unstack


def _ints(value):
    if isinstance(value, NDArray):
        value = value.numpy()
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _triple(op, value, what, ints_too):
    """(d, h, w) from TensorFlow's 5 values [1, d, h, w, 1] (or, where `ints_too`, an int
    or 1 or 3 values, as tf.nn.conv3d_transpose takes them)."""
    if value is None:
        return (1, 1, 1)
    if isinstance(value, (int, np.integer)):
        if not ints_too:
            raise TypeError(f"Expected list for '{what}' argument to '{op}' Op, not "
                            f"{value!r}.")
        value = [value]
    values = _ints(value)
    if ints_too and len(values) in (1, 3):
        values = [1] + values * (3 // len(values)) + [1]
    if len(values) != 5:
        raise InvalidArgumentError(f"{op}: Length for attr '{what}' of {len(values)} must "
                                   f"be at least minimum 5, received {values}")
    if values[0] != 1 or values[4] != 1:
        raise InvalidArgumentError(f"{op}: Current implementation does not yet support "
                                   f"{what} in the batch and depth dimensions: {values}")
    if min(values) < 1:
        raise InvalidArgumentError(f"{op}: {what} must be positive, received {values}")
    return tuple(values[1:4])


def _pads(op, padding, sizes, window, strides, dilations):
    """((before, after) per spatial axis) for 'SAME' or 'VALID'."""
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    mode = padding.upper()
    if mode not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"{op}: padding must be 'SAME' or 'VALID', received "
                                   f"{padding!r}")
    if mode == "VALID":
        return [(0, 0)] * 3
    pads = []
    for n, k, s, d in zip(sizes, window, strides, dilations):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def _out_sizes(sizes, window, strides, dilations, pads):
    out = []
    for n, k, s, d, (a, b) in zip(sizes, window, strides, dilations, pads):
        span = n + a + b - (k - 1) * d - 1
        out.append(span // s + 1 if span >= 0 else 0)
    return out


def _check(op, x, w, what="input"):
    for name, t, rank in ((what, x, 5), ("filter", w, 5)):
        if len(t.shape) != rank:
            raise InvalidArgumentError(f"{op}: {name} must be 5-dimensional, received shape "
                                       f"{list(t.shape)}")
        if t.dtype != float32:
            raise OpDTypeError(f"{op}: {name} must be float32, received {t.dtype}")


def _plane_attrs(strides, dilations, pads):
    """conv2d's attrs for the height and width axes."""
    return {"strides": tuple(strides[1:]), "dilations": tuple(dilations[1:]),
            "pads": (pads[1][0], pads[1][1], pads[2][0], pads[2][1])}


def _filter_2d(w):
    """[kd, kh, kw, C, O] as conv2d's [kh, kw, kd * C, O] (depth tap major in the channels)."""
    kd, kh, kw, c, o = w.shape
    return reshape(transpose(w, [1, 2, 0, 3, 4]), [kh, kw, kd * c, o])


@export("nn")
def conv3d(input, filters, strides, padding, data_format="NDHWC",  # noqa: A002
           dilations=None, name=None):
    """3-D convolution of NDHWC `input` with `filters` [depth, height, width, in, out]
    (tf.nn.conv3d).

    Args:
        input: float32 [batch, depth, height, width, in_channels].
        filters: float32 [filter_depth, filter_height, filter_width, in_channels,
            out_channels].
        strides: 5 ints [1, sd, sh, sw, 1].
        padding: 'SAME' or 'VALID'.
        data_format: 'NDHWC' only.
        dilations: None (1) or 5 ints [1, dd, dh, dw, 1].

    >>> tf.nn.conv3d(tf.ones([1, 4, 5, 5, 2]), tf.ones([3, 3, 3, 2, 4]), [1, 1, 1, 1, 1],
    ...              "SAME").shape
    TensorShape([1, 4, 5, 5, 4])
    """
    if data_format not in (None, "NDHWC"):
        raise InvalidArgumentError(f"conv3d: texflow's kernels take data_format='NDHWC' only "
                                   f"(channels last), received {data_format!r}")
    x, w = as_array(input), as_array(filters)
    _check("conv3d", x, w)
    if x.shape[4] != w.shape[3]:
        raise InvalidArgumentError(f"conv3d: Input depth must be evenly divisible by filter "
                                   f"depth: {x.shape[4]} vs {w.shape[3]} (input shape "
                                   f"{list(x.shape)}, filter shape {list(w.shape)})")
    strides = _triple("conv3d", strides, "strides", False)
    dilations = _triple("conv3d", dilations, "dilations", False)
    pads = _pads("conv3d", padding, x.shape[1:4], w.shape[:3], strides, dilations)
    n, _, h, wd, c = x.shape
    kd, sd, dd = w.shape[0], strides[0], dilations[0]
    od, oh, ow = _out_sizes(x.shape[1:4], w.shape[:3], strides, dilations, pads)
    xp = pad(x, [[0, 0], list(pads[0]), [0, 0], [0, 0], [0, 0]]) if any(pads[0]) else x
    # (an empty output reads nothing: the end never falls below the start)
    taps = [xp[:, a * dd:a * dd + max((od - 1) * sd + 1, 0):sd] for a in range(kd)]
    cols = reshape(stack(taps, axis=4), [n * od, h, wd, kd * c])
    y = run_op(conv._conv2d, (cols, _filter_2d(w)), _plane_attrs(strides, dilations, pads))
    return reshape(y, [n, od, oh, ow, w.shape[4]])


def _spread(t, step):
    """`t` [N, L, ...] with step - 1 zeros after each of its L entries along axis 1 (the
    last ones dropped): [N, (L - 1) * step + 1, ...]."""
    n, length = t.shape[:2]
    if step == 1 or length <= 1:
        return t
    rest = list(t.shape[2:])
    t = pad(expand_dims(t, 2), [[0, 0], [0, 0], [0, step - 1]] + [[0, 0]] * len(rest))
    return reshape(t, [n, length * step] + rest)[:, :(length - 1) * step + 1]


@export("nn")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NDHWC", dilations=None, name=None):
    """The transpose of conv3d (its gradient for its input): NDHWC `input` with `filters`
    [depth, height, width, out, in] into an NDHWC volume of `output_shape`
    (tf.nn.conv3d_transpose).

    >>> tf.nn.conv3d_transpose(tf.ones([1, 2, 3, 3, 4]), tf.ones([3, 3, 3, 2, 4]),
    ...                        [1, 4, 6, 6, 2], 2).shape
    TensorShape([1, 4, 6, 6, 2])
    """
    if data_format not in (None, "NDHWC"):
        raise InvalidArgumentError(f"conv3d_transpose: texflow's kernels take "
                                   f"data_format='NDHWC' only, received {data_format!r}")
    op = "conv3d_transpose"
    x, w = as_array(input), as_array(filters)
    _check(op, x, w)
    shape = _ints(output_shape)
    if len(shape) != 5:
        raise InvalidArgumentError(f"{op}: input tensor must have 5 dimensions: output_shape "
                                   f"{shape}")
    if shape[4] != w.shape[3]:
        raise InvalidArgumentError(f"{op}: input and filter_sizes must have the same number "
                                   f"of channels. Got {shape[4]} for input and {w.shape[3]} "
                                   f"for filter_sizes")
    if x.shape[4] != w.shape[4] or x.shape[0] != shape[0]:
        raise InvalidArgumentError(f"{op}: input shape {list(x.shape)} does not fit filter "
                                   f"shape {list(w.shape)} and output_shape {shape} (the "
                                   f"batch and the filter's last axis must match the input's)")
    strides = _triple(op, strides, "strides", True)
    dilations = _triple(op, dilations, "dilations", True)
    pads = _pads(op, padding, shape[1:4], w.shape[:3], strides, dilations)
    expected = _out_sizes(shape[1:4], w.shape[:3], strides, dilations, pads)
    for dim in range(3):
        if expected[dim] != x.shape[1 + dim]:
            raise InvalidArgumentError(
                f"{op}: Size of out_backprop doesn't match computed: actual = "
                f"{x.shape[1 + dim]}, computed = {expected[dim]} spatial_dim: {1 + dim} "
                f"input: {shape[1 + dim]} filter: {w.shape[dim]} output: {x.shape[1 + dim]} "
                f"stride: {strides[dim]} dilation: {dilations[dim]}")
    n, d, h, wd, c = shape
    kd, sd, dd = w.shape[0], strides[0], dilations[0]
    idp = x.shape[1]
    cols = run_op(conv._backprop_input,
                  (reshape(x, [n * idp] + list(x.shape[2:])), _filter_2d(w)),
                  dict(_plane_attrs(strides, dilations, pads),
                       input_shape=(n * idp, h, wd, kd * c)))
    taps = unstack(reshape(cols, [n, idp, h, wd, kd, c]), axis=4)
    depth = d + pads[0][0] + pads[0][1]
    total = None
    for a, tap in enumerate(taps):
        tap = _spread(tap, sd)
        tap = pad(tap, [[0, 0], [a * dd, depth - a * dd - tap.shape[1]], [0, 0], [0, 0],
                        [0, 0]])
        total = tap if total is None else total + tap
    return total[:, pads[0][0]:pads[0][0] + d]
