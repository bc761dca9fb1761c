"""Declaring elementwise ops: `unary` and `binary` state an op once (its class, dtype
rule, gradient, numpy kernel, public names and, optionally, its shader bodies); the
GLSL and WGSL kernels, fusion's bodies and the exports are generated from that.

docs/ADDING_AN_OP.md walks through adding one.
"""

import inspect

from .. import dtypes
from ..backends.base import Elementwise, elementwise_kernels
from ..dtypes import bool_, float32, int32
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..errors import InvalidArgumentError, OpDTypeError
from .shape_util import broadcast_shapes

_SCALARS = (float, int, bool)
FLOAT, NUMERIC = (float32,), (float32, int32)


def dtype_of(x):
    return x.dtype if isinstance(x, NDArray) else dtypes.scalar_dtype(x)


def shape_of(x):
    return x.shape if isinstance(x, NDArray) else ()


# -- dtype rules -------------------------------------------------------------------

def expect_dtype(x, name, allowed, error=InvalidArgumentError):
    """`x` as an NDArray of one of the `allowed` dtypes, or `error` (TensorFlow's class for
    the op: InvalidArgumentError for kernels without that dtype) naming what came."""
    x = x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
    if x.dtype not in allowed:
        raise error(f"{name} needs a {' or '.join(allowed)} tensor, received {x.dtype} "
                    f"(shape {list(x.shape)})")
    return x


def dtype_rule(name, allowed):
    """The shape/dtype rule of an op keeping its input's shape and dtype, for inputs of
    the `allowed` dtypes only (TensorFlow's rule for log1p, erf, cumsum, ...)."""
    def infer(inputs, attrs):
        x = expect_dtype(inputs[0], name, allowed)
        return x.shape, x.dtype
    return infer


def _same_numeric(name):
    def infer(inputs, attrs):
        x = inputs[0]
        if x.dtype == bool_:
            raise OpDTypeError(f"{name} does not accept bool input; cast it first")
        return x.shape, x.dtype
    return infer


def _to_float(inputs, attrs):
    return inputs[0].shape, float32


def _bool_result(inputs, attrs):
    return inputs[0].shape, bool_


def result_dtype(a, b):
    """The dtype arithmetic on `a` and `b` (arrays or Python scalars) gives."""
    if type(a) in _SCALARS:
        da, db = _weak(a, b.dtype), b.dtype
    elif type(b) in _SCALARS:
        da, db = a.dtype, _weak(b, a.dtype)
    else:
        da, db = a.dtype, b.dtype
    return dtypes.upcast(da, db)


def _weak(scalar, other):
    """A Python scalar's dtype next to an array of dtype `other` (it does not widen ints)."""
    d = dtypes.scalar_dtype(scalar)
    if d == float32 or other == float32:
        return float32 if d == float32 else other
    return other if d == bool_ else (int32 if other == bool_ else other)


def arith_rule(name, bool_ok=False):
    """Broadcast shape, the wider dtype; bools count as int32 unless `bool_ok`."""
    def infer(inputs, attrs):
        a, b = inputs
        dtype = result_dtype(a, b)
        if dtype == bool_ and not bool_ok:
            dtype = int32
        return broadcast_shapes(name, shape_of(a), shape_of(b)), dtype
    return infer


def _binary_to(name, dtype):
    def infer(inputs, attrs):
        a, b = inputs
        return broadcast_shapes(name, shape_of(a), shape_of(b)), dtype
    return infer


def ints_only(name):
    """Bitwise ops: int32 operands only (TensorFlow has no bool or float kernels)."""
    def infer(inputs, attrs):
        for i, x in enumerate(inputs):
            d = dtype_of(x)
            if d != int32:
                raise InvalidArgumentError(f"{name}: input {i} must be int32, received {d}")
        return broadcast_shapes(name, *[shape_of(x) for x in inputs]), int32
    return infer


_UNARY_RULES = {"same": _same_numeric, "float": lambda name: _to_float,
                "pred": lambda name: _bool_result}
_BINARY_RULES = {"arith": arith_rule, "float": lambda name: _binary_to(name, float32),
                 "cmp": lambda name: _binary_to(name, bool_)}


# -- the declarations ------------------------------------------------------------------

def unary(name, kind, doc, grad=None, *, numpy, allowed=None, rule=None, exports=(),
          glsl=None, wgsl=None, param="x"):
    """Declares unary elementwise op `name` and returns its public function.

    Args:
        name: the op's name (its kernels' and shader bodies' `op_<name>`).
        kind: its class: "same" (keeps the dtype; bool raises), "float" (float32
            result) or "pred" (bool result); it types the shader bodies.
        doc: what it computes, for the docstring ("log(1 + x), accurate for small x").
        grad: `grad(dy, x, y)` gives x's gradient, or None (no gradient).
        numpy: the numpy kernel (its result is cast to the op's dtype).
        allowed: the input dtypes TensorFlow's kernels take (others raise
            InvalidArgumentError, as TensorFlow's do); None: the kind's rule.
        rule: a shape/dtype rule `infer(inputs, attrs)` replacing the kind's.
        exports: the public names (see engine/registry.py `export`).
        glsl, wgsl: source of `op_<name>` where it is not in shaders/*/unary_ops.*.
        param: the input's parameter name, TensorFlow's: "x", or "features" (the
            activations: tf.nn.relu(features=...)).
    """
    if rule is None:
        rule = dtype_rule(name, allowed) if allowed else _UNARY_RULES[kind](name)
    op = _declare(name, kind, 1, rule, grad and (lambda dy, inputs, y, attrs:
                                                   (grad(dy, inputs[0], y),)),
                  numpy, glsl, wgsl)

    def plain(x, name=None):
        if not isinstance(x, NDArray):
            x = from_numpy(to_numpy(x))
        return run_op(op, (x,))

    def activation(features, name=None):
        return plain(features)
    fn = {"x": plain, "features": activation}[param]
    fn.__doc__ = (f"{doc}, elementwise.\n\n"
                  f"    >>> tf.{name}(tf.array([-1.0, 0.5])).shape\n    TensorShape([2])\n")
    return _public(fn, op, exports)


def binary(name, kind, doc, grad=None, *, numpy, allowed=None, rule=None, exports=(),
           glsl=None, wgsl=None, params=("x", "y")):
    """Declares binary elementwise op `name` (numpy broadcasting) and returns its public
    function. As `unary`, with kind "arith" (the wider dtype), "float" (float32
    result) or "cmp" (bool result); `grad(dy, a, b, y)` gives both inputs' gradients
    at the broadcast shape (reduced to each input's shape here). `allowed`: the dtypes
    TensorFlow's kernel takes for both operands (a Python number beside a tensor takes
    the tensor's). `params`: TensorFlow's parameter names (tf.math.atan2(y, x))."""
    rule = rule or _BINARY_RULES[kind](name)
    op = _declare(name, kind, 2, _operands_of(name, allowed, rule) if allowed else rule,
                  grad and (lambda dy, inputs, y, attrs:
                            reduce_to_inputs(grad(dy, *inputs, y), inputs)),
                  numpy, glsl, wgsl)

    def fn(x, y, name=None):  # TensorFlow's parameter names: tf.add(x=..., y=...)
        if not isinstance(x, NDArray) and not isinstance(y, NDArray):
            x = from_numpy(to_numpy(x))
        return run_op(op, (x, y))
    if params != ("x", "y"):
        fn = _renamed(fn, params)
    fn.__doc__ = (f"{doc}, elementwise with numpy broadcasting.\n\n    Args:\n"
                  "        x, y: NDArrays, numbers, lists or numpy arrays.\n\n"
                  f"    >>> tf.{name}(tf.array([1.0, 2.0]), 2.0).shape\n    TensorShape([2])\n")
    return _public(fn, op, exports)


def _operands_of(name, allowed, rule):
    """`rule`, after checking that each tensor operand has one of the `allowed` dtypes."""
    def infer(inputs, attrs):
        for i, x in enumerate(inputs):
            if isinstance(x, NDArray) and x.dtype not in allowed:
                raise InvalidArgumentError(
                    f"{name}: input {i} must be a {' or '.join(allowed)} tensor, received "
                    f"{x.dtype} (shape {list(x.shape)})")
        return rule(inputs, attrs)
    return infer


def _renamed(fn, params):
    """`fn(x, y, name=None)` under the parameter names `params` (positions unchanged)."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    sig = inspect.Signature([inspect.Parameter(p, kind) for p in params] +
                            [inspect.Parameter("name", kind, default=None)])

    def renamed(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)  # TypeError for a missing or unknown argument
        return fn(*(bound.arguments[p] for p in params))
    renamed.__signature__ = sig
    return renamed


def _declare(name, kind, arity, rule, grad, numpy, glsl, wgsl):
    bodies = {lang: src for lang, src in (("glsl", glsl), ("wgsl", wgsl)) if src}
    spec = Elementwise(name, kind, arity, numpy, bodies)  # checks the kind
    op = def_op(name, rule, grad=grad, elementwise=kind)
    elementwise_kernels(spec)
    return op


def _public(fn, op, exports):
    fn.__name__ = fn.__qualname__ = op.name
    fn.op = op
    return export(*exports)(fn)


def reduce_to_inputs(grads, inputs):
    from .grad_util import unbroadcast
    return tuple(None if g is None or not isinstance(x, NDArray) else unbroadcast(g, x.shape)
                 for g, x in zip(grads, inputs))
