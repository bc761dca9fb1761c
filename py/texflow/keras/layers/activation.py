"""Activation layers: Activation, ReLU, Softmax, LeakyReLU, ELU, PReLU."""

from ...ops import elementwise as ew
from .. import activations, constraints, initializers, regularizers
from ..serialization import serializable, serialize_keras_object
from .base import InputSpec, Layer

_MODULE = "keras.layers"


class _Elementwise(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape


@serializable(_MODULE)
class Activation(_Elementwise):
    """Applies an activation function (a name such as 'relu', or a function).

    >>> tf.keras.layers.Activation("relu")(np.array([[-1.0, 2.0]], np.float32)).tolist()
    [[0.0, 2.0]]
    """

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        config = super().get_config()
        config["activation"] = activations.serialize(self.activation)
        return config


@serializable(_MODULE)
class ReLU(_Elementwise):
    """max(x, 0), optionally capped at `max_value`, with `negative_slope` below
    `threshold`.

    >>> tf.keras.layers.ReLU(max_value=1.0)(np.array([[-1.0, 2.0]], np.float32)).tolist()
    [[0.0, 1.0]]
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. "
                             f"Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. "
                             f"Received: negative_slope={negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be a negative value. "
                             f"Received: threshold={threshold}")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, \
            threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def get_config(self):
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config


@serializable(_MODULE)
class Softmax(_Elementwise):
    """softmax along `axis` (default the last).

    >>> tf.keras.layers.Softmax()(np.array([[1.0, 1.0]], np.float32)).tolist()
    [[0.5, 0.5]]
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            raise ValueError("texflow's Softmax layer does not take a mask")
        return activations.softmax(inputs, axis=self.axis)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


@serializable(_MODULE)
class LeakyReLU(_Elementwise):
    """x if x > 0 else negative_slope * x (Keras 3's default slope is 0.3).

    >>> tf.keras.layers.LeakyReLU()(np.array([[-1.0, 2.0]], np.float32)).numpy()
    array([[-0.3,  2. ]], dtype=float32)
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"The negative_slope value of a Leaky ReLU layer cannot be None "
                             f"or negative value. Expected a float. Received: "
                             f"negative_slope={negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, self.negative_slope)

    def get_config(self):
        config = super().get_config()
        config["negative_slope"] = self.negative_slope
        return config


@serializable(_MODULE)
class ELU(_Elementwise):
    """x if x > 0 else alpha * (exp(x) - 1).

    >>> tf.keras.layers.ELU()(np.array([[0.0, 2.0]], np.float32)).tolist()
    [[0.0, 2.0]]
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)

    def get_config(self):
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


@serializable(_MODULE)
class PReLU(Layer):
    """A leaky ReLU whose negative slope `alpha` is learned, one per input position (axes
    in `shared_axes`, 1-based, share one): `max(x, 0) + alpha * min(x, 0)`.

    >>> layer = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.5))
    >>> layer(np.array([[-2.0, 3.0]], np.float32)).numpy().tolist()
    [[-1.0, 3.0]]
    """

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None or isinstance(shared_axes, (list, tuple)):
            self.shared_axes = None if shared_axes is None else list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            param_shape[axis - 1] = 1
        self.alpha = self.add_weight(shape=param_shape, name="alpha",
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        axes = {}
        for i in range(1, len(input_shape)):
            if self.shared_axes is None or i not in self.shared_axes:
                axes[i] = input_shape[i]
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)

    def call(self, inputs):
        negative = ew.mul(ew.neg(self.alpha), ew.relu(ew.neg(inputs)))
        return ew.add(ew.relu(inputs), negative)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "alpha_initializer": serialize_keras_object(self.alpha_initializer),
            "alpha_regularizer": serialize_keras_object(self.alpha_regularizer),
            "alpha_constraint": serialize_keras_object(self.alpha_constraint),
            "shared_axes": self.shared_axes})
        return config
