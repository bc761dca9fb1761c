"""Bad input raises a clear error naming what is wrong, on every backend."""

import numpy as np

import texflow as tf
from harness import each_backend, raises


@each_backend
def test_values_that_do_not_fit_the_shape():
    with raises(tf.ShapeError, match=r"2 values do not fit shape \[2, 3\]"):
        tf.Array2D.new([2, 3], [1, 2])
    with raises(tf.ShapeError, match="rank 2"):
        tf.Array2D.new([6], [1, 2, 3, 4, 5, 6])


@each_backend
def test_mismatched_shapes_name_both():
    with raises(tf.ShapeError, match=r"Incompatible shapes: \[2, 3\] vs. \[4\]"):
        tf.add(tf.zeros([2, 3]), tf.zeros([4]))
    with raises(tf.ShapeError, match=r"inner dimensions do not match: shapes \[2, 3\] and \[4, "):
        tf.matmul(tf.zeros([2, 3]), tf.zeros([4, 5]))
    with raises(tf.ShapeError, match="cannot reshape an array of 6 elements into shape"):
        tf.reshape(tf.zeros([2, 3]), [4, 2])
    with raises(tf.ShapeError, match="axis 2 is out of range for an array of rank 2"):
        tf.sum(tf.zeros([2, 3]), axis=2)
    with raises(tf.ShapeError, match="not a permutation"):
        tf.transpose(tf.zeros([2, 3]), [0, 0])


@each_backend
def test_unknown_backend_and_unsupported_dtypes():
    with raises(tf.BackendError, match="unknown backend 'cuda'"):
        tf.set_backend("cuda")
    with raises(tf.DTypeError, match="unsupported dtype tf.complex64"):
        tf.zeros([2], "complex64")
    with raises(tf.DTypeError, match="float16 has no storage on texflow's devices"):
        tf.cast(tf.array([1.0]), tf.float16)
    generator = tf.random.Generator.from_seed(1)
    for draw in (tf.random.uniform, tf.random.normal, tf.random.truncated_normal,
                 generator.uniform, generator.normal, generator.truncated_normal):
        with raises(tf.DTypeError, match="float16 has no storage"):  # never float32
            draw([2], dtype=tf.float16)
    with raises(tf.DTypeError, match="Cannot convert the argument `type_value`: 'float65'"):
        tf.zeros([2], "float65")
    with raises(tf.DTypeError, match="numpy dtype <U1"):
        tf.array(["a"])
    with raises(tf.DTypeError, match="do not fit int32"):
        tf.array(np.array([2**40]))
    with raises(tf.DTypeError, match="bool"):
        tf.neg(tf.array([True]))


@each_backend
def test_wrong_input_types_are_named():
    with raises(TypeError, match="received dict"):
        tf.add(tf.zeros([2]), {"a": 1})
