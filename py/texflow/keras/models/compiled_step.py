"""fit's, evaluate's and predict's step through `tf.function`, as Keras runs it.

Keras compiles its train, test and predict steps with `tf.function` unless
`model.compile(run_eagerly=True)` (or `model.run_eagerly = True`, or
`tf.config.run_functions_eagerly(True)`) says otherwise. Here the step (under a
strategy, the worker's whole step: every replica's share, the gradients' sum and
the update) is traced once per batch signature and replayed after that, so a
short last batch traces once, not once per epoch.

The very first call runs eagerly: it builds what the step creates lazily (the
model's weights, the optimizer's slots, the metrics' state), since a traced call
must find every variable it uses already made. A step that reads a traced value
on the host (a layer with a data-dependent Python `if`) cannot be traced: it
warns once, naming why, and that step then runs eagerly, as before.
"""

import warnings

from ...autodiff import function as functions
from ...engine import scope as scopes
from ...errors import OperatorNotAllowedInGraphError


class CompiledStep:
    """`step(data)` run eagerly or through a tf.function (see the module docstring).

    Attributes: `function` (the tf.function), `eager_reason` (why tracing was given
    up, or None).
    """

    def __init__(self, model, step, name):
        self.model = model
        self.step = step
        step.__name__ = name
        self.function = functions.function(step)
        self.eager_reason = None
        self._calls = 0

    @property
    def tracing_count(self):
        """How many times the step was traced."""
        return self.function.experimental_get_tracing_count()

    def _eager(self):
        return (self._calls == 0 or self.eager_reason is not None or
                getattr(self.model, "run_eagerly", False) or functions.RUN_EAGERLY[0])

    def __call__(self, data):
        eager = self._eager()
        self._calls += 1
        if eager:
            return self.step(data)
        try:
            return self.function(data)
        except OperatorNotAllowedInGraphError as e:
            self.eager_reason = str(e)
            warnings.warn(f"{self.step.__name__} of model {self.model.name!r} cannot be "
                          f"traced by tf.function, so it runs eagerly: {e}", stacklevel=3)
            return self.step(data)


def step_function(model, step, kind, distributed=None):
    """The function fit ("train"), evaluate ("test") or predict ("predict") calls per
    batch: `step` (which runs inside its own scope) compiled, or under a strategy
    `distributed(step, compile)`, the strategy's step with its per-worker part compiled.
    Compiled steps are kept in `model._compiled_steps[kind]`."""
    def compile(fn):
        compiled = CompiledStep(model, fn, f"{kind}_function")
        model._compiled_steps = dict(getattr(model, "_compiled_steps", None) or {})
        model._compiled_steps[kind] = compiled
        return compiled

    run = compile(step) if distributed is None else distributed(step, compile)
    return lambda data: scopes.scope(lambda: run(data))
