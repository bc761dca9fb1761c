"""The command line's --version, a quiet wgpu start-up, user-facing tracebacks, and
tf.compat.v1 reached as an attribute in a fresh interpreter."""

import os
import subprocess
import sys

import pytest

from texflow import _browser


def test_version():
    done = subprocess.run([sys.executable, "-m", "texflow.cli", "--version"],
                          capture_output=True, text=True, timeout=120)
    import texflow
    assert done.returncode == 0 and done.stdout.strip() == f"texflow {texflow.__version__}"
    import importlib.metadata
    assert texflow.__version__ == importlib.metadata.version("texflow")  # tf.__version__


def test_compat_v1_is_an_attribute_before_anything_imported_it():
    # `tf.compat.v1.placeholder` as TensorFlow 2 code writes it, with nothing having
    # imported texflow.compat.v1 yet (the lazy attribute once recursed forever)
    code = ("import texflow as tf\n"
            "print(tf.compat.v1.placeholder.__module__, tf.compat.v1.Session.__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["texflow.compat.v1_graph", "Session"], done.stdout


def test_wgpu_start_up_prints_no_xdg_noise_but_keeps_other_stderr():
    from texflow.engine import context
    if context.unavailable_reason("wgpu") is not None:
        pytest.skip("wgpu is not available here")
    code = ("import sys, texflow as tf\ntf.set_backend('wgpu')\n"
            "print((tf.constant([1.0]) * 2).numpy(), file=sys.stderr)\n")
    # no XDG_RUNTIME_DIR; PYTHONPATH kept where texflow is run from a checkout uninstalled
    env = {"PATH": "/usr/bin:/bin", **{k: v for k, v in os.environ.items()
                                       if k in ("PYTHONPATH", "VK_DRIVER_FILES")}}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "XDG_RUNTIME_DIR" not in done.stderr and "[2.]" in done.stderr


def test_user_traceback_keeps_user_frames_only():
    def user_code():
        import texflow as tf
        return tf.zeros([3])[5]

    try:
        user_code()
    except Exception as e:  # noqa: BLE001
        text = _browser.user_traceback(e)
    assert "in user_code" in text and "return tf.zeros([3])[5]" in text
    assert "frames inside texflow hidden]" in text and "texflow/ops" not in text
    assert text.rstrip().endswith("out of bounds (size 3).")
