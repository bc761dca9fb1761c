"""tf.function on every backend: traced once per signature, replayed with the same
results as eager execution (every op family), side effects at trace time only,
Variables, GradientTape and optimizers inside, launch counters, and no memory left
behind by a replay."""

import io

import numpy as np

import texflow as tf
from harness import each_backend, memory, raises


def _families():
    """One function per op family: (name, fn, argument arrays)."""
    rng = np.random.default_rng(7)
    a = rng.normal(size=(3, 4)).astype(np.float32)
    b = rng.normal(size=(4,)).astype(np.float32)
    img = rng.normal(size=(2, 5, 5, 3)).astype(np.float32)
    k = rng.normal(size=(3, 3, 3, 4)).astype(np.float32)
    idx = np.array([2, 0, 1], np.int32)
    ints = rng.integers(-7, 8, size=(3, 4)).astype(np.int32)
    return [
        ("unary", lambda x: tf.exp(tf.tanh(x)) - tf.abs(x) + tf.sqrt(tf.square(x) + 1.0), [a]),
        ("binary_broadcast", lambda x, y: tf.maximum(x * y - 0.5, y / 3.0) ** 2, [a, b]),
        ("cast_where", lambda x: tf.where(x > 0, tf.cast(x * 4.0, tf.int32), -1), [a]),
        ("compare_logical", lambda x, y: tf.cast(tf.logical_and(x > y, x < 1.0), tf.float32),
         [a, b]),
        ("reduce", lambda x: (tf.reduce_sum(x, axis=1), tf.reduce_max(x), tf.reduce_mean(x, 0),
                              tf.argmax(x, axis=1)), [a]),
        ("matmul", lambda x, y: tf.matmul(x, tf.reshape(y, [4, 1])) + tf.matmul(x, x,
                                                                                 transpose_b=True),
         [a, b]),
        ("conv_pool", lambda x, w: tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")),
                                                    2, 2, "VALID"), [img, k]),
        ("movement", lambda x, i: (tf.transpose(x), tf.concat([x, x * 2.0], axis=0)[1:5, ::2],
                                   tf.gather(x, i), tf.reshape(x, [2, 6]), tf.expand_dims(x, 0)),
         [a, idx]),
        ("nn", lambda x, i: (tf.nn.softmax(x), tf.nn.sparse_softmax_cross_entropy_with_logits(
            i, x[:, :3]), tf.nn.sigmoid(x), tf.nn.log_softmax(x)), [a, idx]),
        ("creation", lambda x: (tf.zeros_like(x) + tf.ones([4]), tf.range(5) * 2,
                                tf.fill([2, 2], 3.0) + tf.reduce_sum(x)), [a]),
        ("reduce_more", lambda x: (tf.reduce_min(x, 0), tf.reduce_prod(x, 1), tf.argmin(x, 0),
                                   tf.reduce_logsumexp(x, 1), tf.reduce_any(x > 1.0, 1),
                                   tf.math.reduce_std(x)), [a]),
        ("scan_sort", lambda x: (tf.cumsum(x, axis=1), tf.math.cumprod(x, 0, exclusive=True,
                                                                       reverse=True),
                                 tf.sort(x, direction="DESCENDING"), tf.argsort(x, axis=0),
                                 *tf.math.top_k(x, 2)), [a]),
        ("arrays", lambda x, i: (tf.pad(x, [[1, 0], [0, 2]], constant_values=1.0),
                                 tf.tile(x, [2, 1]), tf.reverse(x, [1]), tf.one_hot(i, 4),
                                 tf.stack([x, -x], 1), tf.split(x, 2, axis=1)[1],
                                 tf.gather_nd(x, [[0, 1], [2, 3]]), tf.unstack(x)[2]),
         [a, idx]),
        ("integer", lambda k, m: (tf.math.floordiv(k, m), tf.math.floormod(k, m), k ** 2,
                                  tf.bitwise.bitwise_and(k, m), tf.bitwise.bitwise_xor(k, m),
                                  tf.bitwise.invert(k), tf.math.unsorted_segment_sum(
                                      k, [0, 2, 0], 3)), [ints, ints[0] % 4 + 1]),
        ("linalg", lambda x, y: (tf.norm(x), tf.norm(x, axis=1), tf.einsum("ij,j->i", x, y),
                                 tf.tensordot(x, y, 1), tf.matmul(x, x, transpose_a=True),
                                 tf.math.l2_normalize(x, 1)), [a, b]),
        ("gradients", _conv_pool_gradients, [img, k]),
    ]


def _conv_pool_gradients(x, w):
    """conv2d's, max_pool's and avg_pool's gradient kernels, traced with a tape."""
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.nn.max_pool2d(tf.nn.conv2d(x, w, 1, "SAME"), 2, 1, "VALID")
        loss = tf.reduce_sum(tf.square(tf.nn.avg_pool2d(y, 2, 2, "VALID")))
    return tape.gradient(loss, [x, w])


def _flat(result):
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(r.numpy()) for r in items]


@each_backend
def test_every_op_family_replays_as_eager():
    from texflow.autodiff import compiled as plans
    exact = tf.get_backend() == "numpy"
    for fusion in (False, True):
        plans.FUSION[0] = fusion
        try:
            for name, fn, args in _families():
                compiled = tf.function(fn)
                for scale in (1.0, -2.0):  # the first call traces, the second replays
                    inputs = [tf.constant(x * scale if x.dtype == np.float32 else x)
                              for x in args]
                    eager, traced = _flat(fn(*inputs)), _flat(compiled(*inputs))
                    for e, t in zip(eager, traced):
                        assert e.dtype == t.dtype and e.shape == t.shape, (name, e, t)
                        # unfused, a replay runs eager's kernels: the same bits; a GPU
                        # compiler may contract fused code (a * b + c into one fma)
                        same = np.array_equal(e, t) if exact or not fusion else \
                            np.allclose(e, t, rtol=2e-6, atol=1e-6)
                        assert same, (name, fusion, scale, e, t)
                assert compiled.experimental_get_tracing_count() == 1, name
        finally:
            plans.FUSION[0] = True


@each_backend
def test_tracing_once_per_signature_and_side_effects():
    calls = []

    @tf.function
    def f(x, power=2):
        calls.append(power)  # a Python side effect: at trace time only
        return x ** power

    x = tf.constant([1.0, 2.0])
    assert f(x).numpy().tolist() == [1.0, 4.0] and f(x * 3.0).numpy().tolist() == [9.0, 36.0]
    assert calls == [2] and f.experimental_get_tracing_count() == 1
    assert f(x, 3).numpy().tolist() == [1.0, 8.0] and calls == [2, 3]       # Python value
    assert f(tf.constant([1.0])).numpy().tolist() == [1.0] and len(calls) == 3  # new shape
    concrete = f.get_concrete_function(x)
    assert concrete(tf.constant([2.0, 3.0])).numpy().tolist() == [4.0, 9.0]
    assert f.experimental_get_tracing_count() == 3  # the retracing warning: tests/unit
    stream = io.StringIO()

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)],
                 reduce_retracing=True, jit_compile=True)
    def g(x):
        tf.print("sum", tf.reduce_sum(x), output_stream=stream)  # runs at every call
        return x + 1.0

    assert g([1.0, 2.0]).numpy().tolist() == [2.0, 3.0]
    assert g([3.0, 4.0]).numpy().tolist() == [4.0, 5.0]
    assert stream.getvalue() == "sum 3\nsum 7\n" and g.experimental_get_tracing_count() == 1


@each_backend
def test_data_dependent_python_control_flow_raises_and_cond_while_loop_trace():
    @tf.function
    def branchy(x):
        if tf.reduce_sum(x) > 0:
            return x
        return -x

    with raises(tf.errors.OperatorNotAllowedInGraphError, match="as a Python bool"):
        branchy(tf.constant([1.0]))

    @tf.function
    def reads(x):
        return x.numpy()

    with raises(TypeError, match="frozen at trace time"):
        reads(tf.constant([1.0]))
    # a result whose shape depends on values cannot be traced: the error names the op
    for fn, op in ((lambda x: tf.boolean_mask(x, x > 0), "tf.boolean_mask"),
                   (lambda x: tf.where(x > 0), "tf.where with one argument"),
                   (lambda x: tf.sequence_mask(tf.cast(x, tf.int32)), "tf.sequence_mask")):
        with raises(tf.errors.OperatorNotAllowedInGraphError, match=op):
            tf.function(fn)(tf.constant([1.0, -2.0]))
        assert fn(tf.constant([1.0, -2.0])).numpy().size > 0  # eagerly: read on the host

    @tf.function
    def f(x):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
        n, s = tf.while_loop(lambda n, s: s < 100.0, lambda n, s: (n + 1, s * 2.0),
                             [tf.constant(0), tf.reduce_sum(tf.abs(x))], maximum_iterations=10)
        return y, n, s

    for values in ([1.0, 2.0], [-1.0, -3.0]):
        x = tf.constant(values)
        eager = [t.numpy().tolist() for t in f.python_function(x)]
        assert [t.numpy().tolist() for t in f(x)] == eager, values
    assert f.experimental_get_tracing_count() == 1

    @tf.function
    def unbounded(x):
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 3.0, lambda v: (v + 1.0,), [x])

    with raises(tf.errors.OperatorNotAllowedInGraphError, match="maximum_iterations"):
        unbounded(tf.constant(1.0))
    v = tf.Variable(1.0)  # both branches run when traced: they must not assign

    @tf.function
    def assigns(x):
        return tf.cond(x > 0, lambda: v.assign_add(1.0), lambda: v.assign_sub(1.0))

    with raises(tf.errors.OperatorNotAllowedInGraphError, match="must not assign"):
        assigns(tf.constant(1.0))
    assert v.numpy() == 1.0
    draw = tf.function(lambda: tf.random.uniform([4]))  # a draw is host code: fresh per call
    assert not np.array_equal(draw().numpy(), draw().numpy())
    assert draw.experimental_get_tracing_count() == 1


@each_backend
def test_variables_tape_optimizer_and_keras_layers_match_eager():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 8)).astype(np.float32)
    y = rng.integers(0, 3, 16).astype(np.int32)
    runs = []
    for compiled in (False, True):
        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"),
                                     tf.keras.layers.Dense(3)])
        model.build((None, 8))
        opt = tf.keras.optimizers.Adam(0.01)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        counter = tf.Variable(0.0)

        def step(features, labels):
            with tf.GradientTape() as tape:
                loss = loss_fn(labels, model(features, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            counter.assign_add(1.0)
            return loss

        run = tf.function(step) if compiled else step
        losses = [float(run(tf.constant(x), tf.constant(y))) for _ in range(4)]
        runs.append((losses, [w.numpy() for w in model.weights], opt.iterations.numpy(),
                     counter.numpy()))
        if compiled:  # 2, as TensorFlow's: Adam's slots are made in the first trace
            assert run.experimental_get_tracing_count() == 2
    (eager_losses, eager_w, eager_it, eager_c), (losses, w, it, c) = runs
    assert it == eager_it == 4 and c == eager_c == 4.0
    # Adam's bias correction is computed in float32 on the device when traced (in
    # float64 on the host eagerly): the results agree to float32 rounding.
    assert np.allclose(losses, eager_losses, rtol=1e-5, atol=1e-6), (losses, eager_losses)
    for a, b in zip(w, eager_w):
        assert np.allclose(a, b, rtol=1e-4, atol=1e-5)


@each_backend
def test_replay_frees_intermediates_and_counts_launches():
    v = tf.Variable(tf.ones([64]))

    @tf.function
    def step(x):
        h = tf.nn.relu(x * 2.0 - 1.0)
        v.assign(v * 0.5 + tf.reduce_sum(h))
        return tf.tanh(h) + v

    x = tf.constant(np.linspace(-1, 1, 64).astype(np.float32))
    step(x).dispose()  # the trace
    before = memory()
    for _ in range(3):
        step(x).dispose()
    after = memory()
    assert after["num_arrays"] == before["num_arrays"], (before, after)
    assert after["num_bytes"] == before["num_bytes"], (before, after)
    assert after["num_gpu_objects"] == before["num_gpu_objects"]
    launches = after["num_launches"] - before["num_launches"]
    assert launches > 0 and launches % 3 == 0, launches
    assert after["num_downloads"] == before["num_downloads"]
    assert after["num_uploads"] == before["num_uploads"]
    y = step(x)
    assert memory()["num_downloads"] == after["num_downloads"]
    y.numpy()
    assert memory()["num_downloads"] == after["num_downloads"] + 1


@each_backend
def test_a_parked_arena_goes_back_to_the_pool_on_a_miss():
    from texflow.engine import context

    def body(x):
        h = tf.nn.relu(x * 2.0 - 1.0)
        return tf.tanh(h) * tf.reduce_sum(h) + tf.reduce_max(h, axis=0)
    x = tf.constant(np.linspace(-1, 1, 48).reshape(6, 8).astype(np.float32))
    want = body(x).numpy()
    step = tf.function(body)
    backend = context.current()
    parking = getattr(getattr(backend, "pool", backend), "parking", None)
    for _ in range(4):  # a trace, a replay, then replays of the launch program
        assert np.allclose(step(x).numpy(), want, rtol=1e-5, atol=1e-6)
    if tf.get_backend() not in ("webgl", "webgpu"):
        return
    assert parking.count > 0  # the program keeps its arena between replays ...
    before = memory()
    assert before["num_pooled_gpu_objects"] >= parking.count  # ... counted as pooled
    big = tf.ones([12345, 3]) + 1.0  # a size nothing pooled has: a miss takes it back
    assert parking.count == 0
    assert memory()["num_gpu_objects"] > before["num_gpu_objects"]  # only `big` is new
    big.dispose()
    for _ in range(2):  # a new arena, then the same one again
        assert np.allclose(step(x).numpy(), want, rtol=1e-5, atol=1e-6)
        assert parking.count > 0
    if tf.get_backend() == "webgpu":  # and its dispatches keep their bind groups
        import json
        made = json.loads(backend.js.stats())["groupsMade"]
        for _ in range(3):
            assert np.allclose(step(x).numpy(), want, rtol=1e-5, atol=1e-6)
        assert json.loads(backend.js.stats())["groupsMade"] == made


@each_backend
def test_elementwise_chains_fuse_into_one_launch():
    rng = np.random.default_rng(3)
    a = tf.constant(rng.normal(size=(3, 1, 5)).astype(np.float32))
    b = tf.constant(rng.normal(size=(4, 1)).astype(np.float32))
    n = tf.constant(rng.integers(-5, 5, size=(4, 5)).astype(np.int32))

    def chain(x, y, k):  # broadcasting, scalars, casts, where, ints and bools
        z = tf.tanh(tf.exp(x * 0.5 - y) + 1.0) * tf.cast(x > 0, tf.float32)
        w = tf.where(y > 0.2, x, -1.0) / 3.0 + tf.cast(k * 3 - 1, tf.float32)
        return tf.sqrt(tf.abs(z - w)) + tf.cast(tf.logical_not(k > 0), tf.float32)

    def two_outputs(x, y):  # `h` is returned and read by the rest: one kernel writes both
        h = tf.nn.relu(x - y)
        return h, tf.sigmoid(h) * 2.0 + 1.0

    for fn, args, launches in ((chain, (a, b, n), 1), (two_outputs, (a, b), 1)):
        compiled = tf.function(fn)
        compiled(*args)
        before = memory()["num_launches"]
        eager = _flat(fn(*args))
        middle = memory()["num_launches"]
        traced = _flat(compiled(*args))
        after = memory()["num_launches"]
        assert after - middle == launches, (fn.__name__, after - middle, middle - before)
        assert middle - before > launches + 2
        for e, t in zip(eager, traced):
            assert e.dtype == t.dtype and e.shape == t.shape
            # a GPU compiler may contract a fused a * b + c into one fma
            assert np.allclose(e, t, rtol=2e-6, atol=1e-6), (fn.__name__, e, t)
            if tf.get_backend() == "numpy":
                assert np.array_equal(e, t)


@each_backend
def test_methods_trace_per_instance_and_concrete_functions_check_shapes():
    class Scale:
        def __init__(self, k):
            self.v = tf.Variable([float(k)])

        @tf.function
        def apply(self, x):
            return x * self.v

    got = []
    for k in range(4):  # a new instance may reuse a collected one's id
        got.append(Scale(k).apply(tf.constant([2.0])).numpy().tolist())
    assert got == [[0.0], [2.0], [4.0], [6.0]], got
    s = Scale(3)
    concrete = s.apply.get_concrete_function(tf.constant([1.0]))
    assert concrete(tf.constant([5.0])).numpy().tolist() == [15.0]
    with raises(TypeError, match="traced for tensors"):
        concrete(tf.constant([1.0, 2.0]))


@each_backend
def test_strategy_run_and_tf1_style_optimizer_inside():
    runs = []
    for compiled in (False, True):
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            v = tf.Variable([1.0, 2.0])
        opt = tf.AdamOptimizer(0.1)  # its step count lives in Python eagerly

        def train(x):
            def body(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(v * v * x)
                opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
                return loss
            return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(body, args=(x,)),
                                   axis=None)
        run = tf.function(train) if compiled else train
        losses = [float(run(tf.constant([1.0, 3.0]))) for _ in range(4)]
        runs.append((losses, v.numpy(), opt.iterations))
    (eager, v_eager, it_eager), (traced, v_traced, it_traced) = runs
    assert it_eager == it_traced >= 4, (it_eager, it_traced)  # a step per replica
    # GPU float32: the fused Adam update rounds differently from the eager launches
    assert np.allclose(traced, eager, rtol=1e-4, atol=1e-5), (traced, eager)
    assert np.allclose(v_traced, v_eager, rtol=1e-4, atol=1e-5), (v_traced, v_eager)


class _CountingJS:
    """Stands for a browser backend's JS runtime, counting the calls made into it."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def __getattr__(self, name):
        fn = getattr(self.inner, name)

        def call(*args):
            self.calls.append(name)
            return fn(*args)
        return call


@each_backend
def test_replayed_keras_step_is_one_js_call_with_eager_results():
    from texflow.engine import context
    rng = np.random.default_rng(5)
    x = tf.constant(rng.random((8, 6)).astype(np.float32))
    y = tf.constant(rng.integers(0, 3, 8).astype(np.int32))
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    runs = []
    for compiled in (False, True):
        tf.keras.utils.set_random_seed(2)
        model = tf.keras.Sequential([tf.keras.layers.Dense(5, activation="relu"),
                                     tf.keras.layers.Dense(3)])
        model.build((None, 6))
        opt = tf.keras.optimizers.Adam(0.01)  # its step scalars: host code at each replay

        def step(x, y, model=model, opt=opt):
            with tf.GradientTape() as tape:
                logits = tf.reshape(model(x, training=True), [8, 3])  # a view
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss, tf.reduce_max(logits, axis=1)
        run = tf.function(step) if compiled else step
        for _ in range(3):  # a trace, a replay, a replay from the prepared program
            run(x, y)
        launches = memory()["num_launches"]
        backend = context.current()
        js = getattr(backend, "js", None)
        if js is not None:
            backend.js = _CountingJS(js)
        try:
            out = run(x, y)
        finally:
            counted = backend.js.calls if js is not None else None
            backend.js = js
        launches = memory()["num_launches"] - launches
        runs.append(([o.numpy() for o in out], [v.numpy() for v in model.variables], launches))
        if compiled and tf.get_backend() in ("webgl", "webgpu"):
            assert counted == ["launchList"], counted  # launches, uploads, frees: one list
            import json
            assert json.loads(js.stats())["launchPrograms"] >= 1  # a prepared program ran
    (eager, v_eager, n_eager), (traced, v_traced, n_traced) = runs
    assert 0 < n_traced < n_eager, (n_traced, n_eager)
    for e, t in zip(eager + v_eager, traced + v_traced):
        assert np.allclose(e, t, rtol=1e-4, atol=1e-6), (e, t)


@each_backend
def test_next_of_a_dataset_iterator_runs_at_every_call():
    # as TensorFlow's: each call takes the next element (it was frozen at trace time),
    # and the end of the data raises OutOfRangeError
    it = iter(tf.data.Dataset.range(7).map(lambda v: v * 10).batch(3))

    @tf.function
    def step():
        return next(it) + 1

    assert [step().numpy().tolist() for _ in range(2)] == [[1, 11, 21], [31, 41, 51]]
    with raises(tf.errors.InvalidArgumentError, match="traced for"):  # the short last batch
        step()
    with raises(tf.errors.OutOfRangeError, match="End of sequence"):
        step()
    assert step.experimental_get_tracing_count() == 1


@each_backend
def test_float_class_labels_are_read_at_every_call():
    # non-int32 labels were made int32 from their trace-time host values: a constant
    # of the trace, so every replay used the first call's labels
    logits = tf.constant([[0.0, 1.0, 3.0], [2.0, 1.0, 0.0]])
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def both(y):
        return loss(y, logits), tf.keras.losses.sparse_categorical_crossentropy(
            y, logits, from_logits=True)
    traced = tf.function(both)
    for labels in ([0.0, 0.0], [2.0, 2.0], [1.0, 0.0]):
        y = tf.constant(labels)
        for t, e in zip(_flat(traced(y)), _flat(both(y))):
            assert np.allclose(t, e, rtol=1e-6), (labels, t, e)


@each_backend
def test_range_checks_run_at_every_call():
    # labels and indices known on the host are checked as eagerly (TensorFlow's errors),
    # at every replay, not only for the values the trace was made with
    logits = tf.zeros([2, 3])
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    params = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    two, three = ([0, 2], [0, 5]), ([0, 2, 1], [0, 5, 1])  # good and bad values
    cases = ((tf.function(lambda y: loss(y, logits)), two, "outside the valid range of \\["),
             (tf.function(lambda y: tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits)),
              two, "outside the valid range"),
             (tf.function(lambda i: tf.gather(params, i) * 2.0), two, "is not in \\[0, 3\\)"),
             (tf.function(lambda i: tf.math.unsorted_segment_sum(params, i, 3)), three,
              "out of range"))
    for fn, (good, bad), message in cases:
        for _ in range(2):  # a trace, then a replay
            fn(tf.constant(good))
        with raises(tf.errors.InvalidArgumentError, match=message):
            fn(tf.constant(bad))
        assert fn.experimental_get_tracing_count() == 1
    for fn in (cases[0][0], cases[1][0]):  # a negative label (read as unsigned) too
        with raises(tf.errors.InvalidArgumentError, match="label value of -1 "):
            fn(tf.constant([-1, 1]))
    it = iter(tf.data.Dataset.from_tensor_slices([0, 1, 2, 9]).batch(2))
    from_data = tf.function(lambda: loss(next(it), logits))  # labels from host code
    from_data()
    with raises(tf.errors.InvalidArgumentError, match="value of 9 .* in sparse_categorical"):
        from_data()
