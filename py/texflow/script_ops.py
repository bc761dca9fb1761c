"""`tf.py_function` and `tf.numpy_function`: Python code in a TensorFlow program.

Eagerly both call `func` now: py_function with tensors (its ops are recorded by
GradientTape as any, so gradients flow through it, as in TensorFlow), numpy_function with
numpy arrays. Inside `tf.function` the call is host code (engine/trace.py `host_call`):
every call of the function runs `func` again on that call's values. A trace has static
shapes, so each result keeps the shape and dtype of the traced call's: a later call whose
`func` returns another raises InvalidArgumentError naming both (TensorFlow's results may
change shape from call to call). `get_concrete_function` runs func once, at zeros, to
learn those shapes (TensorFlow's tracing runs no func). A GradientTape recording
`func`'s ops inside a trace raises NotImplementedError: the replay runs `func` on the
host, out of the trace's gradient (TensorFlow records it on an eager tape); compute such
gradients eagerly, or write the function with traced ops.
"""

import functools

from . import dtypes
from .autodiff.gradient_tape import _outer_tapes
from .engine import trace
from .engine.ndarray import NDArray
from .errors import InvalidArgumentError, UnknownError
from .ops import creation


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
    tapes = _outer_tapes()
    before = [len(t._entries) for t in tapes]
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
    if any(len(t._entries) > n for t, n in zip(tapes, before)):
        raise NotImplementedError(
            f"tf.{what} inside tf.function under a GradientTape that records its func's "
            "ops: a replay runs func on the host, out of the trace's gradient. Compute "
            "that gradient eagerly (outside tf.function), or write func with traced ops.")
    return outs


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
    if not trace.traced():
        outs = make(func, touts, False)(*inp)
        if name == "numpy_function":
            return outs
        return outs[0] if single else outs
    outs = _traced(make(func, touts, True), inp, name)
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
