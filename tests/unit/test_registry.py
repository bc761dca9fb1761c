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


def test_every_fusible_op_has_a_body_in_every_language():
    from texflow.backends.glsl import elementwise as glsl
    from texflow.backends.wgsl import elementwise as wgsl
    from texflow.ops.fused import ELEMENTWISE

    glsl_ops = set(glsl._UNARY) | set(glsl._BINARY) | {"where", "cast"}
    missing = {"numpy": sorted(ELEMENTWISE - set(kernels_for("numpy"))),
               "glsl": sorted(ELEMENTWISE - glsl_ops),
               "wgsl": sorted(ELEMENTWISE - set(wgsl._SPECS))}
    assert not any(missing.values()), f"fusible ops without a body: {missing}"
    assert ELEMENTWISE <= set(all_ops())
