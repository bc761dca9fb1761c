"""The op registry: one place defines each op's name, shape/dtype rule and gradient,
and (`export`) the public names a function is published under.

Kernels live with their backends (texflow.backends.*) and are looked up by op
name; nothing above this module is touched to add a kernel.
"""

from ..errors import TexflowError


class OpDef:
    """An op: its name, its output rule and (once autodiff exists) its gradient.

    `infer(inputs, attrs)` gets the inputs (NDArrays or Python scalars) and the
    attrs dict and returns `(shape, dtype)` of the output, or a list of them
    when `num_outputs > 1` or is None (as many as `infer` lists, all made by one
    kernel call: the backend's `execute_joint`); it raises ShapeError/DTypeError naming what is
    wrong. `grad(dys, inputs, outputs, attrs)` returns one gradient per input;
    with `grad_needs`, it is also given `needs` (a bool per input) and may
    return None for inputs no gradient is wanted for (to skip costly work).
    `elementwise` names the op's elementwise class (backends/base.py `Elementwise`;
    "where" and "cast" for those two), None for other ops: fusion inlines these.
    """

    __slots__ = ("name", "infer", "grad", "num_outputs", "host_only", "grad_needs",
                 "elementwise")

    def __init__(self, name, infer, grad=None, num_outputs=1, host_only=False,
                 grad_needs=False, elementwise=None):
        self.name = name
        self.infer = infer
        self.grad = grad
        self.num_outputs = num_outputs
        self.host_only = host_only
        self.grad_needs = grad_needs
        self.elementwise = elementwise

    def __repr__(self):
        return f"OpDef({self.name!r})"


_OPS = {}


def def_op(name, infer, grad=None, num_outputs=1, host_only=False, grad_needs=False,
           elementwise=None):
    """Registers and returns a new OpDef; names are unique."""
    if name in _OPS:
        raise TexflowError(f"op {name!r} is defined twice")
    op = OpDef(name, infer, grad, num_outputs, host_only, grad_needs, elementwise)
    _OPS[name] = op
    return op


def get_op(name):
    try:
        return _OPS[name]
    except KeyError:
        raise TexflowError(f"no op named {name!r} is registered") from None


def all_ops():
    """Every registered OpDef, by name."""
    return dict(_OPS)


# -- public names: stated where a function is defined, installed in each namespace -------

_EXPORTS = {}  # namespace -> {public name: function}
_INSTALLERS = {}  # namespace -> install(name, function)


def export(*names):
    """Decorator publishing a function under `names`: a namespace ("tf" for `tf.*`, "math"
    for `tf.math`, "nn", "bitwise", "dl" for deeplearn.js math objects and Graph methods)
    gives the function's own name there, "math.truediv" an alias.

    The namespaces' modules bind themselves with `install_exports`, so a function
    declared after they were imported joins them too.
    """
    def publish(fn):
        for spec in names:
            namespace, _, alias = spec.partition(".")
            name = alias or fn.__name__
            _EXPORTS.setdefault(namespace, {})[name] = fn
            if namespace in _INSTALLERS:
                _INSTALLERS[namespace](name, fn)
        return fn
    return publish


def install_exports(namespace, install):
    """Calls `install(name, fn)` for each name published in `namespace`, now and later."""
    _INSTALLERS[namespace] = install
    for name, fn in _EXPORTS.get(namespace, {}).items():
        install(name, fn)


def exports(namespace):
    """{public name: function} published in `namespace` so far."""
    return dict(_EXPORTS.get(namespace, {}))
