"""Fusion inlines a value read by several elementwise results into each of them when that
is cheaper than a launch of its own (autodiff/fusion.py): a small array's tree read by
small results is computed in each; results equal eager execution."""

import numpy as np

import texflow as tf
from harness import each_backend, memory


@each_backend
def test_a_small_array_read_by_several_small_results_is_computed_in_each():
    def logsumexp_minus_x(x):  # TF's logsumexp: the row maxima made finite, read twice
        m = tf.reduce_max(x, axis=1, keepdims=True)
        f = tf.where(tf.math.is_finite(m), m, 0.0)
        return tf.math.log(tf.reduce_sum(tf.exp(x - f), axis=1, keepdims=True)) + f - x

    rng = np.random.default_rng(5)
    # readers of 40 elements compute `f` again; of 80000 (> SMALL_READER), `f` stays
    for shape, alone in (((8, 5), False), ((4, 20000), True)):
        x = tf.constant(rng.normal(size=shape).astype(np.float32))
        compiled = tf.function(logsumexp_minus_x)
        compiled(x)
        trees = [[n[0] for n in st[3]["program"].nodes] for st in
                 compiled.get_concrete_function(x)._steps if "program" in st[3]]
        assert (["is_finite", "where"] in trees) == alone, (shape, trees)
        before = memory()["num_launches"]
        got = compiled(x).numpy()
        middle = memory()["num_launches"]
        want = logsumexp_minus_x(x).numpy()
        assert middle - before < memory()["num_launches"] - middle
        assert np.array_equal(got, want) if tf.get_backend() == "numpy" else \
            np.allclose(got, want, rtol=2e-6, atol=1e-6), (shape, got, want)


@each_backend
def test_a_value_read_twice_by_one_op_is_computed_once_in_its_kernel():
    # `y * y`: fusion makes y one node that the kernel computes once (a local, read
    # twice), and one launch computes the whole tree, in GLSL and WGSL alike
    def f(x, b):
        y = tf.tanh(x * b)
        return y * y - y + 1.0

    rng = np.random.default_rng(6)
    x = tf.constant(rng.normal(size=(5, 12)).astype(np.float32))
    b = tf.constant(rng.normal(size=(12,)).astype(np.float32))
    compiled = tf.function(f)
    compiled(x, b)
    program = [st[3]["program"] for st in compiled.get_concrete_function(x, b)._steps
               if "program" in st[3]]
    assert [[n[0] for n in p.nodes] for p in program] == [["mul", "tanh", "mul", "sub",
                                                            "add"]], program
    before = memory()["num_launches"]
    got = compiled(x, b).numpy()
    assert memory()["num_launches"] - before == 1
    want = f(x, b).numpy()
    assert np.array_equal(got, want) if tf.get_backend() == "numpy" else \
        np.allclose(got, want, rtol=2e-6, atol=1e-6), (got, want)
