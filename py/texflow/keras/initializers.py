"""`tf.keras.initializers`: the starting values of weights.

Values are drawn with numpy on the host (a seeded initializer gives the same
values on every backend, and on every call, as in Keras 3; unseeded ones draw
from the generator `tf.keras.utils.set_random_seed` seeds) and become a weight's
initial value when a layer builds.
"""

import math

import numpy as np

from .. import dtypes
from ..engine.ndarray import from_numpy
from . import backend
from .serialization import (Configurable, deserialize_keras_object, get_object,
                            serializable, serialize_keras_object)

_MODULE = "keras.initializers"


@serializable(_MODULE)
class Initializer(Configurable):
    """Base class: `initializer(shape, dtype)` returns the values of that shape (the
    built-in ones a tensor, as Keras 3's; a subclass may return numpy data).

    >>> class Twos(tf.keras.initializers.Initializer):
    ...     def __call__(self, shape, dtype=None):
    ...         return np.full(shape, 2.0, np.float32)
    >>> Twos()((2,)).tolist()
    [2.0, 2.0]
    """

    def __call__(self, shape, dtype=None):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")

    def clone(self):
        return type(self).from_config(self.get_config())


def _dtype(dtype):
    if dtype is None or str(dtype) == "float32":
        return np.float32
    return np.dtype(str(dtype))


class _Random(Initializer):
    def __init__(self, seed=None):
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"{type(self).__name__}: seed must be an int or None, "
                             f"received {seed!r}")
        self.seed = seed

    def _generator(self):
        # A seeded initializer starts from its seed every call (Keras 3 does the same).
        return np.random.default_rng(self.seed) if self.seed is not None \
            else backend.global_generator()

    def get_config(self):
        return {"seed": self.seed}


def _truncated_normal(rng, shape, mean, stddev):
    """Normal samples redrawn until all lie within two standard deviations."""
    values = rng.standard_normal(shape)
    bad = np.abs(values) > 2.0
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(values) > 2.0
    return values * stddev + mean


@serializable(_MODULE)
class Zeros(Initializer):
    """All zeros. `tf.keras.initializers.Zeros()((2, 2))`.

    >>> tf.keras.initializers.Zeros()((2,)).tolist()
    [0.0, 0.0]
    """

    def __call__(self, shape, dtype=None):
        return np.zeros(shape, _dtype(dtype))


@serializable(_MODULE)
class Ones(Initializer):
    """All ones.

    >>> tf.keras.initializers.Ones()((2,)).tolist()
    [1.0, 1.0]
    """

    def __call__(self, shape, dtype=None):
        return np.ones(shape, _dtype(dtype))


@serializable(_MODULE)
class Constant(Initializer):
    """Every value `value`.

    >>> tf.keras.initializers.Constant(3.0)((2,)).tolist()
    [3.0, 3.0]
    """

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return np.full(shape, self.value, _dtype(dtype))

    def get_config(self):
        return {"value": self.value}


@serializable(_MODULE)
class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only).

    >>> tf.keras.initializers.Identity()((2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError(f"Identity initializer needs a 2-D shape, received {shape}")
        return (np.eye(*shape) * self.gain).astype(_dtype(dtype))

    def get_config(self):
        return {"gain": self.gain}


@serializable(_MODULE)
class RandomNormal(_Random):
    """Normal samples with `mean` and `stddev`.

    >>> tf.keras.initializers.RandomNormal(seed=1)((3,)).shape
    TensorShape([3])
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None):
        return self._generator().normal(self.mean, self.stddev, shape).astype(_dtype(dtype))

    def get_config(self):
        return {"seed": self.seed, "mean": self.mean, "stddev": self.stddev}


@serializable(_MODULE)
class RandomUniform(_Random):
    """Uniform samples in [minval, maxval).

    >>> values = tf.keras.initializers.RandomUniform(-1.0, 1.0, seed=0)((100,)).numpy()
    >>> bool(values.min() >= -1.0 and values.max() < 1.0)
    True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=None):
        return self._generator().uniform(self.minval, self.maxval, shape).astype(_dtype(dtype))

    def get_config(self):
        return {"seed": self.seed, "minval": self.minval, "maxval": self.maxval}


@serializable(_MODULE)
class TruncatedNormal(_Random):
    """Normal samples with values beyond two standard deviations redrawn.

    >>> values = tf.keras.initializers.TruncatedNormal(stddev=1.0, seed=0)((1000,)).numpy()
    >>> bool(abs(values).max() <= 2.0)
    True
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None):
        values = _truncated_normal(self._generator(), shape, self.mean, self.stddev)
        return values.astype(_dtype(dtype))

    def get_config(self):
        return {"seed": self.seed, "mean": self.mean, "stddev": self.stddev}


def compute_fans(shape, input_axes=None, output_axes=None):
    """(fan_in, fan_out) of a weight shape: kernels are (..., in, out)."""
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return (int(np.prod([shape[a] for a in input_axes])),
                int(np.prod([shape[a] for a in output_axes])))
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


@serializable(_MODULE)
class VarianceScaling(_Random):
    """Samples scaled to the weight's fan: variance `scale / n`, where n is fan_in,
    fan_out or their average (`mode`), from a truncated normal, a normal or a
    uniform distribution.

    >>> init = tf.keras.initializers.VarianceScaling(2.0, 'fan_in', 'uniform', seed=0)
    >>> bool(abs(init((100, 10)).numpy()).max() <= (6 / 100) ** 0.5)
    True
    """

    _MODES = ("fan_in", "fan_out", "fan_avg")
    _DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        super().__init__(seed)
        if scale <= 0.0:
            raise ValueError(f"VarianceScaling: scale must be positive, received {scale}")
        if mode not in self._MODES:
            raise ValueError(f"VarianceScaling: mode must be one of {self._MODES}, "
                             f"received {mode!r}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in self._DISTRIBUTIONS:
            raise ValueError(f"VarianceScaling: distribution must be one of "
                             f"{self._DISTRIBUTIONS}, received {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.input_axes, self.output_axes = input_axes, output_axes

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[
            self.mode]
        variance = self.scale / max(1.0, n)
        rng = self._generator()
        if self.distribution == "truncated_normal":
            # 0.8796...: the standard deviation of a unit normal truncated at 2 sigma.
            values = _truncated_normal(rng, shape, 0.0, math.sqrt(variance) / .87962566103423978)
        elif self.distribution == "untruncated_normal":
            values = rng.normal(0.0, math.sqrt(variance), shape)
        else:
            limit = math.sqrt(3.0 * variance)
            values = rng.uniform(-limit, limit, shape)
        return np.asarray(values).astype(_dtype(dtype))

    def get_config(self):
        return {"seed": self.seed, "scale": self.scale, "mode": self.mode,
                "distribution": self.distribution, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


def _fixed(name, scale, mode, distribution, doc):
    if ">>>" not in doc:
        doc += (f"\n\n    >>> tf.keras.initializers.{name}(seed=0)((2, 3)).shape"
                "\n    TensorShape([2, 3])\n")
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed, input_axes,
                                 output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}

    cls = type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config,
                                          "__doc__": doc, "__module__": __name__})
    return serializable(_MODULE)(cls)


GlorotUniform = _fixed("GlorotUniform", 1.0, "fan_avg", "uniform",
                       "Uniform in ±sqrt(6 / (fan_in + fan_out)): Keras's default kernel "
                       "initializer.\n\n    >>> tf.keras.initializers.GlorotUniform(seed=0)"
                       "((2, 3)).shape\n    TensorShape([2, 3])\n")
GlorotNormal = _fixed("GlorotNormal", 1.0, "fan_avg", "truncated_normal",
                      "Truncated normal with stddev sqrt(2 / (fan_in + fan_out)).")
HeNormal = _fixed("HeNormal", 2.0, "fan_in", "truncated_normal",
                  "Truncated normal with stddev sqrt(2 / fan_in).")
HeUniform = _fixed("HeUniform", 2.0, "fan_in", "uniform", "Uniform in ±sqrt(6 / fan_in).")
LecunNormal = _fixed("LecunNormal", 1.0, "fan_in", "truncated_normal",
                     "Truncated normal with stddev sqrt(1 / fan_in).")
LecunUniform = _fixed("LecunUniform", 1.0, "fan_in", "uniform",
                      "Uniform in ±sqrt(3 / fan_in).")


@serializable(_MODULE)
class Orthogonal(_Random):
    """A (semi-)orthogonal matrix times `gain`, from the QR decomposition of normal
    samples; shapes of rank > 2 are flattened to (prod(shape[:-1]), shape[-1]).

    >>> q = tf.keras.initializers.Orthogonal(seed=0)((3, 3)).numpy()
    >>> bool(np.allclose(q @ q.T, np.eye(3), atol=1e-5))
    True
    """

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer needs a shape of rank >= 2, "
                             f"received {shape}")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        a = self._generator().normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q[:rows, :cols]).reshape(shape).astype(_dtype(dtype))

    def get_config(self):
        return {"seed": self.seed, "gain": self.gain}


_ALIASES = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "identity": Identity,
    "random_normal": RandomNormal, "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_normal": HeNormal, "he_uniform": HeUniform, "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform, "orthogonal": Orthogonal,
    "uniform": RandomUniform, "normal": RandomNormal,
}


def get(identifier):
    """An Initializer from a name ('glorot_uniform'), a config dict, a class or an
    instance; callables pass through.

    >>> type(tf.keras.initializers.get("he_normal")).__name__
    'HeNormal'
    """
    classes = dict(_ALIASES)
    classes.update((cls.__name__, cls) for cls in set(_ALIASES.values()))
    if isinstance(identifier, str) and identifier not in classes and \
            identifier.lower() in classes:
        identifier = identifier.lower()
    return get_object(identifier, "initializer", Initializer, classes=classes)


def serialize(initializer):
    return serialize_keras_object(initializer)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, custom_objects, what="initializer")


def _returning_tensors(cls):
    """Keras 3's initializers return tensors (EagerTensors under TensorFlow): `cls`'s
    numpy values as an NDArray, its dtype checked as TensorFlow's (float16 has no device
    storage: DTypeError, as tf.random.normal). A user's subclass returns what it returns."""
    values_of = cls.__call__

    def __call__(self, shape, dtype=None):
        if dtype is not None:
            dtypes.device_dtype(dtype)
        return from_numpy(np.asarray(values_of(self, shape, dtype)))
    __call__.__doc__ = values_of.__doc__
    cls.__call__ = __call__


for _cls in (Zeros, Ones, Constant, Identity, RandomNormal, RandomUniform, TruncatedNormal,
             VarianceScaling, Orthogonal):
    _returning_tensors(_cls)

# Keras's lower-case aliases (tf.keras.initializers.he_normal(), ...).
zeros, ones, constant, identity = Zeros, Ones, Constant, Identity
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling, orthogonal = VarianceScaling, Orthogonal
glorot_uniform, glorot_normal, he_normal, he_uniform = (GlorotUniform, GlorotNormal, HeNormal,
                                                        HeUniform)
lecun_normal, lecun_uniform = LecunNormal, LecunUniform
