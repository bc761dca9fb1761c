"""tf.linalg matrix helpers' errors, as TensorFlow 2.21's (ops/matrix.py)."""

import pytest

import texflow as tf


def test_errors_as_tensorflow():
    with pytest.raises(ValueError, match="should be a \\(batch\\) matrix with rank >= 2"):
        tf.linalg.matrix_transpose(tf.ones([4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_lower must be negative"):
        tf.linalg.band_part(tf.ones([3, 4]), 4, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected diagonal shape: "
                       "\\[2,3\\]"):
        tf.linalg.set_diag(tf.ones([2, 3, 4]), tf.ones([2, 4]))
