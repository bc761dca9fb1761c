"""Core layers: Input, InputLayer, Dense, Embedding, Lambda, Identity."""

import numpy as np

from ...errors import InvalidArgumentError
from ...ops import elementwise as ew
from ...ops.matmul import matmul
from ...ops.movement import gather, reshape
from .. import activations, backend, constraints, initializers, regularizers
from ..serialization import serializable, serialize_keras_object
from .base import InputSpec, Layer, float_input, standardize_shape
from .node import KerasTensor, Node

_MODULE = "keras.layers"


@serializable(_MODULE)
class InputLayer(Layer):
    """The entry point of a functional or Sequential model: a symbolic input.

    Args:
        shape: the shape of one example (without the batch axis).
        batch_size: a fixed batch size (default None: any).
        dtype: the input's dtype (default 'float32').
        batch_shape: the full shape, batch axis included (instead of shape/batch_size).
        name: the layer's name (default 'input_layer', numbered).

    >>> tf.keras.layers.InputLayer(shape=(4,)).batch_shape
    (None, 4)
    """

    _is_input_layer = True

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None,
                 input_tensor=None, optional=False, name=None, **kwargs):
        kwargs.pop("ragged", None)
        if "input_shape" in kwargs and shape is None:
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs and batch_shape is None:
            batch_shape = kwargs.pop("batch_input_shape")
        super().__init__(name=name or backend.unique_name("input_layer"), **kwargs)
        if sparse:
            raise ValueError("texflow has no sparse Keras inputs (sparse=True)")
        if shape is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same "
                             "time.")
        if batch_shape is None:
            if shape is None and input_tensor is None:
                raise ValueError("You must pass a `shape` argument.")
            shape = standardize_shape(shape if shape is not None else
                                      tuple(input_tensor.shape)[1:], "shape")
            batch_shape = (batch_size,) + shape
        self.batch_shape = standardize_shape(batch_shape, "batch_shape")
        if dtype is not None:
            from ...dtypes import as_dtype
            dtype = as_dtype(dtype)
        self.dtype = dtype or "float32"
        self.optional = optional
        self.built = True
        self._tensor = KerasTensor(self.batch_shape, self.dtype, name=self.name)
        Node(self, (), {}, self._tensor)

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return self.batch_shape

    def get_config(self):
        return {"batch_shape": self.batch_shape, "dtype": self.dtype, "sparse": False,
                "ragged": False, "name": self.name, "optional": self.optional}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None,  # noqa: N802
          name=None, tensor=None, optional=False):
    """A symbolic input for a functional model (`tf.keras.Input`).

    >>> x = tf.keras.Input(shape=(28, 28, 1))
    >>> x.shape
    (None, 28, 28, 1)
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       batch_shape=batch_shape, input_tensor=tensor, optional=optional,
                       name=name)
    return layer.output


def store_kernel_settings(layer, activation, use_bias, kernel_initializer, bias_initializer,
                          kernel_regularizer, bias_regularizer, kernel_constraint,
                          bias_constraint):
    """The settings Dense and the convolutions share, resolved from names."""
    layer.activation = activations.get(activation)
    layer.use_bias = use_bias
    layer.kernel_initializer = initializers.get(kernel_initializer)
    layer.bias_initializer = initializers.get(bias_initializer)
    layer.kernel_regularizer = regularizers.get(kernel_regularizer)
    layer.bias_regularizer = regularizers.get(bias_regularizer)
    layer.kernel_constraint = constraints.get(kernel_constraint)
    layer.bias_constraint = constraints.get(bias_constraint)


def add_kernel_and_bias(layer, kernel_shape):
    """The kernel and (if used) bias weights of a Dense or convolution layer."""
    layer.kernel = layer.add_weight(shape=kernel_shape, initializer=layer.kernel_initializer,
                                    regularizer=layer.kernel_regularizer,
                                    constraint=layer.kernel_constraint, name="kernel")
    layer.bias = layer.add_weight(shape=kernel_shape[-1:], initializer=layer.bias_initializer,
                                  regularizer=layer.bias_regularizer,
                                  constraint=layer.bias_constraint,
                                  name="bias") if layer.use_bias else None


def kernel_settings_config(layer):
    return {"activation": activations.serialize(layer.activation), "use_bias": layer.use_bias,
            "kernel_initializer": serialize_keras_object(layer.kernel_initializer),
            "bias_initializer": serialize_keras_object(layer.bias_initializer),
            "kernel_regularizer": serialize_keras_object(layer.kernel_regularizer),
            "bias_regularizer": serialize_keras_object(layer.bias_regularizer),
            "kernel_constraint": serialize_keras_object(layer.kernel_constraint),
            "bias_constraint": serialize_keras_object(layer.bias_constraint)}


@serializable(_MODULE)
class Dense(Layer):
    """A densely connected layer: `activation(inputs @ kernel + bias)`.

    Inputs of rank > 2 are multiplied along their last axis.

    Args:
        units: the output size.
        activation: an activation name or function (default None: linear).
        use_bias: whether to add a bias.
        kernel_initializer, bias_initializer: initializers ('glorot_uniform', 'zeros').
        kernel_regularizer, bias_regularizer, activity_regularizer: penalties.
        kernel_constraint, bias_constraint: functions applied after optimizer steps.

    >>> layer = tf.keras.layers.Dense(3, activation="relu")
    >>> layer(np.ones((2, 4), np.float32)).shape
    TensorShape([2, 3])
    """

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(units, (int, np.integer)) or isinstance(units, bool) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        if lora_rank:
            raise ValueError("texflow's Dense has no LoRA (lora_rank)")
        self.units = int(units)
        store_kernel_settings(self, activation, use_bias, kernel_initializer, bias_initializer,
                              kernel_regularizer, bias_regularizer, kernel_constraint,
                              bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f'Layer "{self.name}": the last dimension of the inputs to a '
                             f"Dense layer should be defined. Found None. Full input shape "
                             f"received: {input_shape}")
        add_kernel_and_bias(self, (input_dim, self.units))
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs):
        x = float_input(inputs)
        if len(x.shape) > 2:
            flat = reshape(x, (-1, x.shape[-1]))
            y = reshape(matmul(flat, self.kernel), x.shape[:-1] + (self.units,))
        else:
            y = matmul(x, self.kernel)
        if self.bias is not None:
            y = ew.add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        config = super().get_config()
        config["units"] = self.units
        config.update(kernel_settings_config(self))
        config["quantization_config"] = None
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = serialize_keras_object(self.activity_regularizer)
        return config


@serializable(_MODULE)
class Embedding(Layer):
    """Maps integer indices in [0, input_dim) to dense vectors of size `output_dim`.

    >>> layer = tf.keras.layers.Embedding(10, 4)
    >>> layer(np.array([[1, 2, 3]])).shape
    TensorShape([1, 3, 4])
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 weights=None, lora_rank=None, lora_alpha=None, quantization_config=None,
                 **kwargs):
        kwargs.pop("input_length", None)  # Keras 2's argument, ignored as in Keras 3
        super().__init__(**kwargs)
        for what, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, (int, np.integer)) or value <= 0:
                raise ValueError(f"Embedding: {what} must be a positive int, received "
                                 f"{value!r}")
        if mask_zero:
            raise ValueError("texflow's Embedding does not support masking (mask_zero=True)")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self._initial_weights = weights

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint,
                                          name="embeddings")
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, inputs):
        if inputs.dtype != "int32":
            inputs = ew.cast(inputs, "int32")
        values = inputs._storage.values if inputs._storage is not None else None
        if values is not None and values.size:  # host data: check as TensorFlow's CPU does
            bad = (values < 0) | (values >= self.input_dim)
            if bad.any():
                i = int(np.argmax(bad))
                raise InvalidArgumentError(
                    f'Exception encountered when calling Embedding "{self.name}": indices'
                    f"[{', '.join(str(k) for k in np.unravel_index(i, inputs.shape))}] = "
                    f"{int(values[i])} is not in [0, {self.input_dim})")
        return gather(self.embeddings, inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "input_dim": self.input_dim, "output_dim": self.output_dim,
            "embeddings_initializer": serialize_keras_object(self.embeddings_initializer),
            "embeddings_regularizer": serialize_keras_object(self.embeddings_regularizer),
            "activity_regularizer": serialize_keras_object(self.activity_regularizer),
            "embeddings_constraint": serialize_keras_object(self.embeddings_constraint),
            "mask_zero": self.mask_zero, "quantization_config": None,
        })
        return config


@serializable(_MODULE)
class Lambda(Layer):
    """Wraps a function of arrays as a layer.

    Args:
        function: called as `function(inputs, **arguments)`.
        output_shape: the output shape without the batch axis (or a function of the
            input shape); by default it is found by running the function on shape-only
            arrays.
        arguments: extra keyword arguments for `function`.

    >>> tf.keras.layers.Lambda(lambda x: x * 2)(np.ones((1, 2), np.float32)).tolist()
    [[2.0, 2.0]]
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError(f"Lambda: function must be callable, received {function!r}")
        self.function = function
        self._output_shape = output_shape
        self.arguments = dict(arguments or {})
        self.built = True

    def call(self, inputs, mask=None, training=None):
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            raise NotImplementedError
        if callable(self._output_shape):
            return tuple(self._output_shape(input_shape))
        batch = input_shape[0] if isinstance(input_shape, tuple) and input_shape else None
        return (batch,) + standardize_shape(self._output_shape, "output_shape")

    def get_config(self):
        config = super().get_config()
        config.update({"function": serialize_keras_object(self.function),
                       "output_shape": self._output_shape, "arguments": self.arguments})
        return config

    @classmethod
    def from_config(cls, config):
        from ..serialization import deserialize_keras_object
        config = dict(config)
        fn = config["function"]
        if isinstance(fn, dict):
            if fn.get("config") == "<lambda>":
                raise ValueError(f"Lambda layer {config.get('name')!r} wraps a Python lambda, "
                                 "which cannot be restored from a config; use a named, "
                                 "registered function (register_keras_serializable)")
            config["function"] = deserialize_keras_object(fn, what="Lambda function")
        return super().from_config(config)


@serializable(_MODULE)
class Identity(Layer):
    """Returns its input unchanged.

    >>> tf.keras.layers.Identity()(np.ones((1, 2), np.float32)).tolist()
    [[1.0, 1.0]]
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.built = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape
