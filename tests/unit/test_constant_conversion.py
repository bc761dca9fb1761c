"""tf.constant / tf.convert_to_tensor with an explicit dtype refuse Python numbers that
would change kind, with TensorFlow 2.21's TypeError (its messages for these calls);
numpy data converts as before."""

import numpy as np
import pytest

import texflow as tf


@pytest.mark.parametrize("value, dtype", [
    ([1.5, 2], tf.int32), ([1.0, 2.0], tf.int32), (2.0, tf.int32), ([1, 2], tf.bool),
    ([1.5], tf.bool)])
def test_python_numbers_that_change_kind_raise(value, dtype):
    message = f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}"
    for make in (tf.constant, tf.convert_to_tensor):
        with pytest.raises(TypeError, match=message.replace("[", r"\[").replace("]", r"\]")):
            make(value, dtype=dtype)


def test_what_converts():
    assert tf.constant([True, False], dtype=tf.int32).numpy().tolist() == [1, 0]
    assert tf.constant([1, 2], dtype=tf.float32).numpy().tolist() == [1.0, 2.0]
    assert tf.constant(np.array([1.5, -2.5]), dtype=tf.int32).numpy().tolist() == [1, -2]
    assert tf.constant([1, 2.5], dtype=tf.float32).dtype == tf.float32
