"""tf.image's measures of images: total_variation, image_gradients, psnr, sobel_edges
(ssim in _ssim.py)."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..ops.creation import zeros
from ..ops.elementwise import abs, add, cast, log, mul, sub  # noqa: A004
from ..ops.math_extra import squared_difference
from ..ops.movement import concat, pad, stack
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


def compatible(a, b):
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
    compatible(a, b)
    return sub(mul(log(peak), float(np.float32(20 / np.log(10.0)))),
               mul(log(error), float(np.float32(10 / np.log(10.0)))))


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
