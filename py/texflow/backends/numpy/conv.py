"""numpy kernels of convolution and pooling (NHWC, HWIO).

Convolutions are one matrix product each: the input's patches (a strided view,
copied once into columns) times the filter, the patches' transpose times the output
gradient for the filter's gradient, and the output gradient times the filter's
transpose, added back window by window, for the input's gradient. Pooling with
non-overlapping windows (strides equal to the window, no padding: Keras's default)
compares the window's positions as strided slices, without copying patches;
other windows go through the general strided-patch path.
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..base import kernel


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
    """The patches of `x` as a (N * out_h * out_w, kh * kw * C) matrix (im2col)."""
    patches = _patches(_pad(x, pads), window, strides, dilations)
    return patches.reshape(-1, patches.shape[3] * patches.shape[4] * patches.shape[5]), \
        patches.shape[:3]


def _window(ky, kx, out_hw, strides, dilations):
    """The slices of the padded input that window offset (ky, kx) reads."""
    (oh, ow), (sh, sw), (dh, dw) = out_hw, strides, dilations
    return (slice(None), slice(ky * dh, ky * dh + sh * (oh - 1) + 1, sh),
            slice(kx * dw, kx * dw + sw * (ow - 1) + 1, sw), slice(None))


def _unpad(xp, pads, shape):
    return xp[:, pads[0]:pads[0] + shape[1], pads[2]:pads[2] + shape[2], :]


@kernel("conv2d", "numpy")
def conv2d(x, w, strides, dilations, pads):
    cols, out = _columns(x, w.shape[:2], strides, dilations, pads)
    return (cols @ w.reshape(-1, w.shape[3])).reshape(out + (w.shape[3],))


@kernel("conv2d_backprop_input", "numpy")
def conv2d_backprop_input(dy, w, strides, dilations, pads, input_shape):
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
def conv2d_backprop_filter(x, dy, strides, dilations, pads, filter_shape):
    cols, _ = _columns(x, filter_shape[:2], strides, dilations, pads)
    return (cols.T @ dy.reshape(-1, dy.shape[3])).reshape(filter_shape)


def _tiles(x, ksize, strides, pads):
    """The window positions of non-overlapping pooling as strided slices (or None when
    windows overlap, skip pixels or are padded)."""
    (kh, kw), (sh, sw) = ksize, strides
    if (kh, kw) != (sh, sw) or any(pads):
        return None
    n, h, w, c = x.shape
    oh, ow = h // kh, w // kw
    if not oh or not ow:
        return None
    tiled = x[:, :oh * kh, :ow * kw].reshape(n, oh, kh, ow, kw, c)
    return [tiled[:, :, ky, :, kx] for ky in range(kh) for kx in range(kw)]


@kernel("max_pool", "numpy")
def max_pool(x, ksize, strides, pads):
    tiles = _tiles(x, ksize, strides, pads)
    if tiles is not None:
        out = tiles[0].copy()
        for t in tiles[1:]:
            np.maximum(out, t, out=out)
        return out
    patches = _patches(_pad(x, pads, -np.inf), ksize, strides, (1, 1))
    return patches.max(axis=(3, 4))


@kernel("max_pool_grad", "numpy")
def max_pool_grad(x, dy, ksize, strides, pads):
    """Routes each output's gradient to the first maximum of its window."""
    tiles = _tiles(x, ksize, strides, pads)
    if tiles is not None:
        return _max_pool_grad_tiled(x, dy, ksize, tiles)
    xp = _pad(x, pads, -np.inf)
    patches = _patches(xp, ksize, strides, (1, 1))
    n, oh, ow, kh, kw, c = patches.shape
    first = patches.reshape(n, oh, ow, kh * kw, c).argmax(axis=3)
    dxp = np.zeros(xp.shape, np.float32)
    for ky in range(kh):
        for kx in range(kw):
            chosen = np.where(first == ky * kw + kx, dy, 0.0)
            dxp[_window(ky, kx, (oh, ow), strides, (1, 1))] += chosen
    return _unpad(dxp, pads, x.shape)


def _max_pool_grad_tiled(x, dy, ksize, tiles):
    kh, kw = ksize
    n, h, w, c = x.shape
    oh, ow = dy.shape[1:3]
    peak = tiles[0].copy()
    for t in tiles[1:]:
        np.maximum(peak, t, out=peak)
    exact = h == oh * kh and w == ow * kw
    dx = np.empty(x.shape, np.float32) if exact else np.zeros(x.shape, np.float32)
    out = dx if exact else np.empty((n, oh * kh, ow * kw, c), np.float32)
    out = out.reshape(n, oh, kh, ow, kw, c)
    free = np.ones(peak.shape, bool)  # windows whose maximum is not taken yet
    for i, t in enumerate(tiles):
        ky, kx = divmod(i, kw)
        if i + 1 < len(tiles):
            chosen = t == peak
            chosen &= free
            free &= ~chosen
        else:
            chosen = free  # the last position is the maximum wherever none before was
        np.multiply(dy, chosen, out=out[:, :, ky, :, kx])
    if not exact:
        dx[:, :oh * kh, :ow * kw] = out.reshape(n, oh * kh, ow * kw, c)
    return dx


def _counts(shape, ksize, strides, pads):
    """How many in-image positions each output window covers (SAME averages those)."""
    ones = _pad(np.ones((1, shape[1], shape[2], 1), np.float32), pads)
    return _patches(ones, ksize, strides, (1, 1)).sum(axis=(3, 4))


@kernel("avg_pool", "numpy")
def avg_pool(x, ksize, strides, pads):
    total = _patches(_pad(x, pads), ksize, strides, (1, 1)).sum(axis=(3, 4))
    return total / _counts(x.shape, ksize, strides, pads)


@kernel("avg_pool_grad", "numpy")
def avg_pool_grad(dy, ksize, strides, pads, input_shape):
    n, h, w, c = input_shape
    share = dy / _counts(input_shape, ksize, strides, pads)
    dxp = np.zeros((n, h + pads[0] + pads[1], w + pads[2] + pads[3], c), np.float32)
    for ky in range(ksize[0]):
        for kx in range(ksize[1]):
            dxp[_window(ky, kx, dy.shape[1:3], strides, (1, 1))] += share
    return _unpad(dxp, pads, input_shape)
