"""TensorFlow-differential snippets for TensorFlow 2's top-level initializers
(tf.zeros_initializer, ones, constant, random_normal, random_uniform): values, dtypes,
configs and errors; the random ones by their shapes, dtypes, ranges and seeding rules
(a seeded initializer draws the same numbers at every call), not their numbers.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py initializers`.
"""

SNIPPETS = {
    "initializers/zeros": "(tf.zeros_initializer()(shape=[2, 3]), "
                          "tf.zeros_initializer()([2], dtype=tf.int32), "
                          "tf.zeros_initializer()(tf.constant([2, 1])))",
    "initializers/ones": "(tf.ones_initializer()([2, 1]), tf.ones_initializer()([2], tf.bool), "
                         "tf.ones_initializer()([3], 'int32'))",
    "initializers/constant": "(tf.constant_initializer([1, 2])([2]), "
                             "tf.constant_initializer(3)([2, 2]), "
                             "tf.constant_initializer([1, 2, 3, 4])([2, 2]), "
                             "tf.constant_initializer([1.5, 2])([2]), "
                             "tf.constant_initializer(2)([2], dtype=tf.float32), "
                             "tf.constant_initializer(True)([2]), "
                             "tf.constant_initializer()([2]), "
                             "tf.constant_initializer(np.array([1., 2.], np.float32))([2]))",
    "initializers/configs": "(tf.constant_initializer([1, 2]).get_config(), "
                            "tf.constant_initializer().get_config(), "
                            "tf.zeros_initializer().get_config(), "
                            "tf.random_normal_initializer().get_config(), "
                            "tf.random_uniform_initializer().get_config(), "
                            "tf.random_normal_initializer(1., 2., seed=4).get_config(), "
                            "tf.random_uniform_initializer(-1, 1, seed=4).get_config(), "
                            "tf.constant_initializer.from_config({'value': 3})([1]), "
                            "[type(f()).__name__ for f in (tf.zeros_initializer, "
                            "tf.ones_initializer, tf.random_normal_initializer, "
                            "tf.random_uniform_initializer)], "
                            "type(tf.constant_initializer(1)).__name__)",
    "initializers/random": """
def same(a, b):
    return bool(np.array_equal(a.numpy(), b.numpy()))
n = tf.random_normal_initializer(seed=1)
u = tf.random_uniform_initializer(0, 3, seed=2)
big = tf.random_normal_initializer(3.0, 2.0)([20000])
ints = u([1000], tf.int32)
(n([3]).dtype, n([2, 5]).shape, same(n([3]), n([3])),
 same(tf.random_normal_initializer(seed=1)([3]), n([3])),
 same(tf.random_normal_initializer()([50]), tf.random_normal_initializer()([50])),
 tf.random_normal_initializer(1.0, 0.0)([3]), tf.random_uniform_initializer(2.0, 2.0)([3]),
 abs(float(tf.reduce_mean(big)) - 3.0) < 0.1, abs(float(tf.math.reduce_std(big)) - 2.0) < 0.1,
 ints.dtype, int(tf.reduce_min(ints)), int(tf.reduce_max(ints)),
 bool(tf.reduce_all(tf.abs(tf.random_uniform_initializer()([100])) <= 0.05)))
""",
    "initializers/err_string": ("tf.zeros_initializer()([2], dtype=tf.string)",
                                {"match": ["expected to be numeric or boolean"]}),
    "initializers/err_kwarg": ("tf.zeros_initializer()([2], partition_info=None)",
                               {"match": ["Keyword argument should be one of", "partition_info"]}),
    "initializers/err_no_shape": "tf.ones_initializer()()",
    "initializers/err_size": ("tf.constant_initializer([1, 2, 3])([2])",
                              {"match": ["has 3 elements, but got `shape` (2,) with 2 elements"]}),
    "initializers/err_float_to_int": ("tf.constant_initializer([1.5, 2])([2], dtype=tf.int32)",
                                      {"match": ["Cannot convert [1.5, 2] to EagerTensor of "
                                                 "dtype int32"]}),
    "initializers/err_tensor_value": ("tf.constant_initializer(tf.constant([1., 2.]))",
                                      {"match": ["Invalid type for initial value"]}),
    "initializers/err_normal_int": ("tf.random_normal_initializer()([2], tf.int32)",
                                    {"match": ["expected to be floating point"]}),
    "initializers/err_uniform_no_max": ("tf.random_uniform_initializer(0, None)([3], tf.int32)",
                                        {"match": ["Must specify maxval for integer dtype"]}),
    "initializers/err_uniform_float_bounds": ("tf.random_uniform_initializer()([3], tf.int32)",
                                              {"match": ["Cannot convert -0.05"]}),
    "initializers/err_uniform_bool": ("tf.random_uniform_initializer()([3], tf.bool)",
                                      {"match": ["numeric or boolean"]}),
    "initializers/in_variable_and_dense": """
v = tf.Variable(tf.zeros_initializer()([2]))
d = tf.keras.layers.Dense(2, kernel_initializer=tf.ones_initializer(),
                          bias_initializer=tf.constant_initializer(0.5))
(v, d(tf.ones([1, 3])))
""",
}
