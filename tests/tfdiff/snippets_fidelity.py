"""TensorFlow-differential snippets for gaps found in issue 11's session: gradients of
several targets and nested structures, unconnected gradients, batch_jacobian;
get_concrete_function traces without running effects; max_pool over -inf and NaN.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py fidelity`.
"""

_XW = "x = tf.Variable([1.0, 2.0])\nw = tf.Variable(3.0)\n"
_TAPE = _XW + "with tf.GradientTape() as t:\n    y1 = tf.reduce_sum(x * x)\n    y2 = x * w\n"
# a [1, 2, 4, 1] image: its 2x2 windows are elements (0, 1, 4, 5) and (2, 3, 6, 7)
_POOL = """
def pool(values, k=2, s=2, padding='VALID', fn=tf.nn.max_pool2d):
    x = tf.constant(np.array(values, np.float32).reshape(1, 2, 4, 1))
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x, k, s, padding)
    dy = tf.constant(np.arange(1, 1 + int(tf.size(y)), dtype=np.float32).reshape(y.shape.as_list()))
    return y, t.gradient(y, x, output_gradients=dy)
inf, nan = np.inf, np.nan
"""

SNIPPETS = {
    # -- gradients of several targets, nested sources, unconnected gradients --------------
    "tape_structure/list_targets": _TAPE + "t.gradient([y1, y2], [x, w])",
    "tape_structure/output_gradients": _TAPE + "t.gradient((y1, y2), x, output_gradients=("
                                               "tf.constant(2.0), tf.constant([1.0, 10.0])))",
    "tape_structure/fewer_output_gradients": _TAPE + "t.gradient([y2, y2], x, "
                                                     "output_gradients=[tf.constant([1.0, 2.0])])",
    "tape_structure/nested": _TAPE + "t.gradient({'a': y1, 'b': [y2, y2]}, "
                                     "{'x': x, 'w': [w, (w, x)]})",
    "tape_structure/same_target_twice": _TAPE + "t.gradient([y2, y2, x], x)",
    "tape_structure/none_target": _TAPE + "t.gradient([y1, None], x)",
    "tape_structure/unconnected_zero": _TAPE + "z = tf.Variable([5.0, 6.0])\n"
                                               "t.gradient(y1, [x, z], unconnected_gradients="
                                               "tf.UnconnectedGradients.ZERO)",
    "tape_structure/unconnected_zero_str": "x = tf.Variable([1.0, 2.0])\n"
                                           "i = tf.constant([1, 2])\n"
                                           "with tf.GradientTape() as t:\n    t.watch(i)\n"
                                           "    y = tf.reduce_sum(x * x)\n"
                                           "t.gradient(y, [x, i], unconnected_gradients='zero')",
    "tape_structure/unconnected_none": _TAPE + "z = tf.Variable([5.0, 6.0])\n"
                                               "t.gradient(y1, [x, z], unconnected_gradients="
                                               "tf.UnconnectedGradients.NONE)",
    "tape_structure/unconnected_bad": (_TAPE + "t.gradient(y1, x, unconnected_gradients='foo')",
                                       {"match": ["unconnected_gradients", "foo"]}),
    "tape_structure/jacobian_zero": _XW + "z = tf.Variable([5.0, 6.0])\n"
                                          "with tf.GradientTape() as t:\n    y = x * w\n"
                                          "t.jacobian(y, [x, w, z], unconnected_gradients='zero')",
    "tape_structure/batch_jacobian": "a = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
                                     "with tf.GradientTape() as t:\n    t.watch(a)\n"
                                     "    y = tf.stack([a[:, 0] * a[:, 1], a[:, 0] ** 2, "
                                     "tf.sin(a[:, 1])], axis=1)\n"
                                     "t.batch_jacobian(y, a)",
    "tape_structure/batch_jacobian_zero": "a = tf.ones([2, 3])\nb = tf.ones([2, 2])\n"
                                          "with tf.GradientTape() as t:\n    t.watch([a, b])\n"
                                          "    y = a * 2.0\n"
                                          "t.batch_jacobian(y, b, unconnected_gradients='zero')",
    "tape_structure/batch_jacobian_mismatch": ("a = tf.ones([2, 3])\n"
                                               "with tf.GradientTape() as t:\n    t.watch(a)\n"
                                               "    y = tf.ones([3, 1]) * tf.reduce_sum(a)\n"
                                               "t.batch_jacobian(y, a)",
                                               {"match": ["Need first dimension"]}),
    # -- max_pool over -inf and NaN (values and where the gradient goes), avg_pool ---------
    "pool_nonfinite/all_minus_inf": _POOL + "(pool([-inf] * 8), pool([-inf] * 8, 3, 1, 'SAME'))",
    "pool_nonfinite/nan_first": _POOL + "pool([nan, 1, 2, 3, 4, 5, 6, 7])",
    "pool_nonfinite/nan_second_row": _POOL + "pool([1, 0, 2, 3, nan, 5, 6, 7])",
    "pool_nonfinite/nan_last": _POOL + "(pool([1, 0, 2, 3, -1, nan, 6, 7]), "
                                       "pool([1, nan, 2, 3, 0, 5, 6, 7]))",
    "pool_nonfinite/all_nan": _POOL + "pool([nan] * 8)",
    "pool_nonfinite/nan_and_minus_inf": _POOL + "(pool([nan, -inf, nan, -inf, -inf, nan, 1, 2]), "
                                                "pool([-inf, nan, -inf, -inf, 0, 0, 0, 0]))",
    "pool_nonfinite/ties_and_inf": _POOL + "(pool([3, 3, 1, 1, 3, 3, 1, 1]), "
                                           "pool([inf, 3, 1, inf, 3, 3, 1, 1]))",
    "pool_nonfinite/same": _POOL + "(pool([1, 2, 3, 4, 5, 6, 7, 8], 3, 1, 'SAME'), "
                                   "pool([nan, 2, 3, 4, 5, 6, 7, nan], 3, 2, 'SAME'))",
    "pool_nonfinite/avg": _POOL + "(pool([1, 2, 3, 4, 5, 6, 7, 8], 3, 1, 'SAME', "
                                  "tf.nn.avg_pool2d), pool([-inf, 1, 2, 3, 4, 5, 6, 7], "
                                  "fn=tf.nn.avg_pool2d), pool([nan, 1, 2, 3, 4, 5, 6, 7], 2, 2, "
                                  "'SAME', tf.nn.avg_pool2d))",
    "pool_nonfinite/keras_layer": "tf.keras.layers.MaxPooling2D()(tf.fill([1, 2, 2, 1], "
                                  "-np.inf))",
    # -- get_concrete_function traces without running effects ------------------------------
    "function_concrete/variables": """
        v = tf.Variable(1.0)
        log = []
        @tf.function
        def f(x):
            log.append('traced')
            v.assign_add(x)
            return v * 2.0
        cf = f.get_concrete_function(tf.constant(3.0))
        before = (v.numpy(), list(log), f.experimental_get_tracing_count())
        called = (cf(tf.constant(3.0)), f(tf.constant(3.0)), v.numpy(), list(log))
        again = f.get_concrete_function(tf.TensorSpec([], tf.float32)) is cf
        (before, called, again, f.experimental_get_tracing_count())
    """,
    "function_concrete/unknown_dims": """
        @tf.function
        def f(x, y):
            return {"a": x * 2.0, "b": (tf.reduce_sum(x, 0), y[:, :2]), "c": tf.shape(x),
                    "d": tf.concat([x, x], 0), "e": x[0] + tf.ones([3])}
        cf = f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32),
                                     tf.TensorSpec([None, None], tf.int32))
        (tf.nest.map_structure(lambda t: (t.shape, t.dtype), cf.structured_outputs),
         f.experimental_get_tracing_count(), cf(tf.ones([4, 3]), tf.ones([2, 5], tf.int32)))
    """,
    "function_concrete/late_variables": """
        class M:
            def __init__(self):
                self.v = None
            @tf.function
            def g(self, x):
                if x.shape[0] == 2:
                    self.v = tf.Variable(1.0)
                return x * 2.0
        m = M()
        out = [m.g(tf.ones([1])), m.g.experimental_get_tracing_count()]
        for _ in range(2):  # counted once, as TensorFlow counts the trace that made it
            try:
                m.g(tf.ones([2]))
            except ValueError as e:
                out += ['non-first call' in str(e), 'singleton' in str(e),
                        m.g.experimental_get_tracing_count()]
        out + [m.g(tf.ones([3])), m.g.experimental_get_tracing_count()]
    """,
    "function_concrete/python_argument": """
        log = []
        @tf.function
        def h(x, n):
            log.append(n)
            return x * n
        ch = h.get_concrete_function(tf.constant([1.0, 2.0]), 3)
        (log, ch(tf.constant([1.0, 2.0])), h(tf.constant([1.0, 2.0]), 3),
         h.experimental_get_tracing_count(), log)
    """,
    "function_concrete/random": """
        def generator_draws(concrete_first):
            g = tf.random.Generator.from_seed(1)
            @tf.function
            def r():
                return g.normal([2])
            if concrete_first:
                r.get_concrete_function()
            return np.concatenate([r().numpy(), r().numpy(), g.normal([1]).numpy()])
        def seeded_draws(concrete_first):
            tf.random.set_seed(5)
            @tf.function
            def r(x):
                return tf.random.uniform([2]) + x + tf.random.normal([1], seed=3)
            if concrete_first:
                r.get_concrete_function(tf.constant(0.0))
            return np.concatenate([r(tf.constant(0.0)).numpy(), tf.random.uniform([2]).numpy()])
        (bool((generator_draws(False) == generator_draws(True)).all()),
         bool((seeded_draws(False) == seeded_draws(True)).all()))
    """,
    "function_concrete/print": """
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), 'out.txt')
        @tf.function
        def p(x):
            tf.print('value', x, output_stream='file://' + path)
            return x + 1.0
        p.get_concrete_function(tf.constant(1.0))
        printed = os.path.exists(path)
        (printed, p(tf.constant(2.0)), open(path).read(), p.experimental_get_tracing_count())
    """,
    "function_concrete/optimizer_step": """
        opt = tf.keras.optimizers.SGD(0.1)
        v = tf.Variable([1.0, 2.0])
        @tf.function
        def step():
            with tf.GradientTape() as t:
                loss = tf.reduce_sum(v * v)
            opt.apply_gradients([(t.gradient(loss, v), v)])
            return loss
        c = step.get_concrete_function()
        after = (int(opt.iterations.numpy()), v.numpy())
        (after, step(), int(opt.iterations.numpy()), c(), int(opt.iterations.numpy()), v.numpy(),
         step.experimental_get_tracing_count())
    """,
    "function_concrete/iterator_and_metric": """
        it = iter(tf.data.Dataset.range(10).map(lambda x: tf.cast(x, tf.float32)))
        @tf.function
        def nxt(it):
            return next(it) * 2.0
        nxt.get_concrete_function(it)
        m = tf.keras.metrics.Mean()
        @tf.function
        def upd(x):
            m.update_state(x)
            return m.result()
        upd.get_concrete_function(tf.constant(4.0))
        (next(it), m.result(), m.count, upd(tf.constant(4.0)))
    """,
}
