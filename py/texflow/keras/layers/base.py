"""The Keras Layer: weights, sublayers, build-on-first-call, training flag, losses.

A layer reads top to bottom: `__init__` validates and stores its settings,
`build(input_shape)` makes its weights (`add_weight`), `call(inputs)` computes
with texflow ops only, `compute_output_shape` gives shapes for functional
models, `get_config` returns what `from_config` needs to make it again.

Calling a layer on arrays builds it (once) and runs `call`; calling it on
symbolic KerasTensors records a Node for a functional model instead. Layers
assigned as attributes (alone, or in lists, tuples and dicts) are tracked as
sublayers, so their weights are the parent's weights too.
"""

import contextlib
import functools
import inspect

import numpy as np

from ...checkpoint.state import restore_pending
from ...data import structure
from ...engine.ndarray import NDArray, to_numpy
from ...ops import elementwise as ew
from .. import backend, constraints, initializers, regularizers
from ..serialization import serializable
from ..variables import KerasVariable
from .input_spec import (InputSpec, as_tensor, check_input_spec,  # noqa: F401
                         float_input, standardize_shape)
from .node import KerasTensor, Node, is_symbolic, meta_output_spec
from .tracking import (NEVER_TRACKED, TrackedDict, TrackedList, bump_structure,
                       structure_version)

_MODULE = "keras.layers"
_SCALARS = (int, float, bool, np.generic)


def dtype_config(dtype):
    """Keras 3's serialized DTypePolicy for a layer's dtype."""
    return {"module": "keras", "class_name": "DTypePolicy",
            "config": {"name": dtype or "float32"}, "registered_name": None}


def dtype_from_config(dtype):
    if isinstance(dtype, dict):
        return dtype.get("config", {}).get("name", "float32")
    return dtype


def _wrap_build(build):
    """Makes `build` run in the layer's name scope (weights get their path) once."""
    @functools.wraps(build)
    def wrapped(self, *args, **kwargs):
        if self._building:  # a subclass's build calling super().build
            return build(self, *args, **kwargs)
        self._building = True
        try:
            with backend.name_scope(self.name):
                result = build(self, *args, **kwargs)
        finally:
            self._building = False
        if args:
            self._build_input_shape = args[0]
        elif kwargs:
            self._build_input_shape = next(iter(kwargs.values()))
        self.built = True
        restore_pending(self)  # checkpoint values waiting for these weights
        return result
    wrapped._texflow_build = True
    return wrapped


@serializable(_MODULE)
class Layer:
    """The base class of Keras layers and models.

    Subclass it and write `build(input_shape)` (make weights with `add_weight`)
    and `call(inputs)` (compute with ops); pass `training` through by accepting
    a `training=None` argument.

    Args:
        activity_regularizer: a regularizer applied to the layer's outputs.
        trainable: whether the layer's weights are trained.
        dtype: the layer's float dtype ('float32').
        name: the layer's name (default: the class name in snake case, numbered).

    >>> class Scale(tf.keras.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
    ...     def call(self, x):
    ...         return x * self.w
    >>> Scale()(np.ones((2, 3), np.float32)).shape
    TensorShape([2, 3])
    """

    _is_input_layer = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_texflow_build", False):
            cls.build = _wrap_build(build)

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None,
                 autocast=True, name=None, **kwargs):
        object.__setattr__(self, "_tracking", False)
        input_shape = kwargs.pop("input_shape", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        batch_size = kwargs.pop("batch_size", None)
        input_dim = kwargs.pop("input_dim", None)
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                            f"{kwargs}")
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError(f"a layer name must be a string without '/', received {name!r}")
        self.name = name or backend.unique_name(backend.snake_case(type(self).__name__))
        dtype = dtype_from_config(dtype)
        if dtype not in (None, "float32"):
            from ...dtypes import as_dtype
            dtype = as_dtype(dtype)
        self.dtype = dtype or "float32"
        self.autocast = autocast
        self._trainable = bool(trainable)
        self.built = False
        self._building = False
        self._build_input_shape = None
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._losses = []
        self._inbound_nodes = []
        self.input_spec = None
        self.supports_masking = False
        self.activity_regularizer = regularizers.get(activity_regularizer)
        if batch_input_shape is not None:
            self._input_shape_arg = standardize_shape(batch_input_shape)
        elif input_shape is not None or input_dim is not None:
            shape = (input_dim,) if input_shape is None else standardize_shape(
                input_shape, "input_shape")
            self._input_shape_arg = (batch_size,) + tuple(shape)
        else:
            self._input_shape_arg = None
        params = inspect.signature(self.call).parameters
        self._call_has_training_arg = "training" in params
        self._call_training_default = (params["training"].default
                                       if "training" in params and
                                       params["training"].default is not inspect._empty
                                       else None)
        object.__setattr__(self, "_tracking", True)

    # -- sublayer tracking ------------------------------------------------------------

    def __setattr__(self, name, value):
        if name in NEVER_TRACKED or name == "trainable" or not getattr(self, "_tracking",
                                                                        False):
            return object.__setattr__(self, name, value)
        if isinstance(value, KerasVariable):
            self._track_variable(value)
        elif type(value) is list:
            value = TrackedList(value)
        elif type(value) is dict:
            value = TrackedDict(value)
        if isinstance(value, (Layer, list, tuple, dict)) or isinstance(
                vars(self).get(name), (Layer, list, tuple, dict)):
            bump_structure()
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        bump_structure()
        object.__delattr__(self, name)

    def _track_variable(self, v):
        own = self._trainable_weights if v.trainable else self._non_trainable_weights
        if not any(w is v for w in self._trainable_weights + self._non_trainable_weights):
            own.append(v)

    def _sublayers(self):
        """Direct sublayers, in attribute order (lists, tuples and dicts included)."""
        found, seen = [], {id(self)}

        def visit(value, depth):
            if isinstance(value, Layer):
                if id(value) not in seen:
                    seen.add(id(value))
                    found.append(value)
            elif depth < 3 and isinstance(value, (list, tuple)):
                for v in value:
                    visit(v, depth + 1)
            elif depth < 3 and isinstance(value, dict):
                for v in value.values():
                    visit(v, depth + 1)

        skip = self._untracked_attributes()
        for key, value in vars(self).items():
            if key not in NEVER_TRACKED and key not in skip:
                visit(value, 0)
        return found

    def _untracked_attributes(self):
        return ()

    def _flatten_layers(self, include_self=True):
        """This layer and every layer inside it, each once, parents first."""
        cached = vars(self).get("_flat_cache")
        if cached is not None and cached[0] == structure_version():
            out = cached[1]
            return list(out) if include_self else out[1:]
        out, seen = [], set()

        def visit(layer):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            out.append(layer)
            for sub in layer._sublayers():
                visit(sub)

        visit(self)
        object.__setattr__(self, "_flat_cache", (structure_version(), out))
        return list(out) if include_self else out[1:]

    # -- weights ------------------------------------------------------------------------

    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True,
                   autocast=True, regularizer=None, constraint=None, aggregation="none",
                   overwrite_with_gradient=False, name=None):
        """Makes a weight (a KerasVariable) owned by this layer.

        Args:
            shape: the weight's shape (default scalar).
            initializer: an initializer or its name (default 'glorot_uniform' for
                floats, 'zeros' otherwise).
            dtype: the weight's dtype (default the layer's).
            trainable: whether optimizers update it.
            regularizer: a penalty on the weight added to `losses`.
            constraint: a function applied to the weight after each optimizer step.
            name: the weight's name; its path is the layer's scope plus this name.
        """
        shape = standardize_shape(shape if shape is not None else (), "weight shape")
        if any(d is None for d in shape):
            raise ValueError(f'Layer "{self.name}": cannot make weight {name!r} with an '
                             f"unknown dimension in shape {shape}")
        dtype = dtype or self.dtype
        if initializer is None:
            initializer = "glorot_uniform" if dtype == "float32" else "zeros"
        init = initializers.get(initializer)
        if name is None:
            name = "variable" if not self.weights else f"variable_{len(self.weights)}"
        with backend.name_scope(self.name) if backend.current_path().split("/")[-1] \
                != self.name else contextlib.nullcontext():
            v = KerasVariable(init, shape=shape, dtype=dtype, trainable=trainable, name=name,
                              regularizer=regularizers.get(regularizer),
                              constraint=constraints.get(constraint))
        if not self._trainable and trainable:
            v.trainable = False
        self._track_variable(v)
        return v

    add_variable = add_weight

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        """Freezing a layer freezes its sublayers (and their weights), as in Keras 3."""
        value = bool(value)
        self._trainable = value
        for v in self._trainable_weights:
            v.trainable = value
        for layer in self._sublayers():
            layer.trainable = value

    @property
    def weights(self):
        """All weights: this layer's (trainable first), then its sublayers'."""
        out, seen = [], set()
        for layer in self._flatten_layers():
            for v in layer._trainable_weights + layer._non_trainable_weights:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [v for v in self.weights if v.trainable]

    @property
    def non_trainable_weights(self):
        if not self.trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def get_weights(self):
        """The weights' values as a list of numpy arrays."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        """Sets the weights from numpy arrays (in `weights` order); every shape is checked
        before any weight changes."""
        own = self.weights
        weights = list(weights)
        if len(weights) != len(own):
            raise ValueError(f'You called `set_weights(weights)` on layer "{self.name}" with '
                             f"a weight list of length {len(weights)}, but the layer was "
                             f"expecting {len(own)} weights: "
                             f"{[v.path for v in own]}")
        values = []
        for v, w in zip(own, weights):
            w = np.asarray(w)
            if tuple(w.shape) != tuple(v.shape):
                raise ValueError(f'Layer "{self.name}" weight {v.path} has shape '
                                 f"{tuple(v.shape)}, but the value given has shape "
                                 f"{tuple(w.shape)}")
            values.append(w)
        for v, w in zip(own, values):
            v.assign(to_numpy(w, v.dtype))

    def count_params(self):
        """The number of scalars in the weights (the layer must be built)."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer '{self.name}', but "
                             "the layer isn't built. You can build it manually via: "
                             "`layer.build(input_shape)`.")
        return int(sum(int(np.prod(v.shape)) for v in self.weights))

    # -- losses -------------------------------------------------------------------------

    def add_loss(self, loss):
        """Adds a scalar loss (computed in `call`) to `losses` for this call."""
        self._losses.append(loss)

    @property
    def losses(self):
        """Losses added in the last call plus the regularization of trainable weights."""
        out = []
        for layer in self._flatten_layers():
            out.extend(layer._losses)
            if layer.trainable:
                for v in layer._trainable_weights:
                    if v.regularizer is not None and v.trainable:
                        out.append(v.regularizer(v))
        return out

    def _clear_losses(self):
        for layer in self._flatten_layers():
            if layer._losses:
                layer._losses.clear()

    # -- building and calling -----------------------------------------------------------

    def build(self, input_shape=None):
        """Makes the layer's weights for inputs of `input_shape` (none by default)."""
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return inputs

    def __call__(self, *args, **kwargs):
        if is_symbolic((args, kwargs)):
            return self._symbolic_call(args, kwargs)
        args = tuple(structure.map_structure(as_tensor, a) if i == 0 else a
                     for i, a in enumerate(args))
        if "inputs" in kwargs:
            kwargs["inputs"] = structure.map_structure(as_tensor, kwargs["inputs"])
        first = args[0] if args else kwargs.get("inputs")
        if not self.built:
            self._build_from(first)
        check_input_spec(self, first)
        training = self._resolve_training(kwargs)
        if not backend.in_call():
            self._clear_losses()
        with backend.call_context(training), backend.name_scope(self.name):
            outputs = self.call(*args, **kwargs)
        if self.activity_regularizer is not None:
            for out in structure.flatten(outputs):
                if isinstance(out, NDArray):
                    penalty = self.activity_regularizer(out)
                    if out.shape:
                        penalty = ew.div(penalty, float(out.shape[0]))
                    self.add_loss(penalty)
        return outputs

    def _resolve_training(self, kwargs):
        """training: the value passed, else the outer call's, else call's default."""
        training = kwargs.get("training")
        if training is None:
            training = backend.outer_training()
            if training is None:
                training = self._call_training_default
        if self._call_has_training_arg:
            if training is not None:
                kwargs["training"] = bool(training)
        else:
            kwargs.pop("training", None)
        return training

    def _build_from(self, inputs):
        shapes = structure.map_structure(
            lambda x: tuple(x.shape) if hasattr(x, "shape") else None, inputs)
        self._maybe_build(shapes)

    def _maybe_build(self, input_shape):
        if not self.built:
            self.build(input_shape)
            self.built = True
            if self._build_input_shape is None:
                self._build_input_shape = input_shape

    def _symbolic_call(self, args, kwargs):
        first = args[0] if args else kwargs.get("inputs")
        if not self.built:
            self._build_from(first)
        check_input_spec(self, first)
        outputs = self.compute_output_spec(*args, **kwargs)
        Node(self, args, kwargs, outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape` (None for unknown dimensions)."""
        raise NotImplementedError

    def compute_output_spec(self, *args, **kwargs):
        """Output KerasTensors for KerasTensor inputs: from `compute_output_shape`, or
        else by running `call` on shape-only arrays."""
        first = args[0] if args else kwargs.get("inputs")
        shapes = structure.map_structure(lambda t: t.shape, first)
        try:
            out_shapes = self.compute_output_shape(shapes)
        except NotImplementedError:
            return meta_output_spec(self, args, kwargs)
        if isinstance(out_shapes, tuple) and all(d is None or isinstance(d, int)
                                                for d in out_shapes):
            return KerasTensor(out_shapes, self.dtype)
        return structure.map_structure(lambda s: KerasTensor(s, self.dtype), out_shapes)

    # -- config ---------------------------------------------------------------------------

    def get_config(self):
        """The constructor arguments that make this layer again (see `from_config`)."""
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": dtype_config(self.dtype)}
        if self._input_shape_arg is not None and type(self).__name__ != "InputLayer":
            config["batch_input_shape"] = self._input_shape_arg
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer from `get_config()` output."""
        config = dict(config)
        if "dtype" in config:
            config["dtype"] = dtype_from_config(config["dtype"])
        return cls(**config)

    def get_build_config(self):
        if self._build_input_shape is not None:
            return {"input_shape": self._build_input_shape}
        return None

    def build_from_config(self, config):
        if config and not self.built:
            shape = config["input_shape"]
            self._maybe_build(tuple(shape) if isinstance(shape, list) and shape and
                              not isinstance(shape[0], (list, tuple)) else shape)

    # -- functional-model views -----------------------------------------------------------

    @property
    def output(self):
        if not self._inbound_nodes:
            raise AttributeError(f'Layer "{self.name}" has never been called and thus has '
                                 "no defined output.")
        return self._inbound_nodes[0].outputs

    @property
    def input(self):
        if not self._inbound_nodes:
            raise AttributeError(f'Layer "{self.name}" has never been called and thus has '
                                 "no defined input.")
        node = self._inbound_nodes[0]
        return node.call_args[0] if node.call_args else node.outputs

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"
