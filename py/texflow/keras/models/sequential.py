"""tf.keras.Sequential: a stack of layers, each feeding the next."""

from ...data import structure
from .. import backend
from ..layers.base import InputSpec, Layer, check_input_spec
from ..layers.core import InputLayer
from ..layers.node import KerasTensor
from ..serialization import deserialize_keras_object, serializable, serialize_keras_object
from .model import Model


@serializable("keras")
class Sequential(Model):
    """A linear stack of layers.

    The input shape comes from an `Input` (or `InputLayer`) first, from the first
    layer's `input_shape` argument, from `build(input_shape)`, or from the first call;
    once it is known every layer is built and `summary()` shows output shapes.

    >>> model = tf.keras.Sequential([
    ...     tf.keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
    ...     tf.keras.layers.MaxPooling2D(),
    ...     tf.keras.layers.Flatten(),
    ...     tf.keras.layers.Dense(10, activation="softmax")])
    >>> model.output_shape
    (None, 10)
    """

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        self._layers = []
        self._input_layer = None
        self._output_shape = None
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    def _untracked_attributes(self):
        return super()._untracked_attributes() + ("_input_layer",)

    def add(self, layer, rebuild=True):
        """Adds a layer on top of the stack (an Input starts the stack)."""
        if isinstance(layer, KerasTensor) and layer._keras_history and \
                isinstance(layer._keras_history[0], InputLayer):
            layer = layer._keras_history[0]
        if not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential "
                             f"model. Received: {layer!r} (of type {type(layer).__name__})")
        if isinstance(layer, InputLayer):
            if self._input_layer is not None or self._layers:
                raise ValueError(f"Sequential model {self.name!r} already has layers; an "
                                 f"InputLayer can only come first")
            self._input_layer = layer
        else:
            if any(existing.name == layer.name for existing in self._layers):
                raise ValueError(f"All layers added to a Sequential model should have unique "
                                 f"names. Name '{layer.name}' is already the name of a layer "
                                 f"in this model. Update the `name` argument to pass a unique "
                                 f"name.")
            if not self._layers and self._input_layer is None:
                shape = layer._input_shape_arg
                if shape is None and isinstance(layer, Model):  # a built model's input
                    try:
                        shape = layer.input_shape
                    except AttributeError:
                        shape = None
                    shape = shape if isinstance(shape, tuple) else None
                if shape is not None:
                    self._input_layer = InputLayer(batch_shape=shape)
            self._layers.append(layer)
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild=True):
        """Removes and returns the top layer."""
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        layer = self._layers.pop()
        self.built = False
        self._output_shape = None
        if rebuild:
            self._maybe_rebuild()
        return layer

    @property
    def layers(self):
        """The model's layers (without the InputLayer)."""
        return list(self._layers)

    def _maybe_rebuild(self):
        if self._input_layer is not None and self._layers:
            self.built = False
            self.build(self._input_layer.batch_shape)

    def build(self, input_shape=None):
        """Builds every layer for inputs of `input_shape` (the batch size may be None)."""
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        input_shape = tuple(input_shape)
        if self._input_layer is None or self._input_layer.batch_shape != input_shape:
            if self._input_layer is not None and self._input_layer.batch_shape[1:] != \
                    input_shape[1:]:
                raise ValueError(f"Sequential model {self.name!r} has input shape "
                                 f"{self._input_layer.batch_shape}; cannot build it for "
                                 f"{input_shape}")
            if self._input_layer is None:
                self._input_layer = InputLayer(batch_shape=input_shape)
        # Keras 3 builds a Functional model inside the Sequential here, which takes a
        # "functional" name: the next functional model is "functional_1", as in Keras.
        backend.get_uid("functional")
        x = self._input_layer.output
        for layer in self._layers:
            try:
                x = layer(x)
            except (ValueError, TypeError) as e:
                raise type(e)(f"{e} (building layer {layer.name!r} of Sequential model "
                              f"{self.name!r})") from e
        self._output_shape = x.shape if isinstance(x, KerasTensor) else None
        self._build_input_shape = input_shape
        self.input_spec = InputSpec(shape=(None,) + tuple(input_shape[1:]))
        self.built = True

    def call(self, inputs, training=None, mask=None):
        check_input_spec(self, inputs)
        x = inputs
        for layer in self._layers:
            x = layer(x)
        return x

    def _build_from(self, inputs):
        shapes = structure.map_structure(lambda v: tuple(v.shape), inputs)
        if not isinstance(shapes, tuple):
            raise ValueError(f"Sequential model {self.name!r} takes one input array, "
                             f"received {type(inputs).__name__}")
        self.build(shapes)

    def compute_output_shape(self, input_shape):
        if self._output_shape is not None and self._input_layer is not None and \
                tuple(input_shape)[1:] == self._input_layer.batch_shape[1:]:
            return (input_shape[0],) + tuple(self._output_shape[1:])
        raise NotImplementedError

    @property
    def input_shape(self):
        if self._input_layer is None:
            raise AttributeError(f"Sequential model {self.name!r} has no input shape yet: "
                                 "give the first layer an input_shape, start with an Input, "
                                 "or call build()")
        return self._input_layer.batch_shape

    @property
    def output_shape(self):
        if self._output_shape is None:
            raise AttributeError(f"Sequential model {self.name!r} is not built, so it has no "
                                 "output shape yet")
        return self._output_shape

    @property
    def inputs(self):
        return [self._input_layer.output] if self._input_layer is not None else None

    @property
    def outputs(self):
        if self._input_layer is None or not self._layers:
            return None
        return [self._layers[-1]._inbound_nodes[-1].outputs]

    def get_config(self):
        layers = []
        if self._input_layer is not None:
            layers.append(serialize_keras_object(self._input_layer))
        for layer in self._layers:
            config = serialize_keras_object(layer)
            build = layer.get_build_config()
            if build is not None:
                config["build_config"] = build
            layers.append(config)
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": Layer.get_config(self)["dtype"], "layers": layers}
        if self._build_input_shape is not None:
            config["build_input_shape"] = self._build_input_shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for layer_config in config.get("layers", []):
            layer = deserialize_keras_object(layer_config, custom_objects, what="layer")
            model.add(layer, rebuild=False)
            build = layer_config.get("build_config") if isinstance(layer_config, dict) else None
            if build and model._input_layer is None and not layer.built:
                layer.build_from_config(build)
        if model._input_layer is not None:
            model._maybe_rebuild()
        elif config.get("build_input_shape") is not None:
            model.build(tuple(config["build_input_shape"]))
        return model
