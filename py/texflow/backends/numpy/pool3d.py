"""numpy kernels of max_pool3d, its gradient and the gradient's gradient, by TensorFlow
2.21's rules (ops/pool3d.py states them): one pass per box tap over strided views of the
padded volume."""

import numpy as np

from ..base import kernel
from ..layout import POOL3D_PACKET as PACKET, POOL3D_TIE as TIE

LOWEST = np.finfo(np.float32).min  # a tap in SAME padding


def _padded(x, pads, fill):
    return np.pad(x, ((0, 0), (pads[0], pads[1]), (pads[2], pads[3]), (pads[4], pads[5]),
                      (0, 0)), constant_values=fill)


def _tap(xp, offsets, strides, out_dhw):
    """The view of padded volume `xp` that tap `offsets` of every box reads."""
    return xp[(slice(None),) + tuple(slice(t, t + s * (o - 1) + 1, s) for t, s, o in
                                     zip(offsets, strides, out_dhw)) + (slice(None),)]


def packet_lanes(shape):
    """True where TensorFlow's kernel computes the output element in an 8-float packet
    (NaN never the maximum there), by its flat index, as ops/pool3d.py says."""
    total, channels = int(np.prod(shape)), shape[-1]
    start = np.arange(total) // PACKET * PACKET
    return ((start + PACKET <= total) & (start % channels + PACKET <= channels)).reshape(shape)


@kernel("max_pool3d", "numpy")
def max_pool3d(k, x, ksize, strides, pads):
    out_dhw = k.out_shape[1:4]
    xp = _padded(x, pads, LOWEST)
    packet = np.full(k.out_shape, -np.inf, np.float32)  # takes a greater tap
    scalar = np.full(k.out_shape, -np.inf, np.float32)  # takes a tap not less
    with np.errstate(invalid="ignore"):
        for offsets in np.ndindex(*ksize):  # (depth, row, column) order
            v = _tap(xp, offsets, strides, out_dhw)
            np.copyto(packet, v, where=packet < v)
            np.copyto(scalar, v, where=~(v < scalar))
    return np.where(packet_lanes(k.out_shape), packet, scalar)


@kernel("max_pool3d_grad", "numpy")
def max_pool3d_grad(k, x, y, dy, ksize, strides, pads):
    out_dhw = y.shape[1:4]
    xp = _padded(x, pads, np.nan)  # padding never matches
    dxp = np.zeros(xp.shape, np.float32)
    tie = np.float32(TIE)
    # TensorFlow adds box by box, output columns outermost, then rows, then planes: for
    # one position that is its taps' columns, rows and planes from the last
    taps = [(a, b, c) for c in reversed(range(ksize[2])) for b in reversed(range(ksize[1]))
            for a in reversed(range(ksize[0]))]
    with np.errstate(invalid="ignore", over="ignore"):
        for offsets in taps:
            v = _tap(xp, offsets, strides, out_dhw)
            hit = np.abs(v - y) < tie
            _tap(dxp, offsets, strides, out_dhw)[...] += np.where(hit, dy, np.float32(0))
    d, h, w = x.shape[1:4]
    return dxp[:, pads[0]:pads[0] + d, pads[2]:pads[2] + h, pads[4]:pads[4] + w]


@kernel("max_pool3d_grad_grad", "numpy")
def max_pool3d_grad_grad(k, x, y, g, ksize, strides, pads):
    out_dhw = y.shape[1:4]
    xp, gp = _padded(x, pads, np.nan), _padded(g, pads, 0.0)  # NaN equals nothing
    out = np.zeros(y.shape, np.float32)
    found = np.zeros(y.shape, bool)
    for offsets in np.ndindex(*ksize):  # the first equal tap, (depth, row, column) order
        hit = ~found & (_tap(xp, offsets, strides, out_dhw) == y)
        np.copyto(out, _tap(gp, offsets, strides, out_dhw), where=hit)
        found |= hit
    return out


@kernel("max_pool_grad_grad", "numpy")
def max_pool_grad_grad(k, x, y, g, ksize, strides, pads):
    """2-D MaxPoolGradGrad: the 3-D kernel on one-plane volumes (pads top, bottom, left,
    right)."""
    return max_pool3d_grad_grad(k, x[:, None], y[:, None], g[:, None], (1, *ksize),
                                (1, *strides), (0, 0, *pads))[:, 0]
