"""Convolution layers: Conv2D, Conv1D and Conv3D (channels last)."""

import numpy as np

from ...ops import elementwise as ew
from ...ops.conv import conv2d
from ...ops.conv3d import conv3d
from ...ops.movement import expand_dims, squeeze
from ..serialization import serializable, serialize_keras_object
from .base import InputSpec, Layer, float_input
from .core import add_kernel_and_bias, kernel_settings_config, store_kernel_settings

_MODULE = "keras.layers"


def normalize_tuple(value, n, name, allow_zero=False):
    """`value` (an int or n ints) as a tuple of n positive ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),) * n
    else:
        try:
            value = tuple(int(v) for v in value)
        except (TypeError, ValueError):
            raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                             f"Received {name}={value!r}") from None
    if len(value) != n or any(v < (0 if allow_zero else 1) for v in value):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} positive integers. "
                         f"Received {name}={value!r}")
    return value


def normalize_padding(padding, allowed=("valid", "same")):
    mode = str(padding).lower()
    if mode not in allowed:
        raise ValueError(f"The `padding` argument must be one of {list(allowed)}. "
                         f"Received: padding={padding!r}")
    return mode


def normalize_data_format(data_format):
    if data_format in (None, "channels_last"):
        return "channels_last"
    if data_format == "channels_first":
        raise ValueError("texflow's convolution and pooling layers take channels_last (NHWC) "
                         "inputs only; received data_format='channels_first'")
    raise ValueError(f"The `data_format` argument must be one of 'channels_first', "
                     f"'channels_last'. Received: data_format={data_format!r}")


def conv_output_length(length, kernel, padding, stride, dilation=1):
    """The output length of a convolution or pooling window along one axis."""
    if length is None:
        return None
    span = (kernel - 1) * dilation + 1
    if padding == "same":
        return (length + stride - 1) // stride
    return max(length - span + stride, 0) // stride


class _Conv(Layer):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(filters, (int, np.integer)) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        n = self.rank
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, n, "kernel_size")
        self.strides = normalize_tuple(strides, n, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, n, "dilation_rate")
        if not isinstance(groups, (int, np.integer)) or groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: "
                             f"groups={groups}.")
        if self.filters % groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number "
                             f"of groups. Received: groups={groups}, filters={filters}.")
        if groups != 1 and n == 3:
            raise ValueError(f"texflow's Conv3D has groups=1 only, received groups={groups}")
        self.groups = int(groups)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"`strides > 1` not supported in conjunction with "
                             f"`dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        store_kernel_settings(self, activation, use_bias, kernel_initializer, bias_initializer,
                              kernel_regularizer, bias_regularizer, kernel_constraint,
                              bias_constraint)
        self.input_spec = InputSpec(min_ndim=n + 2)

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(f'Layer "{self.name}": the channel dimension of the inputs '
                             f"should be defined. Found None in shape {input_shape}")
        if channels % self.groups:
            raise ValueError(f"The number of input channels must be evenly divisible by the "
                             f"number of groups. Received groups={self.groups}, but the input "
                             f"has {channels} channels (full input shape is {input_shape}).")
        # groups > 1: conv2d's grouped rule (input channels a multiple of the kernel's)
        add_kernel_and_bias(self, self.kernel_size + (channels // self.groups, self.filters))
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1: channels})

    def _finish(self, y):
        if self.bias is not None:
            y = ew.add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        spatial = tuple(conv_output_length(n, k, self.padding, s, d) for n, k, s, d in zip(
            input_shape[1:-1], self.kernel_size, self.strides, self.dilation_rate))
        return (input_shape[0],) + spatial + (self.filters,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size,
            "strides": self.strides, "padding": self.padding,
            "data_format": self.data_format, "dilation_rate": self.dilation_rate,
            "groups": self.groups,
        })
        config.update(kernel_settings_config(self))
        config["activity_regularizer"] = serialize_keras_object(self.activity_regularizer)
        return config


@serializable(_MODULE)
class Conv2D(_Conv):
    """2-D convolution over NHWC images: `activation(conv2d(inputs, kernel) + bias)`.

    Args:
        filters: the number of output channels.
        kernel_size: an int or (height, width).
        strides: an int or (sh, sw) (default 1).
        padding: 'valid' (default) or 'same'.
        dilation_rate: an int or (dh, dw) (default 1).
        groups: channel groups (default 1): the input's channels and `filters` split into
            `groups` blocks, output block g convolving input block g only (the kernel is
            [kh, kw, in_channels / groups, filters]).
        activation, use_bias, *_initializer, *_regularizer, *_constraint: as Dense.

    >>> layer = tf.keras.layers.Conv2D(32, 3, activation="relu")
    >>> layer(np.zeros((1, 28, 28, 1), np.float32)).shape
    TensorShape([1, 26, 26, 32])
    """

    rank = 2

    def call(self, inputs):
        y = conv2d(float_input(inputs), self.kernel, self.strides, self.padding.upper(),
                   dilations=self.dilation_rate)
        return self._finish(y)


@serializable(_MODULE)
class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels) inputs.

    >>> tf.keras.layers.Conv1D(4, 3)(np.zeros((2, 10, 1), np.float32)).shape
    TensorShape([2, 8, 4])
    """

    rank = 1

    def call(self, inputs):
        kernel = expand_dims(self.kernel, 0)
        y = conv2d(expand_dims(float_input(inputs), 1), kernel, (1,) + self.strides,
                   self.padding.upper(), dilations=(1,) + self.dilation_rate)
        return self._finish(squeeze(y, 1))


@serializable(_MODULE)
class Conv3D(_Conv):
    """3-D convolution over (batch, depth, height, width, channels) volumes; the kernel is
    [*kernel_size, in_channels, filters].

    >>> tf.keras.layers.Conv3D(4, 3)(np.zeros((1, 5, 5, 5, 2), np.float32)).shape
    TensorShape([1, 3, 3, 3, 4])
    """

    rank = 3

    def call(self, inputs):
        y = conv3d(float_input(inputs), self.kernel, (1,) + self.strides + (1,),
                   self.padding.upper(), dilations=(1,) + self.dilation_rate + (1,))
        return self._finish(y)
