"""Layer wrappers: Bidirectional."""

import copy

from ...ops import elementwise as ew
from ...ops.movement import concat, reverse
from ..serialization import (deserialize_keras_object, serializable,
                             serialize_keras_object)
from .base import Layer
from .node import KerasTensor

_MODULE = "keras.layers"
_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _copy_named(layer, prefix, go_backwards=None):
    config = serialize_keras_object(layer)
    name = layer.name[len(prefix):] if layer.name.startswith(prefix) else layer.name
    config["config"]["name"] = prefix + name
    if go_backwards is not None:
        config["config"]["go_backwards"] = go_backwards
    return deserialize_keras_object(config, what="Bidirectional layer")


@serializable(_MODULE)
class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy of it backwards and merges the two
    (Keras 3's Bidirectional).

    Args:
        layer: an RNN, LSTM, GRU or SimpleRNN; it is copied (from its config) into
            `forward_layer`, named `forward_<name>`.
        merge_mode: 'concat' (default), 'sum', 'mul', 'ave', or None (a list of both).
        backward_layer: the backward layer (default: a copy of `layer` with
            go_backwards=True, named `backward_<name>`).

    With return_sequences the backward sequence is reversed back into input order
    before merging. With return_state the forward states come first, then the
    backward ones; `initial_state` is split the same way.

    >>> layer = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(4))
    >>> layer(np.ones((2, 5, 3), np.float32)).shape
    TensorShape([2, 8])
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Bidirectional` layer with a "
                             f"`keras.layers.Layer` instance. Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError("`backward_layer` need to be a `keras.layers.Layer` instance. "
                             f"Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should "
                             'be one of {"sum", "mul", "ave", "concat", None}')
        super().__init__(**kwargs)
        self.forward_layer = _copy_named(layer, "forward_")
        self.backward_layer = backward_layer if backward_layer is not None else \
            _copy_named(layer, "backward_", go_backwards=True)
        fwd, bwd = self.forward_layer, self.backward_layer
        if fwd.go_backwards == bwd.go_backwards:
            raise ValueError("Forward layer and backward layer should have different "
                             "`go_backwards` value. Received: forward_layer.go_backwards "
                             f"{fwd.go_backwards}, backward_layer.go_backwards="
                             f"{bwd.go_backwards}")
        for a in ("stateful", "return_sequences", "return_state"):
            if getattr(fwd, a) != getattr(bwd, a):
                raise ValueError("Forward layer and backward layer are expected to have the "
                                 f'same value for attribute "{a}", got "{getattr(fwd, a)}" '
                                 f'for forward layer and "{getattr(bwd, a)}" for backward '
                                 "layer")
        for sub in (fwd, bwd):  # Keras's: masked steps of a sequence output are zeros
            if hasattr(sub, "zero_output_for_mask"):
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self._initial_weights = weights
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.input_spec = layer.input_spec

    def build(self, sequences_shape, initial_state_shape=None):
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                sub._maybe_build(sequences_shape)
        if self._initial_weights:
            half = len(self._initial_weights) // 2
            self.forward_layer.set_weights(self._initial_weights[:half])
            self.backward_layer.set_weights(self._initial_weights[half:])
            self._initial_weights = None

    def call(self, sequences, initial_state=None, mask=None, training=None):
        kwargs = {"mask": mask}
        if training is not None:
            kwargs["training"] = training
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = reverse(y_rev, [1])
        output = self._merge(y, y_rev)
        if self.return_state:
            return (*output, *states) if self.merge_mode is None else (output, *states)
        return output

    def _merge(self, y, y_rev):
        mode = self.merge_mode
        if mode == "concat":
            return concat([y, y_rev], axis=-1)
        if mode == "sum":
            return ew.add(y, y_rev)
        if mode == "ave":
            return ew.div(ew.add(y, y_rev), 2.0)
        if mode == "mul":
            return ew.mul(y, y_rev)
        return [y, y_rev]

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        out = self.forward_layer.compute_output_shape(sequences_shape)
        states = ()
        if self.return_state:
            out, states = out[0], tuple(out[1:])
        if self.merge_mode == "concat":
            out = tuple(out[:-1]) + (None if out[-1] is None else 2 * out[-1],)
        outs = [out, out] if self.merge_mode is None else [out]
        if self.return_state:
            return (*outs, *states, *states)
        return outs if self.merge_mode is None else out

    def compute_output_spec(self, *args, **kwargs):
        first = args[0] if args else kwargs.get("sequences", kwargs.get("inputs"))
        shapes = self.compute_output_shape(tuple(first.shape))
        if self.return_state or self.merge_mode is None:
            made = [KerasTensor(s, self.dtype) for s in shapes]
            return tuple(made) if self.return_state else made
        return KerasTensor(shapes, self.dtype)

    def get_config(self):
        config = super().get_config()
        config["merge_mode"] = self.merge_mode
        config["layer"] = serialize_keras_object(self.forward_layer)
        config["backward_layer"] = serialize_keras_object(self.backward_layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = copy.deepcopy(config)
        config["layer"] = deserialize_keras_object(config["layer"],
                                                   custom_objects=custom_objects,
                                                   what="Bidirectional layer")
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = deserialize_keras_object(
                backward, custom_objects=custom_objects, what="Bidirectional layer")
        return super().from_config(config)
