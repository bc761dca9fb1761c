"""numpy references for the neural-network and movement ops of the training core,
written independently of texflow's numpy backend (plain loops over windows,
float64, cast to the op's dtype at the end)."""

import numpy as np

F32, F64 = np.float32, np.float64


def _pair(v):
    if isinstance(v, int):
        return v, v
    v = list(v)
    return (v[1], v[2]) if len(v) == 4 else (v[0], v[-1])


def _pads(padding, in_hw, window, strides, dilations):
    if not isinstance(padding, str):
        return [tuple(p) for p in padding]
    if padding.upper() == "VALID":
        return [(0, 0), (0, 0)]
    pads = []
    for n, k, s, d in zip(in_hw, window, strides, dilations):
        eff = (k - 1) * d + 1
        out = -(-n // s)
        total = max((out - 1) * s + eff - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def _windows(x, window, strides, dilations, padding, fill):
    """Yields (i, j, patch[N, kh, kw, C]) over output positions of padded x."""
    x = np.asarray(x, F64)
    (kh, kw), (sh, sw), (dh, dw) = window, strides, dilations
    (pt, pb), (pl, pr) = _pads(padding, x.shape[1:3], window, strides, dilations)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    valid = np.pad(np.ones(x.shape[1:3]), ((pt, pb), (pl, pr)))
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    for i in range(max(oh, 0)):
        for j in range(max(ow, 0)):
            rows = [i * sh + a * dh for a in range(kh)]
            cols = [j * sw + b * dw for b in range(kw)]
            yield i, j, xp[:, rows][:, :, cols], valid[np.ix_(rows, cols)], (oh, ow)


def conv2d(x, w, strides=1, padding="VALID", dilations=1):
    w = np.asarray(w, F64)
    strides, dilations = _pair(strides), _pair(dilations)
    out = None
    for i, j, patch, _, (oh, ow) in _windows(x, w.shape[:2], strides, dilations, padding, 0.0):
        if out is None:
            out = np.zeros((patch.shape[0], oh, ow, w.shape[3]))
        out[:, i, j] = np.einsum("nhwc,hwco->no", patch, w)
    return out.astype(F32)


def conv2d_backprop_filter(x, dy, filter_shape, strides=1, padding="VALID", dilations=1):
    """The gradient of sum(conv2d(x, w) * dy) with respect to w (HWIO)."""
    strides, dilations = _pair(strides), _pair(dilations)
    dy, dw = np.asarray(dy, F64), np.zeros(filter_shape)
    for i, j, patch, _, _ in _windows(x, filter_shape[:2], strides, dilations, padding, 0.0):
        dw += np.einsum("nhwc,no->hwco", patch, dy[:, i, j])
    return dw.astype(F32)


def conv2d_transpose(x, w, output_shape, strides=1, padding="VALID", dilations=1):
    """conv2d's adjoint: each input pixel x[:, i, j] spreads x[:, i, j] @ w[..., o, :]^T
    over the window that output pixel (i, j) of a conv2d of `output_shape` reads (w is
    [kh, kw, out, in])."""
    w = np.asarray(w, F64)
    strides, dilations = _pair(strides), _pair(dilations)
    (kh, kw), (sh, sw), (dh, dw) = w.shape[:2], strides, dilations
    (pt, pb), (pl, pr) = _pads(padding, output_shape[1:3], (kh, kw), strides, dilations)
    n, h, wd, c = output_shape
    out = np.zeros((n, h + pt + pb, wd + pl + pr, c))
    x = np.asarray(x, F64)
    for i in range(x.shape[1]):
        for j in range(x.shape[2]):
            for a in range(kh):
                for b in range(kw):
                    out[:, i * sh + a * dh, j * sw + b * dw] += x[:, i, j] @ w[a, b].T
    return out[:, pt:pt + h, pl:pl + wd].astype(F32)


def depthwise_conv2d(x, w, strides=1, padding="VALID", dilations=1):
    """Each channel c of x through conv2d with its own filters w[:, :, c:c + 1, :]."""
    return np.concatenate([conv2d(x[..., c:c + 1], w[:, :, c:c + 1], strides, padding,
                                  dilations) for c in range(x.shape[3])], axis=3)


def depthwise_conv2d_grads(x, w, dy, strides=1, padding="VALID", dilations=1):
    """(input gradient, filter gradient) of sum(depthwise_conv2d(x, w) * dy), channel by
    channel from conv2d's."""
    m = w.shape[3]
    dx = [conv2d_transpose(dy[..., c * m:(c + 1) * m], w[:, :, c:c + 1],
                           x.shape[:3] + (1,), strides, padding, dilations)
          for c in range(x.shape[3])]
    dw = [conv2d_backprop_filter(x[..., c:c + 1], dy[..., c * m:(c + 1) * m],
                                 w.shape[:2] + (1, m), strides, padding, dilations)
          for c in range(x.shape[3])]
    return np.concatenate(dx, axis=3), np.concatenate(dw, axis=2)


def _depth_pads(padding, d, kd, sd, dd):
    return _pads(padding, (d,), (kd,), (sd,), (dd,))[0]


def conv3d(x, w, strides=(1, 1, 1), padding="VALID", dilations=(1, 1, 1)):
    """Each output plane the sum over the window's depth taps of conv2d of an input plane
    (x NDHWC, w [kd, kh, kw, in, out]); (d, h, w) strides and dilations."""
    (sd, sh, sw), (dd, dh, dw) = strides, dilations
    pd = _depth_pads(padding, x.shape[1], w.shape[0], sd, dd)
    xp = np.pad(np.asarray(x, F64), ((0, 0), pd, (0, 0), (0, 0), (0, 0)))
    od = (xp.shape[1] - (w.shape[0] - 1) * dd - 1) // sd + 1
    planes = [sum(conv2d(xp[:, i * sd + a * dd], w[a], (sh, sw), padding, (dh, dw))
                  .astype(F64) for a in range(w.shape[0])) for i in range(od)]
    return np.stack(planes, axis=1).astype(F32)


def conv3d_transpose(x, w, output_shape, strides=(1, 1, 1), padding="VALID",
                     dilations=(1, 1, 1)):
    """conv3d's adjoint (w [kd, kh, kw, out, in]): each input plane's conv2d_transpose by
    each depth tap, added to the plane that tap reads."""
    (sd, sh, sw), (dd, dh, dw) = strides, dilations
    n, d, h, wd, c = output_shape
    pd = _depth_pads(padding, d, w.shape[0], sd, dd)
    out = np.zeros((n, d + pd[0] + pd[1], h, wd, c))
    for i in range(x.shape[1]):
        for a in range(w.shape[0]):
            out[:, i * sd + a * dd] += conv2d_transpose(x[:, i], w[a], (n, h, wd, c),
                                                        (sh, sw), padding, (dh, dw))
    return out[:, pd[0]:pd[0] + d].astype(F32)


def conv3d_backprop_filter(x, dy, filter_shape, strides=(1, 1, 1), padding="VALID",
                           dilations=(1, 1, 1)):
    """The gradient of sum(conv3d(x, w) * dy) with respect to w, tap plane by tap plane."""
    (sd, sh, sw), (dd, dh, dw) = strides, dilations
    kd = filter_shape[0]
    pd = _depth_pads(padding, x.shape[1], kd, sd, dd)
    xp = np.pad(np.asarray(x, F64), ((0, 0), pd, (0, 0), (0, 0), (0, 0)))
    return np.stack([sum(conv2d_backprop_filter(
        xp[:, i * sd + a * dd], dy[:, i], filter_shape[1:], (sh, sw), padding, (dh, dw))
        .astype(F64) for i in range(dy.shape[1])) for a in range(kd)]).astype(F32)


def _pool(x, ksize, strides, padding, reduce):
    ksize = _pair(ksize)
    strides = _pair(strides) if strides is not None else ksize
    out = None
    for i, j, patch, valid, (oh, ow) in _windows(x, ksize, strides, (1, 1), padding, np.nan):
        if out is None:
            out = np.zeros((patch.shape[0], oh, ow, patch.shape[3]))
        out[:, i, j] = reduce(patch[:, valid > 0])
    return out.astype(F32)


def max_pool(x, ksize, strides=None, padding="VALID"):
    """TensorFlow's: the greatest value that is no NaN, at least float32's lowest (a
    window of -inf and NaN only gives the lowest)."""
    def reduce(p):
        p = np.where(np.isnan(p), -np.inf, p)
        return np.maximum(p.max(axis=1), np.finfo(F32).min)
    return _pool(x, ksize, strides, padding, reduce)


def max_pool_grad(x, dy, ksize, strides=None, padding="VALID"):
    """Each window's gradient routed by TensorFlow's MaxPoolGrad: its first in-image tap,
    then each later tap strictly greater than the one chosen (a NaN is never greater; a
    NaN at the first tap keeps the gradient)."""
    ksize = _pair(ksize)
    strides = _pair(strides) if strides is not None else ksize
    (top, _), (left, _) = _pads(padding, x.shape[1:3], ksize, strides, (1, 1))
    dx = np.zeros(x.shape, F64)
    for i, j, patch, valid, _ in _windows(x, ksize, strides, (1, 1), padding, 0.0):
        taps = [int(k) for k in np.flatnonzero(valid)]
        if not taps:
            continue  # a window wholly in the padding has nowhere to send its gradient
        for b in range(x.shape[0]):
            for c in range(x.shape[3]):
                flat = patch[b, :, :, c].reshape(-1)
                k = taps[0]
                for t in taps[1:]:
                    if flat[t] > flat[k]:
                        k = t
                y, z = divmod(k, ksize[1])
                dx[b, i * strides[0] + y - top, j * strides[1] + z - left, c] += dy[b, i, j, c]
    return dx.astype(F32)


def avg_pool(x, ksize, strides=None, padding="VALID"):
    return _pool(x, ksize, strides, padding, lambda p: p.mean(axis=1))


def slice(x, begin, size):  # noqa: A001
    x = np.asarray(x)
    return x[tuple(np.s_[b:(n if s == -1 else b + s)] for b, s, n in zip(begin, size, x.shape))]


def pad(x, paddings, constant_values=0):
    return np.pad(np.asarray(x), paddings, constant_values=constant_values)


def tile(x, multiples):
    return np.tile(np.asarray(x), multiples)


def concat(values, axis=0):
    return np.concatenate([np.asarray(v) for v in values], axis=axis)


def stack(values, axis=0):
    return np.stack([np.asarray(v) for v in values], axis=axis)


def gather(params, indices, axis=0):
    return np.take(np.asarray(params), np.asarray(indices), axis=axis)


def unsorted_segment_sum(data, ids, num_segments):
    data = np.asarray(data)
    out = np.zeros((num_segments,) + data.shape[1:], F64)
    for row, k in zip(data, np.asarray(ids)):
        if 0 <= k < num_segments:
            out[k] += row
    return out.astype(data.dtype)


def broadcast_to(x, shape):
    return np.broadcast_to(np.asarray(x), shape).copy()


def log_softmax(x, axis=-1):
    x = np.asarray(x, F64)
    m = x.max(axis=axis, keepdims=True)
    return (x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))).astype(F32)


def softmax(x, axis=-1):
    return np.exp(log_softmax(x, axis).astype(F64)).astype(F32)


def one_hot(indices, depth):
    indices = np.asarray(indices)
    return (indices[..., None] == np.arange(depth)).astype(F32)


def softmax_cross_entropy_with_logits(labels, logits):
    return (-(np.asarray(labels, F64) * log_softmax(logits).astype(F64)).sum(-1)).astype(F32)


def sparse_softmax_cross_entropy_with_logits(labels, logits):
    return softmax_cross_entropy_with_logits(one_hot(labels, np.shape(logits)[-1]), logits)


def sigmoid_cross_entropy_with_logits(labels, logits):
    z, x = np.asarray(labels, F64), np.asarray(logits, F64)
    p = 1 / (1 + np.exp(-x))
    with np.errstate(divide="ignore"):
        return (-(z * np.log(p) + (1 - z) * np.log1p(-p))).astype(F32)


def leaky_relu(x, alpha=0.2):
    x = np.asarray(x, F64)
    return np.where(x > 0, x, alpha * x).astype(F32)


def clip_by_value(x, lo, hi):
    return np.clip(np.asarray(x, F64), lo, hi).astype(F32)


def moments(x, axes):
    x = np.asarray(x, F64)
    return x.mean(axis=tuple(axes)).astype(F32), x.var(axis=tuple(axes)).astype(F32)


def batch_normalization(x, mean, variance, offset, scale, eps):
    x = np.asarray(x, F64)
    return ((x - mean) / np.sqrt(np.asarray(variance, F64) + eps) * scale + offset).astype(F32)


EPS = 1e-7
HI = float(np.float32(1 - EPS))  # the clip bound as float32 holds it (Keras computes in float32)


def categorical_crossentropy(y_true, y_pred, from_logits=False):
    if from_logits:
        return softmax_cross_entropy_with_logits(y_true, y_pred)
    p = np.asarray(y_pred, F64)
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, HI)
    return (-(np.asarray(y_true, F64) * np.log(p)).sum(-1)).astype(F32)


def sparse_categorical_crossentropy(labels, y_pred, from_logits=False):
    labels = np.asarray(labels).reshape(np.shape(y_pred)[:-1]).astype(np.int64)
    if from_logits:
        return sparse_softmax_cross_entropy_with_logits(labels, y_pred)
    p = np.clip(np.asarray(y_pred, F64), EPS, HI)
    p = p / p.sum(-1, keepdims=True)
    return (-np.log(np.take_along_axis(p, labels[..., None], -1)[..., 0])).astype(F32)


def binary_crossentropy(y_true, y_pred, from_logits=False):
    z = np.asarray(y_true, F64)
    if from_logits:
        return sigmoid_cross_entropy_with_logits(z, y_pred).astype(F64).mean(-1).astype(F32)
    p = np.clip(np.asarray(y_pred, F64), EPS, HI)
    return (-(z * np.log(p) + (1 - z) * np.log(1 - p)).mean(-1)).astype(F32)


def strided_slice(x, key):
    """x[key] by numpy's basic indexing (what TensorFlow's strided_slice computes)."""
    return np.asarray(x)[key]
