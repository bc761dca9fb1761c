"""`tf.custom_gradient`: a function that states its own gradient, as TensorFlow 2's.

The decorated `f(*args)` returns `(y, grad_fn)`. Its ops are recorded as any
(so grad_fn's ops, which read them, have gradients of their own); each output is
then a copy of f's (an identity view) whose only producer on the GradientTapes
is one entry whose inputs are f's tensor arguments and the trainable Variables f read,
and whose gradient is `grad_fn`: called with one upstream gradient per output
(zeros for outputs the target does not use), it returns one gradient per
argument, and with `variables=` (which it must accept when f read Variables)
also one per Variable, as TensorFlow's. grad_fn's ops are recorded by outer
tapes, so higher-order gradients flow through them.

grad_fn is Python closing over f's values, which a replayed trace cannot
refresh: a tf.function whose trace ran a custom_gradient function runs its
Python function eagerly when a GradientTape is recording the call (a tape
inside the tf.function, the usual training step, traces grad_fn and replays).
"""

import functools
import inspect

from ..engine import scope as scopes
from ..engine import trace
from ..engine.nest import flatten, pack_as
from ..engine.ndarray import NDArray
from ..engine.registry import OpDef
from ..ops.elementwise import stop_gradient
from .gradient_tape import GradientTape
from .variable import Variable


class _Recorders:
    """While f runs: watches the trainable Variables its ops read. While its outputs are
    copied (`untaped`): takes the GradientTapes off the recorders, so that the copies'
    only producer on a tape is the custom entry."""

    def __init__(self, untaped=False):
        self.untaped = untaped
        self.variables = {}

    def _watch(self, op, inputs, attrs, result):
        for x in inputs:
            if isinstance(x, Variable) and x.trainable:
                self.variables.setdefault(id(x), x)

    def __enter__(self):
        active = scopes.recorders()
        self.tapes = [r for r in active if self.untaped and isinstance(
            getattr(r, "__self__", None), GradientTape)]
        for r in self.tapes:
            active.remove(r)
        active.append(self._watch)
        return self

    def __exit__(self, *exc):
        active = scopes.recorders()
        active.remove(self._watch)
        active.extend(self.tapes)
        return False


def _accepts_variables(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" and p.kind != p.VAR_POSITIONAL or p.kind == p.VAR_KEYWORD
               for p in params)


def _call(f, args, kwargs):
    from ..ops.array_ops import identity
    from ..ops.creation import convert_to_tensor

    with _Recorders() as watcher:
        result, grad_fn = f(*args, **kwargs)
    inputs = [x if isinstance(x, NDArray) else convert_to_tensor(x) for x in flatten(args)]
    arg_count = len(inputs)
    variables = [v for v in watcher.variables.values() if all(v is not x for x in inputs)]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument "
                        f"'variables', since function uses variables: {variables}")
    with _Recorders(untaped=True):
        flat = [identity(y) if isinstance(y, NDArray) else y for y in flatten(result)]
    outputs = tuple(y for y in flat if isinstance(y, NDArray))
    tracer = trace.active()
    if tracer is not None:
        tracer.custom_gradients = True  # see the module docstring

    def grad(dy, op_inputs, op_outputs, attrs):
        from ..ops.creation import zeros_like

        dys = list(dy) if len(outputs) > 1 else [dy]
        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, outputs)]
        if variables:
            input_grads, variable_grads = grad_fn(*dys, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from "
                                 "@custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*dys), []
        input_grads = flatten(input_grads)
        if len(input_grads) != arg_count:
            raise ValueError(f"custom_gradient function expected to return {arg_count} "
                             f"gradients, but returned {len(input_grads)} instead.")
        return [g if g is None or isinstance(g, NDArray) else convert_to_tensor(g)
                for g in list(input_grads) + list(variable_grads)]

    op = OpDef(getattr(f, "__name__", "custom_gradient"), None, grad=grad,
               num_outputs=len(outputs))
    entry_inputs = tuple(inputs) + tuple(variables)
    for record in list(scopes.recorders()):
        if isinstance(getattr(record, "__self__", None), GradientTape) and outputs:
            record(op, entry_inputs, {}, outputs if len(outputs) > 1 else outputs[0])
    return pack_as(result, flat)


class _CustomGradient:
    """A custom_gradient function; as a method, bound to its instance (not an input)."""

    def __init__(self, f, instance=None):
        self._f, self._instance = f, instance
        functools.update_wrapper(self, f)

    def __call__(self, *args, **kwargs):
        if self._instance is None:
            return _call(self._f, args, kwargs)
        return _call(functools.partial(self._f, self._instance), args, kwargs)

    def __get__(self, instance, owner=None):
        return self if instance is None else _CustomGradient(self._f, instance)


def custom_gradient(f=None):
    """Decorates `f(*x)`, which returns `(y, grad_fn)`, so that gradients of `y` are
    `grad_fn(*upstream)` (one gradient per tensor argument) instead of those of f's ops;
    if f reads trainable Variables, grad_fn must take `variables=` and return
    `(input gradients, variable gradients)`. See the module docstring.

    >>> @tf.custom_gradient
    ... def clip_gradient(x):
    ...     return tf.identity(x), lambda dy: tf.clip_by_value(dy, -0.5, 0.5)
    >>> x = tf.constant([1.0, 2.0])
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = tf.reduce_sum(clip_gradient(x) * 3.0)
    >>> tape.gradient(y, x).tolist()
    [0.5, 0.5]
    """
    if f is None:
        return custom_gradient
    return _CustomGradient(f)


def recompute_grad(f):
    """`f` as TensorFlow's `tf.recompute_grad(f)` returns it: the same values and gradients.

    TensorFlow recomputes f's forward pass in the backward pass to save memory; texflow's
    GradientTape keeps f's intermediate values as for any function (no memory saved).
    As in TensorFlow, gradients flow to the positional arguments (and Variables), not to
    tensors passed by keyword.

    >>> tf.recompute_grad(lambda x: x * x)(tf.constant(3.0))
    <tf.Tensor: shape=(), dtype=float32, numpy=9.0>
    """
    @functools.wraps(f)
    def inner(*args, **kwargs):
        kwargs = {k: stop_gradient(v) if isinstance(v, NDArray) else v
                  for k, v in kwargs.items()}
        return f(*args, **kwargs)
    return inner
