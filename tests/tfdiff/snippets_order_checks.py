"""TensorFlow-differential snippets for tf.math.mod, is_non_decreasing,
is_strictly_increasing and reduce_euclidean_norm (py/texflow/ops/order_checks.py).
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py order_checks`.
"""

_M = "m = tf.constant([[3.0, 4.0], [5.0, 12.0]])\n"

SNIPPETS = {
    "order_checks/mod": "(tf.math.mod(tf.constant([7, -7]), 3), "
                        "tf.math.mod(tf.constant([7.5, -7.5]), 2.0))",
    "order_checks/monotone": "(tf.math.is_non_decreasing([1, 1, 2]), "
                             "tf.math.is_non_decreasing([1, 3, 2]), "
                             "tf.math.is_non_decreasing([[1, 2], [2, 3]]), "
                             "tf.math.is_non_decreasing(5), tf.math.is_non_decreasing([]), "
                             "tf.math.is_strictly_increasing([1, 1, 2]), "
                             "tf.math.is_strictly_increasing([1.0, 2.0, 3.5]), "
                             "tf.math.is_strictly_increasing([[1, 2], [3, 4]]))",
    "order_checks/monotone_bool": ("tf.math.is_strictly_increasing([True, False])",
                                   {"match": ["Expected x to be numeric"]}),
    "order_checks/euclidean_norm": _M + "(tf.math.reduce_euclidean_norm(m), "
                                   "tf.math.reduce_euclidean_norm(m, axis=1), "
                                   "tf.math.reduce_euclidean_norm(m, axis=0, keepdims=True), "
                                   "tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [5, 13]])),"
                                   " tf.math.reduce_euclidean_norm(tf.zeros([0])))",
    "order_checks/euclidean_norm_gradient": "v = tf.Variable([[3.0, 4.0], [5.0, 12.0]])\n"
                                            "with tf.GradientTape() as t:\n"
                                            "    y = tf.reduce_sum("
                                            "tf.math.reduce_euclidean_norm(v, axis=1))\n"
                                            "t.gradient(y, v)",
}
