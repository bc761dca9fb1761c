"""`tf.keras.optimizers.schedules`: learning rates that change with the step.

A schedule is called with the optimizer's step count (an int, before the
step's update) and returns the learning rate as a Python float; optimizers
evaluate it on the host each step, so no device work is needed for it.
"""

import math

from ..serialization import deserialize_keras_object, serializable, serialize_keras_object

_MODULE = "keras.optimizers.schedules"


@serializable(_MODULE)
class LearningRateSchedule:
    """Base class: `schedule(step)` returns the learning rate at `step`.

    >>> class Halving(tf.keras.optimizers.schedules.LearningRateSchedule):
    ...     def __call__(self, step):
    ...         return 0.1 / 2 ** (step // 100)
    >>> Halving()(250)
    0.025
    """

    def __call__(self, step):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(step)")

    def get_config(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_config()")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _StepDecay(LearningRateSchedule):
    """A rate decaying with step / decay_steps (floored when `staircase`)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name=None):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: "
                             f"decay_steps={decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps, self.decay_rate = decay_steps, decay_rate
        self.staircase, self.name = staircase, name or type(self).__name__

    def _progress(self, step):
        p = float(step) / self.decay_steps
        return math.floor(p) if self.staircase else p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


@serializable(_MODULE)
class ExponentialDecay(_StepDecay):
    """initial_learning_rate * decay_rate ** (step / decay_steps) (the exponent floored
    when `staircase`).

    >>> s = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    >>> s(0), s(10), s(20)
    (0.1, 0.05, 0.025)
    """

    def __call__(self, step):
        return float(self.initial_learning_rate) * float(self.decay_rate) ** self._progress(step)


@serializable(_MODULE)
class PiecewiseConstantDecay(LearningRateSchedule):
    """values[i] while boundaries[i-1] < step <= boundaries[i].

    >>> s = tf.keras.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    >>> s(10), s(11), s(21)
    (1.0, 0.5, 0.1)
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(f"The length of boundaries should be 1 less than the length of "
                             f"values. Received: boundaries={boundaries} of length "
                             f"{len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        for boundary, value in zip(self.boundaries, self.values):
            if step <= boundary:
                return float(value)
        return float(self.values[-1])

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


@serializable(_MODULE)
class InverseTimeDecay(_StepDecay):
    """initial_learning_rate / (1 + decay_rate * step / decay_steps).

    >>> tf.keras.optimizers.schedules.InverseTimeDecay(0.1, 10, 1.0)(10)
    0.05
    """

    def __call__(self, step):
        return float(self.initial_learning_rate) / (
            1.0 + float(self.decay_rate) * self._progress(step))


@serializable(_MODULE)
class PolynomialDecay(LearningRateSchedule):
    """Decays from initial_learning_rate to end_learning_rate over decay_steps along
    (1 - step / decay_steps) ** power (then stays at the end, unless `cycle`).

    >>> tf.keras.optimizers.schedules.PolynomialDecay(0.1, 10, 0.0)(5)
    0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name="PolynomialDecay"):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power = end_learning_rate, power
        self.cycle, self.name = cycle, name

    def __call__(self, step):
        step, steps = float(step), float(self.decay_steps)
        if self.cycle:
            steps = steps * max(1.0, math.ceil(step / steps)) if step > 0 else steps
        else:
            step = min(step, steps)
        fraction = (1.0 - step / steps) ** self.power
        return ((float(self.initial_learning_rate) - self.end_learning_rate) * fraction +
                self.end_learning_rate)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


@serializable(_MODULE)
class CosineDecay(LearningRateSchedule):
    """Cosine decay from initial_learning_rate to alpha * initial over decay_steps (after
    an optional linear warmup to warmup_target over warmup_steps).

    >>> tf.keras.optimizers.schedules.CosineDecay(0.1, 10)(10)
    0.0
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.alpha, self.name = alpha, name
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps

    def __call__(self, step):
        step = float(step)
        initial = float(self.initial_learning_rate)
        if self.warmup_target is not None and step < self.warmup_steps:
            return initial + (self.warmup_target - initial) * step / self.warmup_steps
        target = self.warmup_target if self.warmup_target is not None else initial
        step = min(step - self.warmup_steps, self.decay_steps)
        cosine = 0.5 * (1.0 + math.cos(math.pi * step / self.decay_steps))
        return target * ((1.0 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


def serialize(schedule):
    return serialize_keras_object(schedule)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, custom_objects, what="learning rate schedule")
