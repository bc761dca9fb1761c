"""The Backend interface and the kernel registry.

A backend is a small object: upload (allocating storage), free, download,
and execute a kernel (compiling and caching what it derives from the op's
signature, then launching). Kernels are functions registered per kernel
language ('numpy', 'glsl', 'wgsl') under the op's name, with the `kernel`
decorator, where they are defined. Runtimes sharing a language (webgpu in the
browser and wgpu natively both run WGSL) share its kernels. Every kernel is called as
`fn(k, *inputs, **attrs)`, `k` the language's per-call context (numpy `Call`, GLSL
`PlanBuilder`, WGSL `Builder`: out_shape, out_dtype, outs, and what it builds with;
docs/ADDING_AN_OP.md "Other ops").
"""

import importlib
import pkgutil

from ..errors import KernelNotFoundError

_KERNELS = {}  # language -> {op name: function}


def kernel(op_name, language):
    """Registers the decorated function as `language`'s kernel for `op_name`."""
    def register(fn):
        table = _KERNELS.setdefault(language, {})
        if op_name in table:
            raise KernelNotFoundError(f"two {language} kernels registered for {op_name!r}")
        table[op_name] = fn
        return fn
    return register


def kernels_for(language):
    """The (live) table of kernels registered for `language`."""
    return _KERNELS.setdefault(language, {})


def import_kernel_modules(package, path):
    """Imports every module of kernel package `package` (its `__name__` and `__path__`),
    which registers their kernels: a new kernel module joins no list."""
    for module in pkgutil.iter_modules(path):
        importlib.import_module(f"{package}.{module.name}")


# -- elementwise ops: one declaration, a kernel in every language generated from it --------

UNARY_KINDS = ("same", "float", "pred")
BINARY_KINDS = ("arith", "float", "cmp")


class Elementwise:
    """What the kernel generators need of an elementwise op (ops/declare.py makes these).

    `kind` is the op's class, which fixes how every language types its body:
    unary "same" keeps the input's dtype (bodies `op_<name>` per dtype), "float"
    computes in float32, "pred" gives a bool; binary "arith" computes in the result
    dtype, "float" in float32, "cmp" compares (in float32 when an operand is).
    `numpy` is the numpy kernel. `bodies` maps "glsl"/"wgsl" to source defining
    `op_<name>` for ops whose body is not in shaders/<language>/*_ops.*.
    """

    __slots__ = ("name", "kind", "arity", "numpy", "bodies")

    def __init__(self, name, kind, arity, numpy, bodies=None):
        kinds = UNARY_KINDS if arity == 1 else BINARY_KINDS
        if kind not in kinds:
            raise KernelNotFoundError(f"elementwise op {name!r}: kind must be one of "
                                      f"{kinds}, received {kind!r}")
        self.name, self.kind, self.arity, self.numpy = name, kind, arity, numpy
        self.bodies = dict(bodies or {})

    def __repr__(self):
        return f"Elementwise({self.name!r}, {self.kind!r})"


_ELEMENTWISE = {}  # op name -> Elementwise
_GENERATORS = {}  # language -> make(Elementwise) -> kernel


def numpy_elementwise(compute, arity=None):
    """The numpy kernel of an elementwise op whose values are `compute(*inputs, **attrs)`
    (its context unused: the backend casts and broadcasts the result). `kernel.compute`
    is `compute`: fused kernels call it per node, with no context. A unary or binary
    op without attrs (`arity` 1 or 2) gets a wrapper that packs no arguments: it runs
    at every eager launch."""
    if arity == 1:
        def elementwise(k, x):
            return compute(x)
    elif arity == 2:
        def elementwise(k, x, y):
            return compute(x, y)
    else:
        def elementwise(k, *inputs, **attrs):
            return compute(*inputs, **attrs)
    elementwise.compute = compute
    elementwise.__name__ = elementwise.__qualname__ = getattr(compute, "__name__", "compute")
    return elementwise


def elementwise_kernels(spec):
    """Registers elementwise op `spec`'s numpy kernel and every language's generated one."""
    _ELEMENTWISE[spec.name] = spec
    kernel(spec.name, "numpy")(numpy_elementwise(spec.numpy, spec.arity))
    for language, make in _GENERATORS.items():
        kernel(spec.name, language)(make(spec))


def kernel_generator(language):
    """Registers `make(spec)`, which gives `language`'s kernel of any elementwise op; it
    runs for the ops declared so far and for every one declared later."""
    def register(make):
        _GENERATORS[language] = make
        for spec in _ELEMENTWISE.values():
            kernel(spec.name, language)(make(spec))
        return make
    return register


def elementwise_spec(name):
    """The Elementwise declaration of op `name`, or None when it is not one."""
    return _ELEMENTWISE.get(name)


def inline_bodies(language):
    """Shader source of the op bodies declared with their op, for `language`."""
    return tuple(s.bodies[language] for s in _ELEMENTWISE.values() if language in s.bodies)


class Backend:
    """A device runtime. Subclasses implement the methods that raise here."""

    name = "base"
    language = None
    is_gpu = False
    # True when `download` returns a new array that nothing else holds, which a reader
    # may then take without copying it (False: it may be the storage itself, as numpy's)
    fresh_downloads = False
    # changes when the backend forgets the plans it made per signature (launchers and
    # launch programs made from them are then stale)
    plan_generation = 0

    def __init__(self):
        self.kernels = kernels_for(self.language)

    def find_kernel(self, op_name):
        fn = self.kernels.get(op_name)
        if fn is None:
            raise KernelNotFoundError(
                f"cannot find a {self.language} kernel for op {op_name!r} "
                f"(backend {self.name!r})")
        return fn

    # -- storage -------------------------------------------------------------

    def free(self, handle):
        raise NotImplementedError("need free")

    def upload(self, values, dtype):
        """Copies flat numpy `values` of `dtype` to new device storage; returns it."""
        raise NotImplementedError("need upload")

    def download(self, handle, size, dtype):
        """A flat numpy array of `size` elements of `dtype` from `handle`: a new one if
        `fresh_downloads`, else possibly the storage itself (never to be written)."""
        raise NotImplementedError("need download")

    async def download_async(self, handle, size, dtype):
        return self.download(handle, size, dtype)

    # -- kernels -----------------------------------------------------------------

    def execute(self, fn, inputs, out_shape, out_dtype, attrs, key):
        """Runs kernel `fn` on resident `inputs`; returns the output handle.

        `key` identifies the op signature (op, input shapes and dtypes, attrs), so a
        backend can cache what it derives from it (programs, launch plans) under it.
        """
        raise NotImplementedError("need execute")

    def launcher(self, fn, inputs, out_shape, out_dtype, attrs, key):
        """A function `launch(inputs)` doing what `execute(fn, inputs, out_shape,
        out_dtype, attrs, key)` does for inputs of this signature (same shapes, dtypes
        and scalar types, resident here), called right after `execute` ran it, while
        `plan_generation` stays the same; or None (the engine then calls `execute`).
        Device backends return one that skips the lookup of `key` (engine/run.py)."""
        return None

    def execute_joint(self, fn, inputs, outs, attrs, key):
        """Runs kernel `fn` of an op with several outputs made together (`num_outputs`
        None); `outs` lists (shape, dtype) per output. Returns their handles. This
        default runs the kernel once per output (attr `output_index`); backends whose
        kernels write several outputs in one launch override it."""
        return [self.execute(fn, inputs, shape, dtype, dict(attrs, output_index=k), (key, k))
                for k, (shape, dtype) in enumerate(outs)]

    def sync(self):
        """Blocks until queued device work is done (for benchmarks)."""

    # -- accounting ----------------------------------------------------------------

    def memory_info(self):
        """Device object counts for `tf.memory()`: objects in use, pooled ones and their
        bytes, and the pool's byte limit."""
        return {"num_gpu_objects": 0, "num_pooled_gpu_objects": 0, "pooled_bytes": 0,
                "pool_limit_bytes": 0}
