"""TensorFlow 2's type objects: DType, TensorShape, tf.Tensor, is_tensor, TensorSpec
(no kernels run here; their values were checked against TensorFlow 2.21)."""

import pickle

import numpy as np
import pytest

import texflow as tf


def test_dtypes_are_objects_and_still_strings():
    f = tf.float32
    assert (f.name, repr(f), f.size, f.as_numpy_dtype) == ("float32", "tf.float32", 4, np.float32)
    assert f.is_floating and not f.is_integer and not f.is_bool
    assert tf.int32.is_integer and tf.bool.is_bool and tf.uint8.is_unsigned
    assert (tf.int32.min, tf.int32.max) == (-2**31, 2**31 - 1)
    assert tf.float32.max == np.float32(3.4028235e38) and tf.float32.min == -tf.float32.max
    assert (tf.uint8.min, tf.uint8.max, tf.string.size, tf.bool.size) == (0, 255, 0, 1)
    with pytest.raises(TypeError, match="Cannot find minimum value"):
        tf.bool.min
    assert tf.dtypes.float32 is f and isinstance(f, tf.dtypes.DType)
    assert f == "float32" and hash(f) == hash("float32") and {"float32": 1}[f] == 1
    assert f == np.float32 and f == np.dtype("float32") and f != "int32" and f != None  # noqa
    assert f != "foo" and tf.int64 != tf.int32 and tf.float64.name == "float64"
    assert pickle.loads(pickle.dumps(f)) is f and tf.dtypes.DType(1) is f
    assert (tf.half, tf.double) == (tf.float16, tf.float64)
    assert tf.constant(1.0).dtype == tf.float32 and tf.constant(1).dtype is tf.int32


def test_as_dtype():
    assert tf.as_dtype("float32") is tf.float32 and tf.as_dtype(np.int64) is tf.int64
    assert tf.as_dtype(float) is tf.float32 and tf.as_dtype(bool) is tf.bool
    assert tf.as_dtype("float") is tf.float32 and tf.as_dtype(np.dtype("uint8")) is tf.uint8
    assert tf.as_dtype("string") is tf.string and tf.as_dtype(tf.int16) is tf.int16
    for bad in ("foo", "int", 3.5):
        with pytest.raises(TypeError, match="Cannot convert the argument `type_value`"):
            tf.as_dtype(bad)


def test_host_dtypes_narrow_on_the_device():
    assert tf.constant([1, 2], tf.int64).dtype == tf.int32
    assert tf.constant([1.5], tf.float64).dtype == tf.float32
    assert tf.cast(tf.constant([300.7]), tf.uint8).numpy().tolist() == [300]  # int32 storage
    assert tf.zeros([2], tf.int64).dtype == tf.int32
    with pytest.raises(tf.DTypeError, match="float16 has no storage"):
        tf.constant([1.0], tf.float16)
    with pytest.raises(tf.DTypeError, match="string tensors exist only as host data"):
        tf.zeros([2], tf.string)


def test_tensor_shape():
    s = tf.constant([[1, 2, 3], [4, 5, 6]]).shape
    assert isinstance(s, tf.TensorShape) and repr(s) == "TensorShape([2, 3])"
    assert str(s) == "(2, 3)" and s.as_list() == [2, 3] and s.rank == s.ndims == 2
    assert s[0] == 2 and s[-1] == 3 and isinstance(s[1:], tf.TensorShape) and s[1:] == [3]
    assert s == (2, 3) and s == [2, 3] and not s != (2, 3) and s != (3, 2)
    assert s.num_elements() == 6 and s.is_fully_defined() and list(s) == [2, 3]
    assert s.concatenate([4]) == (2, 3, 4) and s + [1] == (2, 3, 1) and [1] + s == (1, 2, 3)
    assert (1,) + s == (1, 2, 3) and isinstance((1,) + s, tf.TensorShape)
    assert s.with_rank(2) is s and hash(s) == hash((2, 3)) and np.zeros(s).shape == (2, 3)
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank 3"):
        s.with_rank(3)
    with pytest.raises(IndexError):
        s[5]


def test_tensor_shape_with_unknown_dimensions():
    u = tf.TensorShape([None, 3])
    assert repr(u) == "TensorShape([None, 3])" and str(u) == "(None, 3)"
    assert u[0] is None and u.num_elements() is None and not u.is_fully_defined()
    assert u == (None, 3) and u.as_list() == [None, 3] and u[1:] == (3,)
    assert u.is_compatible_with([5, 3]) and not u.is_compatible_with([5, 4])
    assert u.merge_with([5, 3]) == (5, 3)
    with pytest.raises(ValueError, match=r"Shapes \(None, 3\) and \(5, 4\) are not compatible"):
        u.merge_with([5, 4])
    unknown = tf.TensorShape(None)
    assert unknown.rank is None and repr(unknown) == "TensorShape(None)"
    assert unknown == tf.TensorShape(None) and unknown != tf.TensorShape([])
    assert unknown.is_compatible_with([1, 2]) and u.concatenate(unknown).rank is None
    with pytest.raises(ValueError, match="unknown TensorShape"):
        unknown.as_list()
    with pytest.raises(ValueError, match="unknown rank"):
        len(unknown)
    assert tf.TensorShape(3) == (3,) and tf.TensorShape(s := tf.TensorShape([2])) is s
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        tf.TensorShape([-1, 3])
    with pytest.raises(TypeError, match="Dimension value must be integer or None"):
        tf.TensorShape(["a"])


def test_tensor_is_the_eager_array():
    x = tf.constant(1.0)
    assert isinstance(x, tf.Tensor) and isinstance(tf.Variable(1.0), tf.Tensor)
    assert isinstance(tf.zeros([2]) + 1, tf.Tensor) and tf.Tensor is tf.NDArray
    g = tf.Graph()
    p = g.placeholder("x", [None, 3])
    assert isinstance(p, tf.SymbolicTensor) and not isinstance(p, tf.Tensor)
    from texflow.autodiff.graph import Tensor
    assert Tensor is tf.SymbolicTensor
    sparse = tf.SparseTensor([[0]], [1], [2])
    assert [tf.is_tensor(v) for v in (x, tf.Variable(1), sparse, p)] == [True] * 4
    assert [tf.is_tensor(v) for v in (np.zeros(2), [1], 1, np.float32(1))] == [False] * 4
    assert tf.newaxis is None


def test_scalars_read_as_numpy_scalars_and_tensors_are_unhashable():
    # TensorFlow 2.21: Tensor.numpy() of a 0-d tensor is a numpy scalar; tensors and
    # Variables raise TypeError on hash() and are keyed by .ref()
    for x, kind in ((tf.constant(1.5), np.float32), (tf.Variable(2), np.int32),
                    (tf.reduce_sum(tf.ones([3])), np.float32)):
        value = x.numpy()
        assert type(value) is kind and not isinstance(value, np.ndarray)
    assert tf.constant([1.5]).numpy().shape == (1,)
    assert type(tf.constant(True).numpy()) is np.bool_
    x, v = tf.constant([1.0, 2.0]), tf.Variable(1.0)
    with pytest.raises(TypeError, match=r"^Tensor is unhashable. Instead, use tensor.ref"):
        hash(x)
    with pytest.raises(TypeError, match=r"^Variable is unhashable. Instead, use variable"):
        {v: 1}
    keys = {x.ref(): "x", v.experimental_ref(): "v"}
    assert keys[x.ref()] == "x" and keys[v.ref()] == "v" and x.ref().deref() is x
    assert x.ref() != tf.constant([1.0, 2.0]).ref() and len({x.ref(), x.ref()}) == 1


def test_a_tensor_without_values_prints_why():
    x = tf.constant([1.0, 2.0])
    x.dispose()
    assert repr(x) == "<tf.Tensor: shape=(2,), dtype=float32 (disposed)>"
    assert str(x) == "tf.Tensor((disposed), shape=(2,), dtype=float32)"
    shown = []

    @tf.function
    def f(a):
        shown.append(repr(a * 2))
        return a

    f(tf.constant([1.0]))
    assert shown == ["<tf.Tensor: shape=(1,), dtype=float32 (traced)>"]


def test_tensor_spec():
    spec = tf.TensorSpec([None, 3], tf.float32, name="x")
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=tf.float32, name='x')"
    assert (spec.shape, spec.dtype, spec.name) == ((None, 3), tf.float32, "x")
    assert spec.is_compatible_with(tf.zeros([5, 3]))
    assert not spec.is_compatible_with(tf.zeros([5, 4]))
    assert not spec.is_compatible_with(tf.zeros([5, 3], tf.int32))
    assert spec.is_compatible_with(tf.TensorSpec([2, 3]))
    assert tf.TensorSpec([2]) == tf.TensorSpec([2], tf.float32) != spec
    assert tf.TensorSpec.from_tensor(tf.zeros([2])) == tf.TensorSpec([2])
    assert tf.TensorSpec([None], tf.int64).is_compatible_with(tf.constant([1, 2]))
    assert len({tf.TensorSpec([2]), tf.TensorSpec([2])}) == 1
