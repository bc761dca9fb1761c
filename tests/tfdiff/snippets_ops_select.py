"""TensorFlow-differential snippets: gather_nd, boolean_mask and tf.where (owner: tf2ops).

`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py ops_select`.
"""

_M34 = "tf.reshape(tf.range(12), [3, 4])"
_X234 = "tf.reshape(tf.range(24.0), [2, 3, 4])"

SNIPPETS = {
    "gather_nd/elements": f"tf.gather_nd({_M34}, [[0, 1], [2, 3], [0, 1]])",
    "gather_nd/rows": f"tf.gather_nd({_M34}, [[1], [0]])",
    "gather_nd/nested_indices": f"tf.gather_nd({_X234}, [[[0, 1], [1, 2]], [[1, 0], [0, 0]]])",
    "gather_nd/full_index_3d": f"tf.gather_nd({_X234}, tf.constant([[1, 2, 3], [0, 0, 0]]))",
    "gather_nd/batch_dims": "tf.gather_nd(tf.reshape(tf.range(24), [2, 3, 4]), [[1], [0]], "
                            "batch_dims=1)",
    "gather_nd/batch_dims_pairs": f"tf.gather_nd({_X234}, [[[0, 1]], [[2, 3]]], batch_dims=1)",
    "gather_nd/empty_indices": f"tf.gather_nd({_M34}, tf.zeros([0, 2], tf.int32))",
    "gather_nd/bool_params": "tf.gather_nd(tf.constant([[True, False], [False, True]]), "
                             "[[1, 1], [0, 1]])",
    "gather_nd/large": "tf.gather_nd(tf.reshape(tf.range(20000), [100, 200]), "
                       "[[99, 199], [0, 0], [57, 3]])",
    "gather_nd/out_of_range": (f"tf.gather_nd({_M34}, [[0, 1], [0, 5]])",
                               {"match": ["[0, 5]"]}),
    "gather_nd/negative_index": f"tf.gather_nd({_M34}, [[-1, 0]])",
    "gather_nd/too_long_index": (f"tf.gather_nd({_M34}, [[0, 1, 2]])", {"match": ["3", "2"]}),
    "gather_nd/float_indices": f"tf.gather_nd({_M34}, [[0.5, 1.0]])",
    "boolean_mask/1d": "tf.boolean_mask(tf.range(4), [True, False, True, False])",
    "boolean_mask/rows": f"tf.boolean_mask({_M34}, [True, False, True])",
    "boolean_mask/2d_mask": "tf.boolean_mask(tf.reshape(tf.range(6), [2, 3]), "
                            "[[True, False, True], [False, False, True]])",
    "boolean_mask/axis": f"tf.boolean_mask({_X234}, [True, False, True], axis=1)",
    "boolean_mask/tensor_mask": f"tf.boolean_mask({_M34}, tf.constant([2, 0, 7]) > 1)",
    "boolean_mask/int_mask": "tf.boolean_mask(tf.reshape(tf.range(6), [2, 3]), [1, 0])",
    "boolean_mask/none_true": f"tf.boolean_mask({_M34}, [False, False, False])",
    "boolean_mask/shape_error": "tf.boolean_mask(tf.reshape(tf.range(6), [2, 3]), "
                                "[True, False, True])",
    "boolean_mask/scalar_error": "tf.boolean_mask(tf.range(4), True)",
    "where/coordinates": "tf.where([[True, False], [False, True]])",
    "where/numbers": "tf.where(tf.constant([0.5, 0.0, np.nan, -0.0, -2.0]))",
    "where/3d": "tf.where(tf.reshape(tf.range(24), [2, 3, 4]) % 7 == 0)",
    "where/empty": "tf.where(tf.zeros([0, 3]) > 0)",
    "where/none_true": "tf.where(tf.zeros([2, 2]) > 1)",
    "where/scalar_error": "tf.where(True)",
    "where/one_of_x_y_error": "tf.where([True, False], [1, 2])",
    "where/select_broadcast": "tf.where(tf.constant([[True], [False]]), tf.constant([1, 2]), "
                              "tf.constant([[10], [20]]))",
    # -- tf.gather's TensorFlow signature: axis default, batch_dims, name ----------------
    "gather/batch_dims": "p = tf.reshape(tf.range(24), [2, 3, 4])\n"
                         "(tf.gather(p, [[0, 2], [1, 1]], batch_dims=1), "
                         "tf.gather(p, [2, 0], batch_dims=1), "
                         "tf.gather(p, [[1, 0, 2], [0, 0, 1]], batch_dims=2))",
    "gather/batch_dims_axis": "p = tf.reshape(tf.range(48.0), [2, 3, 4, 2])\n"
                              "(tf.gather(p, [[1, 3], [0, 0]], axis=2, batch_dims=1), "
                              "tf.gather(p, [[[1], [3]], [[0], [2]]], axis=2, batch_dims=1), "
                              "tf.gather(p, [[0, 1], [1, 1]], axis=-1, batch_dims=-1))",
    "gather/batch_dims_range": ("p = tf.reshape(tf.range(24), [2, 3, 4])\n"
                                "tf.gather(p, [[0, 5], [1, 1]], batch_dims=1)",
                                {"match": ["indices[0,1] = 5", "[0, 3)"]}),
    "gather/keywords": "p = tf.reshape(tf.range(6), [2, 3])\n"
                       "(tf.gather(p, [1], axis=1, name='g'), tf.gather(p, [1], "
                       "validate_indices=True), tf.gather(params=p, indices=[0]), "
                       "tf.shape(p, name='s'), tf.size(p, out_type=tf.int64, name='n'), "
                       "tf.gather_nd(p, [[1, 2]], name='nd'))",
    "gather/top_k_index_type": "tf.math.top_k([1, 5, 3], 2, index_type=tf.int64, name='t')",
    "gather/top_k_index_type_error": ("tf.math.top_k([1, 5, 3], 2, index_type=tf.float32)",
                                      {"match": ["index_type"]}),
}
