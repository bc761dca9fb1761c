"""`tf.keras.activations`: activation functions by name and as functions.

Each is written with texflow's ops, so it runs (and differentiates) on every
backend. `get("relu")` gives the function, `serialize(fn)` its name.
"""

from ..engine.ndarray import NDArray
from ..ops import elementwise as ew
from ..ops import nn
from ..ops.creation import array


def _t(x):
    return x if isinstance(x, NDArray) else array(x, "float32")


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """max(x, 0), with an optional slope below `threshold` and a cap at `max_value`.

    >>> tf.keras.activations.relu(tf.constant([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    x = _t(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return ew.relu(x)
    if threshold != 0.0:
        out = ew.where(ew.greater(x, threshold), x, 0.0)
    else:
        out = ew.relu(x)
    if max_value is not None:
        out = ew.minimum(out, float(max_value))
    if negative_slope != 0.0:
        below = ew.mul(ew.sub(x, float(threshold)), float(negative_slope))
        out = ew.where(ew.less(x, threshold), below, out)
    return out


def leaky_relu(x, negative_slope=0.2):
    """x if x > 0 else negative_slope * x."""
    return nn.leaky_relu(_t(x), negative_slope)


def relu6(x):
    """min(max(x, 0), 6)."""
    return ew.relu6(_t(x))


def sigmoid(x):
    """1 / (1 + exp(-x)).

    >>> tf.keras.activations.sigmoid(tf.constant([0.0])).tolist()
    [0.5]
    """
    return ew.sigmoid(_t(x))


def hard_sigmoid(x):
    """relu6(x + 3) / 6, Keras 3's piecewise-linear sigmoid."""
    return ew.div(relu6(ew.add(_t(x), 3.0)), 6.0)


def tanh(x):
    """The hyperbolic tangent."""
    return ew.tanh(_t(x))


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`.

    >>> tf.keras.activations.softmax(tf.constant([[1.0, 1.0]])).tolist()
    [[0.5, 0.5]]
    """
    return nn.softmax(_t(x), axis=axis)


def log_softmax(x, axis=-1):
    """log(softmax(x)), computed stably."""
    return nn.log_softmax(_t(x), axis=axis)


def elu(x, alpha=1.0):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    x = _t(x)
    if alpha == 1.0:
        return ew.elu(x)
    return ew.where(ew.greater(x, 0.0), x, ew.mul(ew.elu(x), float(alpha)))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """scale * elu(x, alpha) with Klambauer et al.'s constants."""
    return ew.mul(elu(x, _SELU_ALPHA), _SELU_SCALE)


def softplus(x):
    """log(1 + exp(x)), computed without overflow."""
    return ew.softplus(_t(x))


def softsign(x):
    """x / (|x| + 1)."""
    return ew.softsign(_t(x))


def silu(x):
    """x * sigmoid(x) (also called swish)."""
    return nn.silu(_t(x))


swish = silu


def mish(x):
    """x * tanh(softplus(x))."""
    x = _t(x)
    return ew.mul(x, ew.tanh(softplus(x)))


def gelu(x, approximate=False):
    """x * P(X <= x) for a standard normal X; `approximate` uses the tanh form.

    >>> round(tf.keras.activations.gelu(tf.constant([1.0])).tolist()[0], 4)
    0.8413
    """
    return nn.gelu(_t(x), approximate=approximate)


def exponential(x):
    """exp(x)."""
    return ew.exp(_t(x))


def linear(x):
    """x itself (the identity)."""
    return x


_ALL = {fn.__name__: fn for fn in (
    relu, leaky_relu, relu6, sigmoid, hard_sigmoid, tanh, softmax, log_softmax, elu, selu,
    softplus, softsign, silu, mish, gelu, exponential, linear)}
_ALL["swish"] = silu


def get(identifier):
    """The activation function for a name, a function, or None (linear).

    >>> tf.keras.activations.get("relu") is tf.keras.activations.relu
    True
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        fn = _ALL.get(identifier)
        if fn is None:
            from .serialization import get_registered_object
            fn = get_registered_object(identifier)
        if fn is None:
            raise ValueError(f"Could not interpret activation function identifier: "
                             f"{identifier!r}; known names: {sorted(_ALL)}")
        return fn
    if isinstance(identifier, dict):
        from .serialization import deserialize_keras_object
        return deserialize_keras_object(identifier, what="activation")
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation):
    """The name of a built-in activation, or a config for a user function or layer."""
    name = getattr(activation, "__name__", None)
    if name in _ALL and _ALL[name] is activation:
        return name
    from .serialization import serialize_keras_object
    return serialize_keras_object(activation)


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        from .serialization import get_registered_object
        found = get_registered_object(config, custom_objects)
        return found if found is not None else get(config)
    from .serialization import deserialize_keras_object
    return deserialize_keras_object(config, custom_objects, what="activation")
