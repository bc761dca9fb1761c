"""Encoding preprocessing layers: CategoryEncoding, Discretization."""

import numpy as np

from ...engine.ndarray import from_numpy
from ...ops import elementwise as ew
from ...ops.movement import expand_dims, squeeze
from ...ops.reduce import max as reduce_max
from ...ops.reduce import sum as reduce_sum
from ..serialization import serializable
from .base import Layer

_MODULE = "keras.layers"
_MODES = ("one_hot", "multi_hot", "count")


def _encode(inputs, num_tokens, mode, count_weights=None):
    """Keras's encode_categorical_inputs: one-hot rows, or their max or (weighted) sum."""
    if inputs.dtype != "int32":
        inputs = ew.cast(inputs, "int32")
    if mode == "one_hot" and len(inputs.shape) > 1 and inputs.shape[-1] == 1:
        inputs = squeeze(inputs, -1)
    tokens = from_numpy(np.arange(num_tokens, dtype=np.int32))
    hot = ew.cast(ew.equal(expand_dims(inputs, -1), tokens), "float32")
    if mode == "one_hot":
        return hot
    if len(inputs.shape) == 0:
        return hot
    if mode == "count":
        if count_weights is not None:
            hot = ew.mul(hot, expand_dims(ew.cast(count_weights, "float32"), -1))
        return reduce_sum(hot, axis=-2)
    return reduce_max(hot, axis=-2)


def _encoded_shape(input_shape, num_tokens, mode):
    input_shape = tuple(input_shape)
    if not input_shape:
        return (num_tokens,)
    if mode == "one_hot" and input_shape[-1] != 1:
        return input_shape + (num_tokens,)
    return input_shape[:-1] + (num_tokens,)


@serializable(_MODULE)
class CategoryEncoding(Layer):
    """Integer token ids in [0, num_tokens) as one-hot rows ("one_hot"), or per sample as
    a multi-hot vector ("multi_hot") or counts ("count", optionally weighted).

    >>> tf.keras.layers.CategoryEncoding(4, "count")(np.array([[0, 2, 2]])).numpy().tolist()
    [[1.0, 0.0, 2.0, 0.0]]
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode not in _MODES:
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of "
                             "tokens is not known beforehand, use the IntegerLookup layer "
                             "instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise ValueError("texflow has no sparse Keras outputs; use sparse=False")
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, sparse
        self.built = True

    def call(self, inputs, count_weights=None):
        if count_weights is not None and self.output_mode != "count":
            raise ValueError(f"`count_weights` is not used when `output_mode` is not "
                             f"`'count'`. Received `count_weights={count_weights}`.")
        return _encode(inputs, self.num_tokens, self.output_mode, count_weights)

    def compute_output_shape(self, input_shape):
        return _encoded_shape(input_shape, self.num_tokens, self.output_mode)

    def get_config(self):
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode})
        return config


@serializable(_MODULE)
class Discretization(Layer):
    """Buckets numbers by `bin_boundaries` (bucket i holds [b[i-1], b[i])): int32 bucket
    ids ("int"), or encoded as CategoryEncoding does. `adapt(data)` with `num_bins` sets
    the boundaries to the data's quantiles.

    >>> layer = tf.keras.layers.Discretization(bin_boundaries=[0.0, 1.0])
    >>> layer(np.array([[-1.0, 0.0, 0.5, 2.0]])).numpy().tolist()
    [[0, 1, 1, 2]]
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None):
        super().__init__(dtype=dtype, name=name)
        if output_mode not in ("int",) + _MODES:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of "
                             f"{('int',) + _MODES}. Received: output_mode={output_mode}")
        if sparse:
            raise ValueError("texflow has no sparse Keras outputs; use sparse=False")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: "
                             f"`num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            if len(bin_boundaries) != num_bins - 1:
                raise ValueError(f"Both `num_bins` and `bin_boundaries` should not be set. "
                                 f"Received: `num_bins={num_bins}` and "
                                 f"`bin_boundaries={bin_boundaries}`")
        self.bin_boundaries = list(bin_boundaries) if bin_boundaries is not None else None
        self.num_bins, self.epsilon = num_bins, epsilon
        self.output_mode, self.sparse = output_mode, sparse
        self.built = True

    def adapt(self, data, steps=None):
        """Sets `bin_boundaries` to the num_bins - 1 inner quantiles of `data` (exact
        quantiles of the lower kind, where Keras summarizes approximately)."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        if hasattr(data, "numpy"):
            data = data.numpy()
        elif not isinstance(data, np.ndarray):
            data = np.concatenate([np.ravel(getattr(b, "numpy", lambda b=b: b)())
                                   for b in data])
        q = np.linspace(0.0, 1.0, self.num_bins + 1)[1:-1]
        values = np.ravel(np.asarray(data, np.float32))
        self.bin_boundaries = [float(v) for v in np.quantile(values, q, method="inverted_cdf")]

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at "
                             "construction time or call `adapt(dataset)` before you can start "
                             "using the `Discretization` layer.")
        if inputs.dtype != "float32":
            inputs = ew.cast(inputs, "float32")
        ids = None
        for b in self.bin_boundaries:  # few boundaries: one comparison each
            step = ew.cast(ew.greater_equal(inputs, float(b)), "int32")
            ids = step if ids is None else ew.add(ids, step)
        if ids is None:
            ids = ew.cast(ew.mul(inputs, 0.0), "int32")
        if self.output_mode == "int":
            return ids
        return _encode(ids, len(self.bin_boundaries) + 1, self.output_mode)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return input_shape
        depth = None if self.bin_boundaries is None else len(self.bin_boundaries) + 1
        return _encoded_shape(input_shape, depth, self.output_mode)

    def get_config(self):
        return {"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins,
                "epsilon": self.epsilon, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}
