"""Keras 3's update rules: SGD, Adam, AdamW, RMSprop, Adagrad."""

import math

from ...ops import elementwise as ew
from ..serialization import serializable
from .base import Optimizer

_MODULE = "keras.optimizers"


@serializable(_MODULE)
class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum, Keras 3's rule:
    `m = momentum * m - lr * g; v += m` (Nesterov: `v += momentum * m - lr * g`).

    >>> opt = tf.keras.optimizers.SGD(learning_rate=0.1)
    >>> v = tf.Variable([1.0])
    >>> _ = opt.apply_gradients([(tf.constant([1.0]), v)])
    >>> v.numpy()
    array([0.9], dtype=float32)
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        if not isinstance(momentum, (int, float)) or momentum < 0 or momentum > 1:
            raise ValueError(f"`momentum` must be a float between [0, 1]. Received: "
                             f"momentum={momentum}")
        self.momentum, self.nesterov = float(momentum), nesterov

    def build(self, variables):
        for v in variables:
            if self.momentum != 0:
                self.add_variable_from_reference(v, "momentum")
        super().build(variables)

    def update_step(self, gradient, variable, learning_rate, slots):
        if self.momentum == 0:
            variable.assign_sub(ew.mul(gradient, learning_rate))
            return
        m = slots["momentum"]
        step = ew.mul(gradient, learning_rate)
        m.assign(ew.sub(ew.mul(m, self.momentum), step))
        if self.nesterov:
            variable.assign_add(ew.sub(ew.mul(m, self.momentum), step))
        else:
            variable.assign_add(m)

    def get_config(self):
        config = super().get_config()
        config.update({"momentum": self.momentum, "nesterov": self.nesterov})
        return config


@serializable(_MODULE)
class Adam(Optimizer):
    """Adam, Keras 3's rule: `m += (g - m) * (1 - beta_1)`, `v += (g^2 - v) * (1 - beta_2)`,
    `var -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)`.

    >>> tf.keras.optimizers.Adam().get_config()["epsilon"]
    1e-07
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self.amsgrad = amsgrad

    def build(self, variables):
        for v in variables:
            self.add_variable_from_reference(v, "momentum")
            self.add_variable_from_reference(v, "velocity")
        for v in variables if self.amsgrad else ():   # Keras 3's order of `variables`
            self.add_variable_from_reference(v, "velocity_hat")
        super().build(variables)

    def _rule_scalars(self, learning_rate, t):
        return {"alpha": learning_rate * math.sqrt(1 - self.beta_2 ** t) /
                (1 - self.beta_1 ** t)}

    def _update_reads_learning_rate(self):
        return type(self).update_step is not Adam.update_step  # Adam's reads alpha

    def update_step(self, gradient, variable, learning_rate, slots):
        alpha = self._scalars["alpha"]
        m, v = slots["momentum"], slots["velocity"]
        m.assign_add(ew.mul(ew.sub(gradient, m), 1 - self.beta_1))
        v.assign_add(ew.mul(ew.sub(ew.square(gradient), v), 1 - self.beta_2))
        if self.amsgrad:
            v_hat = slots["velocity_hat"]
            v_hat.assign(ew.maximum(v_hat, v))
            v = v_hat
        variable.assign_sub(ew.div(ew.mul(m, alpha), ew.add(ew.sqrt(v), self.epsilon)))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                       "amsgrad": self.amsgrad})
        return config


@serializable(_MODULE)
class AdamW(Adam):
    """Adam with decoupled weight decay (`var -= var * weight_decay * lr` each step).

    >>> tf.keras.optimizers.AdamW().get_config()["weight_decay"]
    0.004
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None, **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad,
                         weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)


@serializable(_MODULE)
class RMSprop(Optimizer):
    """RMSprop, Keras 3's rule: `ms = rho * ms + (1 - rho) * g^2` (from 0),
    `inc = lr * g / sqrt(ms + epsilon)` (centered: `ms - mg^2 + epsilon`), then
    `var -= inc` or, with momentum, `mom = momentum * mom + inc; var -= mom`.

    >>> opt = tf.keras.optimizers.RMSprop(learning_rate=0.1)
    >>> v = tf.Variable([1.0])
    >>> _ = opt.apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v.numpy()[0]), 4)
    0.6838
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.rho, self.momentum, self.epsilon = float(rho), float(momentum), float(epsilon)
        self.centered = centered

    def build(self, variables):
        # Keras 3's order of `variables`: every velocity, then momentums, then averages.
        for v in variables:
            self.add_variable_from_reference(v, "velocity")
        for v in variables if self.momentum > 0 else ():
            self.add_variable_from_reference(v, "momentum")
        for v in variables if self.centered else ():
            self.add_variable_from_reference(v, "average_gradient")
        super().build(variables)

    def update_step(self, gradient, variable, learning_rate, slots):
        velocity = slots["velocity"]
        velocity.assign(ew.add(ew.mul(velocity, self.rho),
                               ew.mul(ew.square(gradient), 1 - self.rho)))
        if self.centered:
            avg = slots["average_gradient"]
            avg.assign(ew.add(ew.mul(avg, self.rho), ew.mul(gradient, 1 - self.rho)))
            denominator = ew.add(ew.sub(velocity, ew.square(avg)), self.epsilon)
        else:
            denominator = ew.add(velocity, self.epsilon)
        increment = ew.div(ew.mul(gradient, learning_rate), ew.sqrt(denominator))
        if self.momentum > 0:
            mom = slots["momentum"]
            mom.assign(ew.add(ew.mul(mom, self.momentum), increment))
            variable.assign_sub(mom)
        else:
            variable.assign_sub(increment)

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                       "centered": self.centered})
        return config


@serializable(_MODULE)
class Adagrad(Optimizer):
    """Adagrad, Keras 3's rule: `acc += g^2` (from initial_accumulator_value),
    `var -= lr * g / sqrt(acc + epsilon)`.

    >>> opt = tf.keras.optimizers.Adagrad(learning_rate=0.1)
    >>> v = tf.Variable([1.0])
    >>> _ = opt.apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v.numpy()[0]), 4)
    0.9047
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)

    def build(self, variables):
        from ..initializers import Constant
        for v in variables:
            self.add_variable_from_reference(v, "accumulator",
                                             Constant(self.initial_accumulator_value))
        super().build(variables)

    def update_step(self, gradient, variable, learning_rate, slots):
        acc = slots["accumulator"]
        acc.assign_add(ew.square(gradient))
        variable.assign_sub(ew.div(ew.mul(gradient, learning_rate),
                                   ew.sqrt(ew.add(acc, self.epsilon))))

    def get_config(self):
        config = super().get_config()
        config.update({"initial_accumulator_value": self.initial_accumulator_value,
                       "epsilon": self.epsilon})
        return config
