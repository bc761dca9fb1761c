"""tf.nn's convolution and pooling with TensorFlow 2's exact signatures: `strides` and
`padding` are required (a call without them raises TypeError, as TensorFlow's does),
and None strides (or dilations) step by 1. texflow's own top-level names and the
deeplearn.js math methods (`tf.conv2d`, `tf.max_pool`, `tf.avg_pool`, ops/conv.py) keep
their defaults: strides 1 for conv2d and `ksize` for pooling, padding 'VALID'.

tf.nn.max_pool and tf.nn.avg_pool pick the pooling by the input's rank (3: NWC, 4: NHWC,
5: NDHWC), as TensorFlow's do.
"""

from ..engine.ndarray import as_array
from ..engine.registry import export
from . import conv
from .pool3d import max_pool3d
from .pooling import avg_pool1d, avg_pool3d, max_pool1d


@export("nn")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None):
    """2-D convolution of NHWC `input` with HWIO `filters` (tf.nn.conv2d; see tf.conv2d).

    >>> tf.nn.conv2d(tf.ones([1, 5, 5, 1]), tf.ones([3, 3, 1, 2]), 1, "SAME").shape
    TensorShape([1, 5, 5, 2])
    """
    if not isinstance(data_format, str):  # tf.conv2d would take a number for dilations
        conv._check_layout("conv2d", data_format)
    return conv.conv2d(input, filters, 1 if strides is None else strides, padding,
                       data_format, 1 if dilations is None else dilations)


def _pool2d(name, pool, input, ksize, strides, padding, data_format):  # noqa: A002
    conv._check_layout(name, data_format)
    return pool(input, ksize, 1 if strides is None else strides, padding)


@export("nn")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Max pooling of NHWC `input` (tf.nn.max_pool2d; TensorFlow's rules: see tf.max_pool).

    >>> tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), 2, 2, "VALID").shape
    TensorShape([1, 2, 2, 1])
    """
    return _pool2d("max_pool2d", conv.max_pool, input, ksize, strides, padding, data_format)


@export("nn")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Average pooling of NHWC `input` (tf.nn.avg_pool2d; see tf.avg_pool).

    >>> tf.nn.avg_pool2d(tf.ones([1, 4, 4, 1]), 2, 2, "VALID").shape
    TensorShape([1, 2, 2, 1])
    """
    return _pool2d("avg_pool2d", conv.avg_pool, input, ksize, strides, padding, data_format)


def _by_rank(pools, input, ksize, strides, padding, data_format):  # noqa: A002
    x = as_array(input)
    rank = len(x.shape)
    if rank not in pools:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: "
                         f"input.shape={list(x.shape)} of rank {rank}")
    layout = [data_format] if data_format else []  # None: each one's default
    return pools[rank](x, ksize, strides, padding, *layout)


@export("nn")
def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling of an NWC, NHWC or NDHWC `input` by its rank (tf.nn.max_pool):
    `max_pool1d`, `max_pool2d` or `max_pool3d`.

    >>> tf.nn.max_pool(tf.ones([1, 2, 2, 2, 1]), 2, 2, "VALID").shape
    TensorShape([1, 1, 1, 1, 1])
    """
    return _by_rank({3: max_pool1d, 4: max_pool2d, 5: max_pool3d}, input, ksize, strides,
                    padding, data_format)


@export("nn")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling of an NWC, NHWC or NDHWC `input` by its rank (tf.nn.avg_pool).

    >>> tf.nn.avg_pool(tf.ones([1, 2, 2, 2, 1]), 2, 2, "VALID").shape
    TensorShape([1, 1, 1, 1, 1])
    """
    return _by_rank({3: avg_pool1d, 4: avg_pool2d, 5: avg_pool3d}, input, ksize, strides,
                    padding, data_format)
