"""`tf.py_function` and `tf.numpy_function`: Python code in a TensorFlow program.

Eagerly both call `func` now: py_function with tensors, numpy_function with numpy arrays.
Inside `tf.function` the call is host code (engine/trace.py `host_call`): every call of
the function runs `func` again on that call's values. A trace has static shapes, so each
result keeps the shape and dtype of the traced call's: a later call whose `func` returns
another raises InvalidArgumentError naming both (TensorFlow's results may change shape
from call to call). `get_concrete_function` runs func once, at zeros, to learn those
shapes (TensorFlow's tracing runs no func).

Gradients, as TensorFlow's EagerPyFunc: under a GradientTape (eagerly, or inside
tf.function) py_function runs func on a tape of its own, and the recording tapes see one
op from `inp` to the results, whose gradient is that tape's gradient toward `inp` (zeros
for an input func does not use; none toward Variables func reads). Inside tf.function the
backward pass is host code too: each call's gradient comes from that call's func tape, so
func runs once per call. numpy_function has no gradient (None), as in TensorFlow.
"""

import functools

from . import dtypes
from .autodiff.gradient_tape import GradientTape, _outer_tapes
from .engine import scope as scopes
from .engine import trace
from .engine.ndarray import NDArray
from .engine.registry import OpDef
from .errors import InvalidArgumentError, UnknownError
from .ops import array_ops, creation


def _need_tout(Tout, name):
    if Tout is None:
        raise TypeError(f"Missing required argument: 'Tout'\n  If using tf.{name} as a "
                        f"decorator, set `Tout`\n  **by name** above the function:\n"
                        f"  `@tf.{name}(Tout=tout)`")


def _results(value, count):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [] if value is None and count == 0 else [value]


def _py_call(func, touts):
    def call(*args):
        try:
            outs = _results(func(*args), len(touts))
        except Exception as e:  # noqa: BLE001  (TensorFlow reports it as UnknownError)
            raise UnknownError(f"{type(e).__name__}: {e}") from e
        if len(outs) < len(touts):
            raise InvalidArgumentError(f"py_function returns {len(outs)} values, but expects "
                                       f"to see {len(touts)} values.")
        converted = []
        for want, v in zip(touts, outs):
            if isinstance(v, NDArray) and v.dtype != dtypes.device_dtype(want):
                raise InvalidArgumentError(f"ValueError: Tensor conversion requested dtype "
                                           f"{want.name} for Tensor with dtype "
                                           f"{v.dtype.name}: {v!r}")
            converted.append(creation.convert_to_tensor(v, dtype=want))
        return converted
    return call


def _numpy_call(func, touts, checked):
    def call(*args):
        value = func(*[a.numpy() for a in args])
        if not checked:  # eagerly TensorFlow converts what func returns, as it is
            if value is None:
                return None
            if isinstance(value, (list, tuple)):
                return [creation.convert_to_tensor(v) for v in value]
            return creation.convert_to_tensor(value)
        outs = [creation.convert_to_tensor(v) for v in _results(value, len(touts))]
        if len(outs) != len(touts):
            raise InvalidArgumentError(f"numpy_function returns {len(outs)} values, but "
                                       f"expects to see {len(touts)} values.")
        for i, (want, v) in enumerate(zip(touts, outs)):
            if v.dtype != dtypes.device_dtype(want):
                raise InvalidArgumentError(f"{i}-th value returned by numpy_function is "
                                           f"{v.dtype.name}, but expects {want.name}")
        return outs
    return call


def _traced(call, inp, what):
    """`call(*inp)` as host code of the trace; its replays keep the traced results' shapes
    and dtypes."""
    traced = []

    def host(*args):
        outs = call(*args)
        for i, (v, (shape, dtype)) in enumerate(zip(outs, traced)):
            if v.shape != shape or v.dtype != dtype:
                raise InvalidArgumentError(
                    f"tf.{what} inside tf.function: result {i} has shape {list(v.shape)} "
                    f"and dtype {v.dtype.name} at this call, the traced call's had shape "
                    f"{list(shape)} and dtype {dtype.name} (texflow's traces have static "
                    "shapes: call it eagerly, or pad the result to one shape)")
        return outs
    outs = trace.host_call(host, *inp)
    traced[:] = [(v.shape, v.dtype) for v in outs]
    return outs


def _float(x):
    return isinstance(x, NDArray) and x.dtype == "float32"


def _differentiable(call, keep):
    """py_function's `call` as TensorFlow's EagerPyFunc: under GradientTapes it runs on a
    tape of its own, and those tapes record one op whose gradient is that tape's. `keep`
    (a trace made under a tape): every call keeps its tape, for the trace's backward pass,
    which replays as host code reading the latest call's tape."""
    latest = [None]

    def forward(*args):
        tapes = _outer_tapes()
        if not tapes and not keep:
            return call(*args)
        seen = set()  # an input passed twice is two inputs, each with its own gradient
        args = [array_ops.identity(a) if id(a) in seen or seen.add(id(a)) else a
                for a in args]
        with _untaped(), GradientTape(persistent=True) as tape:
            for a in args:
                if _float(a):
                    tape.watch(a)
            outs = call(*args)
        if latest[0] is not None:
            latest[0][0].release()
        stash = latest[0] = (tape, args, outs)

        def grad(dys, inputs, outputs, attrs):
            dys = list(dys) if isinstance(dys, list) else [dys]
            dys = [creation.zeros(y.shape) if d is None and _float(y) else d
                   for d, y in zip(dys, outputs)]
            # a traced backward pass reads, at each replay, that replay's func tape
            own = stash if trace.active() is None else None
            grads = iter(trace.host_call(lambda *d: _backward(own or latest[0], d), *[
                d for d, y in zip(dys, outputs) if _float(y)]))
            return [next(grads) if _float(x) else None for x in inputs]

        op = OpDef("EagerPyFunc", None, grad=grad, num_outputs=None)
        for t in tapes:
            t._record(op, tuple(args), {}, tuple(outs))
        return outs
    return forward


class _untaped:
    """`with _untaped():` the GradientTapes recording now record nothing in the block."""

    def __enter__(self):
        active = scopes.recorders()
        self.saved = list(active)
        active[:] = [r for r in self.saved
                     if not isinstance(getattr(r, "__self__", None), GradientTape)]

    def __exit__(self, *exc):
        scopes.recorders()[:] = self.saved
        return False


def _backward(stash, dys):
    """The gradients toward the float inputs of one func call (its tape in `stash`) given
    `dys` for its float results; zeros toward an input func does not use. Unrecorded: as
    TensorFlow's, they have no gradient themselves (a second order through func is None)."""
    tape, args, outs = stash
    targets = [y for y in outs if _float(y)]
    sources = [a for a in args if _float(a)]
    if not targets:
        return [creation.zeros(a.shape) for a in sources]
    with _untaped():
        grads = tape.gradient(targets, sources, output_gradients=list(dys))
    return [creation.zeros(a.shape) if g is None else g for a, g in zip(sources, grads)]


def _run(func, inp, Tout, name, make):
    _need_tout(Tout, name)
    if inp is None or func is None:  # @tf.py_function(Tout=...) or py_function(f, Tout=...)
        def decorate(fn):
            @functools.wraps(fn)
            def wrapper(*args):
                return _run(fn, list(args), Tout, name, make)
            return wrapper
        return decorate if func is None else decorate(func)
    inp = [creation.convert_to_tensor(x) for x in (
        inp if isinstance(inp, (list, tuple)) else list(inp))]
    single = not isinstance(Tout, (list, tuple))
    touts = [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]
    traced = trace.traced()
    call = make(func, touts, traced)
    if name == "py_function":
        call = _differentiable(call, traced and bool(_outer_tapes()))
    if not traced:
        outs = call(*inp)
        if name == "numpy_function":
            return outs
        return outs[0] if single else outs
    outs = _traced(call, inp, name)
    return outs[0] if single else outs


def py_function(func=None, inp=None, Tout=None, name=None):
    """`func(*inp)` with tensors, its results converted to `Tout` (tf.py_function).

    >>> tf.py_function(lambda a: a * 2, [tf.constant(1.5)], tf.float32)
    <tf.Tensor: shape=(), dtype=float32, numpy=3.0>
    """
    return _run(func, inp, Tout, "py_function", lambda f, t, checked: _py_call(f, t))


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """`func(*inp)` with numpy arrays, its results as tensors (tf.numpy_function).

    >>> tf.numpy_function(lambda a: a * 2, [tf.constant(1.5)], tf.float32)
    <tf.Tensor: shape=(), dtype=float32, numpy=3.0>
    """
    return _run(func, inp, Tout, "numpy_function", _numpy_call)
