"""TensorFlow-differential snippets for the ops of issue 8's second half (owner: tf2ops).

Each entry is `id: source` or `id: (source, options)`; the id's part before '/' is its
group (one test per group and backend). A snippet runs under both `import tensorflow as
tf` and `import texflow as tf`, with `np`; the value of its last line is compared
(tests/tfdiff_check.py). After editing, rerun
`$TF_PYTHON scripts/make_tf_diff_fixtures.py ops`.
"""

SNIPPETS = {
    # -- existing elementwise and reductions: broadcasting, negative axes, empty ----------
    "basics/add_broadcast": "tf.add(tf.constant([[1.0], [2.0]]), tf.constant([10.0, 20.0, 30.0]))",
    "basics/sum_negative_axis": "tf.reduce_sum(tf.constant([[1, 2, 3], [4, 5, 6]]), axis=-1)",
    "basics/sum_keepdims": "tf.reduce_sum(tf.ones([2, 3, 4]), axis=[0, 2], keepdims=True)",
    "basics/sum_empty": "tf.reduce_sum(tf.zeros([0, 3]), axis=0)",
    "basics/max_empty": "tf.reduce_max(tf.zeros([2, 0]), axis=1)",
    "basics/mean_float": "tf.reduce_mean(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)",
    "basics/matmul_batch": """
        x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        tf.matmul(tf.constant(x), tf.constant(x), transpose_b=True)
    """,
    "basics/concat_neg_axis": "tf.concat([tf.zeros([2, 1]), tf.ones([2, 2])], axis=-1)",
    "basics/transpose_default": "tf.transpose(tf.reshape(tf.range(6), [2, 3]))",
}
