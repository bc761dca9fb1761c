"""A replayed step's values: what Python holds from one replay (results, Variables,
views of them) is never changed by the next one, and intermediates that only kernels
read (numpy keeps them as bare arrays, fused kernels reuse their own buffers in place)
give eager's results: the same bits on numpy."""

import numpy as np

import texflow as tf
from harness import each_backend


def _same(e, t):
    if tf.get_backend() == "numpy":
        return np.array_equal(e, t)
    return np.allclose(e, t, rtol=1e-5, atol=1e-6)  # a GPU may contract fused code


@each_backend
def test_replays_never_change_what_python_holds():
    rng = np.random.default_rng(5)
    w0 = rng.normal(size=(6, 4)).astype(np.float32)
    mask = tf.constant(rng.random((5, 4)) > 0.3)

    def step(x, w):
        h = tf.matmul(x, w)                         # read only by kernels
        flat = tf.reshape(tf.exp(h * 0.25) - 1.0, [20])  # a view of an intermediate
        y = tf.where(h > 0.1, h, -h) / 3            # a kernel returning a new array
        z = tf.sqrt(tf.abs(y) + 1.0) * tf.cast(mask, tf.float32)
        z = tf.tanh(tf.log(z + 2.0)) - tf.sqrt(z) / 7
        w.assign(w * 0.5 + tf.reduce_mean(z))       # a Variable takes a kernel's result
        return z, tf.reshape(z, [4, 5]), tf.reduce_sum(flat)

    eager_w, traced_w = tf.Variable(w0), tf.Variable(w0)
    compiled = tf.function(step)
    held = []
    for i in range(4):  # trace, first replay (prepares), two prepared replays
        x = tf.constant(rng.normal(size=(5, 6)).astype(np.float32))
        eager = [r.numpy() for r in step(x, eager_w)]
        traced = compiled(x, traced_w)
        for e, t in zip(eager, traced):
            assert e.dtype == t.numpy().dtype and _same(e, t.numpy()), (i, e, t.numpy())
        assert _same(eager_w.numpy(), traced_w.numpy()), i
        held.append((traced, [t.numpy() for t in traced], traced_w.numpy(),
                     tf.reshape(traced_w, [24])))
    for traced, values, w, w_view in held:  # later replays left earlier values alone
        for t, v in zip(traced, values):
            assert np.array_equal(t.numpy(), v)
        assert np.array_equal(w_view.numpy(), w.reshape(24))
    assert compiled.experimental_get_tracing_count() == 1


@each_backend
def test_variables_take_new_values_in_their_own_storage_read_fresh():
    # a kernel result Python only assigns goes into the Variable's storage when nothing
    # shares it (WebGL, WebGPU): a read after each replay (which keeps a host copy) sees
    # the new value; a view held across a replay keeps the old one
    def step(v):
        v.assign(v * 0.5 + 1.0)
        return tf.reduce_sum(v)

    start = np.arange(6, dtype=np.float32)
    eager_v, traced_v = tf.Variable(start), tf.Variable(start)
    compiled = tf.function(step)
    for i in range(5):
        e, t = step(eager_v), compiled(traced_v)
        assert _same(eager_v.numpy(), traced_v.numpy()) and _same(e.numpy(), t.numpy()), i
    held, kept = tf.reshape(traced_v, [2, 3]), traced_v.numpy().copy()
    step(eager_v), compiled(traced_v)
    assert _same(eager_v.numpy(), traced_v.numpy())
    assert np.array_equal(held.numpy(), kept.reshape(2, 3))


@each_backend
def test_fused_chains_with_buffers_reused_in_place_match_eager():
    rng = np.random.default_rng(9)
    a = tf.constant(rng.normal(size=(33, 17)).astype(np.float32))
    b = tf.constant(rng.normal(size=(17,)).astype(np.float32))

    def chain(x, y):
        # float32 ufunc nodes in place, an int constant in a division, a bool mask,
        # comparisons, and a registry kernel (where) between them reading one node
        u = tf.exp(x * 0.5 - y) / 3 + 1.0
        m = u * tf.cast(x > y, tf.float32) + tf.maximum(u, 2.0)
        s = tf.where(m > 1.5, m, -m)
        t = tf.tanh(tf.sqrt(tf.abs(s)) - tf.log(u)) * tf.square(u) - y
        return tf.minimum(t, 4.0), tf.nn.relu(-t) + s

    compiled = tf.function(chain)
    inputs, a0, b0 = (a, b), a.numpy(), b.numpy()
    for _ in range(3):
        eager = [r.numpy() for r in chain(*inputs)]
        traced = [r.numpy() for r in compiled(*inputs)]
        for e, t in zip(eager, traced):
            assert e.dtype == t.dtype and e.shape == t.shape and _same(e, t), (e, t)
    assert np.array_equal(a.numpy(), a0) and np.array_equal(b.numpy(), b0)  # never written
    first = compiled(*inputs)
    kept = [r.numpy() for r in first]
    compiled(b * 0.0 + a, b * 2.0)
    for r, k in zip(first, kept):  # each call's results are arrays of their own
        assert np.array_equal(r.numpy(), k)
