"""EinsumDense: a dense layer whose product is an einsum equation (Keras 3's shapes, weight
names and config), the projections inside MultiHeadAttention."""

import re

from ...ops import elementwise as ew
from ...ops.einsum import einsum
from .. import activations, constraints, initializers, regularizers
from ..serialization import serializable, serialize_keras_object
from .base import InputSpec, Layer, float_input

_MODULE = "keras.layers"
# (pattern, whether the ellipsis leads): "ab,bc->ac", "...b,bc->...c", "ab...,bc->ac..."
_FORMS = ((r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
          (r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
          (r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False))


def analyze_equation(equation, bias_axes, input_shape, output_shape):
    """(kernel shape, bias shape or None, full output shape, kernel input axes, kernel
    output axes) of an EinsumDense with `equation` on inputs of `input_shape`;
    `output_shape` gives the output's sizes after the batch axis (None: from the input)."""
    for pattern, leading in _FORMS:
        found = re.match(pattern, equation.replace("...", "0"))
        if found:
            break
    else:
        raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the "
                         "form [X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")
    ins, weights, outs = found.groups()
    input_shape = list(input_shape)
    elided = len(input_shape) - len(ins)
    out_shape = [input_shape[0]] + list(output_shape)
    if elided > 0:
        if leading:
            out_shape[1:1] = input_shape[1:elided]
        else:
            out_shape += input_shape[len(input_shape) - elided:]
    in_at = {c: i + elided - len(input_shape) if leading else i for i, c in enumerate(ins)}
    out_at = {c: i + elided if leading else i for i, c in enumerate(outs)}
    for c in ins:
        if c in out_at and out_shape[out_at[c]] is not None and \
                out_shape[out_at[c]] != input_shape[in_at[c]]:
            raise ValueError(f"Input shape and output shape do not match at shared dimension "
                             f"'{c}'. Input shape is {input_shape[in_at[c]]}, and output "
                             f"shape is {out_shape[out_at[c]]}.")
    for c in outs:
        if c not in ins and c not in weights:
            raise ValueError(f"Dimension '{c}' was specified in the output '{outs}' but has "
                             f"no corresponding dim in the input spec '{ins}' or weight "
                             f"spec '{outs}'")
    kernel, in_axes, out_axes = [], [], []
    for i, c in enumerate(weights):
        if c in out_at:
            kernel.append(out_shape[out_at[c]])
            out_axes.append(i)
        elif c in in_at:
            kernel.append(input_shape[in_at[c]])
            in_axes.append(i)
        else:
            raise ValueError(f"Weight dimension '{c}' did not have a match in either the "
                             f"input spec '{ins}' or the output spec '{outs}'. For this "
                             "layer, the weight must be fully specified.")
    bias = None
    if bias_axes is not None:
        for c in bias_axes:
            if c not in outs:
                raise ValueError(f"Bias dimension '{c}' was requested, but is not part of "
                                 f"the output spec '{outs}'")
        # the bias spans the output axes from the first biased one on (1 where unbiased)
        first = min(outs.find(c) for c in bias_axes)
        shift = elided if leading else 0
        bias = [out_shape[i + shift] if c in bias_axes else 1
                for i, c in enumerate(outs) if i >= first]
        if not leading:
            bias += [1] * max(elided, 0)
    return kernel, bias, out_shape, in_axes, out_axes


@serializable(_MODULE)
class EinsumDense(Layer):
    """A dense layer computing `activation(einsum(equation, inputs, kernel) + bias)`.

    Args:
        equation: 'ab,bc->ac' style, with inputs first, kernel second; an ellipsis may
            lead ('...b,bc->...c') or trail ('ab...,bc->ac...').
        output_shape: the output's shape without the batch axis (None entries: from the
            input); an int for one axis.
        activation: an activation name or function (default None: linear).
        bias_axes: the output labels that get a bias (default None: no bias).
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
        kernel_constraint, bias_constraint: as in Dense.

    >>> layer = tf.keras.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 4),
    ...                                     bias_axes="de")
    >>> layer(np.ones((1, 3, 8), np.float32)).shape, layer.kernel.shape
    (TensorShape([1, 3, 2, 4]), TensorShape([8, 2, 4]))
    """

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 gptq_unpacked_column_size=None, quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        if lora_rank:
            raise ValueError("texflow's EinsumDense has no LoRA (lora_rank)")
        if quantization_config is not None:
            raise ValueError("texflow's EinsumDense has no quantization "
                             f"(quantization_config={quantization_config!r})")
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) \
            else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        kernel_shape, bias_shape, _, in_axes, out_axes = analyze_equation(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape)
        self.input_spec = InputSpec(ndim=len(input_shape))
        init = self.kernel_initializer
        if isinstance(init, initializers.VarianceScaling) and (
                init.input_axes is None or init.output_axes is None):
            # the fans of a many-axis kernel come from the equation, as in Keras 3
            config = dict(init.get_config(), input_axes=in_axes, output_axes=out_axes)
            init = type(init).from_config(config)
        self.kernel = self.add_weight(shape=tuple(kernel_shape), initializer=init,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = None if bias_shape is None else self.add_weight(
            shape=tuple(bias_shape), initializer=self.bias_initializer,
            regularizer=self.bias_regularizer, constraint=self.bias_constraint, name="bias")

    def call(self, inputs, training=None):
        x = einsum(self.equation, float_input(inputs), self.kernel)
        if self.bias is not None:
            x = ew.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        return tuple(analyze_equation(self.equation, self.bias_axes, input_shape,
                                      self.partial_output_shape)[2])

    def get_config(self):
        config = super().get_config()
        config.update({
            "output_shape": self.partial_output_shape, "equation": self.equation,
            "activation": activations.serialize(self.activation),
            "bias_axes": self.bias_axes,
            **weight_settings(self),
            "quantization_config": None})
        return config


def weight_settings(layer, prefix=""):
    """The serialized initializers, regularizers and constraints of `layer`'s weights (its
    attributes `<prefix>kernel_initializer`, ...), as Keras 3's configs hold them."""
    return {name: serialize_keras_object(getattr(layer, prefix + name))
            for name in ("kernel_initializer", "bias_initializer", "kernel_regularizer",
                         "bias_regularizer", "activity_regularizer", "kernel_constraint",
                         "bias_constraint")}
