"""tf.image.resize and resize_with_pad: TensorFlow 2's half-pixel-centre sampling written as
gathers along height and width with host-computed indices and weights (the shapes are
static), so gradients, tf.function and every backend come from gather and arithmetic."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..framework import get_static_value
from ..ops.creation import constant
from ..ops.elementwise import add, cast, mul, sub
from ..ops.movement import gather
from ._checks import as_image, batched, no_bool, rank_3_or_4, target_size
from ._geometry import pad_to_bounding_box


class ResizeMethod:
    """The names of tf.image.resize's methods (tf.image.ResizeMethod)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_KNOWN = {v for k, v in vars(ResizeMethod).items() if k.isupper()}


def _size(size):
    if isinstance(size, NDArray):
        known = get_static_value(size)
        if known is None:
            raise ValueError("tf.image.resize: 'size' must be known when the function is "
                             "traced (a texflow trace has static shapes)")
        size = known
    data = np.asarray(size)
    if data.dtype.kind not in "iu":
        raise ValueError("'size' must be a 1-D int32 Tensor")
    if data.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return int(data[0]), int(data[1])


def _linear_taps(n_in, n_out):
    """TensorFlow's bilinear taps: lower and upper source index and the upper's weight."""
    scale = np.float32(n_in) / np.float32(n_out)
    where = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    low = np.floor(where)
    lerp = (where - low).astype(np.float32)
    lower = np.maximum(low, 0).astype(np.int32)
    upper = np.minimum(np.ceil(where), n_in - 1).astype(np.int32)
    return lower, upper, lerp


def _nearest_taps(n_in, n_out):
    scale = np.float32(n_in) / np.float32(n_out)
    where = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale
    return np.clip(np.floor(where), 0, n_in - 1).astype(np.int32)


def _area_taps(n_in, n_out):
    """Each output's source pixels and their overlap with its box, divided by the box's
    width (TensorFlow's resize_area without align_corners)."""
    scale = n_in / n_out
    rows = []
    for i in range(n_out):
        start, end = i * scale, (i + 1) * scale
        rows.append([(min(j, n_in - 1), (min(j + 1, end) - max(j, start)) / scale)
                     for j in range(int(np.floor(start)), int(np.ceil(end)))])
    return rows


def _bicubic_taps(n_in, n_out):
    """TensorFlow's resize_bicubic with half-pixel centres: Keys' cubic (a = -0.5) read
    from a table of 1025 fractions, taps outside the image dropped and the rest
    renormalized."""
    f32 = np.float32
    t = np.arange(1025, dtype=f32) / f32(1024)
    near = ((f32(1.5) * t - f32(2.5)) * t) * t + f32(1)
    u = t + f32(1)
    far = ((f32(-0.5) * u + f32(2.5)) * u - f32(4)) * u + f32(2)
    scale = f32(n_in) / f32(n_out)
    rows = []
    for i in range(n_out):
        where = (f32(i) + f32(0.5)) * scale - f32(0.5)
        base = int(np.floor(where))
        offset = int(np.floor((where - f32(base)) * f32(1024) + f32(0.5)))
        weights = (far[offset], near[offset], near[1024 - offset], far[1024 - offset])
        taps = [(base - 1 + k, w) for k, w in enumerate(weights) if 0 <= base - 1 + k < n_in]
        total = f32(sum(w for _, w in taps))
        rows.append([(j, w / total) for j, w in taps])
    return rows


def _lanczos(radius):
    def kernel(x):
        if x > radius:
            return 0.0
        if x <= 1e-3:
            return 1.0
        return radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi * x) ** 2
    return kernel, radius


def _mitchell(x):
    if x >= 2:
        return 0.0
    if x >= 1:
        return (((-7 / 18) * x + 2) * x - 10 / 3) * x + 16 / 9
    return ((7 / 6) * x - 2) * x * x + 8 / 9


def _keys(x):
    if x >= 2:
        return 0.0
    if x >= 1:
        return ((-0.5 * x + 2.5) * x - 4) * x + 2
    return ((1.5 * x - 2.5) * x) * x + 1


# tf.raw_ops.ScaleAndTranslate's kernels (function of |distance|, radius)
_KERNELS = {"triangle": (lambda x: max(0.0, 1 - x), 1.0),
            ResizeMethod.LANCZOS3: _lanczos(3.0), ResizeMethod.LANCZOS5: _lanczos(5.0),
            ResizeMethod.GAUSSIAN: (lambda x: np.exp(-x * x / (2 * 0.5 ** 2)) if x < 1.5
                                    else 0.0, 1.5),
            ResizeMethod.MITCHELLCUBIC: (_mitchell, 2.0), "keyscubic": (_keys, 2.0)}


def _kernel_taps(kernel, n_in, n_out, antialias):
    """TensorFlow's scale_and_translate taps: the kernel centred on each output's place in
    the input, widened by the downscaling factor when antialiasing, normalized."""
    fn, radius = _KERNELS[kernel]
    f32 = np.float32
    inverse = f32(1) / (f32(n_out) / f32(n_in))
    widen = max(float(inverse), 1.0) if antialias else 1.0
    rows = []
    for i in range(n_out):
        centre = float((f32(i) + f32(0.5)) * inverse)
        first = int(np.ceil(centre - radius * widen - 0.5))
        last = int(np.floor(centre + radius * widen - 0.5))
        sources = range(min(max(first, 0), n_in - 1), min(max(last, 0), n_in - 1) + 1)
        taps = [(j, fn(abs((j + 0.5 - centre) / widen))) for j in sources]
        total = sum(w for _, w in taps)
        rows.append([(j, w / total if abs(total) > 1e-30 else w) for j, w in taps])
    return rows


def _tap_arrays(rows):
    """Rows of (source, weight) per output as [taps, outputs] arrays; short rows pad with
    weight 0."""
    taps = max(len(r) for r in rows)
    index = np.zeros((taps, len(rows)), np.int32)
    weight = np.zeros((taps, len(rows)), np.float32)
    for i, row in enumerate(rows):
        for t, (j, w) in enumerate(row):
            index[t, i], weight[t, i] = j, w
    return index, weight


def _weights(values, axis):
    shape = [1, 1, 1, 1]
    shape[axis] = len(values)
    return constant(values.reshape(shape), dtypes.float32)


def _linear(images, axis, n_out):
    lower, upper, lerp = _linear_taps(images.shape[axis], n_out)
    low = gather(images, lower, axis=axis)
    return add(low, mul(sub(gather(images, upper, axis=axis), low), _weights(lerp, axis)))


def _nearest(images, axis, n_out):
    n_in = images.shape[axis]
    return images if n_in == n_out else gather(images, _nearest_taps(n_in, n_out), axis=axis)


def _weighted(images, axis, rows):
    # NOTE: a padded tap reads a real pixel with weight 0, so an infinite pixel gives NaN
    # in the outputs whose rows are short (TensorFlow's kernels skip those taps)
    index, weight = _tap_arrays(rows)
    out = None
    for t in range(len(index)):
        term = mul(gather(images, index[t], axis=axis), _weights(weight[t], axis))
        out = term if out is None else add(out, term)
    return out


def _resampler(method, antialias):
    """fn(images, axis, n_out) resampling one axis as TensorFlow 2's resize does."""
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return _nearest  # antialiasing changes neither nearest nor area
    if method == ResizeMethod.BILINEAR and not antialias:
        return _linear
    if method == ResizeMethod.AREA:
        taps = _area_taps
    elif method == ResizeMethod.BICUBIC and not antialias:
        taps = _bicubic_taps
    else:
        kernel = {ResizeMethod.BILINEAR: "triangle", ResizeMethod.BICUBIC: "keyscubic"}.get(
            method, method)

        def taps(n_in, n_out):
            return _kernel_taps(kernel, n_in, n_out, antialias)
    return lambda images, axis, n_out: _weighted(images, axis, taps(images.shape[axis], n_out))


def _aspect_size(height, width, new_height, new_width):
    """TensorFlow's preserve_aspect_ratio sizes, computed in float32 as it does."""
    f32 = np.float32
    scale = min(f32(new_height) / f32(height), f32(new_width) / f32(width))
    return int(np.round(scale * f32(height))), int(np.round(scale * f32(width)))


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """Resizes an image [height, width, channels] or a batch [batch, height, width,
    channels] to `size` = [new_height, new_width] (tf.image.resize, TensorFlow 2's
    half-pixel centres).

    Every method of tf.image.ResizeMethod, with or without `antialias`; all give float32
    but "nearest", which keeps the dtype.

    >>> tf.image.resize(tf.constant([[[1.0], [3.0]]]), [1, 4])[0, :, 0].numpy()
    array([1. , 1.5, 2.5, 3. ], dtype=float32)
    """
    images = as_image(images, "images")[0]
    if images.shape.rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    new_height, new_width = _size(size)
    height, width = images.shape.as_list()[-3:-1]
    if preserve_aspect_ratio:
        new_height, new_width = _aspect_size(height, width, new_height, new_width)
    if method not in _KNOWN:
        raise ValueError(f"Resize method is not implemented: {method}")
    no_bool(images, "resize")
    if new_height <= 0 or new_width <= 0:
        raise InvalidArgumentError("output dimensions must be positive")
    if height == 0 or width == 0:
        raise InvalidArgumentError("input image must be of non-zero size")
    x, unbatch = batched(images)
    if method != ResizeMethod.NEAREST_NEIGHBOR:
        x = cast(x, dtypes.float32)
    resample = _resampler(method, antialias)
    # width first, then height: TensorFlow's bilinear kernel interpolates in that order
    return unbatch(resample(resample(x, 2, new_width), 1, new_height))


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    """Resizes keeping the aspect ratio, then pads with zeros to `target_height` x
    `target_width`, centred (tf.image.resize_with_pad).

    >>> tf.image.resize_with_pad(tf.ones([2, 4, 1]), 4, 4)[..., 0].numpy()
    array([[0., 0., 0., 0.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [0., 0., 0., 0.]], dtype=float32)
    """
    image = as_image(image)[0]
    rank_3_or_4(image)
    th, tw = target_size(target_height, target_width, "resize_with_pad")
    f32 = np.float32
    height, width = (f32(n) for n in image.shape.as_list()[-3:-1])
    ratio = max(width / f32(tw), height / f32(th))
    new_height, new_width = height / ratio, width / ratio
    top = max(0, int(np.floor((f32(th) - new_height) / f32(2))))
    left = max(0, int(np.floor((f32(tw) - new_width) / f32(2))))
    resized = resize(image, [int(np.floor(new_height)), int(np.floor(new_width))], method,
                     antialias=antialias)
    return pad_to_bounding_box(resized, top, left, th, tw)
