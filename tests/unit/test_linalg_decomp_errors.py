"""tf.linalg decompositions' and solvers' errors beyond tests/tfdiff/snippets_decomp.py's
(ops/solve.py, ops/decomp.py): TensorFlow's NotImplementedError gradients and TensorFlow
2's names."""

import numpy as np
import pytest

import texflow as tf

NAMES = ("det", "logdet", "slogdet", "inv", "cholesky", "cholesky_solve", "solve",
         "triangular_solve", "lstsq", "qr", "svd", "eigh", "eigvalsh", "pinv", "matrix_rank")


def test_names_are_tensorflow_2s():
    for name in NAMES:
        assert callable(getattr(tf.linalg, name)), name
        assert not hasattr(tf, name), f"tf.{name} is not TensorFlow 2's"


def test_lstsq_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 2.*\\[2\\]"):
        tf.linalg.lstsq(tf.ones([2]), tf.ones([2, 1]))


def test_dtype_errors_name_the_dtype():
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.linalg.solve(tf.constant([[1, 0], [0, 1]]), tf.constant([[1], [1]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float32 tensor "
                                                             "but is a int32 tensor"):
        tf.linalg.triangular_solve(tf.eye(2), tf.constant([[1], [1]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.linalg.svd(tf.constant([[1, 0], [0, 1]]))


def _gradient(fn, x):
    x = tf.Variable(np.asarray(x, np.float32))
    with tf.GradientTape() as tape:
        y = tf.add_n([tf.reduce_sum(t) for t in fn(x)])
    return tape.gradient(y, x)


def test_gradients_tensorflow_does_not_define():
    rng = np.random.default_rng(0)
    with pytest.raises(NotImplementedError, match="nrows > ncols and full_matrices"):
        _gradient(lambda a: tf.linalg.qr(a, full_matrices=True), rng.normal(size=(3, 2)))
    with pytest.raises(NotImplementedError, match="abs\\(m - n\\) > 1"):
        _gradient(lambda a: tf.linalg.svd(a, full_matrices=True), rng.normal(size=(4, 2)))
    # one apart is defined, as in TensorFlow
    assert _gradient(lambda a: tf.linalg.svd(a, full_matrices=True),
                     rng.normal(size=(3, 2))).shape == (3, 2)
