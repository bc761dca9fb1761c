"""tf.image's measures of images: total_variation, image_gradients, psnr, ssim,
sobel_edges."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..ops.conv import conv2d
from ..ops.creation import zeros
from ..ops.elementwise import abs, add, cast, div, log, mul, square, sub  # noqa: A004
from ..ops.math_extra import squared_difference
from ..ops.movement import concat, pad, reshape, stack, transpose
from ..ops.reduce import mean, sum  # noqa: A004
from ._checks import as_image, shape_text
from ._color import convert_values


def total_variation(images, name=None):
    """The sum of absolute differences between neighbouring pixels, per image for a batch
    (tf.image.total_variation); keeps the dtype.

    >>> tf.image.total_variation(tf.constant([[[0.0], [2.0]], [[1.0], [1.0]]])).numpy()
    np.float32(4.0)
    """
    images = as_image(images, "images")[0]
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    down = sub(images[..., 1:, :, :], images[..., :-1, :, :])
    across = sub(images[..., 1:, :], images[..., :-1, :])
    axis = None if rank == 3 else [1, 2, 3]
    return add(sum(abs(down), axis=axis), sum(abs(across), axis=axis))


def image_gradients(image):
    """(dy, dx): each pixel's difference to the one below and to its right, 0 on the last
    row and column, for a batch [batch, height, width, channels] (tf.image.image_gradients).

    >>> dy, dx = tf.image.image_gradients(tf.reshape(tf.range(4.0), [1, 2, 2, 1]))
    >>> dy[0, :, :, 0].numpy()
    array([[2., 2.],
           [0., 0.]], dtype=float32)
    """
    image = as_image(image)[0]
    shape = image.shape.as_list()
    if len(shape) != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{shape_text(shape)}.")
    b, h, w, d = shape
    dy = sub(image[:, 1:], image[:, :-1])
    dx = sub(image[:, :, 1:], image[:, :, :-1])
    dy = concat([dy, zeros([b, 1, w, d], image.dtype)], 1)
    dx = concat([dx, zeros([b, h, 1, d], image.dtype)], 2)
    return dy, dx


def _compatible(a, b):
    for x in (a, b):
        shape = x.shape.as_list()
        if len(shape) < 3:
            raise ValueError(f"Shape {shape_text(shape)} must have rank at least 3")
    if a.shape.as_list()[-3:] != b.shape.as_list()[-3:]:
        raise ValueError(f"Shapes {shape_text(a.shape.as_list())} and "
                         f"{shape_text(b.shape.as_list())} are incompatible")


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB between images `a` and `b` whose values reach
    `max_val`, per image over the last three axes (tf.image.psnr); float32.

    >>> float(tf.image.psnr(tf.zeros([2, 2, 1]), tf.ones([2, 2, 1]), 10.0))
    20.0
    """
    a, source = as_image(a, "a")
    b, source_b = as_image(b, "b")
    peak = (cast(max_val, source) if isinstance(max_val, NDArray)
            else np.asarray(max_val, source.as_numpy_dtype))
    peak = convert_values(peak, source, dtypes.float32, False)
    a = convert_values(a, source, dtypes.float32, False)
    b = convert_values(b, source_b, dtypes.float32, False)
    error = mean(squared_difference(a, b), axis=[-3, -2, -1])  # broadcasting errors first
    _compatible(a, b)
    return sub(mul(log(peak), float(np.float32(20 / np.log(10.0)))),
               mul(log(error), float(np.float32(10 / np.log(10.0)))))


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
    a, source = as_image(img1, "img1")
    b, source_b = as_image(img2, "img2")
    _compatible(a, b)
    for x in (a, b):
        h, w = x.shape.as_list()[-3:-1]
        if h < filter_size or w < filter_size:
            raise InvalidArgumentError(
                f"ssim: images of height and width ({h}, {w}) are smaller than filter_size "
                f"{filter_size}")
    peak = (cast(max_val, source) if isinstance(max_val, NDArray)
            else np.asarray(max_val, source.as_numpy_dtype))
    peak = convert_values(peak, source, dtypes.float32, False)
    a = convert_values(a, source, dtypes.float32, False)
    b = convert_values(b, source_b, dtypes.float32, False)
    window = _gaussian(int(filter_size), filter_sigma)
    c1, c2 = square(mul(peak, k1)), square(mul(peak, k2))
    mean_a, mean_b = _window_means(a, window), _window_means(b, window)
    num0 = mul(mul(mean_a, mean_b), 2.0)
    den0 = add(square(mean_a), square(mean_b))
    luminance = div(add(num0, c1), add(den0, c1))
    num1 = mul(_window_means(mul(a, b), window), 2.0)
    den1 = _window_means(add(square(a), square(b)), window)
    structure = div(add(sub(num1, num0), c2), add(sub(den1, den0), c2))
    both = mul(luminance, structure)
    if not return_index_map:
        both = mean(both, axis=[-3, -2])
    return mean(both, axis=-1)


_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                   [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], np.float32)


def sobel_edges(image):
    """Sobel's vertical and horizontal derivatives of a batch [batch, h, w, d], the image
    mirrored at its edges: [batch, h, w, d, 2] (tf.image.sobel_edges).

    >>> tf.image.sobel_edges(tf.zeros([1, 3, 3, 1])).shape
    TensorShape([1, 3, 3, 1, 2])
    """
    image = as_image(image)[0]
    shape = image.shape.as_list()
    if len(shape) != 4:
        raise InvalidArgumentError(f"sobel_edges: 'image' must be [batch, height, width, "
                                   f"depth]; got shape {shape_text(shape)}")
    h, w = shape[1:3]
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    edges = []
    for kernel in _SOBEL:
        out = None
        for i in range(3):
            for j in range(3):
                if kernel[i, j]:
                    term = mul(padded[:, i:i + h, j:j + w], float(kernel[i, j]))
                    out = term if out is None else add(out, term)
        edges.append(out)
    return stack(edges, axis=-1)
