"""TensorFlow-differential snippets: names and messages a TensorFlow 2 user meets in the
first hour that the issue's list did not name (owner: tf2ops): tf.round, tf.math
squared_difference / divide_no_nan / l2_normalize, tf.executing_eagerly, get_shape,
tf.debugging assert_integer / assert_scalar / assert_shapes messages, tf.gather with a
scalar index, tf.compat.v1 reached as an attribute, int ** negative int, and the
InvalidArgumentError of an op given a dtype its kernel lacks.

`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py ops_habits`.
"""

SNIPPETS = {
    "round/halves_to_even": "tf.math.round(tf.constant([0.5, 1.5, 2.5, -0.5, -1.5, -2.5]))",
    "round/others": "tf.round([2.4, -2.6, 1e7 + 0.5, 0.49999997, np.nan, np.inf, -np.inf])",
    "round/int": "tf.math.round(tf.constant([1, -2]))",
    "round/bool_error": ("tf.math.round(tf.constant([True]))", {"match": ["bool"]}),
    "round/gradient": """
        x = tf.constant([0.3, 1.5])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.round(x) * x)
        tape.gradient(y, x)
    """,
    "squared_difference/broadcast": "tf.math.squared_difference([1.0, 5.0], [[2.0], [0.0]])",
    "squared_difference/int": "tf.math.squared_difference(tf.constant([1, 5]), 2)",
    "squared_difference/dtype_error": ("tf.math.squared_difference(tf.constant([1.0]), "
                                       "tf.constant([1]))", {"match": ["int32"]}),
    "squared_difference/bool_error": ("tf.math.squared_difference(tf.constant([True]), True)",
                                      {"match": ["bool"]}),
    "divide_no_nan/zeros": "tf.math.divide_no_nan([1.0, 2.0, 0.0, np.nan], [0.0, 4.0, 0.0, 0.0])",
    "divide_no_nan/inf_divisor": "tf.math.divide_no_nan(1.0, [0.0, np.inf, -2.0])",
    "divide_no_nan/ints": "tf.math.divide_no_nan(tf.constant([1, 3]), tf.constant([0, 2]))",
    "divide_no_nan/dtype_error": ("tf.math.divide_no_nan(tf.constant([1.0]), tf.constant([0]))",
                                  {"match": ["same dtype"]}),
    "divide_no_nan/gradient": """
        x = tf.constant([1.0, 2.0])
        y = tf.constant([0.0, 4.0])
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = tf.reduce_sum(tf.math.divide_no_nan(x, y))
        tape.gradient(z, [x, y])
    """,
    "l2_normalize/vector": "tf.nn.l2_normalize([3.0, 4.0])",
    "l2_normalize/rows_and_zero_row": "tf.math.l2_normalize([[3.0, 4.0], [0.0, 0.0]], axis=1)",
    "l2_normalize/columns": "tf.nn.l2_normalize([[3.0, 4.0], [6.0, 8.0]], axis=0)",
    "l2_normalize/axes_list": "tf.nn.l2_normalize(tf.constant([[3.0, 4.0]]), axis=[0, 1])",
    "l2_normalize/epsilon": "tf.nn.l2_normalize(tf.constant([[3.0, 4.0]]), -1, epsilon=100.0)",
    "l2_normalize/int_error": ("tf.nn.l2_normalize(tf.constant([1, 2]))", {"match": ["int32"]}),
    "l2_normalize/gradient": """
        x = tf.constant([3.0, 4.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.l2_normalize(x) * tf.constant([1.0, 2.0]))
        tape.gradient(y, x)
    """,
    "pow/int_negative_error": ("tf.pow(tf.constant([2, 3]), tf.constant([1, -2]))",
                               {"match": ["Integers to negative integer powers are not "
                                          "allowed"]}),
    "pow/int_operator_error": ("tf.constant([2]) ** -1", {"match": ["negative integer powers"]}),
    "pow/int_positive": "tf.constant([2, -3, 0]) ** 3",
    "pow/int_float_exponent": "tf.pow(tf.constant([2.0, 4.0]), -1)",
    "pow/ints_zero_exponent": "tf.pow(tf.constant([0, -2]), tf.constant([0, 0]))",
    "habits/dataset_map_cast": """
        ds = tf.data.Dataset.from_tensor_slices((np.array([[0, 128], [255, 51]], np.uint8),
                                                 np.array([1, 0], np.int32)))
        ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255., y)).batch(2)
        list(ds.as_numpy_iterator())
    """,
    "dtype_errors/softmax_int": ("tf.nn.softmax(tf.constant([1, 2]))", {"match": ["int32"]}),
    "dtype_errors/matmul_bool": "tf.matmul(tf.constant([[True]]), tf.constant([[True]]))",
    "dtype_errors/abs_bool": ("tf.abs(tf.constant([True]))", {"match": ["bool"]}),
    "dtype_errors/one_hot_float": ("tf.one_hot(tf.constant([1.0]), 2)", {"match": ["float"]}),
    "dtype_errors/avg_pool_int": "tf.nn.avg_pool2d(tf.ones([1, 2, 2, 1], tf.int32), 1, 1, 'VALID')",
    "dtype_errors/moments_int": "tf.nn.moments(tf.constant([1.0, 2.0]) > 1.0, [0])",
    "habits/executing_eagerly": "tf.executing_eagerly()",
    "habits/executing_eagerly_traced": "seen = []\n@tf.function\ndef f(x):\n"
                                       "    seen.append(tf.executing_eagerly())\n"
                                       "    return x + 1\nf(tf.constant(1.0))\n"
                                       "f(tf.constant(2.0))\n(seen, tf.executing_eagerly())",
    "habits/get_shape": "tf.zeros([2, 3]).get_shape().as_list()",
    "habits/compat_v1_attribute": "tf.compat.v1.placeholder is not None",
    "habits/gather_scalar_index": ("tf.gather(tf.constant([1.0, 2.0, 3.0]), 5)",
                                   {"match": ["indices = 5", "[0, 3)"]}),
    "habits/gather_scalar_ok": "tf.gather(tf.constant([[1, 2], [3, 4]]), 1)",
    "habits/assert_integer": "tf.debugging.assert_integer(tf.constant([1, 2]))",
    "habits/assert_integer_error": ("tf.debugging.assert_integer(tf.constant([1.0]), "
                                    "message='weights')",
                                    {"match": ["weights.  Expected \"x\" to be integer type",
                                               "<dtype: 'float32'>"]}),
    "habits/assert_integer_bool_error": ("tf.debugging.assert_integer(tf.constant([True]))",
                                         {"match": ["<dtype: 'bool'>"]}),
    "habits/assert_scalar": "tf.debugging.assert_scalar(tf.constant(1.0))",
    "habits/assert_scalar_error": ("tf.debugging.assert_scalar(tf.zeros([2, 1]))",
                                   {"match": ["Expected scalar shape, saw shape: (2, 1)."]}),
    "habits/assert_shapes_explicit": ("tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, 4))])",
                                      {"match": ["Specified explicitly.  Tensor shape=(2, 3) "
                                                 "dtype=float32 dimension 1 must have size 4"]}),
    "habits/assert_shapes_named": ("tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('N', 'D')), "
                                   "(tf.zeros([4]), ('D',))])",
                                   {"match": ["Specified by tensor shape=(2, 3) dtype=float32 "
                                              "dimension 1.  Tensor shape=(4,) dtype=float32 "
                                              "dimension 0 must have size 3"]}),
    # -- every op takes TensorFlow's `name=` (graph op names; texflow has none to set) ----
    "names/creation": "(tf.constant([1, 2], name='c'), tf.zeros([2], name='z'), "
                      "tf.ones([1], tf.int32, name='o'), tf.fill([2], 3.0, name='f'), "
                      "tf.range(3, name='r'), tf.eye(2, name='e'), tf.linspace(0.0, 1.0, 3, "
                      "name='l'), tf.convert_to_tensor([1.5], name='t'))",
    "names/math": "x = tf.constant([[1.0, -2.0], [3.0, 4.0]])\n"
                  "(tf.add(x, 1.0, name='a'), tf.math.multiply(x, x, name='m'), "
                  "tf.abs(x, name='b'), tf.math.floordiv(x, 2.0, name='f'), "
                  "tf.pow(x, 2.0, name='p'), tf.reduce_sum(x, axis=0, name='s'), "
                  "tf.reduce_mean(x, name='m'), tf.math.reduce_std(x, name='d'), "
                  "tf.matmul(x, x, name='mm'), tf.where(x > 0, x, 0.0, name='w'), "
                  "tf.cast(x, tf.int32, name='c'), tf.math.cumsum(x, name='cs'), "
                  "tf.norm(x, name='n'), tf.einsum('ij->j', x, name='e'), "
                  "tf.logical_and(x > 0, x < 3, name='l'))",
    "names/arrays": "x = tf.reshape(tf.range(6), [2, 3], name='r')\n"
                    "(tf.transpose(x, name='t'), tf.concat([x, x], 0, name='c'), "
                    "tf.stack([x, x], name='s'), tf.expand_dims(x, 0, name='e').shape, "
                    "tf.squeeze(tf.zeros([1, 2]), name='q').shape, tf.tile(x, [1, 2], "
                    "name='t'), tf.pad(x, [[1, 0], [0, 0]], name='p'), tf.slice(x, [0, 1], "
                    "[2, 1], name='s'), tf.reverse(x, [1], name='v'), tf.split(x, 3, 1, "
                    "name='sp'), tf.unstack(x, name='u'), tf.identity(x, name='i'), "
                    "tf.sort(x, name='o'), tf.rank(x, name='k'), "
                    "tf.broadcast_to([1], [2], name='b'))",
    "names/nn": "x = tf.constant([[1.0, -2.0, 0.5]])\n"
                "(tf.nn.relu(x, name='r'), tf.nn.softmax(x, name='s'), "
                "tf.nn.log_softmax(x, name='l'), tf.nn.sigmoid(x, name='g'), "
                "tf.nn.leaky_relu(x, name='k'), tf.nn.l2_loss(x, name='l2'), "
                "tf.nn.bias_add(x, [1.0, 2.0, 3.0], name='b'), "
                "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2], logits=x, "
                "name='x'), tf.one_hot([1], 3, name='o'), "
                "tf.clip_by_value(x, -1.0, 1.0, name='c'), tf.stop_gradient(x, name='st'), "
                "tf.nn.moments(x, [1], name='m'))",
    # -- TensorFlow's parameters the core's signatures lacked ----------------------------
    "signatures/one_hot_dtype": "(tf.one_hot([1, 0], 3, on_value=5, off_value=0), "
                                "tf.one_hot([1], 2, on_value=True, off_value=False), "
                                "tf.one_hot([1], 3, on_value=2.0), tf.one_hot([1, 2], 3, axis=0), "
                                "tf.one_hot([1], 2, dtype=tf.int32), tf.one_hot([0], 2, "
                                "off_value=-1.0))",
    "signatures/one_hot_mismatch": "tf.one_hot([1], 2, on_value=1, off_value=0.5)",
    "signatures/data_format": "x = tf.ones([1, 4, 4, 1])\nw = tf.ones([2, 2, 1, 1])\n"
                              "(tf.nn.conv2d(x, w, 1, 'VALID', data_format='NHWC'), "
                              "tf.nn.conv2d(x, w, 1, 'VALID', 'NHWC', 2), "
                              "tf.nn.max_pool2d(x, 2, 2, 'VALID', data_format='NHWC'), "
                              "tf.nn.avg_pool2d(x, 2, 2, 'VALID', 'NHWC'), "
                              "tf.nn.max_pool(x, 2, 2, 'SAME'))",
    "signatures/keywords": "(tf.unstack(tf.ones([2, 3]), num=2), tf.fill(dims=[2], value=3), "
                           "tf.transpose(tf.ones([2, 1]), conjugate=False), "
                           "tf.nn.moments(tf.constant([1.0, 3.0]), [0], shift=None), "
                           "tf.convert_to_tensor(1, dtype_hint=tf.float32), "
                           "tf.convert_to_tensor([1.5], dtype_hint=tf.int32), "
                           "tf.convert_to_tensor(np.array([1, 2]), dtype_hint=tf.float32))",
    "signatures/conv_nchw": ("tf.nn.conv2d(tf.ones([1, 1, 4, 4]), tf.ones([2, 2, 1, 1]), 1, "
                             "'VALID', data_format='NCHW')", {"match": ["NHWC"]}),
    "signatures/pool_nchw": ("tf.nn.max_pool2d(tf.ones([1, 1, 4, 4]), 2, 2, 'VALID', "
                             "data_format='NCHW')", {"match": ["NHWC"]}),
    "signatures/pad_modes": "x = tf.reshape(tf.range(6.0), [2, 3])\n"
                            "(tf.pad(x, [[1, 1], [2, 2]], 'REFLECT'), tf.pad(x, [[2, 0], [3, 1]], "
                            "'SYMMETRIC'), tf.pad(x, [[0, 0], [1, 1]], 'CONSTANT', 7.0), "
                            "tf.pad(x, [[0, 1], [0, 0]], mode='reflect'), "
                            "tf.pad(tf.range(3), [[0, 2]], constant_values=-1))",
    "signatures/pad_gradient": "x = tf.Variable([1.0, 2.0, 3.0])\nwith tf.GradientTape() as t:\n"
                               "    y = tf.reduce_sum(tf.pad(x, [[2, 1]], 'REFLECT') * "
                               "tf.range(6.0))\nt.gradient(y, x)",
    "signatures/pad_reflect_error": ("tf.pad(tf.ones([2, 3]), [[0, 0], [3, 0]], 'REFLECT')",
                                     {"match": ["paddings must be less than the dimension size",
                                                "3, 0 not less than 3"]}),
    "signatures/pad_symmetric_error": ("tf.pad(tf.ones([2, 3]), [[0, 0], [4, 0]], 'SYMMETRIC')",
                                       {"match": ["no greater than the dimension size",
                                                  "4, 0 greater than 3"]}),
    "signatures/pad_mode_error": ("tf.pad(tf.ones([2]), [[1, 0]], 'WRAP')",
                                  {"match": ["`mode`", "WRAP"]}),
    "signatures/unstack_num_error": ("tf.unstack(tf.ones([2, 3]), num=3)",
                                     {"match": ["must equal 3"]}),
}
