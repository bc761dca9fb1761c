"""`tf.cond` and `tf.while_loop`, eagerly and inside `tf.function`.

Eagerly (and inside a trace, when the predicate is a Python value or a tensor
from outside the trace) the predicate is read and Python runs the chosen
branch or loops, as TensorFlow's eager mode does. Inside a trace a predicate
computed from traced values is unknown until a call runs, so:

- `cond` traces both branches and selects each output with `tf.where`; the
  branches must be free of side effects (Variable assignments, random draws,
  printing), which would otherwise happen on both paths;
- `while_loop` needs `maximum_iterations` (a Python int): the body is traced
  that many times, each iteration's new values taken only where the condition
  still holds; without it the loop cannot be traced and raises.
"""

from ..engine import trace
from ..engine.ndarray import NDArray
from ..errors import OperatorNotAllowedInGraphError
from ..ops import elementwise as ew


def _traced_predicate(pred):
    tracer = trace.active()
    return tracer is not None and isinstance(pred, NDArray) and (
        tracer.is_traced(pred) or getattr(pred, "_traced_as_state", False))


def cond(pred, true_fn=None, false_fn=None, name=None):
    """`true_fn()` if `pred` else `false_fn()` (tf.cond); see the module docstring.

    >>> tf.cond(tf.constant(2.0) > 1.0, lambda: 1.0, lambda: 0.0)
    1.0
    """
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError(f"cond: true_fn and false_fn must be callable, received "
                        f"{true_fn!r} and {false_fn!r}")
    if not _traced_predicate(pred):
        return true_fn() if bool(pred) else false_fn()
    return _select(pred, _pure(true_fn, "cond"), _pure(false_fn, "cond"))


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` (tf.while_loop).

    >>> tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), [0])
    [3]
    """
    single = not isinstance(loop_vars, (list, tuple))
    values = [loop_vars] if single else list(loop_vars)
    step = 0
    while maximum_iterations is None or step < maximum_iterations:
        test = cond(*values)
        if _traced_predicate(test):
            return _masked_loop(cond, body, values, test, maximum_iterations, step, single)
        if not bool(test):
            break
        values = _as_list(body(*values))
        step += 1
    return values[0] if single else type(loop_vars)(values)


def _masked_loop(cond, body, values, test, maximum_iterations, step, single):
    if not isinstance(maximum_iterations, int):
        raise OperatorNotAllowedInGraphError(
            "tf.while_loop with a condition computed from traced tensors cannot be traced "
            "by texflow's tf.function without `maximum_iterations` (a Python int): give "
            "one, or loop in Python over Python values (unrolled at trace time).")
    while True:
        new = _as_list(_pure(lambda: body(*values), "while_loop"))
        values = [ew.where(test, n, v) for n, v in zip(new, values)]
        step += 1
        if step >= maximum_iterations:
            break
        test = ew.logical_and(test, cond(*values))
    return values[0] if single else values


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _pure(fn, what):
    tracer = trace.active()
    first = len(tracer.steps)
    result = fn()
    if any(step[0] in ("assign", "host") for step in tracer.steps[first:]):
        raise OperatorNotAllowedInGraphError(
            f"tf.{what} on a traced predicate runs every branch and selects the results, so "
            "its branches must not assign Variables, draw random numbers or print; move "
            "those out of the branch.")
    return result


def _select(pred, a, b):
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            raise ValueError(f"cond: the branches return different structures: {a!r} and "
                             f"{b!r}")
        return type(a)(_select(pred, x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or set(a) != set(b):
            raise ValueError("cond: the branches return dicts with different keys")
        return {k: _select(pred, a[k], b[k]) for k in a}
    return ew.where(pred, a, b)
