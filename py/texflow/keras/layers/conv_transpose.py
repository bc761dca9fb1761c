"""Transposed convolution layers: Conv2DTranspose, Conv1DTranspose and Conv3DTranspose
(channels last).

Each is tf.nn.conv2d_transpose (conv2d's input gradient; conv3d_transpose for 3-D) with
the output size Keras 3 computes from the input size, kernel, strides, padding and
output_padding.
"""

from ...ops.conv3d import conv3d_transpose
from ...ops.convolution import conv2d_transpose
from ...ops.movement import expand_dims, squeeze
from ..serialization import serializable
from .base import InputSpec, float_input
from .conv import _Conv, normalize_tuple

_MODULE = "keras.layers"


def deconv_output_length(length, kernel, padding, output_padding, stride, dilation=1):
    """Keras 3's output length of a transposed convolution along one axis."""
    if length is None:
        return None
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (length - 1) * stride + kernel + extra
    if output_padding is None:
        return length * stride
    return (length - 1) * stride + kernel % 2 + output_padding


class _ConvTranspose(_Conv):
    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         1, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)
        if output_padding is not None:
            output_padding = normalize_tuple(output_padding, self.rank, "output_padding",
                                             allow_zero=True)
            for axis, (pad, stride) in enumerate(zip(output_padding, self.strides)):
                if pad >= stride:
                    raise ValueError(
                        f"`output_padding` must be strictly less than `strides` for all "
                        f"dimensions. At dimension {axis}, `output_padding` is {pad} but "
                        f"`strides` is {stride}. Received: output_padding={output_padding}, "
                        f"strides={self.strides}")
        self.output_padding = output_padding

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(f'Layer "{self.name}": the channel dimension of the inputs '
                             f"should be defined. Found None in shape {input_shape}")
        # Keras's layout [*kernel_size, filters, in_channels]: conv2d_transpose's filters
        self.kernel = self.add_weight(
            shape=self.kernel_size + (self.filters, channels),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(
            shape=(self.filters,), initializer=self.bias_initializer,
            regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            name="bias") if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1: channels})

    def _transpose(self, x, kernel, strides, dilations):
        """conv2d_transpose of NHWC `x` into Keras's output size."""
        spatial = self._output_lengths(tuple(x.shape[1 + (self.rank == 1):-1]))
        if self.rank == 1:  # over a height of 1
            spatial = (1,) + spatial
        shape = (x.shape[0],) + spatial + (self.filters,)
        if self.rank == 3:
            return conv3d_transpose(x, kernel, shape, strides, self.padding.upper(),
                                    dilations=dilations)
        return conv2d_transpose(x, kernel, shape, strides, self.padding.upper(),
                                dilations=dilations)

    def _output_lengths(self, spatial):
        pads = self.output_padding or (None,) * self.rank
        return tuple(deconv_output_length(n, k, self.padding, p, s, d) for n, k, p, s, d in zip(
            spatial, self.kernel_size, pads, self.strides, self.dilation_rate))

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + self._output_lengths(input_shape[1:-1]) + (self.filters,)

    def get_config(self):
        config = super().get_config()
        del config["groups"]
        config["output_padding"] = self.output_padding
        return config


@serializable(_MODULE)
class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution (a "deconvolution") over NHWC images: the gradient of a
    Conv2D for its input, used to upsample (DCGAN generators, autoencoder decoders).

    Args:
        filters: the number of output channels.
        kernel_size: an int or (height, width).
        strides: an int or (sh, sw) (default 1): the upsampling factor.
        padding: 'valid' (default) or 'same'.
        output_padding: None, an int or (ph, pw), each less than its stride: added to the
            output size (None: the size follows from the padding alone).
        dilation_rate: an int or (dh, dw) (default 1).
        activation, use_bias, *_initializer, *_regularizer, *_constraint: as Conv2D.

    The kernel is [kernel_h, kernel_w, filters, in_channels] (Keras's layout).

    >>> layer = tf.keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same")
    >>> layer(np.zeros((1, 7, 7, 4), np.float32)).shape
    TensorShape([1, 14, 14, 8])
    """

    rank = 2

    def call(self, inputs):
        y = self._transpose(float_input(inputs), self.kernel, self.strides,
                            self.dilation_rate)
        return self._finish(y)


@serializable(_MODULE)
class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution over (batch, steps, channels) inputs; the kernel is
    [kernel_size, filters, in_channels].

    >>> tf.keras.layers.Conv1DTranspose(4, 3, strides=2)(np.zeros((2, 5, 3), np.float32)).shape
    TensorShape([2, 11, 4])
    """

    rank = 1

    def call(self, inputs):
        y = self._transpose(expand_dims(float_input(inputs), 1), expand_dims(self.kernel, 0),
                            (1,) + self.strides, (1,) + self.dilation_rate)
        return self._finish(squeeze(y, 1))


@serializable(_MODULE)
class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution over (batch, depth, height, width, channels) volumes;
    the kernel is [*kernel_size, filters, in_channels].

    >>> layer = tf.keras.layers.Conv3DTranspose(4, 3, strides=2, padding="same")
    >>> layer(np.zeros((1, 2, 3, 3, 2), np.float32)).shape
    TensorShape([1, 4, 6, 6, 4])
    """

    rank = 3

    def call(self, inputs):
        y = self._transpose(float_input(inputs), self.kernel, self.strides,
                            self.dilation_rate)
        return self._finish(y)
