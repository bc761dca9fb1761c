"""`tf.cond` and `tf.while_loop`, eagerly and inside `tf.function`.

Eagerly (and inside a trace, when the predicate is a Python value or a tensor
the same at every call: from outside the trace, or computed from constants) the
predicate is read and Python runs the chosen branch or loops, as TensorFlow's
eager mode does. Inside a trace a predicate computed from traced values is
unknown until a call runs, so:

- `cond` traces both branches and selects each output with `tf.where`; the
  branches must be free of side effects (Variable assignments, random draws,
  printing), which would otherwise happen on both paths;
- `while_loop` needs `maximum_iterations` (a Python int): the body is traced
  that many times, each iteration's new values taken only where the condition
  still holds; without it the loop cannot be traced and raises.
"""

import numpy as np

from ..engine import trace
from ..engine.nest import assert_same_structure, flatten, map_structure
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from ..ops import creation, movement, reduce
from ..ops import elementwise as ew
from . import tensor_array


def _traced_predicate(pred):
    """Whether `pred` differs per call of the function being traced; one the same at every
    call (computed from constants: a loop counter started at tf.constant(0)) is read."""
    tracer = trace.active()
    if tracer is None or not isinstance(pred, NDArray):
        return False
    if getattr(pred, "_traced_as_state", False):
        return True
    return tracer.is_traced(pred) and trace.known_value(pred) is None


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
        guards = tensor_array.GUARDS
        guards.append(ew.logical_and(guards[-1], test) if guards else test)
        try:
            new = _as_list(_pure(lambda: body(*values), "while_loop"))
        finally:
            tensor_array.GUARDS.pop()
        values = [n._select(test, v) if isinstance(n, tensor_array.TensorArray) else
                  ew.where(test, n, v) for n, v in zip(new, values)]
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
    if any(step[0] == "assign" or step[0] == "host" and not getattr(step[1], "pure", False)
           for step in tracer.steps[first:]):
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
    if isinstance(a, tensor_array.TensorArray):
        return a._select(pred, b)
    return ew.where(pred, a, b)


def _branch_structures(outs, what):
    """TypeError unless every branch returns one structure of one dtypes (TensorFlow's
    rule for a traced switch_case/case); the outputs as tensors."""
    outs = [map_structure(_tensor, o) for o in outs]
    for i, o in enumerate(outs[1:], 1):
        try:
            assert_same_structure(outs[0], o)
            same = all(a.dtype == b.dtype for a, b in zip(flatten(outs[0]), flatten(o)))
        except (ValueError, TypeError):
            same = False
        if not same:
            raise TypeError(f"branches[0] and branches[{i}] arguments to tf.{what} must have "
                            "the same number, type, and overall structure of return values.")
    return outs


def _tensor(v):
    return v if isinstance(v, NDArray) else creation.convert_to_tensor(v)


def _select_chain(preds, outs, fallback):
    """The first `outs[k]` whose `preds[k]` holds, elementwise by tf.where, else `fallback`."""
    result = fallback
    for pred, out in zip(preds[::-1], outs[::-1]):
        result = map_structure(lambda a, b, p=pred: ew.where(p, a, b), out, result)
    return result


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """`branch_fns[branch_index]()`, or `default()` (else the last branch) when the index is
    out of range (tf.switch_case). With a traced index, as `cond`: every branch traced and
    selected with tf.where.

    >>> tf.switch_case(tf.constant(1), [lambda: 1.0, lambda: 2.0])
    2.0
    """
    if not isinstance(branch_index, NDArray):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got "
                        f"<dtype: '{branch_index.dtype.name}'>")
    fns = _branches(branch_fns)
    if default is None:
        fns, default = fns[:-1], fns[-1]
    if not _traced_predicate(branch_index):
        k = int(branch_index.numpy())
        return fns[k]() if 0 <= k < len(fns) else default()
    outs = _branch_structures([_pure(f, "switch_case") for f in fns + [default]],
                              "switch_case")
    preds = [ew.equal(branch_index, k) for k in range(len(fns))]
    return _select_chain(preds, outs[:-1], outs[-1])


def _branches(branch_fns):
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if isinstance(branch_fns, dict):
        pairs = list(branch_fns.items())
    elif all(callable(f) for f in branch_fns):
        return list(branch_fns)
    else:
        pairs = list(branch_fns)
    for p in pairs:
        if not isinstance(p, tuple) or len(p) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {p}.")
    keys = sorted(k for k, _ in pairs)
    if keys != list(range(len(pairs))):
        found = "{" + ",".join(str(k) for k in keys) + "}"
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(pairs)}) but found {found}")
    return [f for _, f in sorted(pairs, key=lambda p: p[0])]


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The `fn()` of the first `(pred, fn)` whose pred holds, else `default()` (tf.case).
    Without a default the last fn is it, and no pred holding raises InvalidArgumentError.
    With traced predicates, as `cond`: every fn traced and selected with tf.where.
    `exclusive` is not checked (TensorFlow 2.21 returns the first too).

    >>> tf.case([(tf.constant(False), lambda: 1.0)], default=lambda: 2.0)
    2.0
    """
    pairs = list(pred_fn_pairs.items() if isinstance(pred_fn_pairs, dict) else pred_fn_pairs)
    if not pairs:
        raise ValueError("case: pred_fn_pairs needs at least one (pred, fn) pair")
    for pred, fn in pairs:
        if not isinstance(pred, NDArray):
            raise TypeError(f"pred must be a Tensor, got: {pred!r}")
        if pred.dtype != "bool":
            raise TypeError(f"pred must be Tensor of type bool: {pred!r}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred!r} must be callable.")
    preds = [p for p, _ in pairs]
    if default is None:
        every = movement.stack(preds)
        Assert(reduce.reduce_any(every), ["Input error: None of conditions evaluated as True:",
                                          every], summarize=len(preds))
        pairs, default = pairs[:-1], pairs[-1][1]
    if not any(_traced_predicate(p) for p in preds):
        for pred, fn in pairs:
            if bool(pred):
                return fn()
        return default()
    outs = _branch_structures([_pure(f, "case") for _, f in pairs] + [_pure(default, "case")],
                              "case")
    return _select_chain([p for p, _ in pairs], outs[:-1], outs[-1])


def Assert(condition, data, summarize=None, name=None):  # noqa: N802  (TensorFlow's name)
    """InvalidArgumentError listing `data` unless `condition` holds (tf.Assert); inside
    tf.function a check at every call, as TensorFlow's Assert op.

    >>> tf.Assert(tf.constant(True), ["never shown"])
    """
    return _assert(condition, data, summarize)


@trace.check_each_call
def _assert(condition, data, summarize):
    value = condition.numpy() if isinstance(condition, NDArray) else condition
    if bool(value):
        return None
    items = data if isinstance(data, (list, tuple)) else [data]
    raise InvalidArgumentError(f"Expected '{condition!s}' to be true. Summarized data: "
                               + "\n".join(_summarize(d, summarize) for d in items))


def _summarize(x, summarize):
    """TensorFlow's eager summary of one data item: the first `summarize` (3) elements."""
    if isinstance(x, NDArray):
        x = x.numpy()
    elif isinstance(x, str):
        x = np.bytes_(x.encode())
    x = np.asarray(x)
    n = 3 if summarize is None else x.size if summarize < 0 else summarize
    if x.ndim == 0:
        return str(x[()]) if n else ""
    flat = x.reshape(-1)
    return ", ".join([str(v) for v in flat[:n]] + (["..."] if n < flat.size else []))
