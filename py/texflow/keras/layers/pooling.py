"""Pooling layers: MaxPooling2D, AveragePooling2D, their 1-D and 3-D forms, global pooling."""

from ...ops import reduce as rd
from ...ops.conv import avg_pool, max_pool
from ...ops.movement import expand_dims, squeeze
from ...ops.pool3d import max_pool3d
from ...ops.pooling import avg_pool3d
from ..serialization import serializable
from .base import InputSpec, Layer, float_input
from .conv import conv_output_length, normalize_data_format, normalize_padding, normalize_tuple

_MODULE = "keras.layers"


class _Pooling(Layer):
    rank = 2
    _op = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        n = self.rank
        self.pool_size = normalize_tuple(pool_size, n, "pool_size")
        self.strides = normalize_tuple(strides, n, "strides") if strides is not None \
            else self.pool_size
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=n + 2)
        self.built = True

    def call(self, inputs):
        inputs = float_input(inputs)
        pool = type(self)._op
        if self.rank == 1:
            y = pool(expand_dims(inputs, 1), (1,) + self.pool_size, (1,) + self.strides,
                     self.padding.upper())
            return squeeze(y, 1)
        return pool(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape):
        spatial = tuple(conv_output_length(n, k, self.padding, s)
                        for n, k, s in zip(input_shape[1:-1], self.pool_size, self.strides))
        return (input_shape[0],) + spatial + (input_shape[-1],)

    def get_config(self):
        config = super().get_config()
        config.update({"pool_size": self.pool_size, "padding": self.padding,
                       "strides": self.strides, "data_format": self.data_format})
        return config


@serializable(_MODULE)
class MaxPooling2D(_Pooling):
    """The maximum of each `pool_size` window (NHWC; strides default to pool_size).

    >>> tf.keras.layers.MaxPooling2D()(np.zeros((1, 26, 26, 32), np.float32)).shape
    TensorShape([1, 13, 13, 32])
    """

    rank = 2
    _op = staticmethod(max_pool)


@serializable(_MODULE)
class AveragePooling2D(_Pooling):
    """The mean of each `pool_size` window; with 'same' padding only in-image values
    count, as in Keras.

    >>> tf.keras.layers.AveragePooling2D(2)(np.ones((1, 4, 4, 1), np.float32)).shape
    TensorShape([1, 2, 2, 1])
    """

    rank = 2
    _op = staticmethod(avg_pool)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


@serializable(_MODULE)
class MaxPooling1D(_Pooling):
    """The maximum of each window of steps of (batch, steps, channels) inputs.

    >>> tf.keras.layers.MaxPooling1D()(np.zeros((2, 8, 3), np.float32)).shape
    TensorShape([2, 4, 3])
    """

    rank = 1
    _op = staticmethod(max_pool)


@serializable(_MODULE)
class AveragePooling1D(_Pooling):
    """The mean of each window of steps of (batch, steps, channels) inputs.

    >>> tf.keras.layers.AveragePooling1D(2)(np.zeros((2, 8, 3), np.float32)).shape
    TensorShape([2, 4, 3])
    """

    rank = 1
    _op = staticmethod(avg_pool)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


@serializable(_MODULE)
class MaxPooling3D(_Pooling):
    """The maximum of each `pool_size` box of (batch, depth, height, width, channels)
    inputs, by tf.nn.max_pool3d's rules.

    >>> tf.keras.layers.MaxPooling3D()(np.zeros((1, 4, 6, 6, 2), np.float32)).shape
    TensorShape([1, 2, 3, 3, 2])
    """

    rank = 3
    _op = staticmethod(max_pool3d)


@serializable(_MODULE)
class AveragePooling3D(_Pooling):
    """The mean of each `pool_size` box; with 'same' padding only in-volume values count.

    >>> tf.keras.layers.AveragePooling3D(2)(np.ones((1, 4, 4, 4, 1), np.float32)).shape
    TensorShape([1, 2, 2, 2, 1])
    """

    rank = 3
    _op = staticmethod(avg_pool3d)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class _GlobalPooling(Layer):
    rank = 2
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs):
        axes = list(range(1, self.rank + 1))
        return type(self)._reduce(inputs, axis=axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        if self.keepdims:
            return (input_shape[0],) + (1,) * self.rank + (input_shape[-1],)
        return (input_shape[0], input_shape[-1])

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


@serializable(_MODULE)
class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over height and width: (N, H, W, C) -> (N, C) (or (N, 1, 1, C) with
    `keepdims`).

    >>> tf.keras.layers.GlobalAveragePooling2D()(np.ones((2, 4, 4, 3), np.float32)).shape
    TensorShape([2, 3])
    """

    rank = 2
    _reduce = staticmethod(rd.mean)


@serializable(_MODULE)
class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over height and width.

    >>> tf.keras.layers.GlobalMaxPooling2D()(np.ones((2, 4, 4, 3), np.float32)).shape
    TensorShape([2, 3])
    """

    rank = 2
    _reduce = staticmethod(rd.max)


@serializable(_MODULE)
class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over steps: (N, T, C) -> (N, C).

    >>> tf.keras.layers.GlobalAveragePooling1D()(np.ones((2, 5, 3), np.float32)).shape
    TensorShape([2, 3])
    """

    rank = 1
    _reduce = staticmethod(rd.mean)


@serializable(_MODULE)
class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over steps.

    >>> tf.keras.layers.GlobalMaxPooling1D()(np.ones((2, 5, 3), np.float32)).shape
    TensorShape([2, 3])
    """

    rank = 1
    _reduce = staticmethod(rd.max)
