"""deeplearn.js's math objects: NDArrayMath, NDArrayMathGPU, NDArrayMathCPU.

A math object runs ops on its own backend, whatever `tf.set_backend` says,
and carries deeplearn.js's method names in snake_case
(`math.element_wise_mul`, `math.scalar_times_array`, `math.mat_mul`, ...)
next to texflow's (`math.mul`, `math.matmul`, ...).
"""

import warnings

from ..engine import context, scope as scopes
from ..engine.ndarray import NDArray
from ..engine.registry import install_exports
from ..errors import BackendError, ScopeError, ShapeError, missing_attribute
from . import elementwise as ew
from . import matmul as mm
from . import movement as mv
from . import reduce as rd


class MatrixOrientation:
    """deeplearn.js's orientation flags for `mat_mul`."""
    REGULAR = 0
    TRANSPOSED = 1


# Ops published as "dl" where they are defined (`@export("dl")`, or an elementwise
# declaration's exports), and any defined later, are math object and Graph methods.
_OPS = {}
install_exports("dl", _OPS.__setitem__)
# the math object's gather takes the axis third (tf.gather's third is validate_indices)
_OPS["gather"] = lambda x, indices, axis=0: mv.gather(x, indices, axis=axis)
# and its pad the constant third (tf.pad's third is the mode)
_OPS["pad"] = lambda x, paddings, constant_values=0: mv.pad(x, paddings,
                                                         constant_values=constant_values)


def _same_shape(name, a, b):
    if isinstance(a, NDArray) and isinstance(b, NDArray) and a.shape != b.shape:
        raise ShapeError(f"{name}: shapes {list(a.shape)} and {list(b.shape)} must match")


def _needs_scalar(name, c):
    if isinstance(c, NDArray) and c.size != 1:
        raise ShapeError(f"{name}: the first argument must be a scalar, received shape "
                         f"{list(c.shape)}")


def _deeplearn_names():
    def strict(name, fn):
        def op(a, b):
            _same_shape(name, a, b)
            return fn(a, b)
        return op

    def scalar_first(name, fn):
        def op(c, a):
            _needs_scalar(name, c)
            return fn(c, a)
        return op

    def array_then_scalar(name, fn):
        def op(a, c):
            _needs_scalar(name, c)
            return fn(a, c)
        return op

    def mat_mul(a, b, a_orientation=MatrixOrientation.REGULAR,
                b_orientation=MatrixOrientation.REGULAR):
        return mm.matmul(a, b, a_orientation == MatrixOrientation.TRANSPOSED,
                         b_orientation == MatrixOrientation.TRANSPOSED)

    return {
        "element_wise_mul": ew.mul, "multiply": ew.mul, "divide": ew.div,
        "element_wise_mul_strict": strict("element_wise_mul_strict", ew.mul),
        "add_strict": strict("add_strict", ew.add), "sub_strict": strict("sub_strict", ew.sub),
        "divide_strict": strict("divide_strict", ew.div),
        "scalar_plus_array": scalar_first("scalar_plus_array", ew.add),
        "scalar_minus_array": scalar_first("scalar_minus_array", ew.sub),
        "scalar_times_array": scalar_first("scalar_times_array", ew.mul),
        "scalar_divided_by_array": scalar_first("scalar_divided_by_array", ew.div),
        "array_minus_scalar": array_then_scalar("array_minus_scalar", ew.sub),
        "array_divided_by_scalar": array_then_scalar("array_divided_by_scalar", ew.div),
        "mat_mul": mat_mul,
        "matrix_times_vector": lambda m, v: mm.matmul(m, v),
        "vector_times_matrix": lambda v, m: mm.matmul(v, m),
        "dot_product": lambda a, b: mm.matmul(a, b),
        "outer_product": lambda a, b: mm.matmul(mv.reshape(a, (-1, 1)), mv.reshape(b, (1, -1))),
        "switch_dim": mv.transpose,
        "log_sum_exp": rd.logsumexp, "arg_max": rd.arg_max, "arg_min": rd.arg_min,
        "argmax": rd.arg_max, "argmin": rd.arg_min,  # deeplearn.js's: they flatten
        "arg_max_equals": lambda a, b: ew.equal(rd.arg_max(a), rd.arg_max(b)),
        "step": lambda x: ew.cast(ew.greater(x, 0), "float32"),
        "clone": lambda x: ew.add(x, 0),
        "reduce_sum": rd.sum, "reduce_mean": rd.mean, "reduce_max": rd.max,
        "subtract": ew.sub,
        "argmax_equals": lambda a, b: ew.equal(rd.arg_max(a), rd.arg_max(b)),
    }


class NDArrayMath:
    """Math on NDArrays with one backend.

    Args:
        backend: a backend name ('webgl', 'webgpu', 'numpy', 'wgpu').
        safe_mode: when True, an op called outside any `scope` raises ScopeError.
    """

    def __init__(self, backend, safe_mode=False):
        self.backend = context.backend_instance(backend)
        self.safe_mode = safe_mode

    # -- scopes ----------------------------------------------------------------

    def scope(self, fn=None, name=None):
        """`tf.scope` (see there): `math.scope(lambda keep, track: ...)`."""
        return scopes.scope(fn, name)

    def keep(self, value):
        if self.safe_mode and not scopes.in_scope():
            raise ScopeError("keep() called outside any scope on a safe-mode math object")
        return scopes.keep(value)

    def track(self, value):
        if self.safe_mode and not scopes.in_scope():
            raise ScopeError("track() called outside any scope on a safe-mode math object")
        return scopes.track(value)

    def dispose(self):
        """Nothing to free: backends live as long as the program."""

    def _bind(self, name, fn):
        def method(*args, **kwargs):
            if self.safe_mode and not scopes.in_scope():
                raise ScopeError(
                    f"math.{name}() was called outside math.scope() on a math object with "
                    "safe_mode=True; wrap it in math.scope(...) or build the math object "
                    "with safe_mode=False")
            with context.using(self.backend):
                return fn(*args, **kwargs)
        method.__name__ = name
        method.__doc__ = fn.__doc__
        return method

    def __getattr__(self, name):
        fn = _OPS.get(name) or _DEEPLEARN.get(name)
        if fn is None:
            raise missing_attribute(type(self).__name__, name,
                                    lambda n: lookup(n) or hasattr(type(self), n))
        method = self._bind(name, fn)
        self.__dict__[name] = method
        return method

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_OPS) | set(_DEEPLEARN))


_DEEPLEARN = _deeplearn_names()


def lookup(name):
    """The op function math objects and graphs call `name`, or None."""
    return _OPS.get(name) or _DEEPLEARN.get(name)


class NDArrayMathGPU(NDArrayMath):
    """Math on the GPU backend: the active backend when it is a GPU one (the one
    `tf.set_backend` or `run-browser --backend` chose), else the best available
    (webgpu, then webgl in the browser; wgpu natively), so `tf.*` and `math.*` ops
    share one device and never move data between two GPU APIs.

    With no GPU backend available it warns and uses the numpy backend.
    """

    def __init__(self, safe_mode=True, backend=None):
        if backend is None and context.current().is_gpu:
            backend = context.current().name
        if backend is None:
            try:
                backend = context.pick_best(context.GPU_PREFERENCE)
            except BackendError as e:
                warnings.warn(f"texflow: NDArrayMathGPU found no GPU backend ({e}); "
                              "using the numpy backend", RuntimeWarning, stacklevel=2)
                backend = "numpy"
        super().__init__(backend, safe_mode)


class NDArrayMathCPU(NDArrayMath):
    """Math on the numpy backend; ops block and run at once."""

    def __init__(self, safe_mode=False):
        super().__init__("numpy", safe_mode)
