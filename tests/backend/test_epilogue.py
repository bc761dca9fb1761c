"""Epilogue fusion on every backend: in a tf.function, a matmul or conv2d read only by
an elementwise tree (bias add, activation, a gradient mask, a second product) is one
step whose kernel applies the tree before its write; results equal eager execution
and the numpy oracle, with fewer launches."""

import numpy as np

import texflow as tf
from harness import each_backend, memory


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _conv(x, k, pad):
    """float64 NHWC x HWIO convolution, stride 1."""
    if pad:
        x = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    kh, kw = k.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    return sum(x[:, i:i + oh, j:j + ow] @ k[i, j] for i in range(kh) for j in range(kw))


def _cases():
    """(name, fn, numpy oracle, argument shapes): each path of the product kernels."""
    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    return [
        ("dense_relu", lambda x, w, b: tf.nn.relu(tf.matmul(x, w) + b),
         lambda x, w, b: relu(x @ w + b), [(16, 256), (256, 64), (64,)]),  # GLSL: blocked
        ("dense_odd_n", lambda x, w, b: tf.matmul(x, w) + b,
         lambda x, w, b: x @ w + b, [(5, 12), (12, 10), (10,)]),
        ("logits", lambda x, w, b: tf.nn.relu(tf.matmul(x, w) + b),  # small workgroups
         lambda x, w, b: relu(x @ w + b), [(64, 128), (128, 10), (10,)]),
        ("logits_batch_1", lambda x, w, b: tf.matmul(x, w) - b,
         lambda x, w, b: x @ w - b, [(1, 128), (128, 10), (10,)]),
        ("grad_mask", lambda d, w, h: tf.matmul(d, w, transpose_b=True) * tf.cast(h > 0,
                                                                                    tf.float32),
         lambda d, w, h: (d @ w.T) * (h > 0), [(64, 10), (128, 10), (64, 128)]),
        ("batched", lambda a, b, c: tf.sigmoid(tf.matmul(a, b) * 0.5 + c),
         lambda a, b, c: _sigmoid(a @ b * 0.5 + c), [(3, 8, 12), (3, 12, 16), (1, 16)]),
        ("long_k", lambda a, b, c: tf.tanh(tf.matmul(a, b) - c),
         lambda a, b, c: np.tanh(a @ b - c), [(2, 3000), (3000, 3), (2, 1)]),
        ("two_products", lambda a, b, c: tf.matmul(a, b) + tf.matmul(a, c),
         lambda a, b, c: a @ b + a @ c, [(6, 8), (8, 4), (8, 4)]),
        ("conv_relu", lambda x, k, b: tf.nn.relu(tf.nn.conv2d(x, k, 1, "SAME") + b),
         lambda x, k, b: relu(_conv(x, k, 1) + b), [(2, 9, 9, 4), (3, 3, 4, 8), (8,)]),
        ("conv_odd_channels", lambda x, k, b: tf.nn.elu(tf.nn.conv2d(x, k, 1, "VALID") + b),
         lambda x, k, b: np.where(_conv(x, k, 0) + b > 0, _conv(x, k, 0) + b,
                                  np.expm1(_conv(x, k, 0) + b)),
         [(2, 7, 7, 3), (3, 3, 3, 5), (5,)]),
        ("deep_product", lambda a, b, c: tf.nn.relu(tf.matmul(a, b) + c),
         lambda a, b, c: relu(a @ b + c), [(6, 2048), (2048, 8), (8,)]),
        ("conv_blocked", lambda x, k, b: tf.nn.relu(tf.nn.conv2d(x, k, 1, "VALID") + b),
         lambda x, k, b: relu(_conv(x, k, 0) + b), [(4, 18, 18, 1), (3, 3, 1, 32), (32,)]),
        # a node read by two later nodes (Keras accuracy's NaN guard on logits): numpy's
        # in-place epilogue reused its buffer at the first read (wrong from 2026-11-23)
        ("node_read_twice", lambda x, w, b: _nan_guard(tf.matmul(x, w) + b),
         lambda x, w, b: x @ w + b, [(8, 6), (6, 3), (3,)]),
        ("node_read_thrice", lambda x, w, b: _leaky(tf.matmul(x, w) + b),
         lambda x, w, b: np.where(x @ w + b > 0, x @ w + b, (x @ w + b) * 0.2),
         [(16, 32), (32, 24), (24,)]),
        ("conv_node_read_twice", lambda x, k, b: _leaky(tf.nn.conv2d(x, k, 1, "SAME") + b),
         lambda x, k, b: np.where(_conv(x, k, 1) + b > 0, _conv(x, k, 1) + b,
                                  (_conv(x, k, 1) + b) * 0.2),
         [(2, 6, 6, 3), (3, 3, 3, 4), (4,)]),
    ]


def _nan_guard(v):
    return tf.where(tf.math.is_nan(v), -np.inf, v)


def _leaky(v):
    return tf.where(v > 0, v, v * 0.2)


@each_backend
def test_products_fuse_their_elementwise_epilogue():
    rng = np.random.default_rng(11)
    exact = tf.get_backend() == "numpy"
    for name, fn, oracle, shapes in _cases():
        data = [rng.normal(size=s).astype(np.float32) / np.sqrt(s[-1]) for s in shapes]
        args = [tf.constant(d) for d in data]
        compiled = tf.function(fn)
        compiled(*args)  # the trace
        steps = compiled.get_concrete_function(*args)._steps
        kinds = [s[1].name for s in steps]
        assert sum(k.endswith("_epilogue") for k in kinds) >= 1, (name, kinds)
        assert not {"matmul", "conv2d"} & set(kinds) or name == "two_products", (name, kinds)
        before = memory()["num_launches"]
        eager = fn(*args).numpy()
        middle = memory()["num_launches"]
        traced = compiled(*args).numpy()
        after = memory()["num_launches"]
        assert after - middle < middle - before, (name, after - middle, middle - before)
        assert traced.shape == eager.shape and traced.dtype == np.float32
        # a GPU compiler may contract fused code (a * b + c into one fma)
        assert np.array_equal(traced, eager) if exact else \
            np.allclose(traced, eager, rtol=2e-6, atol=1e-6), (name, traced, eager)
        want = oracle(*[d.astype(np.float64) for d in data])
        assert np.allclose(traced, want, rtol=1e-4, atol=1e-5), (name, traced, want)


@each_backend
def test_products_read_elsewhere_are_not_fused():
    rng = np.random.default_rng(12)
    x, w = (tf.constant(rng.normal(size=s).astype(np.float32)) for s in ((4, 8), (8, 4)))

    def returned(x, w):  # the product is an output: it must be written
        y = tf.matmul(x, w)
        return y, tf.nn.relu(y)

    def read_twice(x, w):  # two readers: the product is stored once for both
        y = tf.matmul(x, w)
        return tf.nn.relu(y) + tf.reduce_sum(y)

    def broadcast_read(x, w):  # the product is broadcast to a larger result
        return tf.matmul(x, w)[:, :1] * 0 + tf.matmul(x, w[:, :1]) + tf.ones([4, 4])

    for fn in (returned, read_twice, broadcast_read):
        compiled = tf.function(fn)
        got = compiled(x, w)
        kinds = [s[1].name for s in compiled.get_concrete_function(x, w)._steps]
        assert "matmul" in kinds, (fn.__name__, kinds)
        for g, e in zip(*[r if isinstance(r, tuple) else (r,) for r in (got, fn(x, w))]):
            assert np.allclose(g.numpy(), e.numpy(), rtol=2e-6, atol=1e-6), fn.__name__


def _adam_like(g, m, v, w):
    m1 = m + (g - m) * 0.1
    v1 = v + (g * g - v) * 0.001
    return m1, v1, w - 0.01 * m1 / (np.sqrt(v1) + 1e-7)


@each_backend
def test_product_folds_into_the_kernel_of_several_outputs_reading_it():
    """x^T d read only by an update of three Variables (one kernel of several outputs):
    one matmul_epilogue_multi step (forced on every backend; made on GLSL, where the
    blocked product's interleaving pass writes the update's outputs), results as eager
    ones, a Variable the product reads after an assignment left alone."""
    from texflow.autodiff import fusion_epilogue
    from texflow.engine import context

    rng = np.random.default_rng(11)
    cases = [("blocked", (64, 128), (64, 32)),   # GLSL: 8-row blocks, interleaving pass
             ("split_k", (4096, 16), (4096, 16)),  # GLSL: blocked, K in 6 chunks
             ("small", (5, 6), (5, 10)),        # GLSL: the product, then the update
             ("transposed_c", (5, 8), (5, 10))]  # GLSL: C^T, read by the update by strides
    languages = set(fusion_epilogue.MULTI_EPILOGUE_LANGUAGES)
    fusion_epilogue.MULTI_EPILOGUE_LANGUAGES.add(context.current().language)
    try:
        for name, xs, ds in cases:
            x, d = (rng.normal(size=s).astype(np.float32) for s in (xs, ds))
            init = [rng.normal(size=(xs[1], ds[1])).astype(np.float32) for _ in range(2)]
            init.insert(1, rng.random((xs[1], ds[1])).astype(np.float32))  # v >= 0

            def step(state, x, d):
                m, v, w = state
                g = tf.matmul(x, d, transpose_a=True)
                m1, v1 = m + (g - m) * 0.1, v + (g * g - v) * 0.001
                w.assign(w - 0.01 * m1 / (tf.sqrt(v1) + 1e-7))
                m.assign(m1)
                v.assign(v1)
            eager_state, traced_state = ([tf.Variable(a) for a in init] for _ in range(2))
            compiled = tf.function(lambda x, d: step(traced_state, x, d))
            args = [tf.constant(a) for a in (x, d)]
            oracle = [a.astype(np.float64) for a in init]
            for _ in range(2):
                step(eager_state, *args)
                compiled(*args)
                oracle = _adam_like(x.astype(np.float64).T @ d, *oracle)
            names = [s[1].name for s in compiled.get_concrete_function(*args)._steps
                     if s[0] == "op"]
            assert names == ["matmul_epilogue_multi"], (name, names)
            for e, t, o in zip(eager_state, traced_state, oracle):
                assert np.allclose(t.numpy(), e.numpy(), rtol=1e-5, atol=1e-6), name
                assert np.allclose(t.numpy(), o, rtol=1e-4, atol=1e-5), name
        # left alone: the product reads a Variable assigned before the update
        def reassigned(state, x):
            w, m, v = state
            g = tf.matmul(x, w, transpose_a=True)
            w.assign(w * 2.0)
            m.assign(m + g * 0.5)
            v.assign(v + g * g)
        init = [rng.normal(size=s).astype(np.float32) for s in ((5, 10), (6, 10), (6, 10))]
        eager_state, traced_state = ([tf.Variable(a) for a in init] for _ in range(2))
        x = tf.constant(rng.normal(size=(5, 6)).astype(np.float32))
        compiled = tf.function(lambda x: reassigned(traced_state, x))
        for _ in range(2):
            reassigned(eager_state, x)
            compiled(x)
        names = [s[1].name for s in compiled.get_concrete_function(x)._steps
                 if s[0] == "op"]
        assert "fused_elementwise_multi" in names and "matmul" in names, names
        for e, t in zip(eager_state, traced_state):
            assert np.allclose(t.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    finally:
        fusion_epilogue.MULTI_EPILOGUE_LANGUAGES.clear()
        fusion_epilogue.MULTI_EPILOGUE_LANGUAGES.update(languages)
