"""`tf.function`: trace a Python function once per input signature, then replay it.

As in TensorFlow 2, the first call with a new input signature (the shapes and
dtypes of tensor arguments, the values of Python arguments) runs the Python
function with a tracer recording its ops, Variable assignments and host calls
(engine/trace.py); that call's results are the traced run's. Later calls with
the same signature replay the recorded steps (autodiff/compiled.py): Python
side effects (print, appending to a list) happen at trace time only. A traced
value read on the host (`if x > 0:`, `x.numpy()`) raises
OperatorNotAllowedInGraphError, since its value would be frozen into the trace.

Every trace is specialised to concrete shapes, since kernels are planned per
shape: an `input_signature` (enforced as TensorFlow enforces it) or
`reduce_retracing=True` does not make one trace serve several shapes.
`jit_compile`, `autograph` and TensorFlow's other options are accepted. Frequent
retracing is logged as TensorFlow logs it (autodiff/retracing.py).
"""

import functools
import inspect
import weakref

import numpy as np

from ..engine import seeds, trace
from ..engine.ndarray import NDArray, from_numpy, to_numpy, view_class
from ..tensor_spec import TensorSpec
from .compiled import ConcreteFunction
from .gradient_tape import _outer_tapes
from .relaxed import RelaxedConcreteFunction
from .retracing import _detector_for

_NON_FIRST_CALL = ("Creating variables on a non-first call to a function decorated with "
                   "tf.function.")
_NOT_SINGLETON = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure "
    "the tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
RUN_EAGERLY = [False]  # tf.config.run_functions_eagerly: every tf.function calls its function


class Function:
    """A function decorated with `tf.function` (see the module docstring)."""

    def __init__(self, python_function, input_signature=None, **options):
        self._python_function = python_function
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._options = options
        self._concrete = {}     # (id(instance), signature) -> (instance ref, ConcreteFunction)
        self._tracing_count = 0
        self._late_variables = False  # a later call made Variables (TensorFlow then refuses)
        self._inlined = set()   # signatures counted as traced inside other functions' traces
        self._signature = False  # inspect.Signature of the Python function (None: unknown)
        self._positional = -1    # its number of parameters if all are positional, else -1
        self._defaults = ()      # then: the defaults of its last parameters, in order
        self._detector = _detector_for(python_function)
        self._per_instance = weakref.WeakKeyDictionary()  # instance -> its own Function
        self._bound = _none  # (weakly) the _BoundFunction last handed out for a method
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    def experimental_get_tracing_count(self):
        """How many times the Python function was traced (once per new signature)."""
        return self._tracing_count

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (tensors or TensorSpecs), tracing it
        if needed; a later call with the same signature replays it, tracing nothing.

        As in TensorFlow, the trace changes no state: Python side effects happen (once),
        but no Variable changes, no random number is drawn from any generator a later
        call would see, tf.print prints nothing and no iterator loses an element.
        texflow traces by running the function's ops on the arguments (zeros for a
        TensorSpec), with its host code dry (engine/trace.py `dry`), then gives every
        Variable it assigned its previous value back.
        """
        return self._concrete_for(None, args, kwargs)

    def _concrete_for(self, instance, args, kwargs):
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature  # as TensorFlow: the signature's own specs
        specs = []
        _flat_specs((args, kwargs), specs)
        concrete = self._concrete_at_zeros(instance, args, kwargs)
        if any(s.shape.rank is None or None in s.shape.as_list() for s in specs):
            return RelaxedConcreteFunction(self, instance, specs, concrete, (args, kwargs))
        return concrete

    def _concrete_at_zeros(self, instance, args, kwargs, size=1, probe=False):
        """The dry trace for specs at zeros, each unknown dimension `size`. `probe`: a
        trace made only to read its output shapes, neither kept nor counted."""
        args, kwargs = _specs_to_zeros(args, size), _specs_to_zeros(kwargs, size)
        args, kwargs = self._normalized(args, kwargs, instance is not None)
        args, kwargs = _converted((args, kwargs))
        tensors = []
        key = (id(instance), _canonical((args, kwargs), tensors))
        concrete = self._lookup(key, instance)
        if concrete is None:
            call_args = (instance,) + tuple(args) if instance is not None else args
            if not probe:
                return self._trace(key, tensors, call_args, kwargs, instance, dry=True)[0]
            count, inlined = self._tracing_count, set(self._inlined)
            try:
                concrete = self._trace_once(("probe",) + key, tensors, call_args, kwargs,
                                            instance, True, _NON_FIRST_CALL)[0]
            finally:
                self._concrete.pop(("probe",) + key, None)
                self._tracing_count, self._inlined = count, inlined
        return concrete

    def __call__(self, *args, **kwargs):
        return self._call(None, args, kwargs)

    def _call(self, instance, args, kwargs):
        args, kwargs = self._normalized(args, kwargs, instance is not None)
        # Called while another function traces: inlined. Or run eagerly, as configured.
        if trace.active() is not None or RUN_EAGERLY[0]:
            if not RUN_EAGERLY[0]:
                self._count_inlined(instance, args, kwargs)
            if instance is not None:
                args = (instance,) + tuple(args)
            return _as_tensors(self._python_function(*args, **kwargs))
        key = _plain_key(args, kwargs)  # the usual call: plain tensors by position
        if key is not None:
            tensors = list(args)
            key = (id(instance), key)
        else:
            args, kwargs = _converted((args, kwargs))
            tensors = []
            key = (id(instance), _canonical((args, kwargs), tensors))
        concrete = self._lookup(key, instance)
        if concrete is not None and concrete.python_gradients and _outer_tapes():
            # a custom_gradient's grad_fn closes over values of its own call: run it
            if instance is not None:
                args = (instance,) + tuple(args)
            result = _as_tensors(self._python_function(*args, **kwargs))
        elif concrete is not None:
            result = concrete._replay(tensors)
        else:
            if instance is not None:
                args = (instance,) + tuple(args)
            result = self._trace(key, tensors, args, kwargs, instance)[1]
        # (as TensorFlow: a call that raised is not counted.) With an input_signature
        # TensorFlow never retraces: texflow's traces per shape are its own (kernels are
        # planned per shape), so they warn of nothing
        self._detector.called(self._python_function, concrete is None,
                              quiet=self._input_signature is not None)
        return result

    def _count_inlined(self, instance, args, kwargs):
        """Called while another function traces, where TensorFlow traces this one as a
        function of its own (counted once per signature; a later call of that signature
        does not trace again): texflow inlines it, counting as TensorFlow counts."""
        key = (id(instance), _canonical(_converted((args, kwargs)), []))
        if key not in self._inlined and self._lookup(key, instance) is None:
            self._inlined.add(key)
            self._tracing_count += 1

    def _trace(self, key, tensors, args, kwargs, instance=None, dry=False):
        """Traces the function; `dry`: leaving no effect (get_concrete_function).

        As TensorFlow's, only the first trace (for a method: of its instance) may make
        Variables, and one that did is traced again, dry, where making one raises
        ValueError: a function that makes a Variable at every call fails at its first.
        That second trace is the one replayed; it counts as a trace, as in TensorFlow."""
        first = not any(owner() is instance for owner, _ in self._concrete.values())
        # TensorFlow traces a later call allowing Variables, counts that trace and then
        # raises if it made one; from then on its traces may make none (_NOT_SINGLETON)
        refusal = None if first else _NOT_SINGLETON if self._late_variables else \
            _NON_FIRST_CALL
        try:
            concrete, result, done = self._trace_once(
                key, tensors, args, kwargs, instance, dry, refusal)
        except ValueError as e:
            if refusal is _NON_FIRST_CALL and e.args and e.args[0] is refusal:
                self._tracing_count += 1
                self._late_variables = True
            raise
        if done.variables_made and not dry:
            try:
                concrete, _, again = self._trace_once(key, tensors, args, kwargs, instance,
                                                      True, _NOT_SINGLETON)
            except BaseException:
                del self._concrete[key]
                raise
            seeds.continue_streams(done, again)
        return concrete, result

    def _trace_once(self, key, tensors, args, kwargs, instance, dry, no_variables):
        name = getattr(self._python_function, "__name__", "function")
        tracer = trace.Tracer(name)
        tracer.dry = dry
        tracer.no_variables = no_variables
        for x in tensors:
            tracer.add_argument(x)
        with trace.tracing(tracer):
            try:
                result = _as_tensors(self._python_function(*args, **kwargs))
                outputs = tracer.structure(result)
            except BaseException:
                tracer.restore_variables()
                raise
        if dry:
            tracer.restore_variables()
        else:
            tracer.release_saved()
        specs = [TensorSpec.from_tensor(x) for x in tensors]
        concrete = ConcreteFunction(name, tracer, outputs, specs, functools.partial(
            self._flat_tensors, method=instance is not None))
        # a custom_gradient ran: a GradientTape recording a call needs its Python
        concrete.python_gradients = getattr(tracer, "custom_gradients", False)
        try:
            owner = weakref.ref(instance) if instance is not None else _none
        except TypeError:  # not weakly referable: keep it alive with its trace
            owner = (lambda kept: lambda: kept)(instance)
        self._concrete[key] = (owner, concrete)
        if key in self._inlined:  # counted when it was first called inside another trace
            self._inlined.discard(key)
        else:
            self._tracing_count += 1  # a trace that raised is not counted, as TensorFlow's
        return concrete, result, tracer

    def _lookup(self, key, instance):
        """The trace for `key`, if it was made for this very instance (ids are reused)."""
        entry = self._concrete.get(key)
        if entry is None or entry[0]() is not instance:
            return None
        return entry[1]

    def _flat_tensors(self, args, kwargs, method=False):
        args, kwargs = self._normalized(args, kwargs, method)
        tensors = []
        _canonical(_converted((args, kwargs)), tensors)
        return tensors

    def _normalized(self, args, kwargs, method):
        """The call's arguments as the Python signature binds them, defaults filled in,
        so that `f(x)`, `f(x, 2)` and `f(x, power=2)` share a trace, as in TensorFlow
        (with an input_signature: bound to it). `method`: the function takes `self`."""
        if self._input_signature is not None:
            return self._bind(args, kwargs)
        if self._signature is False:
            try:
                self._signature = inspect.signature(self._python_function)
            except (TypeError, ValueError):
                self._signature = None
            # the common call, every parameter given by position (defaults filling the
            # last ones), needs no binding: `inspect` costs ~50 us a call in Pyodide
            simple = self._signature is not None and all(
                p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                for p in self._signature.parameters.values())
            self._positional = len(self._signature.parameters) if simple else -1
            if simple:
                defaults = [p.default for p in self._signature.parameters.values()]
                while defaults and defaults[0] is inspect.Parameter.empty:
                    del defaults[0]
                if not any(d is inspect.Parameter.empty for d in defaults):
                    self._defaults = tuple(defaults)
        if self._signature is None:
            return args, kwargs
        missing = self._positional - len(args) - method
        if not kwargs and 0 <= missing <= len(self._defaults):
            if missing:
                args = tuple(args) + self._defaults[len(self._defaults) - missing:]
            return args, kwargs
        try:
            bound = self._signature.bind(*((None,) if method else ()), *args, **kwargs)
        except TypeError:
            return args, kwargs  # the call raises Python's own error
        bound.apply_defaults()
        return bound.args[1:] if method else bound.args, bound.kwargs

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
        """As TensorFlow's: a method traces per instance, with a Function (its traces,
        its tracing count) of its own for each instance, and the class's none."""
        if instance is None:
            return self
        try:
            function = self._per_instance.get(instance)
        except TypeError:  # not weakly referable or unhashable: traces keyed by its id
            return _BoundFunction(self, instance)
        if function is None:
            function = Function(self._python_function, self._input_signature,
                                **self._options)
            self._per_instance[instance] = function
        bound = function._bound()
        if bound is None or bound._instance is not instance:
            bound = _BoundFunction(function, instance)
            function._bound = weakref.ref(bound)
        return bound

    def __repr__(self):
        return (f"<texflow.function {getattr(self._python_function, '__name__', '?')} "
                f"({self._tracing_count} traces)>")


class _BoundFunction:
    """A tf.function method bound to its instance (the signature excludes `self`)."""

    def __init__(self, function, instance):
        self._function, self._instance = function, instance
        functools.update_wrapper(self, function._python_function)

    def __call__(self, *args, **kwargs):
        return self._function._call(self._instance, args, kwargs)

    def get_concrete_function(self, *args, **kwargs):
        return self._function._concrete_for(self._instance, args, kwargs)

    def __getattr__(self, name):
        return getattr(self._function, name)


def _flat_specs(value, out):
    """Appends the TensorSpecs in `value` (nested lists, tuples and dicts) to `out`."""
    if isinstance(value, TensorSpec):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _flat_specs(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _flat_specs(v, out)


def _convert(value, spec):
    try:
        return from_numpy(to_numpy(value, spec.dtype))
    except (TypeError, ValueError):
        return None


def _none():
    return None


def _canonical(value, tensors):
    """The cache key part of an argument; appends its tensors to `tensors` in order.

    Tensors count by shape and dtype (Variables apart), Python values by value (numbers
    as TensorFlow compares them: 2, 2.0 and True == 1 share a trace), other objects by
    identity.
    """
    t = type(value)  # the common plain tuples and lists first (per call, per argument)
    if t is tuple or t is list:
        return (t.__name__,) + tuple([_canonical(v, tensors) for v in value])
    if isinstance(value, NDArray):
        tensors.append(value)
        state = getattr(value, "_traced_as_state", False)
        return ("V" if state else "T", tuple(value.shape), value.dtype.name)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_canonical(v, tensors) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _canonical(value[k], tensors)) for k in sorted(value))
    if isinstance(value, (bool, int, float)):  # by value, as TensorFlow's Literal: 2 == 2.0
        return ("number", value)
    if isinstance(value, (str, bytes, type(None))):
        return (type(value).__name__, value)
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return ("obj", type(value).__name__, id(value))


_PLAIN = frozenset(view_class(rank) for rank in range(5))


def _plain_key(args, kwargs):
    """`_canonical((args, kwargs), ...)` when every argument is a plain tensor given by
    position (no Variable, number or structure), without its general walk: a replayed
    step's call costs that walk in cold caches. None otherwise."""
    if kwargs or type(args) is not tuple:
        return None
    key = ["tuple"]
    for x in args:
        if type(x) not in _PLAIN:
            return None
        key.append(("T", tuple(x.shape), x.dtype.name))
    return ("tuple", tuple(key), ("dict",))


def _converted(value):
    """`value` with numpy arrays and numpy number scalars as tensors, as TensorFlow
    takes them (the same order `_canonical` counts them)."""
    t = type(value)  # the common cases first: a replayed step's call converts its arguments
    if t is tuple or t is list:
        return t([_converted(v) for v in value])
    if isinstance(value, NDArray) or (t is dict and not value):
        return value
    if isinstance(value, np.ndarray) or (isinstance(value, np.generic) and
                                         value.dtype.kind in "biuf"):
        return from_numpy(to_numpy(value))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_converted(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_converted(v) for v in value)
    if isinstance(value, dict):
        return {k: _converted(v) for k, v in value.items()}
    return value


def _specs_to_zeros(value, size=1):
    if isinstance(value, TensorSpec):
        shape = [size if d is None else d for d in value.shape.as_list()] \
            if value.shape.rank is not None else []
        return from_numpy(np.zeros(shape, to_numpy(0, value.dtype).dtype))
    if isinstance(value, (list, tuple)):
        return type(value)(_specs_to_zeros(v, size) for v in value)
    if isinstance(value, dict):
        return {k: _specs_to_zeros(v, size) for k, v in value.items()}
    return value


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
             experimental_follow_type_hints=None, *, name=None):
    """TensorFlow's `tf.function`: traces `func` once per input signature, then replays.

    See the module docstring: what is traced, side effects, retracing.

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
