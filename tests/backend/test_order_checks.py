"""tf.math.mod, is_non_decreasing, is_strictly_increasing and reduce_euclidean_norm
(py/texflow/ops/order_checks.py) on every backend against numpy (tests/tfdiff/
snippets_order_checks.py has TensorFlow's own results)."""

import numpy as np

import texflow as tf
from harness import each_backend


@each_backend
def test_order_checks_and_norms_match_numpy():
    rng = np.random.default_rng(6)
    for seed in range(8):
        x = np.sort(rng.integers(-5, 5, int(rng.integers(0, 9)))).astype(np.int32)
        if seed % 2:
            x = x[::-1].copy()
        steps = np.diff(x)
        assert bool(tf.math.is_non_decreasing(tf.constant(x))) == bool((steps >= 0).all())
        assert bool(tf.math.is_strictly_increasing(tf.constant(x))) == bool((steps > 0).all())
    m = rng.standard_normal((3, 4, 2)).astype(np.float32)
    for axis in (None, 0, (1, 2), -1):
        got = tf.math.reduce_euclidean_norm(tf.constant(m), axis=axis).numpy()
        np.testing.assert_allclose(got, np.sqrt((m ** 2).sum(axis=axis)), rtol=1e-5)
    ints = rng.integers(-20, 20, (4, 3)).astype(np.int32)
    got = tf.math.reduce_euclidean_norm(tf.constant(ints), axis=1).numpy()
    assert got.tolist() == np.sqrt((ints ** 2).sum(axis=1)).astype(np.int32).tolist()
    a, b = rng.integers(-9, 9, 20).astype(np.int32), rng.integers(1, 5, 20).astype(np.int32)
    assert tf.math.mod(tf.constant(a), tf.constant(b)).numpy().tolist() == (a % b).tolist()
