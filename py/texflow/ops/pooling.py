"""TensorFlow's 1-D pooling (tf.nn.max_pool1d, avg_pool1d) over NWC sequences.

A sequence [batch, width, channels] is a one-row NHWC image, so these are the 2-D
pooling ops of ops/conv.py on a reshaped view: no kernels of their own, and the
gradients are those of max_pool/avg_pool and reshape. The argument checks are
TensorFlow's, made here because its 1-D functions check more than the 2-D kernels
texflow shares (explicit padding smaller than the window, a negative output size).
"""

from ..engine.registry import export
from ..errors import InvalidArgumentError, UnimplementedError
from .conv import _as_array, avg_pool, max_pool
from .movement import reshape


def _width(name, what, value, default):
    """The width entry of TensorFlow's ksize/strides for 1-D pooling: an int, [k] or
    [1, k, 1]."""
    if value is None:
        return default
    seq = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(seq) not in (1, 3):
        raise ValueError(f"{what} should be of length 1, 1 or 3. Received: {what}={seq} of "
                         f"length {len(seq)}")
    if len(seq) == 3:
        if seq[0] != 1 or seq[2] != 1:
            raise UnimplementedError(f"{name}: {what} {seq} pools across the batch or channel "
                                     "axis; texflow pools across the width only")
        seq = seq[1:2]
    return seq[0]


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
    x = _as_array(input)
    if len(x.shape) != 3:
        raise InvalidArgumentError(f"{name}: input must be [batch, width, channels] of rank "
                                   f"3, received shape {list(x.shape)}")
    k = _width(name, "ksize", ksize, None)
    s = _width(name, "strides", strides, 1)  # TensorFlow's None strides are 1
    if k < 1:
        raise InvalidArgumentError(f"{name}: Sliding window ksize must be positive, "
                                   f"received {k}")
    if s < 1:
        raise InvalidArgumentError(f"{name}: Stride must be > 0, but got {s}")
    n, width, c = x.shape
    left, right = _pads(name, padding, width, k, s)
    out = int((width + left + right - k + s) / s)  # C++'s division, rounding toward 0
    if out < 0 and name == "max_pool1d":  # TensorFlow's AvgPool gives an empty result
        raise InvalidArgumentError(f"{name}: Computed output size would be negative: "
                                   f"{out} [input_size: {width}, effective_filter_size: "
                                   f"{k}, stride: {s}]")
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

