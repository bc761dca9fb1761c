"""Normalization layers: BatchNormalization and LayerNormalization."""

from ...ops import elementwise as ew
from ...ops.movement import reshape
from ...ops.nn import batch_normalization, moments
from .. import constraints, initializers, regularizers
from ..serialization import serializable, serialize_keras_object
from .base import InputSpec, Layer, float_input

_MODULE = "keras.layers"


def _axes(axis, rank, name):
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f'Layer "{name}": axis {a} is out of bounds for an input of '
                             f"rank {rank}. Received: axis={axis}")
        out.append(a % rank)
    return sorted(out)


def _broadcast(param, rank, axes, shape):
    """A (len(axes),)-shaped weight reshaped to broadcast against inputs of `rank`."""
    if param is None:
        return None
    target = [1] * rank
    for a in axes:
        target[a] = shape[a]
    return reshape(param, target)


class _Normalization(Layer):
    def _feature_shape(self, input_shape):
        """The input's rank and the shape of the normalized axes (each must be known)."""
        rank = len(input_shape)
        self._feature_axes = _axes(self.axis, rank, self.name)
        shape = tuple(input_shape[a] for a in self._feature_axes)
        if None in shape:
            raise ValueError(f'Layer "{self.name}": the normalized axes of the input must be '
                             f"defined, received input shape {input_shape}")
        return rank, shape

    def _add_scale_and_center(self, shape):
        self.gamma = self.add_weight(shape=shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint,
                                     name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint,
                                    name="beta") if self.center else None

    def _store_common(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                      beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint):
        self.axis, self.epsilon, self.center, self.scale = axis, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def _common_config(self):
        return {
            "beta_initializer": serialize_keras_object(self.beta_initializer),
            "gamma_initializer": serialize_keras_object(self.gamma_initializer),
            "beta_regularizer": serialize_keras_object(self.beta_regularizer),
            "gamma_regularizer": serialize_keras_object(self.gamma_regularizer),
            "beta_constraint": serialize_keras_object(self.beta_constraint),
            "gamma_constraint": serialize_keras_object(self.gamma_constraint),
        }

    def compute_output_shape(self, input_shape):
        return input_shape


@serializable(_MODULE)
class BatchNormalization(_Normalization):
    """Normalizes each feature with the batch's statistics while training and with
    moving averages of them otherwise.

    While training, outputs are `(x - mean) / sqrt(var + epsilon) * gamma + beta` with
    the batch mean and (biased) variance, and
    `moving = moving * momentum + batch_stat * (1 - momentum)`. At inference, and
    whenever the layer is frozen (`trainable = False`, as in Keras 3), the moving
    statistics are used.

    >>> bn = tf.keras.layers.BatchNormalization()
    >>> bn(np.ones((4, 3), np.float32), training=True).shape
    TensorShape([4, 3])
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, synchronized=False, **kwargs):
        super().__init__(**kwargs)
        if renorm:
            raise ValueError("texflow's BatchNormalization has no batch renormalization "
                             "(renorm=True)")
        self._store_common(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                           beta_regularizer, gamma_regularizer, beta_constraint,
                           gamma_constraint)
        self.momentum = float(momentum)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.synchronized = synchronized

    def build(self, input_shape):
        rank, shape = self._feature_shape(input_shape)
        self._add_scale_and_center(shape)
        self.moving_mean = self.add_weight(shape=shape, initializer=self.moving_mean_initializer,
                                           trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight(shape=shape,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        self.input_spec = InputSpec(ndim=rank, axes={a: input_shape[a]
                                                     for a in self._feature_axes})

    def call(self, inputs, training=None, mask=None):
        inputs = float_input(inputs)
        rank = len(inputs.shape)
        axes = self._feature_axes
        reduce_axes = [a for a in range(rank) if a not in axes]
        gamma = _broadcast(self.gamma, rank, axes, inputs.shape)
        beta = _broadcast(self.beta, rank, axes, inputs.shape)
        if training and self.trainable:
            mean, variance = moments(inputs, reduce_axes, keepdims=True)
            keep = 1.0 - self.momentum
            self.moving_mean.assign(ew.add(ew.mul(self.moving_mean, self.momentum),
                                           ew.mul(reshape(mean, self.moving_mean.shape), keep)))
            self.moving_variance.assign(ew.add(
                ew.mul(self.moving_variance, self.momentum),
                ew.mul(reshape(variance, self.moving_variance.shape), keep)))
        else:
            mean = _broadcast(self.moving_mean, rank, axes, inputs.shape)
            variance = _broadcast(self.moving_variance, rank, axes, inputs.shape)
        return batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)

    def get_config(self):
        config = super().get_config()
        config.update({
            "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
            "center": self.center, "scale": self.scale,
            "moving_mean_initializer": serialize_keras_object(self.moving_mean_initializer),
            "moving_variance_initializer": serialize_keras_object(
                self.moving_variance_initializer),
            "synchronized": self.synchronized, "renorm": False, "renorm_clipping": None,
            "renorm_momentum": 0.99,
        })
        config.update(self._common_config())
        return config


@serializable(_MODULE)
class LayerNormalization(_Normalization):
    """Normalizes each example over `axis` (default the last):
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`.

    >>> tf.keras.layers.LayerNormalization()(np.ones((2, 3), np.float32)).shape
    TensorShape([2, 3])
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        super().__init__(**kwargs)
        self._store_common(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                           beta_regularizer, gamma_regularizer, beta_constraint,
                           gamma_constraint)
        self.rms_scaling = rms_scaling

    def build(self, input_shape):
        rank, shape = self._feature_shape(input_shape)
        self._add_scale_and_center(shape)

    def call(self, inputs):
        inputs = float_input(inputs)
        rank = len(inputs.shape)
        axes = self._feature_axes
        gamma = _broadcast(self.gamma, rank, axes, inputs.shape)
        beta = _broadcast(self.beta, rank, axes, inputs.shape)
        if self.rms_scaling:
            from ...ops import reduce as rd
            variance = rd.mean(ew.square(inputs), axis=axes, keepdims=True)
            out = ew.mul(inputs, ew.rsqrt(ew.add(variance, self.epsilon)))
            return ew.mul(out, gamma) if gamma is not None else out
        mean, variance = moments(inputs, axes, keepdims=True)
        return batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                       "scale": self.scale, "rms_scaling": self.rms_scaling})
        config.update(self._common_config())
        return config
