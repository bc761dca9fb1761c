"""Optimizers: SGD, Momentum, RMSProp, Adam, Adagrad.

One update rule each, usable from the deeplearn.js Session (`session.train(...,
optimizer)`) and from a GradientTape loop (`optimizer.apply_gradients(zip(grads,
variables))`). The update formulas are TensorFlow 1's `tf.train.*Optimizer`
ones (deeplearn.js used the same). Updates are ops, so they run on the
variables' backend without downloads. Slot state (moments, accumulators) and the
step count can be read with `get_state()` and restored with `set_state()`.
"""

import math

import numpy as np

from ..engine import scope as scopes
from ..engine.trace import traced
from ..errors import ShapeError, TexflowError
from ..ops import elementwise as ew
from .variable import Variable


class Optimizer:
    """Base class: keeps per-variable slots and applies one update rule."""

    slot_names = ()

    def __init__(self, learning_rate):
        if not learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, received {learning_rate!r}")
        self.learning_rate = float(learning_rate)
        self._step = None     # the step count as an int32 Variable, once tf.function traced
        self._iterations = 0
        self._slots = {}  # id(variable) -> (variable, {slot name: Variable})

    @property
    def iterations(self):
        """The number of updates applied (a Python int)."""
        return self._iterations if self._step is None else int(self._step.item())

    @iterations.setter
    def iterations(self, value):
        self._iterations = int(value)
        if self._step is not None:
            self._step.assign(np.int32(value))

    def apply_gradients(self, grads_and_vars):
        """Applies one update to each variable from its gradient; None gradients are skipped.

        Returns the step count after the update.
        """
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        for g, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(f"apply_gradients needs tf.Variables, received "
                                f"{type(v).__name__}")
            if tuple(g.shape) != v.shape:
                raise ShapeError(f"gradient of shape {list(g.shape)} for variable {v.name!r} "
                                 f"of shape {list(v.shape)}")
        if traced():  # tf.function: the count must advance at every replayed call
            if self._step is None:
                self._step = Variable(np.int32(self._iterations), trainable=False,
                                      name="iterations")
            self._step.assign_add(1)
        else:
            self.iterations += 1
        with scopes.scope():  # frees the update's intermediates; variables are kept
            for g, v in pairs:
                self._update(v, g, self._slots_for(v))
        return self._step if traced() else self.iterations

    def minimize(self, loss_fn, var_list):
        """Computes `loss_fn()` under a tape and applies its gradients; returns the loss."""
        from .gradient_tape import GradientTape

        with GradientTape() as tape:
            loss = loss_fn()
        grads = tape.gradient(loss, list(var_list))
        self.apply_gradients(zip(grads, var_list))
        return loss

    def _slots_for(self, v):
        entry = self._slots.get(id(v))
        if entry is None or entry[0] is not v:
            slots = {name: Variable(np.full(v.shape, self._initial_slot(name), np.float32),
                                    trainable=False, name=f"{v.name}/{name}")
                     for name in self.slot_names}
            entry = self._slots[id(v)] = (v, slots)
        return entry[1]

    def _initial_slot(self, name):
        return 0.0

    def _update(self, v, g, slots):
        raise NotImplementedError("need _update")

    # -- state ----------------------------------------------------------------------

    def get_state(self):
        """{'iterations': step count, 'slots': {variable name: {slot: numpy array}}}."""
        return {"iterations": self.iterations,
                "slots": {v.name: {k: s.numpy() for k, s in slots.items()}
                          for v, slots in self._slots.values()}}

    def set_state(self, state, variables):
        """Restores `get_state()` output for `variables` (matched by name)."""
        self.iterations = int(state["iterations"])
        by_name = {v.name: v for v in variables}
        for name, values in state["slots"].items():
            if name not in by_name:
                raise TexflowError(f"optimizer state has slots for variable {name!r}, which is "
                                   f"not among the variables given: {sorted(by_name)}")
            slots = self._slots_for(by_name[name])
            for key, value in values.items():
                slots[key].assign(np.asarray(value, np.float32))


class SGDOptimizer(Optimizer):
    """var -= learning_rate * grad."""

    def _update(self, v, g, slots):
        v.assign_sub(ew.mul(g, self.learning_rate))


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= learning_rate * accum (or Nesterov)."""

    slot_names = ("momentum",)

    def __init__(self, learning_rate, momentum=0.9, use_nesterov=False):
        super().__init__(learning_rate)
        self.momentum = float(momentum)
        self.use_nesterov = use_nesterov

    def _update(self, v, g, slots):
        accum = slots["momentum"]
        accum.assign(ew.add(ew.mul(accum, self.momentum), g))
        step = ew.add(g, ew.mul(accum, self.momentum)) if self.use_nesterov else accum
        v.assign_sub(ew.mul(step, self.learning_rate))


class RMSPropOptimizer(Optimizer):
    """ms = decay * ms + (1 - decay) * grad^2; mom = momentum * mom + lr * grad /
    sqrt(ms + epsilon); var -= mom."""

    slot_names = ("rms", "momentum")

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10):
        super().__init__(learning_rate)
        self.decay, self.momentum, self.epsilon = float(decay), float(momentum), float(epsilon)

    def _initial_slot(self, name):
        return 1.0 if name == "rms" else 0.0  # TensorFlow 1 starts the mean square at 1

    def _update(self, v, g, slots):
        ms, mom = slots["rms"], slots["momentum"]
        ms.assign(ew.add(ew.mul(ms, self.decay), ew.mul(ew.square(g), 1.0 - self.decay)))
        scaled = ew.mul(ew.mul(g, ew.rsqrt(ew.add(ms, self.epsilon))), self.learning_rate)
        mom.assign(ew.add(ew.mul(mom, self.momentum), scaled))
        v.assign_sub(mom)


class AdamOptimizer(Optimizer):
    """Adam (Kingma and Ba) with TensorFlow 1's bias-corrected step size."""

    slot_names = ("m", "v")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
        super().__init__(learning_rate)
        self.beta1, self.beta2, self.epsilon = float(beta1), float(beta2), float(epsilon)

    def _update(self, v, g, slots):
        if traced():  # tf.function: the step count is read when the step runs
            t = ew.cast(self._step, "float32")
            lr_t = ew.div(ew.mul(ew.sqrt(ew.sub(1.0, ew.pow(self.beta2, t))),
                                 self.learning_rate), ew.sub(1.0, ew.pow(self.beta1, t)))
        else:
            t = self.iterations
            lr_t = self.learning_rate * math.sqrt(1 - self.beta2 ** t) / (1 - self.beta1 ** t)
        m, s = slots["m"], slots["v"]
        m.assign(ew.add(ew.mul(m, self.beta1), ew.mul(g, 1 - self.beta1)))
        s.assign(ew.add(ew.mul(s, self.beta2), ew.mul(ew.square(g), 1 - self.beta2)))
        v.assign_sub(ew.mul(ew.div(m, ew.add(ew.sqrt(s), self.epsilon)), lr_t))


class AdagradOptimizer(Optimizer):
    """accum += grad^2; var -= learning_rate * grad / sqrt(accum)."""

    slot_names = ("accumulator",)

    def __init__(self, learning_rate, initial_accumulator_value=0.1):
        super().__init__(learning_rate)
        self.initial_accumulator_value = float(initial_accumulator_value)

    def _initial_slot(self, name):
        return self.initial_accumulator_value

    def _update(self, v, g, slots):
        accum = slots["accumulator"]
        accum.assign(ew.add(accum, ew.square(g)))
        v.assign_sub(ew.mul(ew.mul(g, ew.rsqrt(accum)), self.learning_rate))
