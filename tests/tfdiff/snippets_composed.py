"""TensorFlow-differential snippets for the first-script names made of texflow's own ops
(py/texflow/ops/composed.py; owner: tf2ops). `id: source` or `id: (source, options)`.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py composed`.
"""

_M = "m = tf.reshape(tf.range(6), [2, 3])\n"

SNIPPETS = {
    "roll/basic": "(tf.roll(tf.range(5), 2, 0), tf.roll(tf.range(5), -7, axis=0), "
                  "tf.roll(tf.range(5.0), shift=0, axis=0))",
    "roll/axes": _M + "(tf.roll(m, shift=[1, -1], axis=[0, 1]), tf.roll(m, [1, 1], [1, 1]), "
                      "tf.roll(m, 1, -1))",
    "roll/gradient": "x = tf.Variable([1.0, 2.0, 3.0])\nwith tf.GradientTape() as t:\n"
                     "    y = tf.reduce_sum(tf.roll(x, 1, 0) * tf.constant([1.0, 10.0, 100.0]))\n"
                     "t.gradient(y, x)",
    "repeat/flat": "tf.repeat(tf.constant([[1, 2], [3, 4]]), 2)",
    "repeat/axis": "(tf.repeat(tf.constant([[1, 2], [3, 4]]), [1, 3], axis=0), "
                   "tf.repeat(tf.constant([[1.5, 2.5]]), 3, axis=-1), "
                   "tf.repeat([1, 2, 3], [0, 1, 2]))",
    "repeat/size_error": ("tf.repeat(tf.constant([[1, 2], [3, 4]]), [1, 3, 1], axis=0)",
                          {"match": ["not compatible"]}),
    "sequence_mask/basic": "(tf.sequence_mask([1, 3, 2], 5), tf.sequence_mask([[1, 3], [2, 0]]),"
                           " tf.sequence_mask(tf.constant([1, 2]), 3, dtype=tf.float32))",
    "sequence_mask/zero": "tf.sequence_mask([0, 0], 2)",
    "meshgrid/xy_ij": "(tf.meshgrid([1, 2, 3], [4, 5]), tf.meshgrid([1, 2, 3], [4, 5], "
                      "indexing='ij'), tf.meshgrid(tf.constant([0.5, 1.5]), [1.0, 2.0], [3.0]))",
    "meshgrid/one": "tf.meshgrid([1, 2])",
    "ensure_shape/ok": "(tf.ensure_shape(tf.zeros([2, 3]), [None, 3]), "
                       "tf.ensure_shape(tf.ones([2]), tf.TensorShape([2])))",
    "ensure_shape/error": ("tf.ensure_shape(tf.zeros([2, 3]), [2, 4])",
                           {"match": ["[2,3]", "not compatible", "[2,4]"]}),
    "composed_math/is_inf": "tf.math.is_inf(tf.constant([1.0, np.inf, -np.inf, np.nan]))",
    "composed_math/is_inf_int_error": "tf.math.is_inf(tf.constant([1]))",
    "composed_math/count_nonzero": "(tf.math.count_nonzero(tf.constant([[0, 1, 2], [0, 0, 3]])),"
                                   " tf.math.count_nonzero(tf.constant([[0.0, 1.0, 2.0], "
                                   "[0.0, 0.0, -3.0]]), axis=1, keepdims=True), "
                                   "tf.math.count_nonzero([True, False, True]))",
    "composed_math/segment_sum": "(tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0, 4.0]), "
                                 "[0, 0, 2, 2]), tf.math.segment_sum(tf.reshape(tf.range(6), "
                                 "[3, 2]), tf.constant([0, 1, 1])))",
    "composed_math/segment_sum_unsorted": ("tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), "
                                           "[1, 0, 2])", {"match": ["not increasing"]}),
    "composed_math/confusion": "(tf.math.confusion_matrix([1, 2, 4], [2, 2, 4]), "
                               "tf.math.confusion_matrix([0, 1], [1, 1], num_classes=3, "
                               "weights=[0.5, 2.0], dtype=tf.float32))",
    "composed_math/confusion_negative": ("tf.math.confusion_matrix([-1, 1], [1, 1])",
                                         {"match": ["`labels` contains negative values"]}),
    "composed_math/truediv": "(tf.truediv(tf.constant([3, 4]), tf.constant([2, 2])), "
                             "tf.math.truediv(1.0, 4.0))",
    "composed_nn/selu": "tf.nn.selu(tf.constant([-1.0, 0.0, 2.0, -20.0]))",
    "composed_nn/selu_int_error": "tf.nn.selu(tf.constant([1]))",
    "composed_nn/selu_gradient": "x = tf.Variable([-1.0, 0.5])\nwith tf.GradientTape() as t:\n"
                                 "    y = tf.reduce_sum(tf.nn.selu(x))\nt.gradient(y, x)",
    "composed_nn/embedding_lookup": "p = tf.reshape(tf.range(6.0), [3, 2])\n"
                                    "(tf.nn.embedding_lookup(p, [[2, 0], [1, 1]]), "
                                    "tf.nn.embedding_lookup([p], tf.constant([1])))",
    "composed_nn/embedding_lookup_range": ("tf.nn.embedding_lookup(tf.reshape(tf.range(6.0), "
                                           "[3, 2]), [3])",
                                           {"match": ["indices[0] = 3", "[0, 3)"]}),
    "composed_nn/embedding_max_norm": "tf.nn.embedding_lookup(tf.constant([[3.0, 4.0], "
                                      "[0.3, 0.4]]), [0, 1], max_norm=1.0)",
}
