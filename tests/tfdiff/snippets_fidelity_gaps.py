"""TensorFlow-differential snippets for the TensorFlow 2 gaps left on issue 11: 3-D max
pooling's own rules (NaN, -inf, ties within 1e-5, Eigen's packets of 8 channels),
tf.nn.max_pool/avg_pool by rank, Keras's 3-D pooling layers, tf.range inside
tf.function, op-seeded random ops across traces, output_gradients of the wrong shape.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py fidelity_gaps`.
"""

# deterministic volumes (no random generator: the two venvs' numpy may differ): values
# in eighths with many ties, NaN and -inf at every `nan`-th and `ninf`-th element
_VOL = """
def vol(shape, nan=0, ninf=0):
    i = np.arange(int(np.prod(shape)))
    v = ((i * 7919) % 97 - 48).astype(np.float32) / 8
    if nan:
        v[(i * 31) % nan == 3] = np.nan
    if ninf:
        v[(i * 17) % ninf == 5] = -np.inf
    return tf.constant(v.reshape(shape))

def pool(x, k, s, padding, fn=tf.nn.max_pool3d):
    x = tf.constant(np.array(x, np.float32)) if not tf.is_tensor(x) else x
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x, k, s, padding)
    dy = np.arange(1, 1 + int(tf.size(y)), dtype=np.float32) / 4
    return y, t.gradient(y, x, output_gradients=tf.constant(dy.reshape(y.shape.as_list())))
inf, nan = np.inf, np.nan
"""
_BOX = "np.array({}, np.float32).reshape(1, 2, 2, 2, 1)"
# three orders of gradients of a pooling `fn` of x (nested tapes)
_ORDERS = """
def orders(x, fn):
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = fn(x)
                w = tf.reshape(tf.range(1.0, 1.0 + float(tf.size(y))), tf.shape(y)) / 16
                loss = tf.reduce_sum(y * y * w)
            g = t1.gradient(loss, x)
            second = tf.reduce_sum(g * g)
        gg = t2.gradient(second, x)
        third = tf.reduce_sum(gg * tf.reshape(tf.range(1.0, 1.0 + float(tf.size(gg))),
                                              tf.shape(gg)))
    return g, gg, t3.gradient(third, x)
"""
# runs(draw, global_seed): two eager calls, then a tf.function of the same draw: two calls,
# a retrace (65 elements: the first 64 compared) called twice, the first trace again, and
# a second tf.function of it called twice
_SEEDS = """
X64, X65 = tf.ones([64]), tf.ones([65])

def pattern(draws):
    draws = [np.asarray(d).ravel()[:64] for d in draws]
    return [next(j for j, e in enumerate(draws) if np.array_equal(e, d)) for d in draws]

def runs(draw, global_seed=None):
    if global_seed is not None:
        tf.random.set_seed(global_seed)
    eager = [draw(X64), draw(X64)]
    if global_seed is not None:
        tf.random.set_seed(global_seed)
    f, g = tf.function(draw), tf.function(draw)
    traced = [f(X64), f(X64), f(X65), f(X65), f(X64), g(X64), g(X64)]
    return pattern(eager + traced)
"""

SNIPPETS = {
    # -- max_pool3d: the rules, one 2x2x2 box (taps in depth, row, column order) -----------
    "max_pool3d/all_neg_inf": _VOL + f"pool({_BOX.format('[-inf] * 8')}, 2, 2, 'VALID')",
    "max_pool3d/neg_inf_and_nan": _VOL + f"pool({_BOX.format('[-inf, nan] + [-inf] * 6')}, 2, "
                                         "2, 'VALID')",
    "max_pool3d/nan_then_greater": _VOL + f"pool({_BOX.format('[1, nan, 3, 2, 0, 0, 0, 0]')}, "
                                          "2, 2, 'VALID')",
    "max_pool3d/nan_last": _VOL + f"pool({_BOX.format('[1, 5, 3, 2, 0, 0, 0, nan]')}, 2, 2, "
                                  "'VALID')",
    "max_pool3d/two_nans": _VOL + f"pool({_BOX.format('[1, nan, 3, nan, 0, 0, 0, 0]')}, 2, 2, "
                                  "'VALID')",
    "max_pool3d/ties": _VOL + f"pool({_BOX.format('[1, 3, 3, 2, 0, 3, 0, 0]')}, 2, 2, 'VALID')",
    "max_pool3d/inf": _VOL + f"pool({_BOX.format('[1, inf, 3, inf, 0, 3, 0, 0]')}, 2, 2, "
                             "'VALID')",
    "max_pool3d/near_ties": _VOL + "pool(" + _BOX.format(
        "[3, 3.000009, 2.99999, 2.999998, 1e-6, -5e-6, 2.999985, 0]") + ", 2, 2, 'VALID')",
    "max_pool3d/small_values": _VOL + "pool(" + _BOX.format(
        "[1e-6, -5e-6, 9e-6, -2e-5, -3e-6, 0, -1e-5, 5e-7]") + ", 2, 2, 'VALID')",
    "max_pool3d/same_padding": _VOL + "pool(-vol((1, 2, 2, 3, 1)), 2, 1, 'SAME')",
    "max_pool3d/same_neg_inf": _VOL + "pool(np.full((1, 1, 2, 3, 1), -inf), 2, 1, 'SAME')",
    "max_pool3d/same_nan_before_padding": _VOL + "pool(np.array([1, nan, 2, nan], np.float32)"
                                                 ".reshape(1, 1, 1, 4, 1), [1, 1, 2], 1, "
                                                 "'SAME')",
    "max_pool3d/overlapping_ties": _VOL + "pool(np.array([1, 2, 2, 1], np.float32).reshape("
                                          "1, 1, 1, 4, 1), [1, 1, 2], 1, 'VALID')",
    # -- channels: eight consecutive outputs of one position are one packet -------------------
    "max_pool3d/c1_valid": _VOL + "pool(vol((2, 5, 4, 6, 1), 7, 11), 2, 1, 'VALID')",
    "max_pool3d/c3_same": _VOL + "pool(vol((1, 5, 5, 4, 3), 5, 13), 3, 2, 'SAME')",
    "max_pool3d/c8_same": _VOL + "pool(vol((2, 3, 4, 5, 8), 6, 9), [2, 2, 3], [1, 2, 1], "
                                 "'SAME')",
    "max_pool3d/c9_valid": _VOL + "pool(vol((1, 4, 3, 5, 9), 5), 2, [2, 1, 1], 'VALID')",
    "max_pool3d/c12_tail": _VOL + "pool(vol((1, 3, 3, 3, 12), 4, 7), 2, 1, 'VALID')",
    "max_pool3d/c16_same": _VOL + "pool(vol((1, 3, 3, 3, 16), 4, 7), 3, 1, 'SAME')",
    "max_pool3d/c20_strided": _VOL + "pool(vol((2, 4, 5, 3, 20), 3, 8), [2, 3, 1], [2, 2, 1], "
                                     "'SAME')",
    "max_pool3d/no_nan": _VOL + "pool(vol((2, 6, 5, 4, 3)), [3, 2, 2], [2, 2, 1], 'SAME')",
    # -- second and third order (MaxPool3DGradGrad: the first tap equal to the maximum) --
    "max_pool3d/higher_order": _VOL + _ORDERS + """
x = vol((1, 3, 4, 3, 2), 5)
x = tf.concat([x, tf.ones([1, 3, 4, 3, 1]) * 2.0], axis=4)  # ties in the third channel
orders(x, lambda v: tf.nn.max_pool3d(v, 2, [1, 2, 1], 'SAME'))
""",
    "pool_higher_order/max2d": _VOL + _ORDERS + "x = vol((2, 5, 4, 3), 7)\n"
                               "x = tf.concat([x, tf.ones([2, 5, 4, 1])], axis=3)  # ties\n"
                               "(orders(x, lambda v: tf.nn.max_pool2d(v, 2, 1, 'SAME')), "
                               "orders(x, lambda v: tf.nn.max_pool2d(v, 3, 2, 'VALID')))",
    "pool_higher_order/avg": _VOL + _ORDERS + "(orders(vol((2, 5, 4, 3)), lambda v: "
                             "tf.nn.avg_pool2d(v, 2, 1, 'SAME')), orders(vol((1, 3, 4, 5, 2)), "
                             "lambda v: tf.nn.avg_pool3d(v, 2, [1, 2, 1], 'SAME')))",
    # -- arguments -------------------------------------------------------------------------
    "max_pool3d/ksize_forms": _VOL + "x = vol((1, 4, 4, 4, 2))\n"
                                     "(tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "
                                     "'VALID'), tf.nn.max_pool3d(x, [2, 1, 2], 2, 'SAME'), "
                                     "tf.nn.max_pool3d(x, 2, None, 'VALID'))",
    "max_pool3d/ncdhw": (_VOL + "tf.nn.max_pool3d(vol((1, 2, 4, 4, 4)), 2, 2, 'VALID', "
                               "data_format='NCDHW')", {"match": ["NDHWC"]}),
    "max_pool3d/int32": ("tf.nn.max_pool3d(tf.ones([1, 2, 2, 2, 1], tf.int32), 2, 2, 'VALID')",
                        {"match": ["int32"]}),
    "max_pool3d/rank4": ("tf.nn.max_pool3d(tf.ones([1, 2, 2, 1]), 2, 2, 'VALID')",
                        {"match": ["5-dimensional"]}),
    "max_pool3d/bad_padding": ("tf.nn.max_pool3d(tf.ones([1, 2, 2, 2, 1]), 2, 2, 'FULL')",
                              {"match": ["FULL"]}),
    "max_pool3d/explicit_padding": "tf.nn.max_pool3d(tf.ones([1, 2, 2, 2, 1]), 2, 2, "
                                   "[[0, 0], [1, 1], [0, 0], [0, 0], [0, 0]])",
    "max_pool3d/too_big": "tf.nn.max_pool3d(tf.ones([1, 2, 2, 2, 1]), 3, 1, 'VALID')",
    # -- tf.nn.max_pool and avg_pool pick the op by rank; Keras's 3-D layers --------------
    "pool_by_rank/max": _VOL + "x = vol((1, 3, 4, 4, 2), 5)\n"
                               "(tf.nn.max_pool(x, 2, 2, 'VALID'), tf.nn.max_pool(x, 2, 1, "
                               "'SAME'), tf.nn.max_pool(vol((2, 6, 3)), 2, 2, 'VALID'), "
                               "tf.nn.max_pool(vol((1, 4, 4, 2)), 2, 2, 'SAME'))",
    "pool_by_rank/avg": _VOL + "x = vol((1, 3, 4, 4, 2))\n"
                               "(tf.nn.avg_pool(x, 2, 2, 'VALID'), tf.nn.avg_pool(x, 3, 2, "
                               "'SAME'), tf.nn.avg_pool(vol((2, 6, 3)), 2, 2, 'VALID'))",
    "pool_by_rank/grad": _VOL + "pool(vol((1, 3, 4, 4, 2)), 2, 1, 'SAME', fn=lambda *a: "
                                "tf.nn.max_pool(*a, data_format='NDHWC'))",
    "pool_by_rank/rank2": ("tf.nn.max_pool(tf.ones([4, 4]), 2, 2, 'VALID')", {"match": ["rank 2"]}),
    "keras_pool3d/max": _VOL + "x = vol((2, 4, 5, 6, 3), 9)\n"
                               "(tf.keras.layers.MaxPooling3D()(x), tf.keras.layers.MaxPooling3D("
                               "(2, 3, 2), strides=1, padding='same')(x), "
                               "tf.keras.layers.MaxPool3D(3, 2)(x))",
    "keras_pool3d/avg": _VOL + "x = vol((2, 4, 5, 6, 3))\n"
                               "(tf.keras.layers.AveragePooling3D(2)(x), "
                               "tf.keras.layers.AveragePooling3D((2, 3, 2), strides=1, "
                               "padding='same')(x), tf.keras.layers.AvgPool3D(3, 2)(x))",
    "keras_pool3d/shape": "layer = tf.keras.layers.MaxPooling3D((2, 2, 3), padding='same')\n"
                          "(layer.compute_output_shape((None, 5, 4, 7, 2)), "
                          "layer.get_config()['pool_size'], layer.get_config()['strides'])",
    # -- tf.range inside tf.function: a value known at trace time folds --------------------
    "range_traced/constant": "@tf.function\ndef f(x):\n    n = tf.constant(3) + 2\n"
                             "    return tf.range(n) * 2 + tf.cast(tf.reduce_sum(x), tf.int32)\n"
                             "(f(tf.ones([2])), f(tf.ones([2]) * 2), "
                             "f.experimental_get_tracing_count())",
    "range_traced/static_shape": "@tf.function\ndef f(x):\n"
                                 "    return tf.cast(tf.range(tf.shape(x)[0]), tf.float32) + "
                                 "x[:, 0]\n"
                                 "(f(tf.ones([5, 2])), f(tf.ones([5, 2]) * 3), f(tf.ones([3, 2])))",
    "range_traced/size_float": "@tf.function\ndef f(x):\n"
                               "    return tf.range(tf.constant(0.5), tf.cast(tf.size(x), "
                               "tf.float32), 1.5)\n"
                               "f(tf.ones([2, 3]))",
    # -- op seeds across traces: which draws repeat which (TensorFlow's numbers are its
    # own): `pattern` gives, per draw, the index of the first draw equal to it -------------
    "seeds/uniform_op_seed": _SEEDS + "runs(lambda x: tf.random.uniform(x.shape, seed=5))",
    "seeds/uniform_global_and_op": _SEEDS + "runs(lambda x: tf.random.uniform(x.shape, seed=5), "
                                            "7)",
    "seeds/normal_global_and_op": _SEEDS + "runs(lambda x: tf.random.normal(x.shape, seed=3), "
                                           "11)",
    "seeds/dropout_op_seed": _SEEDS + "runs(lambda x: tf.nn.dropout(x, 0.5, seed=5))",
    "seeds/dropout_global_and_op": _SEEDS + "runs(lambda x: tf.nn.dropout(x, 0.5, seed=5), 7)",
    "seeds/global_only": _SEEDS + "tf.random.set_seed(7)\n"
                                  "f = tf.function(lambda x: tf.random.uniform(x.shape))\n"
                                  "pattern([f(X64), f(X64), f(X65), f(X65), f(X64)])",
    "seeds/set_seed_restarts": _SEEDS + "tf.random.set_seed(7)\n"
                                        "f = tf.function(lambda x: tf.random.uniform(x.shape, "
                                        "seed=5))\n"
                                        "a, b = f(X64), f(X64)\ntf.random.set_seed(7)\n"
                                        "c = f(X64)\ntf.random.set_seed(8)\nd, e = f(X64), "
                                        "f(X65)\ntf.random.set_seed(8)\n"
                                        "g = tf.random.uniform([64], seed=5)\n"
                                        "pattern([a, b, c, d, e, g])",
    "seeds/two_ops_one_seed": _SEEDS + "tf.random.set_seed(7)\n"
                                       "f = tf.function(lambda x: (tf.random.uniform(x.shape, "
                                       "seed=5), tf.random.uniform(x.shape, seed=5)))\n"
                                       "(a, b), (c, d) = f(X64), f(X64)\n"
                                       "tf.random.set_seed(7)\n"
                                       "pattern([a, b, c, d, tf.random.uniform([64], seed=5), "
                                       "tf.random.uniform([64], seed=5)])",
    "seeds/concrete_function": _SEEDS + "tf.random.set_seed(7)\n"
                                        "f = tf.function(lambda x: tf.random.uniform(x.shape, "
                                        "seed=5))\n"
                                        "c = f.get_concrete_function(tf.TensorSpec([64]))\n"
                                        "pattern([f(X64), c(X64), f(X64), "
                                        "tf.random.uniform([64], seed=5)])",
    "seeds/eager_kernels": _SEEDS + "tf.random.set_seed(7)\n"
                                    "u1, n, u2 = (tf.random.uniform([64], seed=5), "
                                    "tf.random.normal([64], seed=5), "
                                    "tf.random.uniform([64], seed=5))\n"
                                    "d1, u3, d2 = (tf.nn.dropout(X64, 0.5, seed=6), "
                                    "tf.random.uniform([64], seed=6), "
                                    "tf.nn.dropout(X64, 0.5, seed=6))\n"
                                    "tf.random.set_seed(7)\n"
                                    "v1, v2 = tf.random.uniform([64], seed=5), "
                                    "tf.random.uniform([64], seed=5)\n"
                                    "e1, e2 = tf.nn.dropout(X64, 0.5, seed=6), "
                                    "tf.nn.dropout(X64, 0.5, seed=6)\n"
                                    "(pattern([u1, u2, v1, v2]), pattern([d1, d2, e1, e2]))",
    "seeds/other_ops": _SEEDS + """
def calls(draw, arg):
    tf.random.set_seed(7)
    eager = [draw(arg), draw(arg)]
    tf.random.set_seed(7)
    f, g = tf.function(draw), tf.function(draw)
    return pattern(eager + [f(arg), f(arg), g(arg), f(arg)])
v = tf.constant(np.arange(64, dtype=np.float32))
(calls(lambda x: tf.random.categorical(x, 16, seed=5), tf.zeros([4, 10])),
 calls(lambda x: tf.random.shuffle(x, seed=5), v),
 calls(lambda x: tf.random.truncated_normal([64], seed=5), v),
 calls(lambda x: tf.random.uniform([64], 0, 1000, dtype=tf.int32, seed=5), v))
""",
    "seeds/keras_dropout": _SEEDS + "layer = tf.keras.layers.Dropout(0.5, seed=5)\n"
                                    "f = tf.function(lambda x: layer(x, training=True))\n"
                                    "pattern([f(X64), f(X64), f(X65), layer(X64, "
                                    "training=True)])",
    # -- output_gradients that do not fit their target -------------------------------------
    "output_gradients/longer_op": ("x = tf.constant([1.0, 2.0, 3.0])\n"
                                   "with tf.GradientTape() as t:\n    t.watch(x)\n"
                                   "    y = tf.exp(x)\n"
                                   "t.gradient(y, x, output_gradients=tf.constant([1.0, 2.0]))",
                                   {"match": ["Incompatible shapes", "[2]", "[3]"]}),
    "output_gradients/scalar_target": ("x = tf.constant([1.0, 2.0, 3.0])\n"
                                       "with tf.GradientTape() as t:\n    t.watch(x)\n"
                                       "    y = tf.reduce_sum(x * x)\n"
                                       "t.gradient(y, x, output_gradients=tf.constant([1.0, "
                                       "2.0]))"),
}
