"""tf.image.ssim and ssim_multiscale as TensorFlow computes them: a Gaussian window
(a softmax of squared distances) over each channel, as a conv2d of the channels made a
batch; the scales of ssim_multiscale by 2x2 average pooling."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..ops.conv import avg_pool, conv2d
from ..ops.elementwise import add, cast, div, mul, pow, relu, square, sub  # noqa: A004
from ..ops.movement import pad, reshape, stack, transpose
from ..ops.reduce import mean, reduce_prod
from ._checks import as_image
from ._color import convert_values
from ._quality import compatible


def _prepare(img1, img2, max_val):
    """Both images and max_val in float32 (convert_image_dtype's scaling)."""
    a, source = as_image(img1, "img1")
    b, source_b = as_image(img2, "img2")
    compatible(a, b)
    peak = (cast(max_val, source) if isinstance(max_val, NDArray)
            else np.asarray(max_val, source.as_numpy_dtype))
    return (convert_values(a, source, dtypes.float32, False),
            convert_values(b, source_b, dtypes.float32, False),
            convert_values(peak, source, dtypes.float32, False))


def _gaussian(size, sigma):
    """TensorFlow's SSIM window: a softmax of -(dx**2 + dy**2) / (2 sigma**2), [size, size]."""
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = coords ** 2 * (-0.5 / float(sigma) ** 2)
    g = np.exp(g[:, None] + g[None, :])
    return (g / g.sum()).astype(np.float32)


def _window_means(x, window):
    """Each channel's `window`-weighted means over VALID windows: a [.., H, W, C] image's
    channels become a batch of one-channel images for conv2d."""
    shape = x.shape.as_list()
    h, w, c = shape[-3:]
    planes = reshape(transpose(reshape(x, [-1, h, w, c]), [0, 3, 1, 2]), [-1, h, w, 1])
    k = window.shape[0]
    out = conv2d(planes, window.reshape(k, k, 1, 1), 1, "VALID")
    hh, ww = h - k + 1, w - k + 1
    return reshape(transpose(reshape(out, [-1, c, hh, ww]), [0, 2, 3, 1]),
                   shape[:-3] + [hh, ww, c])


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity of `img1` and `img2` (values reaching `max_val`) with a
    Gaussian window, averaged over height, width and channels (tf.image.ssim); float32.
    `return_index_map=True` gives the per-window map averaged over channels instead.

    >>> float(tf.image.ssim(tf.ones([11, 11, 1]), tf.ones([11, 11, 1]), 1.0))
    1.0
    """
    a, b, peak = _prepare(img1, img2, max_val)
    both, _ = _per_channel(a, b, peak, filter_size, filter_sigma, k1, k2)
    if not return_index_map:
        both = mean(both, axis=[-3, -2])
    return mean(both, axis=-1)


def _per_channel(a, b, peak, filter_size, filter_sigma, k1, k2):
    """(luminance * contrast-structure, contrast-structure) maps per window and channel."""
    for x in (a, b):
        h, w = x.shape.as_list()[-3:-1]
        if h < filter_size or w < filter_size:
            raise InvalidArgumentError(
                f"ssim: images of height and width ({h}, {w}) are smaller than filter_size "
                f"{filter_size}")
    window = _gaussian(int(filter_size), filter_sigma)
    c1, c2 = square(mul(peak, k1)), square(mul(peak, k2))
    mean_a, mean_b = _window_means(a, window), _window_means(b, window)
    num0 = mul(mul(mean_a, mean_b), 2.0)
    den0 = add(square(mean_a), square(mean_b))
    luminance = div(add(num0, c1), add(den0, c1))
    num1 = mul(_window_means(mul(a, b), window), 2.0)
    den1 = _window_means(add(square(a), square(b)), window)
    structure = div(add(sub(num1, num0), c2), add(sub(den1, den0), c2))
    return mul(luminance, structure), structure


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _halve(x):
    """2x2 average pooling of [..., H, W, C], odd sides first mirrored by one pixel."""
    shape = x.shape.as_list()
    h, w, c = shape[-3:]
    flat = reshape(x, [-1, h, w, c])
    if h % 2 or w % 2:
        flat = pad(flat, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
    out = avg_pool(flat, 2, 2, "VALID")
    return reshape(out, shape[:-3] + out.shape.as_list()[1:])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM (tf.image.ssim_multiscale): the contrast-structure terms of each
    scale (halved by 2x2 average pooling) and the last scale's SSIM, raised to
    `power_factors` and multiplied, averaged over channels; float32.

    >>> x = tf.ones([1, 32, 32, 1])
    >>> float(tf.image.ssim_multiscale(x, x, 1.0, (0.5, 0.5), filter_size=3)[0])
    1.0
    """
    a, b, peak = _prepare(img1, img2, max_val)
    terms = []
    for scale in range(len(power_factors)):
        if scale:
            a, b = _halve(a), _halve(b)
        both, structure = _per_channel(a, b, peak, filter_size, filter_sigma, k1, k2)
        terms.append(relu(mean(structure, axis=[-3, -2])))
    terms[-1] = relu(mean(both, axis=[-3, -2]))
    weights = np.asarray(power_factors, np.float32)
    return mean(reduce_prod(pow(stack(terms, axis=-1), weights), axis=[-1]), axis=[-1])


