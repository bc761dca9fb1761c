"""The Keras optimizer base class: slots, clipping, weight decay, step count,
learning rate (a float, settable, or a schedule), the gradient-aggregation hook."""

import warnings

import numpy as np

from ... import dtypes
from ...autodiff.variable import Variable
from ...checkpoint.state import restore_pending
from ...engine import scope as scopes
from ...engine.ndarray import NDArray, Scalar, Storage
from ...engine.trace import dry, host_call, traced
from ...ops import elementwise as ew
from ...ops import reduce as rd
from ...ops.nn import clip_by_value
from ...tensor_shape import known
from .. import backend
from ..serialization import serializable, serialize_keras_object
from ..variables import KerasVariable
from . import schedules

_MODULE = "keras.optimizers"
_SCALAR = known(())
_ASSIGN = Variable.assign


def _host_scalar(value, dtype=dtypes.float32):
    """A 0-d NDArray of `value` in `dtype` on the host, made directly: a replayed step
    makes its step scalars at every call, and `from_numpy`'s generality costs there."""
    return Scalar(Storage(1, dtype, values=np.array([value], dtypes.NUMPY[dtype])),
                  _SCALAR, dtype)


@serializable(_MODULE)
class Optimizer:
    """Base class of Keras optimizers: slots per variable, clipping, weight decay, a
    step count and a learning rate (a float, settable, or a schedule).

    Subclasses implement `build(variables)` (make slots with
    `add_variable_from_reference`) and `update_step(gradient, variable, learning_rate)`.

    >>> class Sign(tf.keras.optimizers.Optimizer):
    ...     def update_step(self, gradient, variable, learning_rate, slots):
    ...         variable.assign_sub(tf.sign(gradient) * learning_rate)
    >>> v = tf.Variable([1.0])
    >>> _ = Sign(0.5).apply_gradients([(tf.constant([3.0]), v)])
    >>> v.numpy()
    array([0.5], dtype=float32)
    """

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if "lr" in kwargs:
            raise ValueError("Argument `lr` is no longer supported: use `learning_rate`")
        if "decay" in kwargs:
            raise ValueError("Argument `decay` is no longer supported: use a learning rate "
                             "schedule (tf.keras.optimizers.schedules)")
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if use_ema:
            raise ValueError("texflow's optimizers have no exponential moving average "
                             "(use_ema=True)")
        if gradient_accumulation_steps:
            raise ValueError("texflow's optimizers have no gradient accumulation "
                             "(gradient_accumulation_steps)")
        if sum(v is not None for v in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can "
                             f"be set. Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
                             f"global_clipnorm={global_clipnorm}")
        self.name = name or backend.snake_case(type(self).__name__)
        self.weight_decay, self.clipnorm = weight_decay, clipnorm
        self.clipvalue, self.global_clipnorm = clipvalue, global_clipnorm
        self.loss_scale_factor = loss_scale_factor
        # A tf.distribute strategy in effect at creation sums the replicas' gradients
        # (across its workers too) before they are applied; None: applied as they are.
        strategy = backend.distribute_strategy()
        self.gradient_aggregator = None if strategy is None else strategy.extended.\
            _gradient_aggregator(self)
        self.built = False
        self._scalars = None      # during apply: the step's scalars (_step_scalars)
        self._slots = {}          # id(variable) -> (variable, {slot name: KerasVariable})
        self._slot_order = []     # the slot variables in creation order
        self._exclude_ids, self._exclude_names = set(), ()
        with backend.name_scope(self.name):
            self._iterations = KerasVariable(np.int32(0), name="iteration", trainable=False,
                                             dtype="int32")
        self._schedule = None
        self._learning_rate = None
        self._set_learning_rate(learning_rate)

    # -- learning rate and step count -------------------------------------------------

    def _set_learning_rate(self, value):
        if isinstance(value, schedules.LearningRateSchedule) or (
                callable(value) and not isinstance(value, (NDArray, float, int))):
            self._schedule = value
            return
        value = float(value)
        if not value >= 0:
            raise ValueError(f"learning_rate must be a non-negative number or a schedule, "
                             f"received {value}")
        if self._learning_rate is None:
            with backend.name_scope(self.name):
                self._learning_rate = KerasVariable(np.float32(value), name="learning_rate",
                                                    trainable=False)
        else:
            self._learning_rate.assign(np.float32(value))

    @property
    def learning_rate(self):
        """The current learning rate: a variable (settable), or a schedule's value."""
        if self._schedule is not None:
            return np.float32(self._schedule(self._step_count()))
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if self._schedule is not None and not isinstance(value, schedules.LearningRateSchedule):
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object "
                            "as its `learning_rate` constructor argument, hence its learning "
                            "rate is not settable. If you need the learning rate to be "
                            "settable, you should instantiate the optimizer with a float "
                            "`learning_rate` argument.")
        self._set_learning_rate(value)

    lr = learning_rate

    def current_learning_rate(self):
        """The learning rate this step uses, as a Python float."""
        if self._schedule is not None:
            return float(self._schedule(self._step_count()))
        return float(self._host_number(self._learning_rate))

    def _step_count(self):
        return int(self._host_number(self._iterations))

    def _host_number(self, variable):
        """`variable.item()`, remembered with the host array it was read from: a replayed
        step reads the step count and the learning rate at every call, and a host copy
        is never written (assign gives a variable a new one), so the same array holds
        the same number."""
        storage = variable._storage
        values = None if storage is None else storage.values
        # id(variable) -> (host array, its number); made on first use, so also on an
        # optimizer copied or restored without __init__
        read = self.__dict__.setdefault("_read", {})
        last = read.get(id(variable))
        if last is not None and values is not None and last[0] is values:
            return last[1]
        number = variable.item()
        read[id(variable)] = (variable._storage.values, number)
        return number

    @property
    def iterations(self):
        """The number of steps taken (an int32 variable; assign to restore it)."""
        return self._iterations

    # -- variables ---------------------------------------------------------------------

    @property
    def variables(self):
        """The optimizer's state: iteration, learning_rate (without a schedule), slots."""
        out = [self._iterations]
        if self._schedule is None:
            out.append(self._learning_rate)
        return out + list(self._slot_order)

    def build(self, variables):
        """Makes the slots of `variables` (subclasses add theirs, then call this)."""
        for v in variables:
            self._slots.setdefault(id(v), (v, {}))
        self.built = True
        restore_pending(self)  # checkpoint values waiting for these slots

    def add_variable_from_reference(self, reference_variable, name, initializer="zeros"):
        """A slot shaped like `reference_variable`, with path
        '<optimizer>/<variable path with _>_<name>'."""
        from .. import initializers
        path = getattr(reference_variable, "path", reference_variable.name).replace("/", "_")
        with backend.name_scope(self.name):
            slot = KerasVariable(initializers.get(initializer), shape=reference_variable.shape,
                                 dtype=reference_variable.dtype, trainable=False,
                                 name=f"{path}_{name}")
        entry = self._slots.setdefault(id(reference_variable), (reference_variable, {}))
        entry[1][name] = slot
        self._slot_order.append(slot)
        return slot

    def slot(self, variable, name):
        """The slot `name` of `variable` (e.g. 'momentum', 'velocity')."""
        return self._slots[id(variable)][1][name]

    def _slots_of(self, variable):
        entry = self._slots.get(id(variable))
        if entry is None or entry[0] is not variable:  # a variable new to this optimizer
            self._slots.pop(id(variable), None)
            self.build([variable])
            entry = self._slots[id(variable)]
        return entry[1]

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Variables (or names containing any of `var_names`) weight decay skips."""
        if self.built:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before "
                             "the optimizer is built.")
        self._exclude_ids = {id(v) for v in var_list or ()}
        self._exclude_names = tuple(var_names or ())

    # -- applying gradients ----------------------------------------------------------------

    def apply_gradients(self, grads_and_vars):
        """Applies one update to each variable from its gradient; returns the step count.

        None gradients are skipped with a warning (an error if all are None).
        """
        pairs = list(grads_and_vars)
        return self.apply([g for g, _ in pairs], [v for _, v in pairs])

    def apply(self, grads, trainable_variables=None):
        grads = list(grads)
        variables = list(trainable_variables if trainable_variables is not None
                         else [v for v, _ in self._slots.values()])
        if len(grads) != len(variables):
            raise ValueError(f"apply: {len(grads)} gradients for {len(variables)} variables")
        for v in variables:
            if not hasattr(v, "assign"):
                raise TypeError(f"apply_gradients needs variables, received "
                                f"{type(v).__name__}")
        if not self.built:
            self.build(variables)
        pairs = [(g, v) for g, v in zip(grads, variables) if g is not None]
        missing = [getattr(v, "path", v.name) for g, v in zip(grads, variables) if g is None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        if missing:
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing "
                          "the loss. If using `model.compile()`, did you forget to provide a "
                          "`loss` argument?", stacklevel=2)
        for g, v in pairs:
            if tuple(g.shape) != tuple(v.shape):
                raise ValueError(f"gradient of shape {tuple(g.shape)} for variable "
                                 f"{getattr(v, 'path', v.name)} of shape {tuple(v.shape)}")
        if self.gradient_aggregator is not None:
            pairs = self.gradient_aggregator(pairs)
            if pairs is None:  # held for the strategy's last replica, which applies the sum
                return self._iterations
            pairs = list(pairs)
        with scopes.scope():  # frees the update's intermediates; variables are kept
            grads = self._clip([g for g, _ in pairs])
            # The step's scalars come from the host, so that a tf.function's replay
            # computes them as eager execution does (a host call, fresh at every replay)
            # (weight decay's factor only with weight decay: one value less to upload;
            # decided here, so a replay's host call makes what its trace made)
            decay = bool(self.weight_decay)
            scalars = host_call(self._step_scalars, True, decay,
                                self._update_reads_learning_rate()) if traced() \
                else self._step_scalars(False, decay)
            self._scalars = scalars
            lr = scalars.get("learning_rate")  # None: update_step does not read it
            for g, v in zip(grads, [v for _, v in pairs]):
                slots = self._slots_of(v)
                if decay:
                    self._apply_weight_decay(v, scalars["decay"])
                self.update_step(g, v, lr, slots)
                if getattr(v, "constraint", None) is not None:
                    v.assign(v.constraint(v))
            self._scalars = None
        host_call(self._count_step)
        return self._iterations

    def _step_scalars(self, as_tensors=False, decay=True, rate=True):
        """{name: value} of this step's scalars, computed on the host: the learning rate
        (as a tensor only when `rate`), the weight decay factor (when `decay`) and what
        `_rule_scalars` adds; 0-d float32 tensors when `as_tensors`. The step count read
        is a host copy (assigned from the host)."""
        lr = self.current_learning_rate()
        scalars = {"learning_rate": lr}
        if decay:
            scalars["decay"] = float(self.weight_decay or 0.0) * lr
        scalars.update(self._rule_scalars(lr, self._step_count() + 1))
        if as_tensors:
            return {k: _host_scalar(v) for k, v in scalars.items()
                    if rate or k != "learning_rate"}
        return scalars

    def _update_reads_learning_rate(self):
        """Whether `update_step` reads its `learning_rate` argument (a rule that reads
        only its own step scalars says no: one host value less to make per step)."""
        return True

    def _rule_scalars(self, learning_rate, t):
        """Scalars an update rule computes once per step `t` (1 for the first)."""
        return {}

    def _count_step(self):
        count = self._iterations
        storage = count._storage
        value = np.array([self._step_count() + 1], np.int32)
        if (storage.refs == 1 and storage.backend is None and type(count).assign is _ASSIGN
                and not dry()):
            # the usual: the count lives on the host and nothing shares its storage: a new
            # host array in place (what Python read before keeps the old one); not in a
            # get_concrete_function trace, which undoes only assigns
            storage.values = value
            self.__dict__.setdefault("_read", {})[id(count)] = (value, int(value[0]))
        else:
            count.assign(_host_scalar(value[0], dtypes.int32))

    def _clip(self, grads):
        if self.clipnorm:
            return [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm:
            return clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue:
            return [clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def _apply_weight_decay(self, v, decay):
        if not self.weight_decay or id(v) in self._exclude_ids or any(
                n in getattr(v, "name", "") for n in self._exclude_names):
            return
        v.assign_sub(ew.mul(v, decay))

    def update_step(self, gradient, variable, learning_rate, slots):
        raise NotImplementedError(f"{type(self).__name__} must implement update_step")

    def scale_loss(self, loss):
        """`loss * loss_scale_factor` when one is set (else the loss itself)."""
        return ew.mul(loss, float(self.loss_scale_factor)) if self.loss_scale_factor else loss

    def minimize(self, loss_fn, var_list):
        """Computes `loss_fn()` under a GradientTape and applies its gradients."""
        from ...autodiff.gradient_tape import GradientTape
        var_list = list(var_list)
        with GradientTape() as tape:
            loss = loss_fn()
        self.apply_gradients(zip(tape.gradient(loss, var_list), var_list))
        return loss

    # -- state and config --------------------------------------------------------------------

    def get_state(self):
        """{variable path: numpy value} of `variables` (the step count included)."""
        return {v.path: v.numpy() for v in self.variables}

    def set_state(self, state):
        """Restores `get_state()` output; slots must exist (build the optimizer first)."""
        by_path = {v.path: v for v in self.variables}
        unknown = sorted(set(state) - set(by_path))
        if unknown:
            raise ValueError(f"optimizer {self.name!r} has no variables {unknown}; it has "
                             f"{sorted(by_path)} (build it with the model's variables first)")
        for path, value in state.items():
            v = by_path[path]
            value = np.asarray(value)
            if tuple(value.shape) != tuple(v.shape):
                raise ValueError(f"optimizer variable {path} has shape {tuple(v.shape)}, the "
                                 f"state gives shape {tuple(value.shape)}")
        for path, value in state.items():
            by_path[path].assign(np.asarray(value).astype(by_path[path].dtype))

    def get_config(self):
        lr = (serialize_keras_object(self._schedule) if self._schedule is not None
              else float(self._learning_rate.item()))
        return {"name": self.name, "learning_rate": lr, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue, "use_ema": False, "ema_momentum": 0.99,
                "ema_overwrite_frequency": None, "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": None}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects)
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def clip_by_norm(g, clip_norm):
    """g scaled down so its L2 norm is at most clip_norm."""
    norm = ew.sqrt(rd.sum(ew.square(g)))
    return ew.div(ew.mul(g, float(clip_norm)), ew.maximum(norm, float(clip_norm)))


def clip_by_global_norm(grads, clip_norm):
    """Every gradient scaled by clip_norm / max(global norm, clip_norm)."""
    total = None
    for g in grads:
        s = rd.sum(ew.square(g))
        total = s if total is None else ew.add(total, s)
    scale = ew.div(float(clip_norm), ew.maximum(ew.sqrt(total), float(clip_norm)))
    return [ew.mul(g, scale) for g in grads]
