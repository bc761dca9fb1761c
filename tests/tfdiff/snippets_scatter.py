"""TensorFlow-differential snippets: tf.scatter_nd and tf.tensor_scatter_nd_update / add /
sub / max / min (owner: scatter): slices, duplicates (update: the last wins, TensorFlow's
CPU order), NaN order in max/min, empty inputs, out-of-range and negative indices, shape
and dtype errors, gradients.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py scatter`.
"""

_T23 = "tf.reshape(tf.range(6.0), [2, 3])"
_NAN = "float('nan')"

# grads(fn, t, u): fn(t, u) and the gradients of sum(fn(t, u) * ramp) to t and u
_GRADS = """
def grads(fn, t, u):
    t, u = tf.constant(t, tf.float32), tf.constant(u, tf.float32)
    with tf.GradientTape() as tape:
        tape.watch([t, u])
        y = fn(t, u)
        w = tf.reshape(tf.range(1.0, 1.0 + float(tf.size(y))), tf.shape(y))
        loss = tf.reduce_sum(y * w)
    return (y,) + tuple(tape.gradient(loss, [t, u]))
"""

SNIPPETS = {
    "scatter_nd/elements": "tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [4])",
    "scatter_nd/pairs": "tf.scatter_nd([[0, 1], [1, 2], [0, 1]], [1, 2, 3], [2, 3])",
    "scatter_nd/slices": "tf.scatter_nd([[1], [0]], [[5.0, 6.0], [7.0, 8.0]], [3, 2])",
    "scatter_nd/nested_indices": "tf.scatter_nd([[[0, 1], [1, 0]], [[1, 1], [0, 0]]], "
                                 "[[1.0, 2.0], [3.0, 4.0]], [2, 2])",
    "scatter_nd/nested_mismatch": ("tf.scatter_nd([[[0, 1], [1, 0]], [[1, 1], [0, 0]]], "
                                   "[[1.0, 2.0], [3.0, 4.0]], [2, 2, 2])",
                                   {"match": ["input[shape=[2,2,2]]"]}),
    "scatter_nd/slices_3d": "tf.scatter_nd([[1, 0], [0, 2]], [[1.0, 2.0], [3.0, 4.0]], "
                            "[2, 3, 2])",
    "scatter_nd/tensor_shape": "tf.scatter_nd(tf.constant([[2]]), tf.constant([4]), "
                               "tf.constant([3]))",
    "scatter_nd/int64": "tf.scatter_nd(tf.constant([[1]], tf.int64), [5.0], "
                        "tf.constant([3], tf.int64))",
    "scatter_nd/bool": "tf.scatter_nd([[0], [0], [2]], [True, True, False], [3])",
    "scatter_nd/empty_indices": "tf.scatter_nd(tf.zeros([0, 1], tf.int32), tf.zeros([0, 2]), "
                                "[3, 2])",
    "scatter_nd/special_values": "tf.scatter_nd([[0], [1], [1]], [float('inf'), "
                                 f"{_NAN}, 1.0], [3])",
    "scatter_nd/out_of_range": ("tf.scatter_nd([[1], [5]], [5.0, 6.0], [4])",
                                {"match": ["indices[1] = [5]", "[4]"]}),
    "scatter_nd/negative_index": ("tf.scatter_nd([[1, 0], [-1, 0]], [5.0, 6.0], [4, 2])",
                                  {"match": ["indices[1] = [-1, 0]", "[4,2]"]}),
    "scatter_nd/batch_mismatch": ("tf.scatter_nd([[1], [2]], [5.0, 6.0, 7.0], [4])",
                                  {"match": ["indices[shape=[2,1]]", "updates[shape=[3]]"]}),
    "scatter_nd/slice_mismatch": ("tf.scatter_nd([[1]], [[5.0, 6.0, 7.0]], [4, 2])",
                                  {"match": ["input[shape=[4,2]]", "updates[shape=[1,3]]"]}),
    "scatter_nd/index_too_long": ("tf.scatter_nd([[1, 0, 0]], [5.0], [4, 2])",
                                  {"match": ["input[shape=[4,2]]"]}),
    "scatter_nd/empty_output": ("tf.scatter_nd([[0]], [5.0], [0])",
                                {"match": ["empty output"]}),
    "scatter_nd/float_indices": "tf.scatter_nd([[1.0]], [5.0], [3])",
    "scatter_add/elements": "tf.tensor_scatter_nd_add([1.0, 1.0, 1.0], [[0], [2], [0]], "
                            "[1.0, 2.0, 3.0])",
    "scatter_add/rows": f"tf.tensor_scatter_nd_add({_T23}, [[1], [1]], [[1.0, 2.0, 3.0], "
                        "[10.0, 20.0, 30.0]])",
    "scatter_add/int": "tf.tensor_scatter_nd_add(tf.constant([[1, 2], [3, 4]]), [[0, 1]], "
                       "[10])",
    "scatter_add/negative_zero": "tf.tensor_scatter_nd_add(tf.constant([-0.0, -0.0]), [[1]], "
                                 "[1.0])",
    "scatter_add/empty": "tf.tensor_scatter_nd_add(tf.ones([2]), tf.zeros([0, 1], tf.int32), "
                         "tf.zeros([0]))",
    "scatter_add/out_of_range": (f"tf.tensor_scatter_nd_add({_T23}, [[1, 0], [0, 3]], "
                                 "[5.0, 6.0])",
                                 {"match": ["indices[1] = [0, 3]", "[2,3]"]}),
    "scatter_add/dtype_error": ("tf.tensor_scatter_nd_add(tf.zeros([3]), [[1]], "
                                "tf.constant([5]))", {"match": ["float", "int32"]}),
    "scatter_add/sub": "tf.tensor_scatter_nd_sub([1.0, 1.0], [[1], [1]], [1.0, 2.0])",
    "scatter_add/sub_rows": f"tf.tensor_scatter_nd_sub({_T23}, [[0]], [[1.0, 1.0, 1.0]])",
    "scatter_add/sub_out_of_range": ("tf.tensor_scatter_nd_sub([1.0, 1.0], [[-1]], [1.0])",
                                     {"match": ["indices[0] = [-1]", "[2]"]}),
    "scatter_update/elements": "tf.tensor_scatter_nd_update([0, 0, 0], [[2], [0]], [7, 8])",
    "scatter_update/duplicates_last_wins": "tf.tensor_scatter_nd_update(tf.zeros([4]), "
                                           "[[1], [1], [2], [1]], [5.0, 6.0, 7.0, 8.0])",
    "scatter_update/rows": f"tf.tensor_scatter_nd_update({_T23}, [[1]], [[-1.0, -2.0, -3.0]])",
    "scatter_update/pairs": f"tf.tensor_scatter_nd_update({_T23}, [[1, 2], [0, 0]], "
                            "[-1.0, -0.0])",
    "scatter_update/bool": "tf.tensor_scatter_nd_update([False, False], [[0]], [True])",
    "scatter_update/list_updates_take_tensor_dtype": "tf.tensor_scatter_nd_update("
                                                     "tf.zeros([3]), [[1]], [5])",
    "scatter_update/empty": "tf.tensor_scatter_nd_update(tf.ones([2, 2]), "
                            "tf.zeros([0, 1], tf.int32), tf.zeros([0, 2]))",
    "scatter_update/out_of_range": ("tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [4]], "
                                    "[5.0, 6.0])", {"match": ["indices[1] = [4]", "[4]"]}),
    "scatter_update/scalar_updates": ("tf.tensor_scatter_nd_update([1.0, 2.0], [[1]], 5.0)",
                                      {"match": ["rank at least one"]}),
    "scatter_update/dtype_error": ("tf.tensor_scatter_nd_update(tf.zeros([3]), [[1]], "
                                   "tf.constant([5]))", {"match": ["float", "int32"]}),
    "scatter_add/bool": ("tf.tensor_scatter_nd_add([True, False], [[1]], [True])",
                         {"match": ["TensorScatterAdd", "DT_BOOL"]}),
    "scatter_add/float_into_int": ("tf.tensor_scatter_nd_add(tf.zeros([3], tf.int32), [[1]], "
                                   "[2.0])", {"match": ["int32"]}),
    "scatter_update/bool_into_float": "tf.tensor_scatter_nd_update([1.0, 2.0], [[1]], [True])",
    "scatter_update/float_into_int": ("tf.tensor_scatter_nd_update(tf.zeros([3], tf.int32), "
                                      "[[1]], [1.5])", {"match": ["int32"]}),
    "scatter_minmax/bool": ("tf.tensor_scatter_nd_min([True, False], [[1]], [True])",
                            {"match": ["TensorScatterMin", "DT_BOOL"]}),
    "scatter_minmax/max": "tf.tensor_scatter_nd_max(tf.constant([1.0, 5.0, 3.0]), "
                          "[[0], [1], [0]], [4.0, 2.0, 7.0])",
    "scatter_minmax/min": "tf.tensor_scatter_nd_min(tf.constant([1.0, 5.0, 3.0]), "
                          "[[0], [1], [0]], [4.0, 2.0, -7.0])",
    "scatter_minmax/int_rows": "tf.tensor_scatter_nd_max(tf.constant([[1, 9], [3, 4]]), "
                               "[[0], [0], [1]], [[5, 2], [0, 10], [-1, 8]])",
    "scatter_minmax/max_nan": f"tf.tensor_scatter_nd_max(tf.constant([1.0, {_NAN}, 3.0, "
                              f"1.0]), [[0], [1], [2], [3], [3]], [{_NAN}, 2.0, 7.0, 2.0, "
                              f"{_NAN}])",
    "scatter_minmax/min_nan": f"tf.tensor_scatter_nd_min(tf.constant([1.0, {_NAN}, 3.0, "
                              f"4.0]), [[0], [1], [2], [3], [3]], [{_NAN}, 2.0, 7.0, 2.0, "
                              f"{_NAN}])",
    "scatter_minmax/out_of_range": ("tf.tensor_scatter_nd_max(tf.zeros([2, 3]), [[1, 0], "
                                    "[2, 0]], [5.0, 6.0])",
                                    {"match": ["indices[1] = [2, 0]", "[2,3]"]}),
    "scatter_policy/ignore": "(tf.scatter_nd([[1], [5], [-1]], [5.0, 6.0, 7.0], [4], "
                             "bad_indices_policy='IGNORE'), "
                             "tf.tensor_scatter_nd_add(tf.ones([4]), [[1], [5]], [5.0, 6.0], "
                             "bad_indices_policy='IGNORE'), "
                             "tf.tensor_scatter_nd_sub(tf.ones([2, 2]), [[1, 1], [1, 2]], "
                             "[5.0, 6.0], bad_indices_policy='IGNORE'), "
                             "tf.tensor_scatter_nd_max(tf.ones([4]), [[1], [5], [1]], "
                             "[5.0, 6.0, 7.0], bad_indices_policy='IGNORE'), "
                             "tf.tensor_scatter_nd_min(tf.ones([4]), [[-2], [3]], [5.0, -6.0], "
                             "bad_indices_policy='IGNORE'))",
    "scatter_policy/error": ("tf.scatter_nd([[1], [5]], [5.0, 6.0], [4], "
                             "bad_indices_policy='ERROR')", {"match": ["indices[1] = [5]"]}),
    "scatter_policy/default": ("tf.tensor_scatter_nd_max(tf.ones([4]), [[1], [5]], [5.0, 6.0], "
                               "bad_indices_policy='DEFAULT')", {"match": ["indices[1] = [5]"]}),
    "scatter_policy/unknown": ("tf.tensor_scatter_nd_add(tf.ones([4]), [[1]], [5.0], "
                               "bad_indices_policy='bogus')", {"match": ["bogus"]}),
    "scatter_grad/scatter_nd": _GRADS + "t = tf.zeros([1])\n"
                               "with tf.GradientTape() as tape:\n"
                               "    u = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
                               "    tape.watch(u)\n"
                               "    y = tf.scatter_nd([[2], [0], [2]], u, [4, 2])\n"
                               "    loss = tf.reduce_sum(y * tf.reshape(tf.range(8.0), "
                               "[4, 2]))\n"
                               "(y, tape.gradient(loss, u))",
    "scatter_grad/add": _GRADS + "grads(lambda t, u: tf.tensor_scatter_nd_add(t, [[1], [1], "
                        "[3]], u), [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0])",
    "scatter_grad/sub": _GRADS + "grads(lambda t, u: tf.tensor_scatter_nd_sub(t, [[1], [0]], "
                        "u), [[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]])",
    "scatter_grad/update": _GRADS + "grads(lambda t, u: tf.tensor_scatter_nd_update(t, [[1], "
                           "[1], [2]], u), [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0])",
    "scatter_grad/max_ties": _GRADS + "grads(lambda t, u: tf.tensor_scatter_nd_max(t, [[0], "
                             "[0], [1], [2]], u), [3.0, 5.0, 1.0], [3.0, 2.0, 9.0, 1.0])",
    "scatter_grad/min": _GRADS + "grads(lambda t, u: tf.tensor_scatter_nd_min(t, [[0, 1], "
                        "[1, 0]], u), [[3.0, 5.0], [1.0, 2.0]], [4.0, -1.0])",
}
