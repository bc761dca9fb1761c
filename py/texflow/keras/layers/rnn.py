"""Recurrent layers: RNN (any cell over a sequence), SimpleRNN, LSTM, GRU.

The time loop is a Python loop over the static time axis, so inside tf.function
(which `fit` uses) it unrolls into the trace; `unroll` is accepted and changes
nothing. For the built-in cells the inputs of all time steps are multiplied by
the kernel in one matmul before the loop, and each step does one matmul (the state
times the recurrent kernel for all gates) plus elementwise ops, which tf.function
fuses. Inputs are [batch, time, features].

`mask` ([batch, time], true where a step counts) is taken as an argument, as Keras's:
a masked step keeps the previous states and repeats the previous output (zeros with
`zero_output_for_mask`). texflow's layers do not propagate masks themselves
(Embedding has no mask_zero), so a mask has to be passed by hand.
"""

from ...data import structure
from ...ops import elementwise as ew
from ...ops.creation import zeros, zeros_like
from ...ops.movement import reshape, squeeze, stack
from ...ops.movement import slice as slice_
from ..serialization import (deserialize_keras_object, serializable,
                             serialize_keras_object)
from .base import InputSpec, Layer, dtype_from_config, float_input
from .input_spec import as_tensor
from .node import KerasTensor
from .rnn_cells import GRUCell, LSTMCell, SimpleRNNCell, _Cell

_MODULE = "keras.layers"


def _state_sizes(cell):
    size = cell.state_size
    return list(size) if isinstance(size, (list, tuple)) else [size]


def _time_slice(x, t):
    """x[:, t] for x of shape [batch, time, ...]."""
    begin = [0] * len(x.shape)
    begin[1] = t
    size = list(x.shape)
    size[1] = 1
    return squeeze(slice_(x, begin, size), 1)


@serializable(_MODULE)
class RNN(Layer):
    """Runs a cell over the time axis of [batch, time, features] inputs.

    Args:
        cell: a layer with `call(inputs, states)` returning `(output, new_states)` and
            a `state_size` (the built-in LSTMCell, GRUCell, SimpleRNNCell, or your own).
        return_sequences: return the output of every step ([batch, time, units])
            instead of the last one.
        return_state: also return the final states.
        go_backwards: process the sequence from the end (the sequence output is then
            in processing order, as Keras's).
        stateful: only False (texflow keeps no state between batches).
        unroll: accepted; the loop is always unrolled.
        zero_output_for_mask: masked steps output zeros instead of the previous output.

    Call arguments: `inputs`, `initial_state` (a list of states), `mask` ([batch,
    time] booleans), `training`.

    >>> layer = tf.keras.layers.RNN(tf.keras.layers.SimpleRNNCell(4))
    >>> layer(np.ones((2, 5, 3), np.float32)).shape
    TensorShape([2, 4])
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            raise ValueError("texflow's RNN takes one cell (no StackedRNNCells); stack RNN "
                             "layers with return_sequences=True instead")
        if not callable(getattr(cell, "call", None)):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: "
                             f"cell={cell}")
        if getattr(cell, "state_size", None) is None:
            raise ValueError("The RNN cell should have a `state_size` attribute (single "
                             "integer or list of integers, one integer per RNN state). "
                             f"Received: cell={cell}")
        super().__init__(**kwargs)
        if stateful:
            raise ValueError(f'Layer "{self.name}": texflow\'s recurrent layers do not keep '
                             "states between batches (stateful=True); pass initial_state "
                             "and return_state=True instead")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.state_size = _state_sizes(cell)
        self.single_state = not isinstance(cell.state_size, (list, tuple))
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, sequences_shape, initial_state_shape=None):
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build((sequences_shape[0],) + tuple(sequences_shape[2:]))
            self.cell.built = True

    def get_initial_state(self, batch_size):
        fn = getattr(self.cell, "get_initial_state", None)
        if fn is not None:
            states = fn(batch_size=batch_size)
            return list(states) if isinstance(states, (list, tuple)) else [states]
        return [zeros((batch_size, d)) for d in self.state_size]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        x = float_input(sequences)
        if len(x.shape) < 3:
            raise ValueError(f'Layer "{self.name}" expects inputs of shape [batch, time, '
                             f"features], received shape {tuple(x.shape)}")
        batch, steps = x.shape[0], x.shape[1]
        if initial_state is None:
            states = self.get_initial_state(batch)
        else:
            states = [float_input(as_tensor(s)) for s in structure.flatten(initial_state)]
            if len(states) != len(self.state_size):
                raise ValueError(f'Layer "{self.name}" expects {len(self.state_size)} '
                                 f"initial state(s), received {len(states)}")
        if mask is not None:
            mask = as_tensor(mask)
            if len(mask.shape) == 3:
                mask = reshape(mask, mask.shape[:2])
            mask = mask if mask.dtype == "bool" else ew.cast(mask, "bool")
            if tuple(mask.shape) != (batch, steps):
                raise ValueError(f'Layer "{self.name}": the mask\'s shape '
                                 f"{tuple(mask.shape)} is not the inputs' [batch, time] "
                                 f"{(batch, steps)}")
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        fast = isinstance(self.cell, _Cell)
        if fast:  # the input half of every step in one matmul
            dp, rec = self.cell._masks(batch, x.shape[-1], training)
            projected = self.cell._project(x, dp)
        outputs, prev = [], None
        for t in order:
            if fast:
                output, new_states = self.cell._step(_time_slice(projected, t), states, rec)
            else:
                kwargs = {"training": training} if getattr(
                    self.cell, "_call_has_training_arg", False) else {}
                given = states[0] if self.single_state else states
                output, new_states = self.cell(_time_slice(x, t), given, **kwargs)
                new_states = list(new_states) if isinstance(new_states, (list, tuple)) \
                    else [new_states]
            if mask is not None:
                keep = reshape(_time_slice(mask, t), (batch, 1))
                held = zeros_like(output) if prev is None or self.zero_output_for_mask \
                    else prev
                output = ew.where(keep, output, held)
                new_states = [ew.where(keep, n, s) for n, s in zip(new_states, states)]
            states, prev = new_states, output
            if self.return_sequences:
                outputs.append(output)
        last = prev
        if self.return_sequences:
            result = stack(outputs, axis=1)
        output = result if self.return_sequences else last
        if self.return_state:
            return (output, *states)
        return output

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, length = sequences_shape[0], sequences_shape[1]
        units = getattr(self.cell, "output_size", None) or self.state_size[0]
        out = (batch, length, units) if self.return_sequences else (batch, units)
        if self.return_state:
            return (out, *[(batch, s) for s in self.state_size])
        return out

    def compute_output_spec(self, *args, **kwargs):
        first = args[0] if args else kwargs.get("sequences", kwargs.get("inputs"))
        shapes = self.compute_output_shape(tuple(first.shape))
        if self.return_state:
            return tuple(KerasTensor(s, self.dtype) for s in shapes)
        return KerasTensor(shapes, self.dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"return_sequences": self.return_sequences,
                       "return_state": self.return_state, "go_backwards": self.go_backwards,
                       "stateful": self.stateful, "unroll": self.unroll,
                       "zero_output_for_mask": self.zero_output_for_mask,
                       "cell": serialize_keras_object(self.cell)})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cell = deserialize_keras_object(config.pop("cell"), custom_objects=custom_objects,
                                        what="RNN cell")
        if "dtype" in config:
            config["dtype"] = dtype_from_config(config["dtype"])
        return cls(cell, **config)


_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")


class _BuiltinRNN(RNN):
    """LSTM, GRU and SimpleRNN: an RNN over their own cell (named like Keras's, so the
    weights are `<layer>/<cell>/kernel`), exposing the cell's settings."""

    cell_class = None
    cell_name = None
    settings = ()   # the cell's arguments, in Keras's get_config order

    def __init__(self, units, activity_regularizer=None, **kwargs):
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
        kwargs.pop("use_cudnn", None)  # Keras's kernel choice; the results are the same
        layer_kwargs = {k: kwargs.pop(k) for k in ("name", "trainable", "dtype",
                                                   "input_shape", "batch_input_shape",
                                                   "batch_size", "input_dim")
                        if k in kwargs}
        cell = self.cell_class(units, name=self.cell_name,
                               dtype=layer_kwargs.get("dtype"),
                               trainable=layer_kwargs.get("trainable", True), **kwargs)
        super().__init__(cell, activity_regularizer=activity_regularizer, **rnn_kwargs,
                         **layer_kwargs)
        self.input_spec = InputSpec(ndim=3)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, initial_state=initial_state, mask=mask,
                            training=training)

    def get_config(self):
        config = super().get_config()
        del config["cell"]
        cell = self.cell.get_config()
        for key in self.settings:
            config[key] = cell[key]
        config["activity_regularizer"] = serialize_keras_object(self.activity_regularizer)
        return config

    # its config holds the cell's settings, not a cell: Layer's, not RNN's
    from_config = classmethod(Layer.from_config.__func__)


def _forward_settings(cls):
    for key in cls.settings:
        if key not in ("units",):
            setattr(cls, key, property(lambda self, k=key: getattr(self.cell, k)))
    cls.units = property(lambda self: self.cell.units)
    return cls


_COMMON = ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
           "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
           "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
           "dropout", "recurrent_dropout", "seed")


@serializable(_MODULE)
@_forward_settings
class SimpleRNN(_BuiltinRNN):
    """A fully connected RNN: `h_t = activation(x_t @ kernel + h_{t-1} @
    recurrent_kernel + bias)` (Keras 3's SimpleRNN; arguments as SimpleRNNCell's plus
    RNN's).

    >>> layer = tf.keras.layers.SimpleRNN(4, return_sequences=True)
    >>> layer(np.ones((2, 5, 3), np.float32)).shape
    TensorShape([2, 5, 4])
    """

    cell_class, cell_name = SimpleRNNCell, "simple_rnn_cell"
    settings = _COMMON[:-1]  # Keras 3 leaves seed out of SimpleRNN's config


@serializable(_MODULE)
@_forward_settings
class LSTM(_BuiltinRNN):
    """Long Short-Term Memory over [batch, time, features] (Keras 3's LSTM: LSTMCell's
    arguments plus RNN's; `use_cudnn` is accepted and ignored).

    >>> lstm = tf.keras.layers.LSTM(4, return_sequences=True, return_state=True)
    >>> seq, h, c = lstm(np.ones((2, 5, 3), np.float32))
    >>> seq.shape, h.shape, c.shape
    (TensorShape([2, 5, 4]), TensorShape([2, 4]), TensorShape([2, 4]))
    """

    cell_class, cell_name = LSTMCell, "lstm_cell"
    settings = _COMMON[:2] + ("recurrent_activation",) + _COMMON[2:] + ("unit_forget_bias",)


@serializable(_MODULE)
@_forward_settings
class GRU(_BuiltinRNN):
    """Gated Recurrent Unit over [batch, time, features] (Keras 3's GRU: GRUCell's
    arguments, reset_after=True by default, plus RNN's).

    >>> tf.keras.layers.GRU(4)(np.ones((2, 5, 3), np.float32)).shape
    TensorShape([2, 4])
    """

    cell_class, cell_name = GRUCell, "gru_cell"
    settings = _COMMON[:2] + ("recurrent_activation",) + _COMMON[2:] + ("reset_after",)

