"""numpy kernels of convolution and pooling (NHWC, HWIO).

Convolutions are one matrix product each: the input's patches (a strided view,
copied once into columns) times the filter, the patches' transpose times the output
gradient for the filter's gradient, and the output gradient times the filter's
transpose, added back window by window, for the input's gradient. Pooling with
non-overlapping windows (strides equal to the window, no padding: Keras's default)
compares the window's positions as strided slices, without copying patches, and
its gradient finds each window's first maximum in two stages (along x, then y);
other windows go through the general strided-patch path.
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..base import kernel
from .blas import one_blas_thread


def _pad(x, pads, value=0.0):
    top, bottom, left, right = pads
    if not any(pads):
        return x
    return np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=value)


def _out_size(n, k, s, d):
    span = n - (k - 1) * d - 1
    return span // s + 1 if span >= 0 else 0


def _patches(xp, window, strides, dilations):
    """View (N, out_h, out_w, kh, kw, C) of padded input `xp`."""
    n, h, w, c = xp.shape
    (kh, kw), (sh, sw), (dh, dw) = window, strides, dilations
    oh, ow = _out_size(h, kh, sh, dh), _out_size(w, kw, sw, dw)
    s0, s1, s2, s3 = xp.strides
    return as_strided(xp, (n, oh, ow, kh, kw, c), (s0, s1 * sh, s2 * sw, s1 * dh, s2 * dw, s3),
                      writeable=False)


def _columns(x, window, strides, dilations, pads):
    """The patches of `x` as a (N * out_h * out_w, kh * kw * C) matrix (im2col), and the
    output's (N, out_h, out_w)."""
    xp = _pad(x, pads)
    if x.shape[3] != 1:
        patches = _patches(xp, window, strides, dilations)
        return patches.reshape(-1, patches.shape[3] * patches.shape[4] * patches.shape[5]), \
            patches.shape[:3]
    # One input channel (an image's first layer): copying the strided view moves one value
    # per step; a copy per window offset moves rows of out_w values (measured 1.4x faster,
    # and 1.5x slower from 3 channels up).
    n, h, w, c = xp.shape
    (kh, kw), (sh, sw), (dh, dw) = window, strides, dilations
    oh, ow = _out_size(h, kh, sh, dh), _out_size(w, kw, sw, dw)
    cols = np.empty((n, oh, ow, kh, kw, c), xp.dtype)
    for ky in range(kh if oh and ow else 0):
        for kx in range(kw):
            cols[:, :, :, ky, kx] = xp[_window(ky, kx, (oh, ow), strides, dilations)]
    return cols.reshape(n * oh * ow, kh * kw * c), (n, oh, ow)


def _window(ky, kx, out_hw, strides, dilations):
    """The slices of the padded input that window offset (ky, kx) reads."""
    (oh, ow), (sh, sw), (dh, dw) = out_hw, strides, dilations
    # (an empty output reads nothing: its end must not fall below the start, where
    # Python's negative indices would count from the far end)
    return (slice(None), slice(ky * dh, ky * dh + max(sh * (oh - 1) + 1, 0), sh),
            slice(kx * dw, kx * dw + max(sw * (ow - 1) + 1, 0), sw), slice(None))


def _unpad(xp, pads, shape):
    return xp[:, pads[0]:pads[0] + shape[1], pads[2]:pads[2] + shape[2], :]


# Multiply-adds of each product (blas.py: large ones keep numpy's BLAS threads).
def _conv_work(k, x, w, strides, dilations, pads):
    return x.size * w.size // (x.shape[3] * strides[0] * strides[1] or 1)


def _input_grad_work(k, dy, w, strides, dilations, pads, input_shape):
    return dy.size * w.size // w.shape[3]


def _filter_grad_work(k, x, dy, strides, dilations, pads, filter_shape):
    return dy.size * filter_shape[0] * filter_shape[1] * filter_shape[2]


@kernel("conv2d", "numpy")
@one_blas_thread(work=_conv_work)
def conv2d(k, x, w, strides, dilations, pads):
    cols, out = _columns(x, w.shape[:2], strides, dilations, pads)
    return (cols @ w.reshape(-1, w.shape[3])).reshape(out + (w.shape[3],))


@kernel("conv2d_backprop_input", "numpy")
@one_blas_thread(work=_input_grad_work)
def conv2d_backprop_input(k, dy, w, strides, dilations, pads, input_shape):
    n, h, wd, c = input_shape
    kh, kw = w.shape[:2]
    # Every output pixel's contribution to each window position, in one product.
    cols = (dy.reshape(-1, dy.shape[3]) @ w.reshape(-1, w.shape[3]).T).reshape(
        dy.shape[:3] + (kh, kw, c))
    dxp = np.zeros((n, h + pads[0] + pads[1], wd + pads[2] + pads[3], c), np.float32)
    for ky in range(kh):
        for kx in range(kw):
            dxp[_window(ky, kx, dy.shape[1:3], strides, dilations)] += cols[:, :, :, ky, kx]
    return _unpad(dxp, pads, input_shape)


@kernel("conv2d_backprop_filter", "numpy")
@one_blas_thread(work=_filter_grad_work)
def conv2d_backprop_filter(k, x, dy, strides, dilations, pads, filter_shape):
    cols, _ = _columns(x, filter_shape[:2], strides, dilations, pads)
    return (cols.T @ dy.reshape(-1, dy.shape[3])).reshape(filter_shape)


def _tiles(x, ksize, strides, pads):
    """Non-overlapping windows (strides equal to the window, no padding: Keras's default)
    as a (N, out_h, kh, out_w, kw, C) strided view, or None for other windows."""
    (kh, kw), (sh, sw) = ksize, strides
    n, h, w, c = x.shape
    oh, ow = h // kh, w // kw
    if (kh, kw) != (sh, sw) or any(pads) or not oh or not ow:
        return None
    return x[:, :oh * kh, :ow * kw].reshape(n, oh, kh, ow, kw, c)


# TensorFlow's max_pool starts each window at float32's lowest and takes a value only
# when greater: NaN never wins, and a window of -inf and NaN only gives the lowest
LOWEST = np.finfo(np.float32).min


@kernel("max_pool", "numpy")
def max_pool(k, x, ksize, strides, pads):
    tiles = _tiles(x, ksize, strides, pads)
    if tiles is not None:
        out = np.full(tiles[:, :, 0, :, 0].shape, LOWEST, np.float32)
        for ky in range(ksize[0]):
            for kx in range(ksize[1]):
                np.fmax(out, tiles[:, :, ky, :, kx], out=out)  # fmax skips NaN
        return out
    # NaN padding: fmax skips it, as TensorFlow skips the padding
    patches = _patches(_pad(x, pads, np.nan), ksize, strides, (1, 1))
    return np.fmax(np.fmax.reduce(patches, axis=(3, 4)), LOWEST)


@kernel("max_pool_grad", "numpy")
def max_pool_grad(k, x, dy, ksize, strides, pads):
    """Routes each output's gradient to its window's maximum by TensorFlow's MaxPoolGrad
    rule: the first in-image tap, then a strictly greater value (so a NaN holds the
    gradient only where it is the first tap, and a window of -inf only sends it to its
    first tap; the forward value, which skips NaN, may lie elsewhere)."""
    tiles = _tiles(x, ksize, strides, pads)
    if tiles is not None:
        dx = _max_pool_grad_tiled(x, dy, tiles)
        if dx is not None:
            return dx
    return _route_taps(_first_taps(x, ksize, strides, pads), dy, ksize, strides, pads,
                       x.shape)


def _first_taps(x, ksize, strides, pads):
    """Each window's tap ky * kw + kx of its first maximum by MaxPoolGrad's rule (int32)."""
    patches = _patches(_pad(x, pads, 0.0), ksize, strides, (1, 1))
    n, oh, ow, kh, kw, c = patches.shape
    inside = _pad(np.ones((1, x.shape[1], x.shape[2], 1), np.float32), pads)
    inside = _patches(inside, ksize, strides, (1, 1)) > 0
    first = np.full((n, oh, ow, c), -1, np.int32)
    best = np.zeros((n, oh, ow, c), np.float32)
    with np.errstate(invalid="ignore"):
        for ky in range(kh):
            for kx in range(kw):
                v = patches[:, :, :, ky, kx]
                take = inside[:, :, :, ky, kx] & ((first < 0) | (v > best))
                np.copyto(best, v, where=take)
                np.copyto(first, ky * kw + kx, where=take)
    return first


def _route_taps(first, dy, ksize, strides, pads, shape):
    """dx of shape `shape`: each window's dy added at its tap `first`."""
    n, h, w, c = shape
    dxp = np.zeros((n, h + pads[0] + pads[1], w + pads[2] + pads[3], c), np.float32)
    for ky in range(ksize[0]):
        for kx in range(ksize[1]):
            chosen = np.where(first == ky * ksize[1] + kx, dy, 0.0)
            dxp[_window(ky, kx, dy.shape[1:3], strides, (1, 1))] += chosen
    return _unpad(dxp, pads, shape)


@kernel("max_pool_taps", "numpy")
def max_pool_taps(k, x, ksize, strides, pads, output_index=None):
    """max_pool and its windows' first-maximum taps (ops/conv.py `_max_pool_taps`)."""
    results = (max_pool(k, x, ksize, strides, pads), _first_taps(x, ksize, strides, pads))
    return results if output_index is None else results[output_index]


@kernel("max_pool_grad_taps", "numpy")
def max_pool_grad_taps(k, taps, dy, ksize, strides, pads, input_shape):
    return _route_taps(taps, dy, ksize, strides, pads, tuple(input_shape))


def _max_pool_grad_tiled(x, dy, tiles):
    """Non-overlapping windows in two stages, each over contiguous runs of C values: the
    first maximum of each window row (along x), then the first row holding the window's
    maximum (along y); dy goes to that row, then to that column. None where a window
    holds a NaN (TensorFlow's rule then needs the one pass over the taps in order)."""
    n, oh, kh, ow, kw, c = tiles.shape
    column, row_max = _firsts([tiles[:, :, :, :, kx] for kx in range(kw)])
    row, _ = _firsts([row_max[:, :, ky] for ky in range(kh)], need_max=False)
    # np.maximum carries any NaN of a window into its row maxima; a dot product of the
    # maxima is NaN exactly then, in one fast pass
    flat = row_max.reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):  # inf is no NaN
        if np.isnan(np.dot(flat, flat)):
            return None
    exact = x.shape[1] == oh * kh and x.shape[2] == ow * kw
    dx = np.empty(x.shape, np.float32) if exact else np.zeros(x.shape, np.float32)
    out = dx[:, :oh * kh, :ow * kw].reshape(tiles.shape)
    by_row = np.empty((n, oh, kh, ow, c), np.float32)  # dy routed to its window's row
    _route(dy, row, [by_row[:, :, ky] for ky in range(kh)])
    _route(by_row, column, [out[:, :, :, :, kx] for kx in range(kw)])
    return dx


def _firsts(taps, need_max=True):
    """(index of the first maximum, the maximum) over equally shaped `taps` without NaN:
    a later tap wins only when strictly larger. The index is a bool (is it the second?)
    for two taps, else uint8; without `need_max` the maximum of two taps is not computed
    (None)."""
    best = taps[0]
    index = np.zeros(best.shape, np.bool_ if len(taps) == 2 else np.uint8)
    for i, t in enumerate(taps[1:], 1):
        later = np.greater(t, best)
        if len(taps) == 2:
            index = later
            if not need_max:
                return index, None
        else:
            index[later] = i
        best = np.maximum(best, t)
    return index, best


def _route(g, index, outs):
    """outs[i] = g where `index` is i, else 0 (index: a bool for two outs)."""
    if len(outs) == 2:
        np.multiply(g, index, out=outs[1])
        np.multiply(g, ~index, out=outs[0])
        return
    for i, out in enumerate(outs):
        np.multiply(g, index == i, out=out)


def _counts(shape, ksize, strides, pads):
    """How many in-image positions each output window covers (SAME averages those)."""
    ones = _pad(np.ones((1, shape[1], shape[2], 1), np.float32), pads)
    return _patches(ones, ksize, strides, (1, 1)).sum(axis=(3, 4))


@kernel("avg_pool", "numpy")
def avg_pool(k, x, ksize, strides, pads):
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, as TensorFlow's
        total = _patches(_pad(x, pads), ksize, strides, (1, 1)).sum(axis=(3, 4))
    return total / _counts(x.shape, ksize, strides, pads)


@kernel("avg_pool_grad", "numpy")
def avg_pool_grad(k, dy, ksize, strides, pads, input_shape):
    n, h, w, c = input_shape
    share = dy / _counts(input_shape, ksize, strides, pads)
    dxp = np.zeros((n, h + pads[0] + pads[1], w + pads[2] + pads[3], c), np.float32)
    for ky in range(ksize[0]):
        for kx in range(ksize[1]):
            dxp[_window(ky, kx, dy.shape[1:3], strides, (1, 1))] += share
    return _unpad(dxp, pads, input_shape)
