"""Depthwise and separable convolution layers (channels last): DepthwiseConv2D,
DepthwiseConv1D, SeparableConv2D and SeparableConv1D (MobileNet's blocks).

Each convolves every input channel with its own `depth_multiplier` filters
(ops/convolution.py `depthwise`); the separable ones then mix the channels with a 1x1
convolution.
"""

import numpy as np

from ...ops import elementwise as ew
from ...ops.conv import conv2d
from ...ops.convolution import depthwise
from ...ops.movement import expand_dims, squeeze
from .. import activations, constraints, initializers, regularizers
from ..serialization import serializable, serialize_keras_object
from .base import InputSpec, Layer, float_input
from .conv import conv_output_length, normalize_data_format, normalize_padding, normalize_tuple

_MODULE = "keras.layers"


def _positive(value, name):
    if not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"Invalid value for argument `{name}`. Expected a strictly positive "
                         f"value. Received {name}={value}.")
    return int(value)


class _Depthwise(Layer):
    rank = 2
    separable = False

    def __init__(self, filters, kernel_size, strides, padding, depth_multiplier, data_format,
                 dilation_rate, activation, use_bias, depthwise_initializer,
                 pointwise_initializer, bias_initializer, depthwise_regularizer,
                 pointwise_regularizer, bias_regularizer, activity_regularizer,
                 depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        n = self.rank
        self.filters = _positive(filters, "filters") if self.separable else None
        self.depth_multiplier = _positive(depth_multiplier, "depth_multiplier")
        self.kernel_size = normalize_tuple(kernel_size, n, "kernel_size")
        self.strides = normalize_tuple(strides, n, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, n, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=n + 2)

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(f'Layer "{self.name}": the channel dimension of the inputs '
                             f"should be defined. Found None in shape {input_shape}")
        mid = channels * self.depth_multiplier
        depthwise_kernel = self.add_weight(
            shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            name="depthwise_kernel" if self.separable else "kernel")
        if self.separable:
            self.depthwise_kernel = depthwise_kernel
            self.pointwise_kernel = self.add_weight(
                shape=(1,) * self.rank + (mid, self.filters),
                initializer=self.pointwise_initializer,
                regularizer=self.pointwise_regularizer, constraint=self.pointwise_constraint,
                name="pointwise_kernel")
        else:
            self.kernel = depthwise_kernel
        self.bias = self.add_weight(
            shape=(self.filters if self.separable else mid,),
            initializer=self.bias_initializer, regularizer=self.bias_regularizer,
            constraint=self.bias_constraint, name="bias") if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1: channels})

    def call(self, inputs):
        x = float_input(inputs)
        strides, dilations = self.strides, self.dilation_rate
        dw = self.depthwise_kernel if self.separable else self.kernel
        if self.rank == 1:  # over a height of 1
            x, dw = expand_dims(x, 1), expand_dims(dw, 0)
            strides, dilations = (1,) + strides, (1,) + dilations
        y = depthwise(self.name, x, dw, strides, self.padding.upper(), dilations)
        if self.separable:
            pw = self.pointwise_kernel
            y = conv2d(y, pw if self.rank == 2 else expand_dims(pw, 0), 1, "VALID")
        if self.rank == 1:
            y = squeeze(y, 1)
        if self.bias is not None:
            y = ew.add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        spatial = tuple(conv_output_length(n, k, self.padding, s, d) for n, k, s, d in zip(
            input_shape[1:-1], self.kernel_size, self.strides, self.dilation_rate))
        channels = self.filters if self.separable else (
            None if input_shape[-1] is None else input_shape[-1] * self.depth_multiplier)
        return (input_shape[0],) + spatial + (channels,)

    def get_config(self):
        config = super().get_config()
        config.update({"depth_multiplier": self.depth_multiplier})
        if self.separable:
            config["filters"] = self.filters
        config.update({
            "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
            "depthwise_initializer": serialize_keras_object(self.depthwise_initializer)})
        if self.separable:
            config["pointwise_initializer"] = serialize_keras_object(
                self.pointwise_initializer)
        config.update({
            "bias_initializer": serialize_keras_object(self.bias_initializer),
            "depthwise_regularizer": serialize_keras_object(self.depthwise_regularizer)})
        if self.separable:
            config["pointwise_regularizer"] = serialize_keras_object(
                self.pointwise_regularizer)
        config.update({
            "bias_regularizer": serialize_keras_object(self.bias_regularizer),
            "activity_regularizer": serialize_keras_object(self.activity_regularizer),
            "depthwise_constraint": serialize_keras_object(self.depthwise_constraint)})
        if self.separable:
            config["pointwise_constraint"] = serialize_keras_object(self.pointwise_constraint)
        config["bias_constraint"] = serialize_keras_object(self.bias_constraint)
        return config


class _DepthwiseConv(_Depthwise):
    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(None, kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, activation, use_bias, depthwise_initializer, None,
                         bias_initializer, depthwise_regularizer, None, bias_regularizer,
                         activity_regularizer, depthwise_constraint, None, bias_constraint,
                         **kwargs)


class _SeparableConv(_Depthwise):
    separable = True

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides, padding, depth_multiplier,
                         data_format, dilation_rate, activation, use_bias,
                         depthwise_initializer, pointwise_initializer, bias_initializer,
                         depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, pointwise_constraint,
                         bias_constraint, **kwargs)


@serializable(_MODULE)
class DepthwiseConv2D(_DepthwiseConv):
    """Depthwise 2-D convolution over NHWC images: each input channel convolved with its
    own `depth_multiplier` filters (kernel [kh, kw, in_channels, depth_multiplier]),
    giving in_channels * depth_multiplier channels.

    Args:
        kernel_size: an int or (height, width).
        strides: an int or (sh, sw) (default 1).
        padding: 'valid' (default) or 'same'.
        depth_multiplier: the filters per input channel (default 1).
        dilation_rate: an int or (dh, dw) (default 1).
        activation, use_bias: as Conv2D.
        depthwise_*, bias_*: the kernel's and the bias's initializer, regularizer and
            constraint.

    >>> tf.keras.layers.DepthwiseConv2D(3, padding="same")(np.zeros((1, 8, 8, 4),
    ...                                                             np.float32)).shape
    TensorShape([1, 8, 8, 4])
    """

    rank = 2


@serializable(_MODULE)
class DepthwiseConv1D(_DepthwiseConv):
    """Depthwise 1-D convolution over (batch, steps, channels) inputs.

    >>> tf.keras.layers.DepthwiseConv1D(3)(np.zeros((2, 10, 4), np.float32)).shape
    TensorShape([2, 8, 4])
    """

    rank = 1


@serializable(_MODULE)
class SeparableConv2D(_SeparableConv):
    """Depthwise separable 2-D convolution: DepthwiseConv2D's per-channel filters
    (`depthwise_kernel` [kh, kw, in, depth_multiplier]), then a 1x1 convolution to `filters`
    channels (`pointwise_kernel` [1, 1, in * depth_multiplier, filters]).

    >>> tf.keras.layers.SeparableConv2D(8, 3)(np.zeros((1, 8, 8, 4), np.float32)).shape
    TensorShape([1, 6, 6, 8])
    """

    rank = 2


@serializable(_MODULE)
class SeparableConv1D(_SeparableConv):
    """Depthwise separable 1-D convolution over (batch, steps, channels) inputs.

    >>> tf.keras.layers.SeparableConv1D(8, 3)(np.zeros((2, 10, 4), np.float32)).shape
    TensorShape([2, 8, 8])
    """

    rank = 1
