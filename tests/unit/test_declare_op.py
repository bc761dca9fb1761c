"""Adding an elementwise op is one declaration plus its bodies (docs/ADDING_AN_OP.md).

A toy op, declared here the way ops/elementwise.py declares its ops, must appear in every
namespace it names, run on numpy (and on wgpu where it is available) alone, under a
GradientTape and fused by tf.function, and have GLSL and WGSL kernels and fused bodies
generated from its declaration. It runs in a fresh interpreter so the toy op never
joins the public names of the other tests' process.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

_SCRIPT = textwrap.dedent('''
    import numpy as np
    import texflow as tf
    from texflow import memory
    from texflow.backends.base import kernels_for
    from texflow.backends.glsl.program import Arg
    from texflow.engine import context
    from texflow.ops import elementwise as ew
    from texflow.ops.declare import unary
    from texflow.ops.fused import FusedProgram, elementwise_ops

    # -- the whole addition: one declaration with its bodies ----------------------
    cube = unary(
        "toy_cube", "float", "x ** 3", lambda dy, x, y: ew.mul(dy, ew.mul(ew.square(x), 3.0)),
        numpy=lambda x: np.power(x.astype(np.float32), 3),
        exports=("tf", "math", "nn", "dl"),
        glsl="float op_toy_cube(float x) { return x * x * x; }",
        wgsl="fn op_toy_cube(x: f32) -> f32 { return x * x * x; }")

    # exported everywhere it says, as the same function
    assert tf.toy_cube is tf.math.toy_cube is tf.nn.toy_cube is cube
    assert "toy_cube" in tf.nn.__all__
    x = np.array([1.0, -2.0, 0.5], np.float32)
    want = x ** 3
    assert np.array_equal(tf.NDArrayMathCPU().toy_cube(tf.constant(x)).numpy(), want)
    g = tf.Graph()
    p = g.placeholder("p", [3])
    y = g.toy_cube(p)
    assert y.shape == (3,)
    got = tf.Session(g, tf.NDArrayMath("numpy")).eval(y, {p: x})
    assert np.array_equal(got.numpy(), want)
    assert "toy_cube" in elementwise_ops()

    backends = ["numpy"] + (["wgpu"] if context.unavailable_reason("wgpu") is None else [])
    for name in backends:
        tf.set_backend(name)
        t = tf.constant(x)
        assert np.allclose(tf.toy_cube(t).numpy(), want, rtol=1e-6), name
        with tf.GradientTape() as tape:
            tape.watch(t)
            z = tf.reduce_sum(tf.toy_cube(t))
        assert np.allclose(tape.gradient(z, t).numpy(), 3 * x * x, rtol=1e-6), name

        @tf.function
        def chain(v):
            return tf.exp(tf.toy_cube(v * 0.5) + 1.0)
        expected = np.exp((x * 0.5) ** 3 + 1.0)
        chain(t)
        before = memory()["num_launches"]
        out = chain(t).numpy()
        assert memory()["num_launches"] - before == 1, name  # one fused kernel
        assert np.allclose(out, expected, rtol=1e-5), (name, out, expected)
    print("ran on", backends)

    # GLSL: the op's kernel and a fused kernel compose the declared body (no browser
    # here: the generated fragment shaders are checked)
    class Builder:
        def __init__(self, out):
            self.out, self.sources = out, []

        def launch(self, key, source, out, inputs, uniforms=None, scalars=()):
            self.sources.append(source())

    a = Arg(0, (3,), "float32")
    b = Builder(Arg(-1, (3,), "float32"))
    kernels_for("glsl")["toy_cube"](b, a)
    program = FusedProgram([("toy_cube", {}, (("in", 0),)),
                            ("add", {}, (("node", 0), ("const", 1.0)))],
                           ["float32", "float32"], (3,), "float32")
    kernels_for("glsl")["fused_elementwise"](b, a, program=program)
    for src in b.sources:
        assert "float op_toy_cube(float x) { return x * x * x; }" in src, src
        assert "op_toy_cube(x0)" in src or "op_toy_cube(float(x0))" in src, src
    print("glsl ok")
''')


def test_a_declared_unary_op_is_exported_everywhere_and_runs_and_fuses():
    # this checkout's texflow, whatever the interpreter has installed
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(__file__).resolve().parents[2] / "py"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "glsl ok" in done.stdout, done.stdout
