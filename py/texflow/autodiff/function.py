"""`tf.function`: for now, a decorator that runs the function eagerly.

TensorFlow's arguments are accepted (`input_signature`, `reduce_retracing`,
`jit_compile`, `autograph`, ...); an `input_signature` is enforced as
TensorFlow enforces it (arguments converted to its dtypes, incompatible ones
rejected with TypeError), and Python numbers returned by the function come
back as tensors, as from a traced function. Nothing is traced yet, so
`experimental_get_tracing_count()` is 0; a later version compiles the
function into one fused plan per signature (DESIGN.md).
"""

import functools
import inspect

from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..tensor_spec import TensorSpec


class Function:
    """A function decorated with `tf.function` (eager for now; see the module docstring)."""

    def __init__(self, python_function, input_signature=None, **options):
        self._python_function = python_function
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._options = options
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    def experimental_get_tracing_count(self):
        """How many times the function was traced: 0, as texflow runs it eagerly."""
        return 0

    def get_concrete_function(self, *args, **kwargs):
        """This function itself: eager functions have no separate concrete form yet."""
        return self

    def __call__(self, *args, **kwargs):
        return self._call(None, args, kwargs)

    def _call(self, instance, args, kwargs):
        if self._input_signature is not None:
            args, kwargs = self._bind(args, kwargs)
        if instance is not None:
            args = (instance,) + tuple(args)
        return _as_tensors(self._python_function(*args, **kwargs))

    def _bind(self, args, kwargs):
        specs = self._input_signature
        flat = list(args) + list(kwargs.values())
        names = list(kwargs)
        problem = "too many positional arguments" if len(flat) > len(specs) else None
        converted = []
        for value, spec in zip(flat, specs):
            if problem is not None:
                break
            if not isinstance(spec, TensorSpec):
                converted.append(value)
                continue
            tensor = value if isinstance(value, NDArray) else _convert(value, spec)
            if tensor is None or not spec.is_compatible_with(tensor):
                got = TensorSpec.from_tensor(tensor) if tensor is not None else value
                problem = f"Can not cast {got!r} to {spec!r}"
            converted.append(tensor)
        if problem is not None:
            signature = ", ".join(f"{p}: {s!r}" for p, s in zip(self._parameter_names(), specs))
            raise TypeError(f"Binding inputs to tf.function failed due to `{problem}`. "
                            f"Received args: {tuple(args)!r} and kwargs: {kwargs!r} for "
                            f"signature: ({signature}).")
        positional = converted[:len(args)]
        return positional, dict(zip(names, converted[len(args):]))

    def _parameter_names(self):
        try:
            params = list(inspect.signature(self._python_function).parameters)
        except (TypeError, ValueError):
            return [f"arg{i}" for i in range(len(self._input_signature))]
        return params[1:] if params[:1] == ["self"] else params

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _BoundFunction(self, instance)

    def __repr__(self):
        return f"<texflow.function {getattr(self._python_function, '__name__', '?')} (eager)>"


class _BoundFunction:
    """A tf.function method bound to its instance (the signature excludes `self`)."""

    def __init__(self, function, instance):
        self._function, self._instance = function, instance
        functools.update_wrapper(self, function._python_function)

    def __call__(self, *args, **kwargs):
        return self._function._call(self._instance, args, kwargs)

    def __getattr__(self, name):
        return getattr(self._function, name)


def _convert(value, spec):
    try:
        return from_numpy(to_numpy(value, spec.dtype))
    except (TypeError, ValueError):
        return None


def _as_tensors(result):
    """Python numbers in the result as tensors (as a traced function returns them)."""
    if isinstance(result, (bool, int, float)):
        return from_numpy(to_numpy(result))
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return type(result)(*[_as_tensors(r) for r in result])
    if isinstance(result, (list, tuple)):
        return type(result)(_as_tensors(r) for r in result)
    if isinstance(result, dict):
        return {k: _as_tensors(v) for k, v in result.items()}
    return result


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None, name=None):
    """TensorFlow's `tf.function` decorator; runs `func` eagerly for now.

    >>> @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    ... def double(x):
    ...     return x * 2
    >>> double([1.0, 2.0]).numpy().tolist()
    [2.0, 4.0]
    """
    options = {"autograph": autograph, "jit_compile": jit_compile,
               "reduce_retracing": reduce_retracing, "name": name}
    if func is None:
        return lambda f: Function(f, input_signature, **options)
    return Function(func, input_signature, **options)
