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
    with raises(tf.errors.InvalidArgumentError, match="slice index -1 of dimension 1 out of "):
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


@each_backend
def test_tensor_indices_inside_tf_function():
    """x[i] with i an argument (or computed from one) is a gather in the trace, so each
    call reads its own i; negative i count from the end, as in TensorFlow."""
    x0 = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = tf.constant(x0)
    keys = {"x[i]": (lambda x, i: x[i], lambda i: x0[i]),
            "x[:, i]": (lambda x, i: x[:, i], lambda i: x0[:, i]),
            "x[i, 1:, i - 1]": (lambda x, i: x[i, 1:, i - 1], lambda i: x0[i, 1:, i - 1]),
            "x[..., i]": (lambda x, i: x[..., i], lambda i: x0[..., i]),
            "x[None, i, ..., 2]": (lambda x, i: x[None, i, ..., 2],
                                   lambda i: x0[None, i, ..., 2]),
            "x[0, i, ::2]": (lambda x, i: x[0, i, ::2], lambda i: x0[0, i, ::2])}
    for what, (fn, expected) in keys.items():
        compiled = tf.function(fn)
        for i in (1, 2, -1, 0, -3):
            _same(compiled(x, tf.constant(i)), expected(i), f"{what} at i={i}")
        assert compiled.experimental_get_tracing_count() == 1, what
    v = tf.Variable(1)
    f = tf.function(lambda: x[v] * 2.0)
    _same(f(), x0[1] * 2, "x[variable]")
    v.assign(-1)
    _same(f(), x0[-1] * 2, "x[variable] after assign")


@each_backend
def test_tensor_index_errors_and_gradient_inside_tf_function():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    f = tf.function(lambda x, i: x[i])
    f(x, tf.constant(0))
    for i, shown in ((3, 3), (-4, -1)):  # TensorFlow names the index after adding the size
        with raises(tf.errors.InvalidArgumentError,
                    match=f"slice index {shown} of dimension 0 out of bounds"):
            f(x, tf.constant(i))  # a replay checks the call's own index
    g = tf.function(lambda x, i: x[i:i + 2])
    with raises(tf.errors.OperatorNotAllowedInGraphError, match="slice bound that is a traced"):
        g(x, tf.constant(0))
    w = tf.Variable(np.arange(16, dtype=np.float32).reshape(4, 4))

    def loss(i):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(w[i] * w[:, i])
        return tape.gradient(y, w)
    eager, compiled = loss(tf.constant(2)), tf.function(loss)(tf.constant(2))
    oracle.assert_close(compiled.numpy(), eager.numpy(), 0.0, 0.0, "gradient of x[i] * x[:, i]")
    oracle.assert_close(tf.function(loss)(tf.constant(-2)).numpy(), eager.numpy(), 0.0, 0.0,
                        "the same with i = -2")


@each_backend
def test_slice_with_a_tensor_begin_inside_tf_function():
    x0 = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = tf.constant(x0)
    f = tf.function(lambda x, i, j: tf.slice(x, [i, 1], [2, -1]) + tf.slice(x, [1, j], [2, 5]))
    for i, j in ((0, 0), (2, 1), (1, 1)):
        _same(f(x, tf.constant(i), tf.constant(j)), x0[i:i + 2, 1:] + x0[1:3, j:j + 5],
              f"slices at {i}, {j}")
    s = tf.function(lambda x, b: tf.slice(x, b, [3, 2]))
    _same(s(x, tf.constant([1, 4])), x0[1:4, 4:6], "a begin tensor")
    t = tf.function(lambda x, i: tf.slice(x, tf.stack([0, i]), [2, 3]))
    _same(t(x, tf.constant(3)), x0[0:2, 3:6], "a begin stacked from a constant and an index")
    bad = tf.errors.InvalidArgumentError
    with raises(bad, match=r"Expected size\[0\] in \[0, 1\], but got 2"):
        f(x, tf.constant(3), tf.constant(0))
    with raises(bad, match=r"Expected begin\[0\] in \[0, 4\], but got 5"):
        f(x, tf.constant(5), tf.constant(0))
    with raises(bad, match=r"Expected begin\[1\] in \[0, 6\], but got -1"):
        s(x, tf.constant([0, -1]))
    with raises(tf.errors.OperatorNotAllowedInGraphError, match="size -1"):
        tf.function(lambda x, i: tf.slice(x, [0, i], [1, -1]))(x, tf.constant(1))
    with raises(bad, match=r"Expected size\[0\] in \[0, 1\], but got 2"):
        tf.slice(x, [3, 0], [2, 3])  # eagerly: the same words


@each_backend
def test_variable_slices_assign_as_in_tensorflow():
    v0 = np.arange(12, dtype=np.float32).reshape(3, 4)
    v, expected = tf.Variable(v0), v0.copy()
    for key, value in (((1,), [1.0, 2.0, 3.0, 4.0]), ((slice(None), slice(1, 3)), 5.0),
                       ((slice(None, None, 2), -1), [7.0, 8.0]),
                       ((Ellipsis, slice(None, None, -1)), np.ones((3, 4), np.float32))):
        assert v[key].assign(value) is v
        expected[key] = value
        _same(tf.identity(v), expected, f"v[{key!r}].assign")
    with raises(tf.errors.InvalidArgumentError, match=r"Cannot broadcast input shape \[2\] "
                                                      r"into final shape \[4\]"):
        v[1].assign([1.0, 2.0])
    w = tf.Variable(np.zeros(3, np.int32))
    with raises(TypeError, match="Cannot convert 5.5"):
        w[0].assign(5.5)
    assert not hasattr(tf.constant(v0)[1], "assign") and not hasattr(v[1] * 1.0, "assign")
    f = tf.function(lambda i: v[i].assign(tf.fill([4], 9.0)))  # a traced index
    f(tf.constant(2))
    f(tf.constant(-3))
    expected[2] = expected[0] = 9.0
    _same(tf.identity(v), expected, "v[i].assign inside tf.function")


@each_backend
def test_lists_of_traced_tensors_are_packed():
    """A list holding tensors becomes one tensor stacked on the device (TensorFlow's
    auto-packing): inside tf.function its entries may be traced values."""
    x0 = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = tf.constant(x0)
    f = tf.function(lambda x, i: tf.tensor_scatter_nd_update(x, [[1]], [x[i]]))
    expected = x0.copy()
    expected[1] = x0[3]
    _same(f(x, tf.constant(3)), expected, "updates [x[i]]")
    g = tf.function(lambda x: tf.convert_to_tensor([[x[0, 0], 2.0], [x[1, 1], x[2, 2]]]))
    _same(g(x), np.array([[0.0, 2.0], [4.0, 8.0]], np.float32), "nested list of scalars")
    _same(tf.convert_to_tensor([x[0], [1.0, 1.0, 1.0]]), np.stack([x0[0], np.ones(3, np.float32)]),
          "eagerly too")
    with raises(TypeError, match="dtypes float32 and int32"):
        tf.convert_to_tensor([x[0, 0], tf.constant(1)])
    with raises(tf.errors.OperatorNotAllowedInGraphError, match="reshape, whose result's shape"):
        tf.function(lambda x, n: tf.reshape(x, [n, -1]))(x, tf.constant(2))
