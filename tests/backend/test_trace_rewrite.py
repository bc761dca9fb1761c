"""Trace rewrites on every backend (autodiff/trace_rewrite.py): a ReLU mask on a
non-overlapping max pooling's gradient moves to the pooled side, and steps whose
results nothing reads are dropped; results equal eager execution (bit for bit on
numpy) and a float64 numpy oracle, with fewer launches; a broadcast_to that
elementwise readers would broadcast anyway is not materialised."""

import numpy as np

import texflow as tf
from harness import each_backend, memory


def _windows(n, k, s, pad_mode):
    """(output size, top pad) of a pooling of `n` positions, as TensorFlow pads."""
    out = -(-n // s) if pad_mode == "SAME" else (n - k) // s + 1
    return out, max((out - 1) * s + k - n, 0) // 2 if pad_mode == "SAME" else 0


def _oracle(x, k, w, ksize, stride, pad_mode):
    """float64 gradients of sum((flatten(max_pool(relu(conv2d(x, k, SAME)))) @ w) ** 2)
    with respect to k and w (each window's gradient to its first maximum)."""
    n, hh, ww, _ = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = lambda i, j: xp[:, i:i + hh, j:j + ww]  # noqa: E731
    h = np.maximum(sum(cols(i, j) @ k[i, j] for i in range(3) for j in range(3)), 0)
    (oh, top), (ow, left) = _windows(hh, ksize, stride, pad_mode), \
        _windows(ww, ksize, stride, pad_mode)
    pooled = np.zeros((n, oh, ow, h.shape[3]))
    where = np.zeros((n, oh, ow, h.shape[3], 2), int)
    for a in range(oh):
        for b in range(ow):
            best = np.full((n, h.shape[3]), -np.inf)
            for i in range(a * stride - top, a * stride - top + ksize):
                for j in range(b * stride - left, b * stride - left + ksize):
                    if 0 <= i < hh and 0 <= j < ww:
                        later = h[:, i, j] > best
                        best = np.where(later, h[:, i, j], best)
                        where[:, a, b][later] = (i, j)
            pooled[:, a, b] = best
    flat = pooled.reshape(n, -1)
    dy = 2 * (flat @ w)
    dpool = (dy @ w.T).reshape(pooled.shape)
    dh = np.zeros_like(h)
    for idx in np.ndindex(*pooled.shape):
        i, j = where[idx]
        dh[idx[0], i, j, idx[3]] += dpool[idx]
    dz = dh * (h > 0)
    dk = np.stack([np.stack([np.einsum("nhwc,nhwo->co", cols(i, j), dz) for j in range(3)])
                   for i in range(3)])
    return dk, flat.T @ dy


def _cases():
    """(name, max pooling window, stride, padding, whether the mask moves)."""
    return [
        ("2x2_valid_odd_image", 2, 2, "VALID", True),   # the last row/column pools nothing
        ("2x2_same_padded", 2, 2, "SAME", True),
        ("3x3_stride_2_overlapping", 3, 2, "VALID", False),
    ]


def _moved(steps):
    """Whether no elementwise step reads max_pool_grad's result (the mask moved)."""
    grad = next(s for s in steps if s[0] == "op" and s[1].name == "max_pool_grad")[4][0]
    return not any(s[0] == "op" and grad in s[2] and (
        s[1].name == "mul" or s[1].name.startswith("fused_elementwise")) for s in steps)


@each_backend
def test_relu_mask_moves_through_max_pool_gradient():
    rng = np.random.default_rng(21)
    exact = tf.get_backend() == "numpy"
    x = rng.normal(size=(2, 9, 9, 4)).astype(np.float32)
    k = (rng.normal(size=(3, 3, 4, 8)) / 6).astype(np.float32)
    for name, ksize, stride, pad_mode, moves in _cases():
        out = _windows(9, ksize, stride, pad_mode)[0]
        w = (rng.normal(size=(out * out * 8, 5)) / out).astype(np.float32)
        args = [tf.constant(v) for v in (x, k, w)]

        def grads(x, k, w):
            with tf.GradientTape() as tape:
                tape.watch([k, w])
                h = tf.nn.relu(tf.nn.conv2d(x, k, 1, "SAME"))
                pooled = tf.nn.max_pool2d(h, ksize, stride, pad_mode)
                y = tf.matmul(tf.reshape(pooled, [2, -1]), w)
                loss = tf.reduce_sum(y * y)
            return tape.gradient(loss, [k, w])
        compiled = tf.function(grads)
        compiled(*args)  # the trace
        assert _moved(compiled.get_concrete_function(*args)._steps) == moves, name
        before = memory()["num_launches"]
        eager = [g.numpy() for g in grads(*args)]
        middle = memory()["num_launches"]
        traced = [g.numpy() for g in compiled(*args)]
        after = memory()["num_launches"]
        assert after - middle < middle - before, (name, after - middle, middle - before)
        for got, want, oracle in zip(traced, eager, _oracle(x, k, w, ksize, stride,
                                                            pad_mode)):
            assert np.array_equal(got, want) if exact else \
                np.allclose(got, want, rtol=2e-5, atol=1e-5), (name, got, want)
            assert np.allclose(got, oracle, rtol=1e-3, atol=1e-4), (name, got, oracle)


@each_backend
def test_steps_nothing_reads_are_dropped():
    x = tf.constant(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
    v = tf.Variable(tf.zeros([3, 4]))

    def fn(x):
        unused = tf.exp(x) * 2.0 + tf.reduce_sum(x)  # nothing reads it
        v.assign(tf.nn.relu(x))                      # an assignment is kept
        del unused
        return x + 1.0

    compiled = tf.function(fn)
    compiled(x)
    v.assign(tf.zeros([3, 4]))
    ops = [s for s in compiled.get_concrete_function(x)._steps if s[0] == "op"]
    nodes = [n[0] for s in ops if "program" in s[3] for n in s[3]["program"].nodes]
    assert "sum" not in [s[1].name for s in ops] and "exp" not in nodes, (ops, nodes)
    before = memory()["num_launches"]
    got = compiled(x)
    assert memory()["num_launches"] - before == len(ops) == 1  # relu(x) and x + 1
    assert np.array_equal(got.numpy(), x.numpy() + 1)
    assert np.array_equal(v.numpy(), np.maximum(x.numpy(), 0))


@each_backend
def test_broadcasts_elementwise_readers_make_anyway_are_skipped():
    rng = np.random.default_rng(22)
    x, s = (tf.constant(rng.normal(size=shape).astype(np.float32)) for shape in
            ((3, 4), (3, 1)))
    cases = [  # (fn, whether a broadcast_to step stays)
        (lambda x, s: tf.broadcast_to(s, [3, 4]) * x - tf.broadcast_to(s, [3, 4]), False),
        (lambda x, s: tf.where(x > 0, tf.broadcast_to(s, [3, 4]), 1.0), False),
        (lambda x, s: tf.broadcast_to(s, [3, 4]) * 2.0 + x[:1], True),  # reader is [1, 4]
        (lambda x, s: tf.exp(tf.broadcast_to(s, [3, 4])), True),        # unary: its shape
    ]
    for n, (fn, stays) in enumerate(cases):
        compiled = tf.function(fn)
        got = compiled(x, s).numpy()
        names = [st[1].name for st in compiled.get_concrete_function(x, s)._steps
                 if st[0] == "op"]
        assert ("broadcast_to" in names) == stays, (n, names)
        want = fn(x, s).numpy()
        assert got.shape == want.shape, (n, got.shape, want.shape)
        assert np.array_equal(got, want) if tf.get_backend() == "numpy" else \
            np.allclose(got, want, rtol=2e-6, atol=1e-6), (n, got, want)


@each_backend
def test_reshapes_to_the_shape_a_value_has_do_not_stop_fusion():
    rng = np.random.default_rng(23)
    x, s = (tf.constant(rng.normal(size=shape).astype(np.float32)) for shape in
            ((3, 4), (3, 1)))
    cases = [  # (fn, launches compiled, whether a reshape step stays)
        (lambda x, s: tf.reshape(tf.exp(s) + 1.0, [3, 1]) * x, 1, False),
        (lambda x, s: tf.reshape(tf.reshape(s * 2.0, [3, 1]), [3, 1]) - x, 1, False),
        # returned, the view stays (and its reader reads it)
        (lambda x, s: (tf.reshape(tf.exp(s), [3, 1]), tf.reshape(tf.exp(s), [3, 1]) * x),
         None, True),
    ]
    for n, (fn, launches, stays) in enumerate(cases):
        compiled = tf.function(fn)
        compiled(x, s)
        before = memory()["num_launches"]
        got = compiled(x, s)
        count = memory()["num_launches"] - before
        names = [st[1].name for st in compiled.get_concrete_function(x, s)._steps
                 if st[0] == "op"]
        assert ("reshape" in names) == stays and launches in (None, count), (n, names, count)
        want = fn(x, s)
        got, want = (v if type(v) is tuple else (v,) for v in (got, want))
        for g, w in zip(got, want):
            assert g.shape == w.shape, (n, g.shape, w.shape)
            assert np.array_equal(g.numpy(), w.numpy()) if tf.get_backend() == "numpy" else \
                np.allclose(g.numpy(), w.numpy(), rtol=2e-6, atol=1e-6), (n, g, w)
