"""The op registry: every op has a kernel in every kernel language."""

import importlib

import pytest

import texflow  # noqa: F401  (defines every op)
from texflow.backends.base import kernels_for
from texflow.engine.registry import all_ops

# Ops that never reach a kernel: views share the input's storage.
VIEW_OPS = {"reshape", "stop_gradient", "identity"}
LANGUAGES = {"numpy": "texflow.backends.numpy", "glsl": "texflow.backends.glsl",
             "wgsl": "texflow.backends.wgsl"}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_op_has_a_kernel(language):
    importlib.import_module(LANGUAGES[language])
    table = kernels_for(language)
    # host-only ops run their numpy kernel on the host whatever the backend
    host_only = {name for name, op in all_ops().items() if op.host_only}
    missing = sorted(set(all_ops()) - VIEW_OPS - (host_only if language != "numpy" else set())
                     - set(table))
    assert not missing, f"ops without a {language} kernel: {missing}"
    unknown = sorted(set(table) - set(all_ops()))
    assert not unknown, f"{language} kernels for ops that do not exist: {unknown}"


def test_backend_selection_errors_and_listing():
    import texflow as tf

    assert "numpy" in tf.available_backends()
    with pytest.raises(tf.BackendError, match="unknown backend 'metal'"):
        tf.set_backend("metal")
    with pytest.raises(tf.BackendError, match="webgl.*not available here"):
        tf.set_backend("webgl")  # natively there is no browser
    tf.set_backend("numpy")
    assert tf.get_backend() == "numpy"


def test_every_declared_elementwise_op_has_its_bodies():
    """Each declared op's kernels are generated; its shader bodies must exist, typed as
    its kind says (a missing one would otherwise fail only in a browser)."""
    import re

    from texflow.backends.base import elementwise_spec, inline_bodies
    from texflow.backends.glsl import elementwise as glsl
    from texflow.backends.glsl.program import functions
    from texflow.backends.wgsl import elementwise as wgsl
    from texflow.ops.fused import elementwise_ops
    from texflow.resources import shader

    wgsl_source = "\n".join([shader("wgsl", "unary_ops.wgsl"), shader("wgsl", "binary_ops.wgsl"),
                             *inline_bodies("wgsl")])
    wgsl_fns = set(re.findall(r"\bfn (op_\w+)\(", wgsl_source))
    declared = elementwise_ops() - {"where", "cast"}
    assert {"log1p", "softplus", "add", "equal", "invert"} <= declared
    for name in sorted(declared):
        spec = elementwise_spec(name)
        assert functions([f"op_{name}"], glsl._FILES, inline_bodies("glsl")), name
        # bitwise ops have int32 bodies only: one dtype's bodies must all exist
        calls = [set(re.findall(r"\b(op_\w+)\(", wgsl.spec(
            name, [_Typed(d)] * spec.arity, d, {})[0])) for d in ("float32", "int32")]
        assert any(c and c <= wgsl_fns for c in calls), (name, calls)
        for language in ("numpy", "glsl", "wgsl"):
            assert name in kernels_for(language), (name, language)


class _Typed:
    def __init__(self, dtype):
        self.dtype = dtype


def test_every_public_op_states_its_names_where_it_is_defined():
    """tf.*, tf.math, tf.nn, tf.linalg, tf.bitwise and the math objects get texflow.ops'
    functions only through `export` (no hand-kept import lists): put `@export(...)` on
    the function, or name the namespace in its elementwise declaration's `exports`."""
    import types

    import texflow as tf
    from texflow.engine.registry import exports
    from texflow.ops import ndarray_math

    spaces = {"tf": vars(tf), "math": vars(tf.math), "nn": vars(tf.nn),
              "linalg": vars(tf.linalg), "bitwise": vars(tf.bitwise),
              "dl": ndarray_math._OPS}
    unexported = []
    for space, names in spaces.items():
        published = exports(space)
        for name, fn in names.items():
            fn = getattr(fn, "__func__", fn)  # staticmethods of the namespace classes
            if isinstance(fn, types.FunctionType) and fn.__module__.startswith(
                    "texflow.ops.") and fn.__module__ != "texflow.ops.ndarray_math" and \
                    published.get(name) is not fn:
                unexported.append(f"{space}.{name}")
    assert not unexported, f"names not published with export(): {unexported}"
    assert tf.nn.__all__ and set(tf.nn.__all__) == set(exports("nn"))


# The first parameter of every kernel: the language's per-call context (docs/ADDING_AN_OP.md
# "Other ops"). GLSL kernels call their PlanBuilder `b`, as every GLSL helper does.
CONTEXT = {"numpy": "k", "glsl": "b", "wgsl": "k"}
OLD_STYLE = {"be", "inputs", "out_shape", "out_dtype"}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_kernel_follows_the_calling_convention(language):
    """fn(k, *inputs, **attrs): the context first, then the inputs (named, or *inputs),
    then attrs by name; a kernel written to another convention (the context missing, or
    the runtime's arguments listed) is named here rather than failing at its first call."""
    import inspect

    importlib.import_module(LANGUAGES[language])
    wrong = []
    for name, fn in sorted(kernels_for(language).items()):
        params = list(inspect.signature(fn).parameters.values())
        first = params[0] if params else None
        if (first is None or first.name != CONTEXT[language]
                or first.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD
                or first.default is not inspect.Parameter.empty
                or any(p.name in OLD_STYLE and p.kind is not p.VAR_POSITIONAL
                       for p in params[1:])):
            wrong.append(f"{name}{inspect.signature(fn)}")
    assert not wrong, f"{language} kernels not of the form fn({CONTEXT[language]}, " \
        f"*inputs, **attrs): {wrong}"


def test_wgsl_kernels_build_on_the_context_they_are_given():
    """A WGSL kernel adds its steps and temporaries to its `k` and returns `k.recipe()`:
    the runtime's Builder knows the buffer table (k.out), the runtime and the outputs. A
    kernel making its own Builder or Recipe renumbers that table by hand, so only
    program.py (which defines them) and runtime.py (which makes each k) may call them."""
    import ast
    from pathlib import Path

    import texflow.backends.wgsl as wgsl

    wrong = []
    for path in sorted(Path(wgsl.__file__).parent.glob("*.py")):
        if path.name in {"program.py", "runtime.py"}:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in {"Builder", "Recipe"}):
                wrong.append(f"{path.name}:{node.lineno} {node.func.id}(...)")
    assert not wrong, f"WGSL kernels making their own recipe instead of k's: {wrong}"
