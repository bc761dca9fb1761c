"""dtype inference and the shape rules of ops (no kernels run here)."""

import numpy as np
import pytest

import texflow as tf
from texflow.ops.shape_util import broadcast_shapes, normalize_axes


@pytest.mark.parametrize("values, dtype", [
    (1.5, "float32"), (2, "int32"), (True, "bool"), ([1, 2], "int32"), ([1.0, 2], "float32"),
    (np.arange(3, dtype=np.int64), "int32"), (np.ones(2), "float32"),
    (np.ones(2, np.uint8), "int32"), (np.array([True]), "bool"),
])
def test_dtype_inference_follows_tensorflow(values, dtype):
    assert tf.array(values).dtype == dtype


def test_explicit_dtypes_and_aliases():
    assert tf.array([1.7, -1.7], dtype="int32").tolist() == [1, -1]
    assert tf.array([1, 2], dtype=np.float32).dtype == "float32"
    assert tf.zeros([2], dtype=bool).dtype == "bool"
    assert tf.ones([2], tf.int32).tolist() == [1, 1]


@pytest.mark.parametrize("a, b, out", [
    ((), (), ()), ((3,), (), (3,)), ((2, 1), (1, 3), (2, 3)), ((4, 1, 3), (2, 3), (4, 2, 3)),
    ((0, 3), (3,), (0, 3)), ((1,), (0,), (0,)),
])
def test_broadcast_shapes(a, b, out):
    assert broadcast_shapes("op", a, b) == out == np.broadcast_shapes(a, b)


def test_broadcast_error_names_both_shapes():
    # TensorFlow's words first, then the op and the axis
    with pytest.raises(tf.ShapeError, match=r"Incompatible shapes: \[2, 3\] vs. \[2\] "
                                            r"\(add: they cannot be broadcast"):
        broadcast_shapes("add", (2, 3), (2,))


def test_axes_normalization():
    assert normalize_axes("sum", None, 3) == (0, 1, 2)
    assert normalize_axes("sum", -1, 3) == (2,)
    assert normalize_axes("sum", [2, 0], 3) == (0, 2)
    with pytest.raises(tf.ShapeError, match="repeated"):
        normalize_axes("sum", [1, -2], 3)
    with pytest.raises(tf.ShapeError, match="out of range"):
        normalize_axes("sum", 0, 0)


@pytest.mark.parametrize("fn, args, shape, dtype", [
    (tf.add, ([1, 2], 1.5), (2,), "float32"),
    (tf.add, ([1, 2], 1), (2,), "int32"),
    (tf.add, ([True], [True]), (1,), "int32"),
    (tf.maximum, ([True], [False]), (1,), "bool"),
    (tf.div, ([1, 2], [2, 2]), (2,), "float32"),
    (tf.exp, ([1, 2],), (2,), "float32"),
    (tf.floor, ([1, 2],), (2,), "int32"),
    (tf.less, ([1, 2], 1.5), (2,), "bool"),
    (tf.sum, ([True, True],), (), "int32"),
    (tf.mean, ([1, 2],), (), "float32"),
    (tf.argmax, ([[1, 2]],), (2,), "int32"),
    (tf.matmul, (np.ones((2, 1, 3, 4)), np.ones((5, 4, 2))), (2, 5, 3, 2), "float32"),
])
def test_result_shapes_and_dtypes(fn, args, shape, dtype):
    out = fn(*[tf.array(a) if isinstance(a, (list, np.ndarray)) else a for a in args])
    assert (out.shape, out.dtype) == (shape, dtype)


def test_constant_and_convert_to_tensor():
    assert tf.constant(7, shape=[2, 2]).tolist() == [[7, 7], [7, 7]]
    assert tf.constant([1.0, 2.0, 3.0, 4.0], shape=[2, 2]).shape == (2, 2)
    assert tf.constant([1, 2], dtype="float32").dtype == "float32"
    with pytest.raises(tf.ShapeError, match="3 values do not fit shape"):
        tf.constant([1, 2, 3], shape=[2, 2])
    x = tf.array([1.0])
    assert tf.convert_to_tensor(x) is x
    assert tf.convert_to_tensor([1, 2]).dtype == "int32"
    assert tf.convert_to_tensor(x, "int32").dtype == "int32"


def test_rank_classes():
    assert isinstance(tf.Scalar.new(2), tf.Scalar)
    assert isinstance(tf.Array1D.new([1, 2]), tf.Array1D)
    a = tf.Array2D.new([2, 3], [1, 2, 3, 10, 20, 30])
    assert isinstance(a, tf.Array2D) and a.shape == (2, 3) and a.dtype == "float32"
    assert a.rank == 2 and a.size == 6 and a.get(1, 2) == 30.0
    assert isinstance(tf.Array3D.rand_normal([2, 2, 2], seed=0), tf.Array3D)
    assert isinstance(a + 1, tf.Array2D) and isinstance(tf.sum(a), tf.Scalar)
    assert isinstance(a.reshape(6), tf.Array1D) and isinstance(a.as_1d(), tf.Array1D)
    assert tf.Array4D.zeros([1, 2, 1, 1]).shape == (1, 2, 1, 1)
    with pytest.raises(IndexError, match="out of range for axis 1"):
        a.get(0, 3)


def test_random_is_seeded_and_shaped():
    a = tf.random_normal([3, 4], mean=1.0, stddev=2.0, seed=7)
    b = tf.random_normal([3, 4], mean=1.0, stddev=2.0, seed=7)
    assert a.shape == (3, 4) and np.array_equal(a.numpy(), b.numpy())
    u = tf.random_uniform([1000], -1.0, 1.0, seed=1).numpy()
    assert u.min() >= -1.0 and u.max() < 1.0
    i = tf.random_uniform([100], 0, 5, seed=1, dtype="int32").numpy()
    assert i.dtype == np.int32 and set(i.tolist()) <= set(range(5))
    assert tf.Array2D.rand_normal([2, 3], seed=3).shape == (2, 3)


def test_tensorflow_namespaces():
    x = tf.array([[1.0, 2.0], [3.0, 4.0]])
    assert tf.math.reduce_sum(x).get() == 10.0
    assert tf.math.divide(x, 2.0).tolist() == [[0.5, 1.0], [1.5, 2.0]]
    assert tf.linalg.matmul(x, x).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert tf.nn.relu(tf.array([-1.0, 1.0])).tolist() == [0.0, 1.0]
    assert tf.reduce_mean(x).get() == 2.5
