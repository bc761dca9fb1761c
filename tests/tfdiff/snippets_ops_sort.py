"""TensorFlow-differential snippets: sort, argsort and top_k (owner: tf2ops).

`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
TensorFlow's order of rows holding NaN is not defined (its top_k leaves them partly
unsorted), so no snippet sorts NaN; tests/backend/test_ops.py checks texflow's NaN order
against numpy. After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py
ops_sort`.
"""

_TIES = "np.random.default_rng({}).integers(-4, 5, {}).astype(np.float32)"

SNIPPETS = {
    "sort/ascending": "tf.sort(tf.constant([3.0, -1.0, 2.5, -0.0, 0.0, np.inf, -np.inf]))",
    "sort/descending_int": "tf.sort(tf.constant([3, 1, 2, 1, -7]), direction='DESCENDING')",
    "sort/axis0": f"tf.sort(tf.constant({_TIES.format(1, '(5, 3)')}), axis=0)",
    "sort/axis_middle": f"tf.sort(tf.constant({_TIES.format(2, '(2, 6, 3)')}), axis=1, "
                        "direction='DESCENDING')",
    "sort/odd_length": f"tf.sort(tf.constant({_TIES.format(3, '(3, 37)')}))",
    "sort/long_row": "tf.sort(tf.constant(np.random.default_rng(4).normal(size=3000)"
                     ".astype(np.float32)), direction='DESCENDING')",
    "sort/empty": "tf.sort(tf.zeros([2, 0]))",
    "sort/int_extremes": "tf.sort(tf.constant([2147483647, -2147483648, 0, -1]))",
    "sort/direction_error": "tf.sort(tf.constant([3, 1]), direction='descending')",
    "sort/bool_error": "tf.sort(tf.constant([True, False]))",
    "sort/scalar_error": "tf.sort(tf.constant(5.0))",
    "argsort/stable_ties": "tf.argsort(tf.constant([3, 1, 2, 1, 3, 1]), stable=True)",
    "argsort/descending_ties": "tf.argsort(tf.constant([3, 1, 2, 1, 3, 1]), "
                               "direction='DESCENDING')",
    "argsort/axis0": "tf.argsort(tf.constant([[3, 1], [2, 1], [2, 5]]), axis=0, "
                     "direction='DESCENDING')",
    "argsort/float_ties": f"tf.argsort(tf.constant({_TIES.format(5, '(4, 9)')}))",
    "argsort/signed_zeros": "tf.argsort(tf.constant([0.0, -0.0, 0.0, -1.0]))",
    "argsort/long_row": ("tf.argsort(tf.constant(np.random.default_rng(6).permutation(5000)"
                         ".astype(np.float32)))"),
    "top_k/default_k": "tf.math.top_k(tf.constant([[1.0, 5.0], [3.0, 2.0]]))",
    "top_k/ties": "tf.math.top_k(tf.constant([1, 5, 3, 5, 0, 5]), k=3)",
    "top_k/nn_alias": "tf.nn.top_k(tf.constant([1.0, 5.0, 3.0]), 2)",
    "top_k/rows": f"tf.math.top_k(tf.constant({_TIES.format(7, '(3, 2, 10)')}), k=4)",
    "top_k/k_zero": "tf.math.top_k(tf.constant([1, 5, 3]), k=0)",
    "top_k/k_all": "tf.math.top_k(tf.constant([2.0, -1.0, 7.0]), k=3)",
    "top_k/fields": "tuple(tf.math.top_k(tf.constant([4, 9, 1]), k=2))",
    "top_k/too_large_error": ("tf.math.top_k(tf.constant([1, 5, 3]), k=4)",
                              {"match": ["3", "4"]}),
    "top_k/negative_error": ("tf.math.top_k(tf.constant([1, 5, 3]), k=-1)", {"match": ["-1"]}),
    "top_k/scalar_error": "tf.math.top_k(tf.constant(5.0), k=1)",
    "top_k/bool_error": "tf.math.top_k(tf.constant([True, False]))",
}
