"""TensorFlow 2's top-level initializers: `tf.zeros_initializer`, `tf.ones_initializer`,
`tf.constant_initializer`, `tf.random_normal_initializer`, `tf.random_uniform_initializer`
(TensorFlow's init_ops_v2 classes Zeros, Ones, Constant, RandomNormal, RandomUniform).

Called with a shape (and a dtype, float32 by default; Constant's default is its value's)
they return a tensor. A random initializer with a seed returns the same numbers at every
call, as TensorFlow's (stateless there, a Generator from the seed here: the numbers are
texflow's, not TensorFlow's); without one it draws with `tf.random.normal`/`uniform`.
"""

import numpy as np

from . import dtypes
from .engine.ndarray import NDArray
from .ops import creation

_PARTITION_KWARGS = ("partition_shape", "partition_offset")


class Initializer:
    """Base of the initializers: `__call__(shape, dtype)`, `get_config`, `from_config`."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config.pop("dtype", None)
        return cls(**config)


def _shape(shape):
    return [int(d) for d in (shape.numpy() if isinstance(shape, NDArray) else shape)]


def _check_kwargs(kwargs):
    for key in kwargs:
        if key not in _PARTITION_KWARGS:
            raise TypeError(f"Keyword argument should be one of {list(_PARTITION_KWARGS)}. "
                            f"Received: {key}")


def _numeric_or_bool(dtype, allow_bool=True):
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer or (allow_bool and dtype == dtypes.bool_)):
        raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received "
                         f"<dtype: '{dtype.name}'>.")
    return dtype


class Zeros(Initializer):
    """Zeros of the shape (tf.zeros_initializer).

    >>> tf.zeros_initializer()(shape=[2])
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>
    """

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        _check_kwargs(kwargs)
        return creation.zeros(_shape(shape), _numeric_or_bool(dtype))


class Ones(Initializer):
    """Ones of the shape (tf.ones_initializer)."""

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        _check_kwargs(kwargs)
        return creation.ones(_shape(shape), _numeric_or_bool(dtype))


class Constant(Initializer):
    """`value` (a Python scalar, list, tuple or numpy array) in the shape: a scalar fills
    it, other values must have its number of elements (tf.constant_initializer)."""

    def __init__(self, value=0):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__}. "
                            "Expected Python scalar, list or tuple of values, or "
                            "numpy.ndarray.")
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        _check_kwargs(kwargs)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        shape = _shape(shape)
        size = int(np.prod(shape))
        count = int(np.size(self.value))
        if count not in (1, size):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                            f"{np.asarray(self.value)} (converted from {self.value!r}) has "
                            f"{count} elements, but got `shape` {tuple(shape)} with {size} "
                            "elements).")
        if dtype is not None and not dtype.is_floating and \
                np.any(np.mod(np.asarray(self.value, dtype=np.float64), 1) != 0):
            raise TypeError(f"Cannot convert {self.value!r} to EagerTensor of dtype "
                            f"{dtype.name}")
        return creation.constant(self.value, dtype=dtype, shape=shape)

    def get_config(self):
        return {"value": self.value}


class _Random(Initializer):
    def __init__(self, seed):
        self.seed = seed

    def _source(self):
        """Draws with `tf.random` (no seed), or a Generator made from the seed at each call
        (a seed: the same numbers at every call)."""
        from . import random
        if self.seed is None:
            return random
        return random.Generator.from_seed(self.seed)


class RandomNormal(_Random):
    """Normal draws of `mean` and `stddev` (tf.random_normal_initializer)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        _check_kwargs(kwargs)
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise ValueError(f"Argument `dtype` is expected to be floating point. Received: "
                             f"<dtype: '{dtype.name}'>.")
        return self._source().normal(_shape(shape), self.mean, self.stddev, dtype=dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(_Random):
    """Uniform draws in [minval, maxval) (tf.random_uniform_initializer); integers for an
    integer dtype."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        _check_kwargs(kwargs)
        dtype = _numeric_or_bool(dtype, allow_bool=False)
        if dtype.is_integer:
            if self.maxval is None:
                raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
            for v in (self.minval, self.maxval):
                if not float(v).is_integer() or isinstance(v, float):
                    raise TypeError(f"Cannot convert {v} to EagerTensor of dtype {dtype.name}")
        return self._source().uniform(_shape(shape), self.minval, self.maxval, dtype=dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
random_uniform_initializer = RandomUniform
