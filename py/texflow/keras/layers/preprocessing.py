"""Preprocessing layers: Rescaling, Normalization."""

import itertools
import math

import numpy as np

from ...engine.ndarray import NDArray
from ...ops import elementwise as ew
from ...ops.movement import reshape
from ..serialization import serializable
from .base import Layer

_MODULE = "keras.layers"


@serializable(_MODULE)
class Rescaling(Layer):
    """`inputs * scale + offset` (e.g. `Rescaling(1 / 255)` maps bytes to [0, 1]).

    `scale` and `offset` may be numbers or arrays broadcast against the input.

    >>> tf.keras.layers.Rescaling(1 / 255)(np.full((1, 2), 255.0, np.float32)).tolist()
    [[1.0, 1.0]]
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset
        self.built = True

    @staticmethod
    def _operand(value):
        if isinstance(value, (int, float, np.integer, np.floating)):
            return float(value)
        return value if isinstance(value, NDArray) else np.asarray(value, np.float32)

    def call(self, inputs):
        if inputs.dtype != "float32":
            inputs = ew.cast(inputs, "float32")
        out = ew.mul(inputs, self._operand(self.scale))
        return ew.add(out, self._operand(self.offset))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale, "offset": self.offset})
        return config


def _batches(data):
    """(the first batch's shape, an iterator of numpy batches) for adapt's data: an
    array, a tensor, a tf.data Dataset of batches (or of (x, y) pairs) or an iterable."""
    if isinstance(data, (np.ndarray, NDArray)):
        data = np.asarray(data.numpy() if isinstance(data, NDArray) else data)
        return data.shape, None, data
    from ...data.dataset import Dataset
    if isinstance(data, Dataset):
        spec = data.element_spec
        spec = spec[0] if isinstance(spec, tuple) else spec
        if len(tuple(spec.shape)) == 1:
            data = data.batch(128)
    elif not hasattr(data, "__iter__"):
        raise TypeError(f"Unsupported data type: {type(data)}. `adapt` supports `np.ndarray`, "
                        f"tensors, `tf.data.Dataset` and iterables of batches.")

    def numpy_batches():
        for batch in data:
            batch = batch[0] if isinstance(batch, tuple) else batch
            yield np.asarray(batch.numpy() if isinstance(batch, NDArray) else batch,
                             np.float32)
    it = numpy_batches()
    first = next(it, None)
    if first is None:
        raise ValueError("adapt() received an empty iterable (no batches). Expected at least "
                         "one batch.")
    return first.shape, itertools.chain([first], it), None


@serializable(_MODULE)
class Normalization(Layer):
    """Shifts and scales inputs to mean 0 and variance 1 per position of `axis`:
    `(x - mean) / sqrt(variance)` (`invert=True`: `mean + x * sqrt(variance)`), with the
    mean and variance given or computed by `adapt(data)` (an array, a tensor, a tf.data
    Dataset of batches or an iterable of batches).

    >>> layer = tf.keras.layers.Normalization()
    >>> layer.adapt(np.array([[1.0, 10.0], [3.0, 30.0]], np.float32))
    >>> layer(np.array([[2.0, 30.0]], np.float32)).numpy().tolist()
    [[0.0, 1.0]]
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean, self.input_variance = mean, variance
        self.invert = invert
        if (mean is not None) != (variance is not None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must "
                             f"be set. Received: mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(f"When setting values directly, `mean` and `variance` must "
                                 f"have the same shape. Received: mean shape "
                                 f"{np.shape(mean)} and variance shape {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(f"The rank of `mean` must be less than or equal to the "
                                 f"number of axes ({len(self.axis)}). Received: mean shape "
                                 f"{np.shape(mean)} for axis {self.axis}")

    def build(self, input_shape):
        ndim = len(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received "
                             f"inputs with ndim={ndim}, while axis={self.axis}")
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. "
                                 f"Received axis={self.axis}, inputs.shape={input_shape}, "
                                 f"with unknown axis at index {d}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = tuple(input_shape[d] if d in self._keep_axis else 1
                                      for d in range(ndim))
        self._mean_and_var_shape = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=self._mean_and_var_shape,
                                              initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(
                name="variance", shape=self._mean_and_var_shape, initializer="ones",
                trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int32",
                                         initializer="zeros", trainable=False)
        else:
            self._constants = tuple(self._expand(v) for v in (self.input_mean,
                                                              self.input_variance))

    def _expand(self, value):
        """A given mean or variance, its dimensions aligned with the kept axes."""
        value = np.asarray(value, np.float32)
        shape = [1] * len(self._broadcast_shape)
        for i in range(1, value.ndim + 1):
            shape[self._keep_axis[-i]] = value.shape[-i]
        return np.broadcast_to(value.reshape(shape), self._broadcast_shape).copy()

    def adapt(self, data):
        """Sets the mean and variance from `data` (see the class docstring)."""
        shape, batches, array = _batches(data)
        if not self.built:
            self._maybe_build(tuple(shape))
        else:
            for d in self._keep_axis:
                if shape[d] != self._build_input_shape[d]:
                    raise ValueError(f"The layer was built with input_shape="
                                     f"{self._build_input_shape}, but adapt() is being called "
                                     f"with data with an incompatible shape, "
                                     f"data.shape={shape}")
        if array is not None:
            total_mean = np.mean(array, axis=self._reduce_axis)
            total_var = np.var(array, axis=self._reduce_axis)
        else:  # Keras's running combination of batch means and variances
            total_mean = total_var = np.zeros(self._mean_and_var_shape, np.float64)
            total_count = 0
            for batch in batches:
                count = math.prod(batch.shape[d] for d in self._reduce_axis)
                total_count += count
                weight = count / total_count
                batch_mean = np.mean(batch, axis=self._reduce_axis, dtype=np.float64)
                batch_var = np.var(batch, axis=self._reduce_axis, dtype=np.float64)
                new_mean = total_mean * (1 - weight) + batch_mean * weight
                total_var = (total_var + (total_mean - new_mean) ** 2) * (1 - weight) + \
                    (batch_var + (batch_mean - new_mean) ** 2) * weight
                total_mean = new_mean
        if self.input_mean is not None:
            raise ValueError("adapt() needs a Normalization layer built without `mean` and "
                             "`variance`")
        self.adapt_mean.assign(np.asarray(total_mean, np.float32))
        self.adapt_variance.assign(np.asarray(total_var, np.float32))

    def call(self, inputs):
        if inputs.dtype != "float32":
            inputs = ew.cast(inputs, "float32")
        if self.input_mean is None:
            mean = reshape(self.adapt_mean, self._broadcast_shape)
            variance = reshape(self.adapt_variance, self._broadcast_shape)
        else:
            mean, variance = self._constants
        scale = ew.maximum(ew.sqrt(variance), 1e-7)  # Keras's backend.epsilon()
        if self.invert:
            return ew.add(mean, ew.mul(inputs, scale))
        return ew.div(ew.sub(inputs, mean), scale)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": np.array(self.input_mean).tolist(),
                       "variance": np.array(self.input_variance).tolist()})
        return config
