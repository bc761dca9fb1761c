"""tf.scatter_nd and tf.tensor_scatter_nd_* on every backend against a numpy oracle that
applies the updates one after another (TensorFlow's CPU order): random shapes, index tuple
lengths and duplicates, eager and inside tf.function, gradients, and indices computed on
the device (tests/tfdiff/snippets_scatter.py has TensorFlow's own results and errors)."""

import numpy as np

import texflow as tf
from harness import each_backend, raises

_STEPS = {"update": lambda a, b: b, "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
          "max": lambda a, b: b if a < b else a, "min": lambda a, b: b if b < a else a}


def _oracle(kind, tensor, indices, updates):
    out = tensor.copy()
    m = indices.shape[-1]
    rows = indices.reshape(-1, m)
    ups = updates.reshape((len(rows),) + tensor.shape[m:])
    for row, up in zip(rows, ups):
        at = tuple(row)
        for pos in np.ndindex(*tensor.shape[m:]):
            out[at + pos] = _STEPS[kind](out[at + pos], up[pos])
    return out


def _case(seed, dtype):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=rng.integers(1, 4)))
    m = int(rng.integers(1, len(shape) + 1))
    batch = tuple(int(d) for d in rng.integers(1, 4, size=rng.integers(1, 3)))
    indices = np.stack([rng.integers(0, d, size=batch) for d in shape[:m]], -1)
    updates = rng.integers(-9, 10, size=batch + shape[m:])
    tensor = rng.integers(-9, 10, size=shape)
    return tensor.astype(dtype), indices.astype(np.int32), updates.astype(dtype)


@each_backend
def test_scatter_ops_match_sequential_oracle():
    for seed in range(12):
        for dtype in ("float32", "int32"):
            t, i, u = _case(seed, dtype)
            for kind in _STEPS:
                got = getattr(tf, f"tensor_scatter_nd_{kind}")(tf.constant(t), i,
                                                               tf.constant(u)).numpy()
                expected = _oracle(kind, t, i, u)
                assert got.dtype == expected.dtype and got.tolist() == expected.tolist(), \
                    (seed, dtype, kind, got, expected)
            got = tf.scatter_nd(i, tf.constant(u), t.shape).numpy()
            assert got.tolist() == _oracle("add", np.zeros_like(t), i, u).tolist(), (seed, got)


@each_backend
def test_scatter_inside_tf_function():
    t, i, u = _case(3, "float32")

    @tf.function
    def summed(tensor, indices, updates):  # indices an argument: scatter_nd needs no host
        return tf.tensor_scatter_nd_add(tensor, indices, updates) + tf.scatter_nd(
            indices, updates, tensor.shape)

    @tf.function
    def replaced(tensor, updates):  # constant indices: folded into the trace
        return tf.tensor_scatter_nd_update(tensor, tf.constant(i), updates) * 2.0

    for k in range(2):
        expected = _oracle("add", t, i, u + k) + _oracle("add", np.zeros_like(t), i, u + k)
        got = summed(tf.constant(t), tf.constant(i), tf.constant(u + k)).numpy()
        np.testing.assert_array_equal(got, expected)
        got = replaced(tf.constant(t), tf.constant(u + k)).numpy()
        np.testing.assert_array_equal(got, _oracle("update", t, i, u + k) * 2.0)
    # the replay checks each call's indices
    with raises(tf.errors.InvalidArgumentError, match="does not index into shape"):
        summed(tf.constant(t), tf.constant(i + 10), tf.constant(u))

    @tf.function
    def by_argument(tensor, indices, updates):  # compared pairwise on the device
        return tf.tensor_scatter_nd_update(tensor, indices, updates)
    for k in range(3):
        idx = np.concatenate([i, i[::-1] if k == 1 else i], 0) if k else i
        ups = np.concatenate([u, u + 1], 0) if k else u
        got = by_argument(tf.constant(t), tf.constant(idx), tf.constant(ups)).numpy()
        np.testing.assert_array_equal(got, _oracle("update", t, idx, ups))
    with raises(tf.errors.InvalidArgumentError, match="does not index into shape"):
        by_argument(tf.constant(t), tf.constant(i + 10), tf.constant(u))

    for kind in ("max", "min"):  # indices an argument: compared pairwise on the device
        fn = tf.function(getattr(tf, f"tensor_scatter_nd_{kind}"))
        for seed in range(4):
            for dtype in ("float32", "int32"):
                t2, i2, u2 = _case(seed, dtype)
                got = fn(tf.constant(t2), tf.constant(i2), tf.constant(u2)).numpy()
                assert got.tolist() == _oracle(kind, t2, i2, u2).tolist(), (kind, seed, dtype)
        nan = float("nan")  # TensorFlow's order: a NaN stays only where the tensor has it
        t2 = np.array([1.0, nan, 3.0, 1.0, 5.0], np.float32)
        i2 = np.array([[0], [1], [2], [3], [3], [4]], np.int32)
        u2 = np.array([nan, 2.0, 7.0, 2.0, nan, nan], np.float32)
        got = fn(tf.constant(t2), tf.constant(i2), tf.constant(u2)).numpy()
        assert repr(got.tolist()) == repr(_oracle(kind, t2, i2, u2).tolist()), (kind, got)


@each_backend
def test_scatter_gradients():
    t = tf.constant([1.0, 2.0, 3.0, 4.0])
    u = tf.constant([5.0, 6.0, 7.0])
    w = tf.constant([1.0, 2.0, 3.0, 4.0])
    idx = [[1], [1], [2]]
    expected = {"add": ([1, 2, 3, 4], [2, 2, 3]), "sub": ([1, 2, 3, 4], [-2, -2, -3]),
                "update": ([1, 0, 0, 4], [2, 2, 3]), "max": ([1, 0, 0, 4], [0, 2, 3]),
                "min": ([1, 2, 3, 4], [0, 0, 0])}
    for kind, (dt, du) in expected.items():
        with tf.GradientTape() as tape:
            tape.watch([t, u])
            loss = tf.reduce_sum(getattr(tf, f"tensor_scatter_nd_{kind}")(t, idx, u) * w)
        gt, gu = tape.gradient(loss, [t, u])
        assert gt.numpy().tolist() == dt and gu.numpy().tolist() == du, (kind, gt, gu)
    with tf.GradientTape() as tape:
        tape.watch(u)
        loss = tf.reduce_sum(tf.scatter_nd(idx, u, [4]) * w)
    assert tape.gradient(loss, u).numpy().tolist() == [2, 2, 3]


@each_backend
def test_indices_computed_on_the_device():
    """Indices with no host copy: in range they scatter as host ones do; out of range
    scatter_nd drops the update (TensorFlow raises; a GPU kernel cannot), update reads them
    back and raises as TensorFlow does."""
    def device_ints(values):
        return tf.cast(tf.constant(np.array(values, np.float32)) * 1.0, "int32")
    got = tf.scatter_nd(device_ints([[1], [3], [1]]), tf.constant([1.0, 2.0, 3.0]), [4])
    assert got.numpy().tolist() == [0, 4, 0, 2]
    got = tf.tensor_scatter_nd_update(tf.zeros([4]), device_ints([[1], [1]]), [5.0, 6.0])
    assert got.numpy().tolist() == [0, 6, 0, 0]
    with raises(tf.errors.InvalidArgumentError, match="does not index into shape"):
        tf.tensor_scatter_nd_max(tf.zeros([4]), device_ints([[1], [4]]), [5.0, 6.0])
    if tf.get_backend() != "numpy":  # numpy's data is always on the host: it raises
        got = tf.scatter_nd(device_ints([[1], [7], [-1]]), tf.constant([1.0, 2.0, 3.0]), [4])
        assert got.numpy().tolist() == [0, 1, 0, 0]


@each_backend
def test_scatter_gradients_inside_tf_function():
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    u = tf.Variable([5.0, 6.0, 7.0])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            y = tf.tensor_scatter_nd_max(v, [[1], [1], [2]], u)
            z = tf.tensor_scatter_nd_add(v, [[0], [0]], u[:2])
            loss = tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0, 4.0])) + tf.reduce_sum(z)
        return tape.gradient(loss, [v, u])
    for _ in range(2):  # the trace, then a replay
        gv, gu = step()
        assert gv.numpy().tolist() == [2, 1, 1, 5] and gu.numpy().tolist() == [1, 3, 3]

    @tf.function
    def replaced(indices):  # indices an argument: the pairwise path, TensorFlow's gradient
        with tf.GradientTape() as tape:
            y = tf.tensor_scatter_nd_update(v, indices, u)
            loss = tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0, 4.0]))
        return y, tape.gradient(loss, [v, u])
    for _ in range(2):
        y, (gv, gu) = replaced(tf.constant([[1], [1], [2]]))
        assert y.numpy().tolist() == [1, 6, 7, 4]
        assert gv.numpy().tolist() == [1, 0, 0, 4] and gu.numpy().tolist() == [2, 2, 3]

    @tf.function
    def raised(indices):
        with tf.GradientTape() as tape:
            y = tf.tensor_scatter_nd_max(v, indices, u)
            loss = tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0, 4.0]))
        return tape.gradient(loss, [v, u])
    for _ in range(2):
        gv, gu = raised(tf.constant([[1], [1], [2]]))
        assert gv.numpy().tolist() == [1, 0, 0, 4] and gu.numpy().tolist() == [0, 2, 3]
