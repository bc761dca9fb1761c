"""Variables, optimizers, the deeplearn.js Graph/Session and input providers,
on every backend."""

import numpy as np

import texflow as tf
import harness
from harness import each_backend, raises

OPTIMIZERS = {  # name -> (constructor, numpy reference step(var, grad, state, t))
    "sgd": (lambda: tf.SGDOptimizer(0.1), None),
    "momentum": (lambda: tf.MomentumOptimizer(0.1, 0.9), None),
    "nesterov": (lambda: tf.MomentumOptimizer(0.1, 0.9, use_nesterov=True), None),
    "rmsprop": (lambda: tf.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5), None),
    "adam": (lambda: tf.AdamOptimizer(0.01), None),
    "adagrad": (lambda: tf.AdagradOptimizer(0.1), None),
}


def _reference_step(name, v, g, s, t):
    """TensorFlow 1's update rules, in float64."""
    if name == "sgd":
        return v - 0.1 * g
    if name in ("momentum", "nesterov"):
        s["a"] = 0.9 * s.get("a", 0) + g
        return v - 0.1 * (g + 0.9 * s["a"] if name == "nesterov" else s["a"])
    if name == "rmsprop":
        s["ms"] = 0.9 * s.get("ms", 1.0) + 0.1 * g * g
        s["mom"] = 0.5 * s.get("mom", 0) + 0.01 * g / np.sqrt(s["ms"] + 1e-10)
        return v - s["mom"]
    if name == "adam":
        s["m"] = 0.9 * s.get("m", 0) + 0.1 * g
        s["v"] = 0.999 * s.get("v", 0) + 0.001 * g * g
        lr = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        return v - lr * s["m"] / (np.sqrt(s["v"]) + 1e-8)
    s["acc"] = s.get("acc", 0.1) + g * g
    return v - 0.1 * g / np.sqrt(s["acc"])


def _quadratic_grads(w, target):
    with tf.GradientTape() as tape:
        loss = tf.sum(tf.square(w - target))
    return tape.gradient(loss, [w])


@each_backend(name=sorted(OPTIMIZERS))
def test_optimizer_update_rules_and_state(name):
    target = tf.array([1.0, -2.0, 0.5])
    w = tf.Variable([0.0, 0.0, 0.0], name="w")
    opt = OPTIMIZERS[name][0]()
    ref, state = np.zeros(3), {}
    for t in range(1, 6):
        (g,) = _quadratic_grads(w, target)
        opt.apply_gradients(zip([g], [w]))
        ref = _reference_step(name, ref, 2 * (ref - [1.0, -2.0, 0.5]), state, t)
        assert np.allclose(w.numpy(), ref, rtol=1e-4, atol=1e-6), (t, w.numpy(), ref)
    saved = opt.get_state()
    assert saved["iterations"] == 5
    clone_w = tf.Variable(w.numpy(), name="w")
    clone = OPTIMIZERS[name][0]()
    clone.set_state(saved, [clone_w])
    for var, o in ((w, opt), (clone_w, clone)):
        o.apply_gradients(zip(_quadratic_grads(var, target), [var]))
    assert np.allclose(w.numpy(), clone_w.numpy(), rtol=1e-6), "restored state continues alike"


@each_backend
def test_variables():
    v = tf.Variable(np.ones((2, 2), np.float32), name="kernel")
    before = v * 1.0
    v.assign([[1.0, 2.0], [3.0, 4.0]])
    v.assign_add(tf.ones([2, 2]))
    v.assign_sub(0.5)
    assert v.tolist() == [[1.5, 2.5], [3.5, 4.5]] and before.tolist() == [[1, 1], [1, 1]]
    with raises(tf.ShapeError, match="variable 'kernel' of shape"):
        v.assign(tf.zeros([3]))
    with raises(tf.DTypeError, match="int32 value to variable 'kernel'"):
        v.assign(tf.zeros([2, 2], "int32"))
    with tf.scope():
        tf.add(v, 1.0)
    assert not v.is_disposed, "scopes never dispose variables"


def _multiplier_graph(seed=1):
    g = tf.Graph()
    x = g.placeholder("input", [3])
    y = g.placeholder("label", [1])
    w = g.variable("multiplier", tf.Array2D.rand_normal([1, 3], seed=seed))
    out = g.matmul(w, x)
    return g, x, y, out, g.mean_squared_cost(out, y)


@each_backend
def test_graph_shapes_and_build_errors():
    g, x, y, out, cost = _multiplier_graph()
    assert out.shape == (1,) and cost.shape == ()
    with raises(tf.ShapeError, match=r"shapes \[1, 3\] and \[4\]"):
        g.matmul(g.variables()[0], g.placeholder("wide", [4]))
    with raises(tf.ShapeError, match=r"\[2, 3\] vs. \[4\]"):
        g.add(g.placeholder("a", [2, 3]), g.placeholder("b", [4]))
    h = g.relu(g.add(g.placeholder("c", [2, 5, 5, 1]), 1.0))
    conv = g.conv2d(h, g.variable("k", tf.zeros([3, 3, 1, 4])), 1, "SAME")
    assert conv.shape == (2, 5, 5, 4)


@each_backend
def test_graph_placeholder_with_a_batch_dimension():
    g = tf.Graph()
    x = g.placeholder("images", [None, 28, 28])
    flat = g.reshape(x, [-1, 784])
    w = g.variable("w", tf.zeros([784, 10]) + 0.01)
    logits = g.add(g.matmul(flat, w), 1.0)
    total = g.sum(logits, axis=1)
    assert isinstance(x.shape, tf.TensorShape) and x.shape == (None, 28, 28)
    assert flat.shape == (None, 784) and logits.shape == (None, 10) and total.shape == (None,)
    assert g.sum(logits).shape == () and g.reshape(x, [-1, 2, 392]).shape == (None, 2, 392)
    session = tf.Session(g, tf.NDArrayMath(tf.get_backend()))
    for batch in (1, 3):
        with tf.scope():
            out = session.eval(total, {x: np.ones((batch, 28, 28), np.float32)})
            assert out.shape == (batch,) and np.allclose(out.numpy(), 7.84 * 10 + 10, rtol=1e-5)
    with raises(tf.ShapeError, match=r"feed for 'images' has shape \[2, 28, 27\]"):
        session.eval(total, {x: np.ones((2, 28, 27), np.float32)})
    with raises(tf.ShapeError, match=r"shapes \[None, 784\] and \[3, 10\]"):
        g.matmul(flat, g.placeholder("bad", [3, 10]))
    with raises(AttributeError, match="use 'mat_mul'"):
        g.matMul(flat, w)
    with raises(AttributeError, match="use 'element_wise_mul'"):
        tf.NDArrayMath(tf.get_backend()).elementWiseMul
    with raises(AttributeError, match="use 'rand_normal'"):
        tf.Array2D.randNormal([2, 2])
    with raises(AttributeError, match="use 'get_values'"):
        tf.zeros([2]).getValues()


@each_backend
def test_session_eval_and_feed_errors():
    g, x, y, out, cost = _multiplier_graph()
    session = tf.Session(g, tf.NDArrayMath(tf.get_backend()))
    w = g.variables()[0].numpy()
    with tf.scope():
        value = session.eval(out, [tf.FeedEntry(x, tf.Array1D.new([0.1, 0.2, 0.3]))])
        assert np.allclose(value.get_values(), w @ [0.1, 0.2, 0.3], rtol=1e-5)
        o, c = session.eval_all([out, cost], {x: [1.0, 2.0, 3.0], y: [4.0]})
        assert np.allclose(c.get(), (w @ [1, 2, 3] - 4.0) ** 2, rtol=1e-4)
    with raises(tf.TexflowError, match="placeholder 'input'"):
        session.eval(out, [])
    with raises(tf.ShapeError, match=r"feed for 'input' has shape \[4\]"):
        session.eval(out, {x: tf.zeros([4])})
    safe = tf.Session(g, tf.NDArrayMath(tf.get_backend(), safe_mode=True))
    with raises(tf.ScopeError, match="inside math.scope"):
        safe.eval(out, {x: [1.0, 2.0, 3.0]})
    other = tf.Graph().placeholder("elsewhere", [3])
    with raises(tf.TexflowError, match="not a tensor of this graph"):
        session.eval(out, {x: tf.zeros([3]), other: tf.zeros([3])})


@each_backend(reduction=["MEAN", "SUM", "NONE"])
def test_session_train_converges(reduction):
    g, x, y, out, cost = _multiplier_graph()
    session = tf.Session(g, tf.NDArrayMath(tf.get_backend()))
    inputs = [tf.Array1D.new([1.0, 2.0, 3.0]), tf.Array1D.new([10.0, 20.0, 30.0]),
              tf.Array1D.new([100.0, 200.0, 300.0])]
    labels = [tf.Array1D.new([4.0]), tf.Array1D.new([40.0]), tf.Array1D.new([400.0])]
    builder = tf.InGPUMemoryShuffledInputProviderBuilder([inputs, labels], seed=3)
    ip, lp = builder.get_input_providers()
    feeds = [tf.FeedEntry(x, ip), tf.FeedEntry(y, lp)]
    optimizer = tf.SGDOptimizer(0.00001)
    start = harness.memory()["num_arrays"]
    costs = []
    for _ in range(15):
        with tf.scope():
            c = session.train(cost, feeds, 3, optimizer, getattr(tf.CostReduction, reduction))
            costs.append(c.get())
    assert tf.memory()["num_arrays"] == start, "training leaked arrays"
    if reduction == "NONE":
        assert costs == [0.0] * 15, "NONE does not accumulate the cost (deeplearn.js)"
    else:
        assert costs[-1] < 1e-3 * costs[0] and costs[-1] < 1.0, costs
    with tf.scope():
        prediction = session.eval(out, {x: tf.Array1D.new([0.1, 0.2, 0.3])}).get(0)
    assert abs(prediction - 0.4) < 0.05, prediction
    downloads = tf.memory()["num_downloads"]
    with tf.scope():
        session.train(cost, feeds, 3, optimizer, getattr(tf.CostReduction, reduction))
    assert tf.memory()["num_downloads"] == downloads, "a training step downloaded data"


@each_backend
def test_shuffled_providers_stay_in_sync():
    xs = [tf.Array1D.new([float(i)]) for i in range(7)]
    ys = [tf.Array1D.new([float(10 * i)]) for i in range(7)]
    for builder in (tf.InCPUMemoryShuffledInputProviderBuilder([xs, ys], seed=0),
                    tf.InGPUMemoryShuffledInputProviderBuilder([xs, ys], seed=0)):
        px, py = builder.get_input_providers()
        seen = []
        for _ in range(14):
            a, b = px.get_next_copy(), py.get_next_copy()
            assert b.get(0) == 10 * a.get(0)
            seen.append(a.get(0))
            px.dispose_copy(None, a)
            py.dispose_copy(None, b)
        assert sorted(seen[:7]) == list(range(7)) and sorted(seen[7:]) == list(range(7))
        assert seen[:7] != list(range(7)), "the order is shuffled"


@each_backend
def test_a_conv_net_step_never_downloads():
    rng = np.random.default_rng(0)
    x = tf.array(rng.normal(size=(4, 8, 8, 1)).astype(np.float32))
    labels = tf.array(rng.integers(0, 3, 4).astype(np.int32))
    k = tf.Variable(rng.normal(size=(3, 3, 1, 4)).astype(np.float32) * 0.3)
    w = tf.Variable(rng.normal(size=(16 * 4, 3)).astype(np.float32) * 0.1)
    opt = tf.AdamOptimizer(0.01)
    tf.exp(x).dispose()
    tf.exp(labels).dispose()  # upload the inputs before counting
    before = tf.memory()["num_downloads"]
    losses = []
    for _ in range(3):
        with tf.scope():
            with tf.GradientTape() as tape:
                h = tf.max_pool(tf.relu(tf.conv2d(x, k, 1, "SAME")), 2, 2, "VALID")
                logits = tf.matmul(tf.reshape(h, [4, -1]), w)
                loss = tf.mean(tf.sparse_softmax_cross_entropy_with_logits(labels, logits))
            opt.apply_gradients(zip(tape.gradient(loss, [k, w]), [k, w]))
            losses.append(tf.keep(loss))
    assert tf.memory()["num_downloads"] == before, "a training step downloaded data"
    values = [float(v) for v in losses]  # read only now
    assert np.isfinite(values).all() and values[-1] < values[0], values
    for v in losses:
        v.dispose()
