"""tf.keras.Model: a Layer that trains (compile/fit/evaluate/predict).

Three ways to make one, as in Keras: `tf.keras.Sequential([...])`, the
functional `tf.keras.Model(inputs, outputs)` (which returns a Functional
model), and subclassing Model with layers as attributes and a `call` method.
"""

from .. import backend
from ..layers.base import Layer
from ..layers.node import meta_output_spec
from ..serialization import serializable
from .trainer import Trainer


def _is_functional_call(args, kwargs):
    if "inputs" in kwargs and "outputs" in kwargs:
        return True
    if len(args) == 2 or (len(args) == 1 and "outputs" in kwargs):
        return True
    return False


def _put_functional_under(cls):
    """Makes Functional a base of `cls` where Model is one (up its chain of bases), as
    Keras 3 does, so its instances are functional models with the subclass's methods."""
    from .functional import Functional
    if cls is Model:
        return Functional
    if isinstance(cls, type) and issubclass(cls, Model) and not issubclass(cls, Functional):
        cls.__bases__ = tuple(_put_functional_under(base) for base in cls.__bases__)
    return cls


@serializable("keras")
class Model(Trainer, Layer):
    """A model: layers plus training.

    Subclass it: make layers in `__init__` (as attributes, or in lists or dicts of
    them) and use them in `call(self, inputs, training=None)`:

    >>> class TwoLayers(tf.keras.Model):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = tf.keras.layers.Dense(8, activation="relu")
    ...         self.out = tf.keras.layers.Dense(1)
    ...     def call(self, inputs, training=None):
    ...         return self.out(self.hidden(inputs))
    >>> TwoLayers()(np.ones((2, 3), np.float32)).shape
    TensorShape([2, 1])

    Or call it with inputs and outputs for a functional model:
    `tf.keras.Model(inputs=x, outputs=y)`.
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and _is_functional_call(args, kwargs):
            from .functional import Functional
            return object.__new__(Functional)
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        if _is_functional_call(args, kwargs):
            # A Model subclass called with inputs and outputs (keras.io's "customizing
            # fit" guide): the subclass becomes a Functional one, keeping its methods.
            from .functional import Functional
            if not isinstance(self, Functional):
                _put_functional_under(type(self))
            Functional.__init__(self, *args, **kwargs)
            return
        if args or "inputs" in kwargs or "outputs" in kwargs:
            raise TypeError(f"{type(self).__name__}: a subclassed Model takes no inputs and "
                            "outputs; for a functional model call "
                            "tf.keras.Model(inputs, outputs)")
        allowed = {"name", "trainable", "dtype"}
        unknown = sorted(set(kwargs) - allowed)
        if unknown:
            raise TypeError(f"Unrecognized keyword arguments passed to "
                            f"{type(self).__name__}: {unknown}")
        Layer.__init__(self, **kwargs)
        self._init_trainer()
        self._distribute_strategy = backend.distribute_strategy()  # Keras: the scope's

    # -- structure ----------------------------------------------------------------------

    @property
    def layers(self):
        """The model's direct layers."""
        return self._sublayers()

    def get_layer(self, name=None, index=None):
        """A layer by name or by index in `layers`.

        Raises ValueError naming the layers there are when none matches.
        """
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: "
                             f"index={index}, name={name}.")
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(f"Was asked to retrieve layer at index {index} but model "
                                 f"only has {len(layers)} layers.")
            return layers[index]
        if name is not None:
            for layer in layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: "
                             f"{[layer.name for layer in layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def _maybe_build(self, input_shape):
        if type(self).build is Model.build:  # the default: layers build when called
            self.built = True
            self._build_input_shape = input_shape
            return
        super()._maybe_build(input_shape)

    def build(self, input_shape=None):
        """Builds the model's weights for inputs of `input_shape` by running `call` on
        shape-only arrays (the batch size may be None)."""
        if self.built:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        from ..layers.node import KerasTensor
        shapes = input_shape
        if isinstance(shapes, dict):
            spec = {k: KerasTensor(v) for k, v in shapes.items()}
        elif isinstance(shapes, list) and shapes and isinstance(shapes[0], (list, tuple)):
            spec = [KerasTensor(s) for s in shapes]
        else:
            spec = KerasTensor(tuple(shapes))
        try:
            meta_output_spec(self, (spec,), {})
        except Exception as e:
            raise ValueError(f"You cannot build model {self.name!r} with input shape "
                             f"{input_shape}: calling it on data of that shape failed with "
                             f"{type(e).__name__}: {e}") from e
        self._build_input_shape = input_shape
        self.built = True

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Prints Keras 3's table of the model's layers, output shapes and parameter
        counts, then the total, trainable and non-trainable parameter counts.

        Args:
            line_length: the table's width (default 88 for sequential-like models, 108
                otherwise, at most the terminal's width minus 4, as Keras).
            positions: the columns' right edges as fractions of line_length.
            print_fn: called with the whole summary text (default print).
            expand_nested: also list the layers of nested models.
            show_trainable: add a 'Trainable' column.
        """
        from .summary import print_summary
        print_summary(self, line_length, positions, print_fn, expand_nested, show_trainable,
                      layer_range)

    def get_config(self):
        """A subclassed model's config: Keras's base (name, trainable, dtype); override
        it (and `from_config`) to make the model restorable from its config."""
        return Layer.get_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A model from `get_config()` output (a functional config makes a Functional)."""
        if "input_layers" in config and "output_layers" in config:
            from .functional import Functional
            return Functional.from_config(config, custom_objects)
        return super().from_config(config)

    @property
    def distribute_strategy(self):
        """The tf.distribute strategy the model was made under (None: no strategy)."""
        return getattr(self, "_distribute_strategy", None)

    # -- saving (texflow/keras/saving) ------------------------------------------------

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Saves architecture, weights, compile settings and optimizer state to a `.keras`
        archive (written atomically); `tf.keras.models.load_model` reads it back."""
        from ..saving.archive import save_model
        save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def save_weights(self, filepath, overwrite=True, max_shard_size=None):
        """Saves the weights (and a compiled model's optimizer state) to a
        `.weights.safetensors` file, atomically."""
        from ..saving.weights import save_weights
        save_weights(self, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Loads weights from a `.weights.safetensors` file or a `.keras` archive; every
        weight is checked before any changes (ValueError names each mismatch)."""
        if kwargs:
            raise ValueError(f"Invalid keyword arguments: {sorted(kwargs)}")
        from ..saving.weights import load_weights
        load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def get_compile_config(self):
        """The serialized arguments of `compile` (None if not compiled)."""
        from ..saving.archive import get_compile_config
        return get_compile_config(self)

    def compile_from_config(self, config):
        """Compiles the model from `get_compile_config()` output."""
        from ..saving.archive import compile_from_config
        compile_from_config(self, config)

    def to_json(self, **kwargs):
        """The model's architecture as JSON (`{"class_name": ..., "config": ...}`)."""
        import json

        from ..serialization import serialize_keras_object
        return json.dumps(serialize_keras_object(self), default=_json_default, **kwargs)


def _json_default(value):
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"cannot put {type(value).__name__} into a model's JSON")
