"""Indexing, slicing and iteration of tensors (TensorFlow's strided_slice) on every backend,
against numpy's basic indexing: the rows of tests/op_cases.py, masks, errors, gradients
(tests/grad_cases.py checks those against finite differences)."""

import numpy as np

import oracle
import oracle_nn
import texflow as tf
from harness import each_backend, raises
from op_cases import STRIDED_SLICE_CASES, STRIDED_SLICE_MASKS, rng_for, values


def _same(got, expected, what):
    assert isinstance(got, tf.Tensor), f"{what}: not a tf.Tensor but {type(got).__name__}"
    assert isinstance(got.shape, tf.TensorShape), f"{what}: shape is {type(got.shape)}"
    oracle.assert_close(got.numpy(), expected, 0.0, 0.0, what)


@each_backend
def test_getitem_matches_numpy_indexing():
    for dtype in ("float32", "int32", "bool"):
        for shape, key in STRIDED_SLICE_CASES:
            x = values(dtype, shape, rng_for("getitem", dtype, shape, repr(key)))
            t = tf.constant(x) * 1 if dtype != "bool" else tf.logical_not(tf.constant(~x))
            with tf.scope():  # t is a device result on GPU backends: slices stay there
                _same(t[key], oracle_nn.strided_slice(x, key), f"{dtype}{list(shape)}[{key!r}]")


@each_backend
def test_strided_slice_masks():
    for shape, begin, end, strides, masks, key in STRIDED_SLICE_MASKS:
        x = values("float32", shape, rng_for("strided", shape, begin))
        got = tf.strided_slice(tf.constant(x), begin, end, strides, **masks)
        _same(got, oracle_nn.strided_slice(x, key), f"strided_slice({shape}, {begin}, {end}, "
                                                     f"{strides}, {masks})")


@each_backend
def test_slicing_stays_on_the_device_and_variables_index():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4)) + 1.0
    before = tf.memory()["num_downloads"]
    y = x[::-1, 1:3] * 2.0
    assert tf.memory()["num_downloads"] == before, "slicing downloaded data"
    assert y.numpy().tolist() == [[20.0, 22.0], [12.0, 14.0], [4.0, 6.0]]
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert v[0].numpy().tolist() == [1.0, 2.0] and v[:, 1].numpy().tolist() == [2.0, 4.0]
    assert x[tf.constant(1)].numpy().tolist() == x[1].numpy().tolist()
    assert x[np.int64(2), -1].numpy() == 12.0
    assert x[[1, 2]].numpy() == 7.0  # a list is a tuple of indices, as in TensorFlow
    assert x[tf.constant([True, False, True])].numpy().tolist() == [[1, 2, 3, 4], [9, 10, 11, 12]]
    assert tf.strided_slice(x, [0], [1]).shape == (1, 4)


@each_backend
def test_iteration_and_len():
    x = tf.constant([[1, 2], [3, 4], [5, 6]])
    rows = [row.numpy().tolist() for row in x]
    assert rows == [[1, 2], [3, 4], [5, 6]] and len(x) == 3
    assert [int(v) for v in x[:, 0]] == [1, 3, 5]
    assert list(tf.zeros([0, 3])) == []
    with raises(TypeError, match="Cannot iterate over a scalar tensor"):
        iter(tf.constant(1.0))
    with raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(tf.constant(1.0))


@each_backend
def test_indexing_errors_are_tensorflows():
    x = tf.constant(np.arange(12).reshape(3, 4))
    with raises(tf.errors.InvalidArgumentError, match="slice index 5 of dimension 0 out of b"):
        x[5]
    with raises(tf.errors.InvalidArgumentError, match="slice index -5 of dimension 1 out of "):
        x[:, -5]
    with raises(tf.errors.InvalidArgumentError, match="input has only 2 dims"):
        x[0, 0, 0]
    with raises(tf.errors.InvalidArgumentError, match="Multiple ellipses"):
        x[..., ...]
    with raises(tf.errors.InvalidArgumentError, match="strides\\[0\\] must be non-zero"):
        x[::0]
    with raises(tf.errors.InvalidArgumentError, match="Attempting to slice scalar input"):
        tf.constant(1.0)[0]
    for bad in (tf.constant([0, 2]), np.array([0, 2]), 1.0, "a", tf.constant(1.0)):
        with raises(TypeError, match="Only integers, slices"):
            x[bad]
    with raises(ValueError, match="mask cannot be scalar"):
        x[True]
    assert x[1:10].shape == (2, 4) and x[-100:].shape == (3, 4) and x[2:0].shape == (0, 4)
