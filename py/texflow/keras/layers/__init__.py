"""`tf.keras.layers`: the layer classes, a module per family."""

from .activation import ELU, Activation, LeakyReLU, PReLU, ReLU, Softmax
from .attention import AdditiveAttention, Attention
from .base import InputSpec, Layer
from .conv import Conv1D, Conv2D, Conv3D
from .conv_transpose import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose
from .core import Dense, Embedding, Identity, Input, InputLayer, Lambda, Masking
from .depthwise import DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D, SeparableConv2D
from .einsum_dense import EinsumDense
from .encoding import CategoryEncoding, Discretization
from .grouped_query_attention import GroupedQueryAttention as GroupQueryAttention
from .merging import Add, Average, Concatenate, Maximum, Minimum, Multiply, Subtract
from .multi_head_attention import MultiHeadAttention
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (AveragePooling1D, AveragePooling2D, AveragePooling3D,
                      GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalMaxPooling1D,
                      GlobalMaxPooling2D, MaxPooling1D, MaxPooling2D, MaxPooling3D)
from .image_affine import RandomRotation, RandomTranslation, RandomZoom
from .image_preprocessing import (CenterCrop, RandomBrightness, RandomContrast, RandomCrop,
                                  RandomFlip, RandomHeight, RandomWidth, Resizing)
from .preprocessing import Normalization, Rescaling
from .regularization import (ActivityRegularization, AlphaDropout, Dropout, GaussianDropout,
                             GaussianNoise, SpatialDropout1D, SpatialDropout2D,
                             SpatialDropout3D)
from .reshaping import (Cropping1D, Cropping2D, Cropping3D, Flatten, Permute, RepeatVector,
                        Reshape, ZeroPadding1D, ZeroPadding2D, ZeroPadding3D)
from .rnn import GRU, LSTM, RNN, SimpleRNN
from .rnn_cells import GRUCell, LSTMCell, SimpleRNNCell
from .wrappers import Bidirectional

# Keras's aliases.
Convolution2D = Conv2D
Convolution1D = Conv1D
Convolution3D = Conv3D
Convolution3DTranspose = Conv3DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution1DTranspose = Conv1DTranspose
SeparableConvolution2D = SeparableConv2D
SeparableConvolution1D = SeparableConv1D
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D


def add(inputs, **kwargs):
    """The functional form of `Add`: `add([x, y])`."""
    return Add(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """The functional form of `Concatenate`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)
