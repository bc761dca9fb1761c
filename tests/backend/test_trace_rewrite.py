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


def _oracle(x, k, w, ksize, stride, pad_mode, bias=0.0):
    """float64 gradients of sum((flatten(max_pool(relu(conv2d(x, k, SAME) + bias))) @ w)
    ** 2) with respect to k and w (each window's gradient to its first maximum)."""
    n, hh, ww, _ = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = lambda i, j: xp[:, i:i + hh, j:j + ww]  # noqa: E731
    h = np.maximum(sum(cols(i, j) @ k[i, j] for i in range(3) for j in range(3)) + bias, 0)
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
    batch, _, _, channel = np.indices(pooled.shape)
    np.add.at(dh, (batch, where[..., 0], where[..., 1], channel), dpool)
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
    grad = next(s for s in steps
                if s[0] == "op" and s[1].name.startswith("max_pool_grad"))[4][0]
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


def _pool_grad_oracle(x, ksize, stride, top, left, out_hw, dy):
    """float64 max_pool and max_pool_grad by TensorFlow's rules: the pooled value starts
    at float32's lowest and takes only a greater value (NaN never); the gradient goes
    to the window's first in-image tap, then to a strictly greater value (a NaN best
    keeps it)."""
    n, hh, ww, c = x.shape
    pooled = np.zeros((n,) + tuple(out_hw) + (c,))
    dx = np.zeros(x.shape)
    for b, oy, ox, ch in np.ndindex(n, out_hw[0], out_hw[1], c):
        taps = [(i, j) for i in range(oy * stride - top, oy * stride - top + ksize)
                for j in range(ox * stride - left, ox * stride - left + ksize)
                if 0 <= i < hh and 0 <= j < ww]
        values = [float(x[b, i, j, ch]) for i, j in taps]
        best = float(np.finfo(np.float32).min)
        for v in values:
            best = v if v > best else best  # False for NaN
        pooled[b, oy, ox, ch] = best
        at = 0
        for t, v in enumerate(values):
            if not np.isnan(values[at]) and v > values[at]:
                at = t
        dx[(b,) + taps[at] + (ch,)] += dy[b, oy, ox, ch]
    return pooled, dx


@each_backend
def test_max_pool_records_its_taps_for_its_gradient():
    from texflow.autodiff import trace_rewrite
    from texflow.engine import context

    rng = np.random.default_rng(24)
    cases = [  # (window, stride, padding, channels)
        (2, 2, "VALID", 8),   # Keras's default: the windows tile (the last row pools nothing)
        (2, 2, "SAME", 3),    # padded, three channels (lane by lane on GPUs)
        (3, 2, "VALID", 4),   # overlapping windows
    ]
    languages = set(trace_rewrite.POOL_TAPS_LANGUAGES)
    trace_rewrite.POOL_TAPS_LANGUAGES.add(context.current().language)  # every backend
    try:
        for ksize, stride, pad_mode, c in cases:
            # ties, NaN, -inf and a window of -inf only (its first tap gets dy)
            x = rng.integers(-3, 4, size=(2, 7, 7, c)).astype(np.float32)
            x[0, 0, 0, 0], x[0, 1, 1, 0], x[1, 2, 3, 0] = np.nan, np.nan, -np.inf
            x[1, :3, :3, c - 1] = -np.inf
            out, top = _windows(7, ksize, stride, pad_mode)
            w = rng.normal(size=(2, out, out, c)).astype(np.float32)
            args = [tf.constant(v) for v in (x, w)]

            def fn(x, w):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    pooled = tf.nn.max_pool2d(x, ksize, stride, pad_mode)
                    loss = tf.reduce_sum(pooled * w)
                return pooled, tape.gradient(loss, x)
            compiled = tf.function(fn)
            compiled(tf.constant(-x), args[1])  # other images (no stale texture helps)
            names = [s[1].name for s in compiled.get_concrete_function(*args)._steps
                     if s[0] == "op"]
            assert "max_pool_taps" in names and "max_pool_grad_taps" in names, names
            assert "max_pool" not in names and "max_pool_grad" not in names, names
            got = [v.numpy() for v in compiled(*args)]
            eager = [v.numpy() for v in fn(*args)]
            oracle = _pool_grad_oracle(x, ksize, stride, top, top, (out, out), w)
            for g, e, o in zip(got, eager, oracle):
                assert np.array_equal(g, e, equal_nan=True), (ksize, pad_mode, g, e)
                assert np.allclose(g, o, rtol=1e-6, atol=1e-6, equal_nan=True), \
                    (ksize, pad_mode, g, o)
        # left alone: a Variable's value (an assignment could come between)
        v = tf.Variable(tf.constant(x))

        def of_variable(w):
            with tf.GradientTape() as tape:
                pooled = tf.nn.max_pool2d(v, 3, 2, "VALID")
                loss = tf.reduce_sum(pooled * w)
            return tape.gradient(loss, v)
        compiled = tf.function(of_variable)
        assert np.array_equal(compiled(args[1]).numpy(), of_variable(args[1]).numpy())
        names = [s[1].name for s in compiled.get_concrete_function(args[1])._steps
                 if s[0] == "op"]
        assert "max_pool_grad" in names and "max_pool_taps" not in names, names
    finally:
        trace_rewrite.POOL_TAPS_LANGUAGES.clear()
        trace_rewrite.POOL_TAPS_LANGUAGES.update(languages)


@each_backend
def test_convolution_and_its_pooling_run_as_one_kernel():
    from texflow.autodiff import trace_rewrite
    from texflow.engine import context

    rng = np.random.default_rng(25)
    cases = [  # (image, channels in, channels out, pooling window, stride, padding, fused)
        (32, 1, 8, 2, 2, "VALID", True),  # a grayscale first layer: GLSL's one-pass kernel
        (30, 1, 8, 3, 3, "SAME", True),   # rows not of whole texels; 3x3 windows
        (9, 3, 4, 2, 2, "SAME", True),    # three channels, the last windows half outside
        (20, 4, 16, 2, 2, "VALID", True),  # GLSL: the blocked conv2d into a temporary
        # overlapping windows: ReLU's gradient mask reads the convolution's image
        (9, 1, 4, 3, 2, "VALID", False),
    ]
    languages = set(trace_rewrite.POOL_TAPS_LANGUAGES)
    trace_rewrite.POOL_TAPS_LANGUAGES.add(context.current().language)
    try:
        for size, cin, cout, ksize, stride, pad_mode, fused in cases:
            x = rng.normal(size=(3, size, size, cin)).astype(np.float32)
            k = (rng.normal(size=(3, 3, cin, cout)) / 3).astype(np.float32)
            bias = rng.normal(size=(cout,)).astype(np.float32) / 4
            out = _windows(size, ksize, stride, pad_mode)[0]
            w = (rng.normal(size=(out * out * cout, 5)) / out).astype(np.float32)
            args = [tf.constant(v) for v in (x, k, bias, w)]

            def grads(x, k, bias, w):
                with tf.GradientTape() as tape:
                    tape.watch([k, w])
                    h = tf.nn.relu(tf.nn.conv2d(x, k, 1, "SAME") + bias)
                    pooled = tf.nn.max_pool2d(h, ksize, stride, pad_mode)
                    y = tf.matmul(tf.reshape(pooled, [3, -1]), w)
                    loss = tf.reduce_sum(y * y)
                return tape.gradient(loss, [k, w])
            compiled = tf.function(grads)
            # traced on other images: a replay reading a stale texture (the trace's
            # convolution) instead of its own result would fail below
            compiled(tf.constant(-x), *args[1:])
            names = [s[1].name for s in compiled.get_concrete_function(*args)._steps
                     if s[0] == "op"]
            case = (size, cin, ksize, stride, pad_mode)
            assert ("conv2d_pool" in names) == fused and fused != bool(
                {"conv2d", "conv2d_epilogue"} & set(names)), (case, names)
            traced = [g.numpy() for g in compiled(*args)]
            eager = [g.numpy() for g in grads(*args)]
            oracle = _oracle(x, k, w, ksize, stride, pad_mode, bias)
            for got, want, exact in zip(traced, eager, oracle):
                assert np.array_equal(got, want), (case, got, want)
                assert np.allclose(got, exact, rtol=1e-3, atol=1e-4), (case, got, exact)
    finally:
        trace_rewrite.POOL_TAPS_LANGUAGES.clear()
        trace_rewrite.POOL_TAPS_LANGUAGES.update(languages)


@each_backend
def test_strided_convolutions_pooled_in_one_kernel():
    """conv2d_pool with convolution strides (and padding) against eager (exactly)."""
    from texflow.autodiff import trace_rewrite
    from texflow.engine import context

    rng = np.random.default_rng(26)
    languages = set(trace_rewrite.POOL_TAPS_LANGUAGES)
    trace_rewrite.POOL_TAPS_LANGUAGES.add(context.current().language)
    try:
        # (a dilated case, (36, 1, 2, "VALID"), passed too; left out: each case compiles
        # its programs anew, about 10 s on SwiftShader)
        # a VALID convolution (MNIST's): on WGSL its rows of the padding are not tested
        for size, strides, dilations, padding in [(64, 2, 1, "SAME"), (13, 1, 1, "VALID")]:
            x, other = (tf.constant(rng.normal(size=(2, size, size, 1)).astype(np.float32))
                        for _ in range(2))
            k = tf.constant(rng.normal(size=(3, 3, 1, 8)).astype(np.float32))

            def fn(x, k):
                with tf.GradientTape() as tape:
                    tape.watch(k)
                    h = tf.nn.relu(tf.nn.conv2d(x, k, strides, padding, dilations=dilations))
                    loss = tf.reduce_sum(tf.nn.max_pool2d(h, 2, 2, "VALID") ** 2)
                return loss, tape.gradient(loss, k)
            compiled = tf.function(fn)
            compiled(other, k)
            names = [s[1].name for s in compiled.get_concrete_function(x, k)._steps
                     if s[0] == "op"]
            assert "conv2d_pool" in names, (size, names)
            got = [v.numpy() for v in compiled(x, k)]
            want = [v.numpy() for v in fn(x, k)]
            for g, w in zip(got, want):
                assert np.array_equal(g, w), (size, strides, dilations, g, w)
    finally:
        trace_rewrite.POOL_TAPS_LANGUAGES.clear()
        trace_rewrite.POOL_TAPS_LANGUAGES.update(languages)
