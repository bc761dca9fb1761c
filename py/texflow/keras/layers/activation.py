"""Activation layers: Activation, ReLU, Softmax, LeakyReLU, ELU."""

from .. import activations
from ..serialization import serializable
from .base import Layer

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
