"""TensorFlow-differential snippets: tf.unique, tf.unique_with_counts, tf.searchsorted,
tf.unravel_index and tf.reverse_sequence (owner: scatter): first-occurrence order, NaN and
signed zeros, out_idx/out_type, batched rows, unsorted rows, empty inputs, negative and
out-of-range values, errors.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py search`.
"""

_NAN = "float('nan')"
_G = ('''x = tf.constant([1.0, 2.0, 1.0, 3.0])
with tf.GradientTape(persistent=True) as g:
    g.watch(x)
''')

SNIPPETS = {
    "unique/ints": "tuple(tf.unique([3, 1, 3, 2, 1]))",
    "unique/floats_nan_zeros": f"tuple(tf.unique([{_NAN}, 1.0, {_NAN}, -0.0, 0.0, 1.0]))",
    "unique/empty": "tuple(tf.unique(tf.zeros([0])))",
    "unique/bool": "tuple(tf.unique([True, False, True]))",
    "unique/int64_idx": "tuple(tf.unique(tf.constant([5, 5, 7]), out_idx=tf.int64))",
    "unique/tensor": "tuple(tf.unique(tf.constant([4.0, 2.0, 4.0, 9.0]) * 2.0))",
    "unique/fields": "u = tf.unique([2, 2, 1])\n(u.y, u.idx)",
    "unique/with_counts": "tuple(tf.unique_with_counts([3, 1, 3, 2, 1, 3]))",
    "unique/with_counts_fields": "u = tf.unique_with_counts([1.5, 1.5])\n(u.y, u.idx, u.count)",
    "unique/with_counts_empty": "tuple(tf.unique_with_counts(tf.zeros([0], tf.int32), "
                                "out_idx=tf.int64))",
    "unique/float_out_idx": ("tf.unique([1, 2], out_idx=tf.float32)", {"match": ["out_idx"]}),
    "unique/2d": ("tf.unique([[1, 2], [1, 2]])", {"match": ["1D"]}),
    "unique/scalar": ("tf.unique(3)", {"match": ["1D"]}),
    "unique/grad_y": (_G + "    u = tf.unique(x)\n"
                      "    z = tf.reduce_sum(u.y * u.y)\ng.gradient(z, x)",
                      {"match": ["no entry for: Unique"]}),
    "unique/grad_idx": (_G + "    u = tf.unique(x)\ng.gradient(u.idx, x)",
                        {"match": ["no entry for: Unique"]}),
    "unique/grad_with_counts": (_G + "    u = tf.unique_with_counts(x * 2.0)\n"
                                "g.gradient(u.y, x)",
                                {"match": ["no entry for: UniqueWithCounts"]}),
    "unique/grad_not_reached": (_G + "    u = tf.unique(x)\n"
                                "    z = tf.reduce_sum(x * x) + tf.cast(tf.size(u.y), tf.float32)"
                                "\n    w = tf.reduce_sum(x) + tf.cast(u.idx[0], tf.float32)\n"
                                "    v = tf.reduce_sum(tf.gather(x, u.idx))\n"
                                "(g.gradient(z, x), g.gradient(w, x), "
                                "tf.convert_to_tensor(g.gradient(v, x)))"),
    "searchsorted/left": "tf.searchsorted([1, 3, 5, 7], [0, 3, 6, 8])",
    "searchsorted/right": "tf.searchsorted([1, 3, 5, 7], [0, 3, 6, 8], side='right')",
    "searchsorted/duplicates": "(tf.searchsorted([1, 2, 2, 2, 3], [2, 2]), "
                               "tf.searchsorted([1, 2, 2, 2, 3], [2], side='right'))",
    "searchsorted/rows": "tf.searchsorted([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]], "
                         "[[3.0, 6.0], [0.0, 4.5]])",
    "searchsorted/rows_3d": "tf.searchsorted(tf.reshape(tf.range(12.0), [2, 2, 3]), "
                            "tf.reshape(tf.range(0.0, 12.0, 1.5), [2, 2, 2]), side='right')",
    "searchsorted/leading_product": "tf.searchsorted(tf.reshape(tf.range(12), [2, 2, 3]), "
                                    "tf.reshape(tf.range(8), [4, 2]))",
    "searchsorted/nan": f"(tf.searchsorted([1.0, 3.0, {_NAN}], [{_NAN}, 2.0, 5.0]), "
                        f"tf.searchsorted([1.0, 3.0, {_NAN}], [{_NAN}, 2.0, 5.0], "
                        "side='right'))",
    "searchsorted/unsorted": "(tf.searchsorted([5, 1, 4, 2, 3, 0, 9], [3, 4, 8]), "
                             "tf.searchsorted([5, 1, 4, 2, 3, 0, 9], [3, 4, 8], "
                             "side='right'))",
    "searchsorted/long": "tf.searchsorted(tf.range(1000), [-5, 0, 1, 511, 512, 999, 2000])",
    "searchsorted/out_type": "tf.searchsorted([1, 3], [2], out_type=tf.int64)",
    "searchsorted/empty_sequence": "tf.searchsorted(tf.zeros([0]), [2.0])",
    "searchsorted/empty_values": "tf.searchsorted([1.0], tf.zeros([0]))",
    "searchsorted/empty_rows": "tf.searchsorted(tf.zeros([0, 3]), tf.zeros([0, 2]))",
    "searchsorted/bad_side": ("tf.searchsorted([1, 3], [2], side='middle')",
                              {"match": ["side", "middle"]}),
    "searchsorted/rows_mismatch": ("tf.searchsorted([[1, 3], [2, 4]], [[3]])",
                                   {"match": ["Leading dim_size"]}),
    "searchsorted/dtype_mismatch": ("tf.searchsorted([1.0, 3.0], [2])",
                                    {"match": ["float", "int32"]}),
    "searchsorted/float_out_type": ("tf.searchsorted([1, 3], [2], out_type=tf.float32)",
                                    {"match": ["out_type"]}),
    "searchsorted/scalar_values": "tf.searchsorted([1, 3], 2)",
    "unravel_index/vector": "tf.unravel_index([1, 5, 7, 11], [3, 4])",
    "unravel_index/scalar": "tf.unravel_index(5, [3, 4])",
    "unravel_index/3d": "tf.unravel_index([0, 23, 13], [2, 3, 4])",
    "unravel_index/tensor_dims": "tf.unravel_index(tf.constant([7]), tf.constant([4, 2]))",
    "unravel_index/int64": "tf.unravel_index(tf.constant([7], tf.int64), "
                           "tf.constant([4, 2], tf.int64))",
    "unravel_index/negative": "tf.unravel_index([-1, -5, -13], [3, 4])",
    "unravel_index/empty": "tf.unravel_index(tf.zeros([0], tf.int32), [3, 4])",
    "unravel_index/out_of_range": ("tf.unravel_index([3, 12], [3, 4])",
                                   {"match": ["out of bound"]}),
    "unravel_index/2d": ("tf.unravel_index([[1, 5], [7, 0]], [3, 4])",
                         {"match": ["scalar or vector", "[2,2]"]}),
    "unravel_index/zero_dim": ("tf.unravel_index([0], [3, 0])",
                               {"match": ["zero at index 1"]}),
    "unravel_index/negative_dim": ("tf.unravel_index([0], [3, -1])",
                                   {"match": ["-1 at index 1"]}),
    "unravel_index/float": ("tf.unravel_index([0.0], [3])", {"match": ["Tidx"]}),
    "reverse_sequence/rows": "tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], "
                             "seq_axis=1, batch_axis=0)",
    "reverse_sequence/3d": "tf.reverse_sequence(tf.reshape(tf.range(12), [2, 3, 2]), [1, 3], "
                           "seq_axis=1, batch_axis=0)",
    "reverse_sequence/axes_swapped": "tf.reverse_sequence([[1, 2], [3, 4], [5, 6]], [3, 0], "
                                     "seq_axis=0, batch_axis=1)",
    "reverse_sequence/4d": "tf.reverse_sequence(tf.reshape(tf.range(48.0), [2, 3, 4, 2]), "
                           "[4, 0, 2], seq_axis=2, batch_axis=1)",
    "reverse_sequence/default_batch": "tf.reverse_sequence([[1, 2, 3]], [1], seq_axis=1)",
    "reverse_sequence/int64_lengths": "tf.reverse_sequence([[1, 2, 3]], "
                                      "tf.constant([2], tf.int64), seq_axis=1, batch_axis=0)",
    "reverse_sequence/empty": "tf.reverse_sequence(tf.zeros([2, 0]), [0, 0], seq_axis=1)",
    "reverse_sequence/too_long": ("tf.reverse_sequence([[1, 2, 3]], [4], seq_axis=1, "
                                  "batch_axis=0)", {"match": ["seq_lens(0) > input.dims(1)"]}),
    "reverse_sequence/negative": ("tf.reverse_sequence([[1, 2, 3]], [-1], seq_axis=1, "
                                  "batch_axis=0)", {"match": ["seq_lens(0) < 0"]}),
    "reverse_sequence/lengths_mismatch": ("tf.reverse_sequence([[1, 2, 3]], [1, 2], "
                                          "seq_axis=1, batch_axis=0)",
                                          {"match": ["(2 vs. 1)"]}),
    "reverse_sequence/same_axes": ("tf.reverse_sequence([[1, 2, 3]], [1], seq_axis=1, "
                                   "batch_axis=1)", {"match": ["batch_dim == seq_dim == 1"]}),
    "reverse_sequence/negative_axis": ("tf.reverse_sequence([[1, 2, 3]], [2], seq_axis=-1, "
                                       "batch_axis=0)", {"match": ["seq_dim -1"]}),
    "reverse_sequence/axis_out_of_range": ("tf.reverse_sequence([[1, 2, 3]], [2], seq_axis=2, "
                                           "batch_axis=0)", {"match": ["2 vs. 2"]}),
    "reverse_sequence/float_lengths": ("tf.reverse_sequence([[1, 2, 3]], [2.0], seq_axis=1, "
                                       "batch_axis=0)", {"match": ["Tlen"]}),
    "reverse_sequence/no_seq_axis": "tf.reverse_sequence([[1, 2, 3]], [1])",
    "reverse_sequence/gradient": "x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n"
                                 "with tf.GradientTape() as tape:\n"
                                 "    tape.watch(x)\n"
                                 "    y = tf.reverse_sequence(x, [2, 3], seq_axis=1)\n"
                                 "    loss = tf.reduce_sum(y * [[1.0, 2.0, 3.0], "
                                 "[4.0, 5.0, 6.0]])\n"
                                 "(y, tape.gradient(loss, x))",
}
