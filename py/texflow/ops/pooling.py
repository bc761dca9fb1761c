"""TensorFlow's 1-D pooling (tf.nn.max_pool1d, avg_pool1d) over NWC sequences, and 3-D
average pooling (tf.nn.avg_pool3d) over NDHWC volumes.

A sequence [batch, width, channels] is a one-row NHWC image, so 1-D pooling is the
2-D pooling ops of ops/conv.py on a reshaped view; a 3-D box average is the average
over depth of 2-D averages (the in-volume part of a box is a product of ranges, so
SAME's divisor factors too). No kernels of their own: the gradients are those of
max_pool/avg_pool and reshape. The argument checks are
TensorFlow's, made here because its 1-D functions check more than the 2-D kernels
texflow shares (explicit padding smaller than the window, a negative output size).
"""

from ..engine.ndarray import as_array
from ..engine.registry import export
from ..errors import InvalidArgumentError, UnimplementedError
from .conv import avg_pool, max_pool
from .movement import reshape


def _window(name, what, value, default, n):
    """The spatial entries of TensorFlow's ksize/strides for n-D pooling: an int, n ints
    or [1, ..., 1] with n in between."""
    if value is None:
        return (default,) * n
    seq = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(seq) not in (1, n, n + 2):
        raise ValueError(f"{what} should be of length 1, {n} or {n + 2}. Received: "
                         f"{what}={seq} of length {len(seq)}")
    if len(seq) == n + 2:
        if seq[0] != 1 or seq[-1] != 1:
            raise UnimplementedError(f"{name}: {what} {seq} pools across the batch or channel "
                                     "axis; texflow pools across the spatial axes only")
        seq = seq[1:-1]
    return tuple(seq * n if len(seq) == 1 else seq)


def _check_output(name, sizes, window, strides, pads):
    for n, k, s, (lo, hi) in zip(sizes, window, strides, pads):
        out = int((n + lo + hi - k + s) / s)  # C++'s division, rounding toward 0
        if out < 0:
            raise InvalidArgumentError(f"{name}: Computed output size would be negative: "
                                       f"{out} [input_size: {n}, effective_filter_size: "
                                       f"{k}, stride: {s}]")


def _pads(name, padding, width, k, s):
    """(left, right) for 'SAME', 'VALID' or explicit [[0, 0], [left, right], [0, 0]]."""
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise InvalidArgumentError(f"Value for attr 'padding' of \"{padding}\" is not in "
                                       "the list of allowed values: \"SAME\", \"VALID\", "
                                       "\"EXPLICIT\"")
        if padding == "VALID":
            return 0, 0
        total = max((-(-width // s) - 1) * s + k - width, 0)
        return total // 2, total - total // 2
    if name == "avg_pool1d":
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    pairs = [[int(v) for v in p] for p in padding]
    if len(pairs) != 3:
        raise ValueError(f"When padding is a list, it must be of size 3. Received: "
                         f"padding={padding!r} of size {len(pairs)}")
    if min(min(p) for p in pairs) < 0:
        raise InvalidArgumentError("All elements of explicit_paddings must be nonnegative")
    if pairs[0] != [0, 0] or pairs[2] != [0, 0]:
        raise UnimplementedError(f"{name}: explicit padding of the batch and channel axes "
                                 f"must be 0, received {pairs}")
    left, right = pairs[1]
    for side, pad in (("Left", left), ("Right", right)):
        if pad >= k:  # TensorFlow's rule: a window never lies wholly in the padding
            raise InvalidArgumentError(f"{side} padding {pad} needs to be smaller than the "
                                       f"window size {k}")
    return left, right


def _pool1d(name, pool2d, input, ksize, strides, padding, data_format):
    if data_format not in (None, "NWC"):
        raise InvalidArgumentError(f"{name}: texflow pools data_format='NWC' only (channels "
                                   f"last), received {data_format!r}; transpose the input")
    x = as_array(input)
    if len(x.shape) != 3:
        raise InvalidArgumentError(f"{name}: input must be [batch, width, channels] of rank "
                                   f"3, received shape {list(x.shape)}")
    (k,) = _window(name, "ksize", ksize, None, 1)
    (s,) = _window(name, "strides", strides, 1, 1)  # TensorFlow's None strides are 1
    if k < 1:
        raise InvalidArgumentError(f"{name}: Sliding window ksize must be positive, "
                                   f"received {k}")
    if s < 1:
        raise InvalidArgumentError(f"{name}: Stride must be > 0, but got {s}")
    n, width, c = x.shape
    left, right = _pads(name, padding, width, k, s)
    if name == "max_pool1d":  # TensorFlow's AvgPool gives an empty result instead
        _check_output(name, (width,), (k,), (s,), ((left, right),))
    pads = [[0, 0], [0, 0], [left, right], [0, 0]]
    y = pool2d(reshape(x, (n, 1, width, c)), (1, k), (1, s), pads)
    return reshape(y, (n, y.shape[2], c))


@export("nn")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Max pooling of `input` [batch, width, channels] over windows of `ksize` along the
    width (TensorFlow's tf.nn.max_pool1d; float32 only, as texflow's max_pool).

    Args:
        input: a float32 tensor [batch, width, channels].
        ksize: the window's width: an int, [k] or [1, k, 1].
        strides: the step: an int, [s] or [1, s, 1] (None steps by 1, as TensorFlow).
        padding: 'SAME', 'VALID' or [[0, 0], [left, right], [0, 0]] (each side smaller
            than the window).
        data_format: 'NWC' (the only layout texflow's kernels take).

    >>> tf.nn.max_pool1d(tf.constant([[[1.0], [3.0], [2.0]]]), 2, 1, "VALID").numpy().ravel()
    array([3., 3.], dtype=float32)
    """
    return _pool1d("max_pool1d", max_pool, input, ksize, strides, padding, data_format)


@export("nn")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Average pooling of `input` [batch, width, channels] along the width (TensorFlow's
    tf.nn.avg_pool1d; 'SAME' windows average only the positions inside the input).

    Args: as `max_pool1d`, except that padding is 'SAME' or 'VALID' only, as TensorFlow.

    >>> tf.nn.avg_pool1d(tf.constant([[[1.0], [3.0], [2.0]]]), 2, 1, "VALID").numpy().ravel()
    array([2. , 2.5], dtype=float32)
    """
    return _pool1d("avg_pool1d", avg_pool, input, ksize, strides, padding, data_format)



@export("nn")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Average pooling of `input` [batch, depth, height, width, channels] over boxes of
    `ksize` (TensorFlow's tf.nn.avg_pool3d; 'SAME' boxes average only the positions
    inside the volume).

    Args:
        input: a float32 tensor [batch, depth, height, width, channels].
        ksize: the box: an int, 3 ints or [1, kd, kh, kw, 1].
        strides: the steps, as ksize (None steps by 1, as TensorFlow).
        padding: 'SAME' or 'VALID'.
        data_format: 'NDHWC' (TensorFlow's CPU kernel takes no other).

    >>> tf.nn.avg_pool3d(tf.ones([1, 4, 4, 4, 2]), 2, 2, "VALID").shape
    TensorShape([1, 2, 2, 2, 2])
    """
    x, (kd, kh, kw), (sd, sh, sw) = pool3d_args("avg_pool3d", input, ksize, strides,
                                                padding, data_format)
    n, d, h, w, c = x.shape
    planes = avg_pool(reshape(x, (n * d, h, w, c)), (kh, kw), (sh, sw), padding)
    oh, ow = planes.shape[1:3]
    y = avg_pool(reshape(planes, (n, d, oh * ow, c)), (kd, 1), (sd, 1), padding)
    return reshape(y, (n, y.shape[1], oh, ow, c))


def pool3d_args(op, input, ksize, strides, padding, data_format):  # noqa: A002
    """TensorFlow's checks of 3-D pooling's arguments (Pooling3DOp's, shared by
    max_pool3d and avg_pool3d): the NDHWC input as an array, the box and the steps."""
    if data_format not in (None, "NDHWC"):
        if data_format == "NCDHW":  # TensorFlow's CPU kernels have only NDHWC
            raise InvalidArgumentError(f"{op}: Default Pooling3DOp only supports NDHWC on "
                                       "device type CPU (texflow's kernels too); transpose "
                                       "the input to NDHWC")
        raise ValueError(f"{op}: data_format must be 'NDHWC' or 'NCDHW', received "
                         f"{data_format!r}")
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"Value for attr 'padding' of \"{padding}\" is not in "
                                   "the list of allowed values: \"SAME\", \"VALID\"")
    x = as_array(input)
    if len(x.shape) != 5:
        raise InvalidArgumentError(f"{op}: input must be 5-dimensional [batch, depth, "
                                   f"height, width, channels], received shape "
                                   f"{list(x.shape)}")
    ksize = _window(op, "ksize", ksize, None, 3)
    strides = _window(op, "strides", strides, 1, 3)  # TensorFlow's None strides are 1
    if min(ksize) < 1:
        raise InvalidArgumentError(f"{op}: Sliding window ksize field must have non-negative "
                                   f"dimensions, received {list(ksize)}")
    if min(strides) < 1:
        raise InvalidArgumentError(f"{op}: Stride must be > 0, but got {min(strides)}")
    if padding == "VALID":
        _check_output(op, x.shape[1:4], ksize, strides, ((0, 0),) * 3)
    return x, ksize, strides
