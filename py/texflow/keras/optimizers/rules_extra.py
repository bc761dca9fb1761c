"""Keras 3's other update rules: Adamax, Adadelta, Nadam, Lion and Ftrl (checked step by
step against Keras 3 in TensorFlow 2.21); slots and their order in `variables` are
Keras's, so state saved by one loads in the other."""

from ...ops import elementwise as ew
from ..serialization import serializable
from .base import Optimizer, _host_scalar

_MODULE = "keras.optimizers"


class _Rule(Optimizer):
    """An optimizer whose `__init__` arguments past the common ones are its rule's floats
    (`_RULE`: names and defaults, in Keras's order), kept as attributes and in its config."""

    _RULE = ()
    _SLOTS = ()

    def _init_rule(self, values):
        for name, value in zip(self._RULE, values):
            setattr(self, name, float(value))

    def build(self, variables):
        for v in variables:
            for name, init in self._SLOTS:
                self.add_variable_from_reference(v, name, init(self) if callable(init) else init)
        super().build(variables)

    def get_config(self):
        config = super().get_config()
        config.update({name: getattr(self, name) for name in self._RULE})
        return config


_COMMON = ("weight_decay", "clipnorm", "clipvalue", "global_clipnorm", "name")


def _common(local):
    return {k: local[k] for k in _COMMON}


@serializable(_MODULE)
class Adamax(_Rule):
    """Adamax, Keras 3's rule: `m += (g - m) * (1 - beta_1)`, `u = max(beta_2 * u, |g|)`,
    `var -= lr * m / ((1 - beta_1^t) * (u + epsilon))`.

    >>> tf.keras.optimizers.Adamax().get_config()["beta_2"]
    0.999
    """

    _RULE = ("beta_1", "beta_2", "epsilon")
    _SLOTS = (("momentum", "zeros"), ("norm", "zeros"))

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name=None, **kwargs):
        super().__init__(learning_rate, **_common(locals()), **kwargs)
        self._init_rule((beta_1, beta_2, epsilon))

    def _rule_scalars(self, learning_rate, t):
        return {"alpha": learning_rate / (1 - self.beta_1 ** t)}

    def _update_reads_learning_rate(self):
        return False

    def update_step(self, gradient, variable, learning_rate, slots):
        m, u = slots["momentum"], slots["norm"]
        m.assign_add(ew.mul(ew.sub(gradient, m), 1 - self.beta_1))
        u.assign(ew.maximum(ew.mul(u, self.beta_2), ew.abs(gradient)))
        variable.assign_sub(ew.div(ew.mul(m, self._scalars["alpha"]), ew.add(u, self.epsilon)))


@serializable(_MODULE)
class Adadelta(_Rule):
    """Adadelta, Keras 3's rule: `acc_g = rho * acc_g + (1 - rho) g^2`,
    `d = -sqrt(acc_d + eps) g / sqrt(acc_g + eps)`, `acc_d = rho * acc_d + (1 - rho) d^2`,
    `var += lr * d`.

    >>> tf.keras.optimizers.Adadelta().get_config()["rho"]
    0.95
    """

    _RULE = ("rho", "epsilon")
    _SLOTS = (("accumulated_grad", "zeros"), ("accumulated_delta_var", "zeros"))

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, **_common(locals()), **kwargs)
        self._init_rule((rho, epsilon))

    def update_step(self, gradient, variable, learning_rate, slots):
        acc_g, acc_d = slots["accumulated_grad"], slots["accumulated_delta_var"]
        acc_g.assign(ew.add(ew.mul(acc_g, self.rho), ew.mul(ew.square(gradient), 1 - self.rho)))
        delta = ew.neg(ew.div(ew.mul(ew.sqrt(ew.add(acc_d, self.epsilon)), gradient),
                              ew.sqrt(ew.add(acc_g, self.epsilon))))
        acc_d.assign(ew.add(ew.mul(acc_d, self.rho), ew.mul(ew.square(delta), 1 - self.rho)))
        variable.assign_add(ew.mul(delta, learning_rate))


@serializable(_MODULE)
class Lion(_Rule):
    """Lion, Keras 3's rule: `var -= lr * sign(beta_1 m + (1 - beta_1) g)`, then
    `m = beta_2 m + (1 - beta_2) g`.

    >>> tf.keras.optimizers.Lion().get_config()["beta_2"]
    0.99
    """

    _RULE = ("beta_1", "beta_2")
    _SLOTS = (("momentum", "zeros"),)

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, **_common(locals()), **kwargs)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(f"Argument `beta_1` must be in the [0, 1] range. Otherwise, the "
                             f"optimizer degenerates to SignSGD. Received: beta_1={beta_1}.")
        self._init_rule((beta_1, beta_2))

    def update_step(self, gradient, variable, learning_rate, slots):
        m = slots["momentum"]
        direction = ew.sign(ew.add(ew.mul(m, self.beta_1), ew.mul(gradient, 1 - self.beta_1)))
        variable.assign_sub(ew.mul(direction, learning_rate))
        m.assign(ew.add(ew.mul(m, self.beta_2), ew.mul(gradient, 1 - self.beta_2)))


@serializable(_MODULE)
class Nadam(_Rule):
    """Nadam, Keras 3's rule: Adam's moments with Nesterov momentum under the schedule
    `u_t = beta_1 (1 - 0.96^t / 2)`; the running product of the u_t is its own variable
    (last in `variables`, as Keras's), assigned from the host at each step.

    >>> tf.keras.optimizers.Nadam().get_config()["epsilon"]
    1e-07
    """

    _RULE = ("beta_1", "beta_2", "epsilon")
    _SLOTS = (("momentum", "zeros"), ("velocity", "zeros"))

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name=None, **kwargs):
        super().__init__(learning_rate, **_common(locals()), **kwargs)
        self._init_rule((beta_1, beta_2, epsilon))
        self._products = [1.0]  # the product of u_1 .. u_t at index t, as far as computed

    def build(self, variables):
        from .. import backend
        from ..variables import KerasVariable
        super().build(variables)
        if getattr(self, "_u_product", None) is None:
            with backend.name_scope(self.name):
                self._u_product = KerasVariable(1.0, shape=(),
                                                trainable=False, name="variable")
            self._slot_order.append(self._u_product)

    def _u(self, t):
        return self.beta_1 * (1.0 - 0.5 * 0.96 ** t)

    def _product(self, t):
        while len(self._products) <= t:
            self._products.append(self._products[-1] * self._u(len(self._products)))
        return self._products[t]

    def _rule_scalars(self, learning_rate, t):
        product = self._product(t)
        u_t, u_next = self._u(t), self._u(t + 1)
        return {"m_scale": u_next / (1 - product * u_next),
                "g_scale": (1 - u_t) / (1 - product),
                "v_scale": 1 / (1 - self.beta_2 ** t)}

    def update_step(self, gradient, variable, learning_rate, slots):
        s = self._scalars
        m, v = slots["momentum"], slots["velocity"]
        m.assign_add(ew.mul(ew.sub(gradient, m), 1 - self.beta_1))
        v.assign_add(ew.mul(ew.sub(ew.square(gradient), v), 1 - self.beta_2))
        m_hat = ew.add(ew.mul(m, s["m_scale"]), ew.mul(gradient, s["g_scale"]))
        v_hat = ew.mul(v, s["v_scale"])
        variable.assign_sub(ew.div(ew.mul(m_hat, learning_rate),
                                   ew.add(ew.sqrt(v_hat), self.epsilon)))

    def _count_step(self):
        super()._count_step()
        self._u_product.assign(_host_scalar(self._product(self._step_count())))


@serializable(_MODULE)
class Ftrl(_Rule):
    """FTRL-proximal, Keras 3's rule (accumulator from initial_accumulator_value, linear
    from 0; l1, l2, l2-shrinkage and beta as Keras's)."""

    _RULE = ("learning_rate_power", "initial_accumulator_value",
             "l1_regularization_strength", "l2_regularization_strength",
             "l2_shrinkage_regularization_strength", "beta")
    _SLOTS = (("accumulator", lambda self: _constant(self.initial_accumulator_value)),
              ("linear", "zeros"))

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, **_common(locals()), **kwargs)
        if learning_rate_power > 0.0:
            raise ValueError(f"`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        for arg in ("initial_accumulator_value", "l1_regularization_strength",
                    "l2_regularization_strength", "l2_shrinkage_regularization_strength"):
            _nonnegative(arg, locals()[arg])
        self._init_rule((learning_rate_power, initial_accumulator_value,
                         l1_regularization_strength, l2_regularization_strength,
                         l2_shrinkage_regularization_strength, beta))

    def update_step(self, gradient, variable, learning_rate, slots):
        accum, linear = slots["accumulator"], slots["linear"]
        power = -self.learning_rate_power
        l2 = ew.add(ew.div(self.beta / 2.0, learning_rate), self.l2_regularization_strength)
        grad = ew.add(gradient, ew.mul(variable, 2 * self.l2_shrinkage_regularization_strength))
        new_accum = ew.add(accum, ew.square(gradient))
        scaled = ew.pow(new_accum, power)
        sigma = ew.div(ew.sub(scaled, ew.pow(accum, power)), learning_rate)
        linear.assign_add(ew.sub(grad, ew.mul(sigma, variable)))
        quadratic = ew.add(ew.div(scaled, learning_rate), ew.mul(l2, 2.0))
        l1 = self.l1_regularization_strength
        clipped = ew.minimum(ew.maximum(linear, -l1), l1)
        variable.assign(ew.div(ew.sub(clipped, linear), quadratic))
        accum.assign(new_accum)


def _constant(value):
    from ..initializers import Constant
    return Constant(value)


def _nonnegative(name, value):
    if value < 0.0:
        raise ValueError(f"`{name}` needs to be positive or zero. Received: {name}={value}.")
