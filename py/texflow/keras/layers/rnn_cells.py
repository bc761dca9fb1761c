"""Recurrent cells: SimpleRNNCell, LSTMCell, GRUCell (one time step each).

The weights are Keras 3's, with its names, shapes and gate order, so `set_weights`
with a Keras model's weights gives the same outputs: `kernel` [input, gates*units],
`recurrent_kernel` [units, gates*units], `bias` [gates*units] (LSTM gates i, f, c, o;
GRU z, r, h, whose bias is [2, 3*units] with reset_after: the input bias, then the
recurrent one).

A step is split in two so that the RNN layer can do the input half for every time
step at once: `_project` multiplies inputs of any rank by the kernel (one matmul for
the whole sequence) and adds the input bias; `_step` takes one step's projected input
and the states and does the recurrent half: one matmul for all the gates, their
activations, the new states. `call` (a cell used alone) chains the two.
"""

import numpy as np

from ...engine.ndarray import from_numpy
from ...engine.trace import dry, fresh_each_call
from ...ops import elementwise as ew
from ...ops.array_ops import split
from ...ops.creation import zeros
from ...ops.matmul import matmul
from ...ops.movement import concat, reshape
from ...ops.movement import slice as slice_
from .. import activations, backend, constraints, initializers, regularizers
from ..serialization import serializable, serialize_keras_object
from .base import Layer, float_input

_MODULE = "keras.layers"


def _host(values):
    return values.numpy() if hasattr(values, "numpy") else np.asarray(values)


class _Cell(Layer):
    """What the built-in cells share: settings, weights, dropout masks, `call`."""

    gates = 1          # blocks of `units` columns in the kernels
    mask_count = 1     # dropout masks per input (one per gate with recurrent dropout)

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        kwargs.pop("implementation", None)  # Keras's choice of kernel, not of results
        super().__init__(**kwargs)
        if not isinstance(units, (int, np.integer)) or isinstance(units, bool) or units <= 0:
            raise ValueError(f"Received an invalid value for argument `units`, expected a "
                             f"positive integer, got {units}.")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.seed = seed
        self._rng = None
        self.state_size = self.units
        self.output_size = self.units

    def _add_kernels(self, input_dim, bias_shape, bias_initializer=None):
        width = self.gates * self.units
        self.kernel = self.add_weight(shape=(input_dim, width), name="kernel",
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, width),
                                                name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = self.add_weight(shape=bias_shape, name="bias",
                                    initializer=bias_initializer or self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None

    def build(self, input_shape):
        self._add_kernels(input_shape[-1], (self.gates * self.units,))

    # -- dropout: masks drawn once per sequence, the same at every step, as Keras's ----

    def _masks(self, batch, input_dim, training):
        """(input masks, recurrent masks) for one sequence: each None or a list of
        `mask_count` arrays of shape [batch, input_dim] / [batch, units]."""
        count = self.mask_count if self.recurrent_dropout else 1
        dp = rec = None
        if training and 0.0 < self.dropout < 1.0:
            dp = self._draw((count, batch, input_dim), self.dropout)
        if training and 0.0 < self.recurrent_dropout < 1.0:
            rec = self._draw((count, batch, self.units), self.recurrent_dropout)
        return dp, rec

    def _draw(self, shape, rate):
        masks = self._mask_values(shape, rate)
        return [reshape(slice_(masks, [k, 0, 0], [1, -1, -1]), shape[1:])
                for k in range(shape[0])]

    @fresh_each_call  # tf.function draws new masks at every call
    def _mask_values(self, shape, rate):
        if dry():
            return from_numpy(np.ones(shape, np.float32))
        if self._rng is None:
            seed = self.seed if self.seed is not None else \
                int(backend.global_generator().integers(2**31))
            self._rng = np.random.default_rng(seed)
        keep = self._rng.random(shape) >= rate
        return from_numpy(keep.astype(np.float32) / (1.0 - rate))

    # -- the two halves of a step ---------------------------------------------------------

    def _input_bias(self):
        return self.bias

    def _project(self, x, dp=None):
        """x [..., input_dim] @ kernel + input bias; with dropout masks [batch, input]
        (broadcast over time for a sequence), one masked product per gate block."""
        x = float_input(x)
        lead = x.shape[:-1]
        if dp is None:
            y = matmul(reshape(x, (-1, x.shape[-1])), self.kernel)
        else:
            parts = split(self.kernel, len(dp), axis=1)
            masks = [m if len(x.shape) == 2 else reshape(m, (m.shape[0], 1, m.shape[1]))
                     for m in dp]
            y = concat([matmul(reshape(ew.mul(x, m), (-1, x.shape[-1])), k)
                        for m, k in zip(masks, parts)], axis=1)
        bias = self._input_bias()
        if bias is not None:
            y = ew.add(y, bias)
        return reshape(y, tuple(lead) + (y.shape[-1],))

    def _recurrent(self, h, kernel, rec):
        """h @ kernel, or with recurrent dropout each gate block from its masked h."""
        if rec is None:
            return matmul(h, kernel)
        parts = split(kernel, len(rec), axis=1)
        return concat([matmul(ew.mul(h, m), k) for m, k in zip(rec, parts)], axis=1)

    def call(self, inputs, states, training=False):
        single = not isinstance(states, (list, tuple))
        states = [states] if single else list(states)
        dp, rec = self._masks(inputs.shape[0], inputs.shape[-1], training)
        output, new_states = self._step(self._project(inputs, dp), states, rec)
        return output, (new_states[0] if single and len(new_states) == 1 else new_states)

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) \
            else [self.state_size]
        return [zeros((batch_size, d)) for d in sizes]

    def _settings_config(self):
        return {
            "units": self.units, "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": serialize_keras_object(self.kernel_initializer),
            "recurrent_initializer": serialize_keras_object(self.recurrent_initializer),
            "bias_initializer": serialize_keras_object(self.bias_initializer),
            "kernel_regularizer": serialize_keras_object(self.kernel_regularizer),
            "recurrent_regularizer": serialize_keras_object(self.recurrent_regularizer),
            "bias_regularizer": serialize_keras_object(self.bias_regularizer),
            "kernel_constraint": serialize_keras_object(self.kernel_constraint),
            "recurrent_constraint": serialize_keras_object(self.recurrent_constraint),
            "bias_constraint": serialize_keras_object(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }

    def get_config(self):
        return {**super().get_config(), **self._settings_config()}


@serializable(_MODULE)
class SimpleRNNCell(_Cell):
    """One step of a fully connected RNN: `h = activation(x @ kernel + h @
    recurrent_kernel + bias)`.

    Args:
        units: the output (and state) size.
        activation: default 'tanh'.
        use_bias, kernel_initializer, recurrent_initializer ('orthogonal'),
            bias_initializer, *_regularizer, *_constraint: as Dense's.
        dropout, recurrent_dropout: fractions of the inputs / of the state dropped
            while training (one mask per sequence).
        seed: seed for the dropout masks.

    >>> cell = tf.keras.layers.SimpleRNNCell(3)
    >>> y, state = cell(np.ones((2, 4), np.float32), [np.zeros((2, 3), np.float32)])
    >>> y.shape
    TensorShape([2, 3])
    """

    def _step(self, xp, states, rec=None):
        h = self.activation(ew.add(xp, self._recurrent(states[0], self.recurrent_kernel,
                                                       rec)))
        return h, [h]


@serializable(_MODULE)
class LSTMCell(_Cell):
    """One step of a Long Short-Term Memory layer (Hochreiter, 1997), Keras 3's.

    Gates i, f, c, o, computed together: `z = x @ kernel + h @ recurrent_kernel + bias`,
    `c' = f * c + i * activation(z_c)`, `h' = o * activation(c')` with i, f, o the
    recurrent_activation of their blocks of z. States: [h, c].

    Args:
        units: the output size (and the size of both states).
        activation: default 'tanh'. recurrent_activation: default 'sigmoid'.
        unit_forget_bias: start the forget gate's bias at 1 (default True).
        others: as SimpleRNNCell's.

    >>> cell = tf.keras.layers.LSTMCell(3)
    >>> h = c = np.zeros((2, 3), np.float32)
    >>> y, (h, c) = cell(np.ones((2, 4), np.float32), [h, c])
    >>> y.shape
    TensorShape([2, 3])
    """

    gates = 4
    mask_count = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [self.units, self.units]

    def build(self, input_shape):
        init = None
        if self.use_bias and self.unit_forget_bias:
            base, units = self.bias_initializer, self.units

            def init(shape, dtype=None):  # the base initializer's, with 1s for the forget gate
                values = [_host(base((units,), dtype)), np.ones((units,), np.float32),
                          _host(base((2 * units,), dtype))]
                return np.concatenate(values).astype(np.float32)
        self._add_kernels(input_shape[-1], (4 * self.units,), init)

    def _step(self, xp, states, rec=None):
        h, c = states
        z = ew.add(xp, self._recurrent(h, self.recurrent_kernel, rec))
        zi, zf, zc, zo = split(z, 4, axis=1)
        ra = self.recurrent_activation
        c = ew.add(ew.mul(ra(zf), c), ew.mul(ra(zi), self.activation(zc)))
        h = ew.mul(ra(zo), self.activation(c))
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


@serializable(_MODULE)
class GRUCell(_Cell):
    """One step of a Gated Recurrent Unit (Cho et al., 2014), Keras 3's.

    Gates z (update), r (reset), h (candidate): `h' = z * h + (1 - z) * hh`. With
    `reset_after=True` (the default, cuDNN's) the reset gate multiplies the
    recurrent product, `hh = activation(x_h + r * (h @ R_h + b_rh))`, and the bias is
    [2, 3*units] (input, recurrent); with False it multiplies the state before it,
    `hh = activation(x_h + (r * h) @ R_h)`, and the bias is [3*units].

    Args:
        units: the output (and state) size.
        activation: default 'tanh'. recurrent_activation: default 'sigmoid'.
        reset_after: see above (default True).
        others: as SimpleRNNCell's.

    >>> cell = tf.keras.layers.GRUCell(3)
    >>> y, h = cell(np.ones((2, 4), np.float32), [np.zeros((2, 3), np.float32)])
    >>> y.shape
    TensorShape([2, 3])
    """

    gates = 3
    mask_count = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 reset_after=True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def build(self, input_shape):
        width = 3 * self.units
        self._add_kernels(input_shape[-1], (2, width) if self.reset_after else (width,))

    def _bias_row(self, row):
        if self.bias is None:
            return None
        if not self.reset_after:
            return self.bias if row == 0 else None
        return slice_(self.bias, [row, 0], [1, -1])

    def _input_bias(self):
        return self._bias_row(0)

    def _step(self, xp, states, rec=None):
        h = states[0]
        u = self.units
        xz, xr, xh = split(xp, 3, axis=1)
        ra = self.recurrent_activation
        if self.reset_after:
            inner = self._recurrent(h, self.recurrent_kernel, rec)
            bias = self._bias_row(1)
            if bias is not None:
                inner = ew.add(inner, bias)
            rz, rr, rh = split(inner, 3, axis=1)
            z, r = ra(ew.add(xz, rz)), ra(ew.add(xr, rr))
            hh = self.activation(ew.add(xh, ew.mul(r, rh)))
        else:
            kzr, kh = split(self.recurrent_kernel, [2 * u, u], axis=1)
            inner = self._recurrent(h, kzr, None if rec is None else rec[:2])
            rz, rr = split(inner, 2, axis=1)
            z, r = ra(ew.add(xz, rz)), ra(ew.add(xr, rr))
            hr = h if rec is None else ew.mul(h, rec[2])
            hh = self.activation(ew.add(xh, matmul(ew.mul(r, hr), kh)))
        h = ew.add(ew.mul(z, h), ew.mul(ew.sub(1.0, z), hh))
        return h, [h]

    def get_config(self):
        config = super().get_config()
        config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["reset_after"] = self.reset_after
        return config
