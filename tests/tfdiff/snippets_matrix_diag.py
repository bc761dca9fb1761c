"""TensorFlow-differential snippets: tf.linalg.diag_part, diag and set_diag with bands of
diagonals k=(lower, upper): every align, padding_value, wide, tall and batched matrices,
k as a list or tensor, gradients eagerly and in tf.function, and TensorFlow's errors.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py matrix_diag`.
"""

_W = "w = tf.reshape(tf.range(1.0, 13.0), [3, 4])\n"   # wide
_T = "t = tf.reshape(tf.range(1.0, 16.0), [5, 3])\n"   # tall
_B = "b = tf.reshape(tf.range(24), [2, 3, 4])\n"        # a batch of int matrices
_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")

SNIPPETS = {
    "diag_band/part_wide": _W + "[tf.linalg.diag_part(w, k=(-1, 2), align=a) for a in "
                                f"{_ALIGNS}]",
    "diag_band/part_tall": _T + "[tf.linalg.diag_part(t, k=(-3, 1), padding_value=-1.5, "
                                f"align=a) for a in {_ALIGNS}]",
    "diag_band/part_batch_int": _B + "(tf.linalg.diag_part(b, k=(-2, 0), padding_value=-1), "
                                     "tf.linalg.diag_part(b, k=[1, 3]))",
    "diag_band/part_one_in_tuple": _W + "(tf.linalg.diag_part(w, k=(1, 1)), "
                                        "tf.linalg.diag_part(w, k=[-2]), "
                                        "tf.linalg.diag_part(w, k=tf.constant([0, 1])))",
    "diag_band/part_empty": "(tf.linalg.diag_part(tf.zeros([0, 3]), k=(0, 1)), "
                            "tf.linalg.diag_part(tf.zeros([2, 0, 0])))",
    "diag_band/diag_upper": "v = tf.reshape(tf.range(1.0, 7.0), [2, 3])\n"
                            f"[tf.linalg.diag(v, k=(0, 1), align=a) for a in {_ALIGNS}]",
    "diag_band/diag_lower": "v = tf.reshape(tf.range(1.0, 7.0), [2, 3])\n"
                            "[tf.linalg.diag(v, k=(-2, -1), padding_value=9.0, align=a) "
                            f"for a in {_ALIGNS}]",
    "diag_band/diag_sizes": "v = tf.reshape(tf.range(1, 13), [2, 2, 3])\n"
                            "(tf.linalg.diag(v, k=(-1, 0), num_rows=4), "
                            "tf.linalg.diag(v, k=(0, 1), num_cols=5), "
                            "tf.linalg.diag(v, k=(1, 2), num_rows=3, num_cols=5))",
    "diag_band/diag_one": "(tf.linalg.diag([1, 2], k=-1, num_rows=5), "
                          "tf.linalg.diag([1.0, 2.0], k=(2, 2), padding_value=-1.0))",
    "diag_band/set_diag": _W + "v = -tf.reshape(tf.range(1.0, 10.0), [3, 3])\n"
                               "(tf.linalg.set_diag(w, v, k=(-1, 1)), "
                               "tf.linalg.set_diag(w, v[:2, :2] * 0.0, k=(-2, -1), "
                               "align='LEFT_RIGHT'), tf.linalg.set_diag(w, v[0], k=(1, 1)))",
    "diag_band/round_trip": _B + "b = tf.cast(b, tf.float32)\n"
                                 "p = tf.linalg.diag_part(b, k=(-1, 2), align='LEFT_LEFT')\n"
                                 "(tf.linalg.diag(p, k=(-1, 2), num_rows=3, num_cols=4, "
                                 "align='LEFT_LEFT'), tf.linalg.set_diag(b * 0.0, p, "
                                 "k=(-1, 2), align='LEFT_LEFT'))",
    "diag_band/grads": _W + """
v = tf.reshape(tf.range(1.0, 10.0), [3, 3])
def grads(w, v):
    with tf.GradientTape() as g:
        g.watch([w, v])
        p = tf.linalg.diag_part(w, k=(-1, 1), padding_value=5.0)
        d = tf.linalg.diag(v, k=(0, 2), align='LEFT_RIGHT')
        s = tf.linalg.set_diag(w, v * v, k=(-1, 1))
        y = tf.reduce_sum(p * p) + tf.reduce_sum(d * d * 0.5) + tf.reduce_sum(s * w)
    return g.gradient(y, [w, v])
(grads(w, v), tf.function(grads)(w, v))
""",
    # -- errors -----------------------------------------------------------------------------
    "diag_band/err_order": (_W + "tf.linalg.diag_part(w, k=(2, 1))",
                            {"match": ["must not be larger than upper_diag_index: 2 > 1"]}),
    "diag_band/err_lower_bound": (_W + "tf.linalg.diag_part(w, k=(-3, 0))",
                                  {"match": ["lower_diag_index is out of bound: -3. It must "
                                             "be between -3 and 4"]}),
    "diag_band/err_upper_bound": (_W + "tf.linalg.diag_part(w, k=(0, 4))",
                                  {"match": ["upper_diag_index is out of bound: 4 It must be "
                                             "between -3 and 4"]}),
    "diag_band/err_one_out": (_W + "tf.linalg.diag_part(w, k=5)",
                              {"match": ["lower_diag_index is out of bound: 5."]}),
    "diag_band/err_align": (_W + "tf.linalg.diag_part(w, k=(0, 1), align='BAD')",
                            {"match": ["'align' of \"BAD\"", "\"RIGHT_RIGHT\""]}),
    "diag_band/err_three": (_W + "tf.linalg.diag_part(w, k=(-1, 0, 1))",
                            {"match": ["only one or two elements, received 3 elements"]}),
    "diag_band/err_diag_count": ("tf.linalg.diag(tf.ones([3]), k=(0, 1))",
                                 {"match": ["number of diagonals provided"]}),
    "diag_band/err_diag_order": ("tf.linalg.diag(tf.ones([2, 3]), k=(1, 0))",
                                 {"match": ["must not be larger than upper_diag_index: 1 > 0"]}),
    "diag_band/err_rows_small": ("tf.linalg.diag(tf.ones([2, 3]), k=(0, 1), num_rows=2, "
                                 "num_cols=5)", {"match": ["number of rows is too small"]}),
    "diag_band/err_cols_small": ("tf.linalg.diag(tf.ones([2, 3]), k=(0, 1), num_rows=3, "
                                 "num_cols=2)", {"match": ["number of columns is too small"]}),
    "diag_band/err_inconsistent": ("tf.linalg.diag(tf.ones([2, 3]), k=(0, 1), num_rows=5, "
                                   "num_cols=5)", {"match": ["not consistent"]}),
    "diag_band/err_one_rows": ("tf.linalg.diag(tf.ones([2]), k=3, num_rows=1)",
                               {"match": ["number of rows is too small"]}),
    "diag_band/err_set_shape": (_W + "tf.linalg.set_diag(w, tf.ones([2, 4]), k=(0, 1))",
                                {"match": ["Expected diagonal shape: [2,3]"]}),
    "diag_band/err_set_bound": (_W + "tf.linalg.set_diag(w, tf.ones([3]), k=(5, 5))",
                                {"match": ["lower_diag_index is out of bound: 5 It must"]}),
}
