"""TensorFlow-differential snippets: tf.range with tensor arguments, tf.size/tf.shape
out_type, and the 1-D and 3-D pooling functions (owner: tfops). `id: source` or
`id: (source, options)`; the id's part before '/' is its test group. After editing:
`$TF_PYTHON scripts/make_tf_diff_fixtures.py ops_gaps`.
"""

_X = "tf.constant(np.random.default_rng(3).normal(0, 1, {}).astype(np.float32))"

SNIPPETS = {
    "range_tensor/limit_int": "tf.range(tf.constant(5))",
    "range_tensor/limit_float": "tf.range(tf.constant(5.0))",
    "range_tensor/three_tensors": "tf.range(tf.constant(1), tf.constant(7), tf.constant(2))",
    "range_tensor/mixed": "(tf.range(tf.constant(1), 7, 2), tf.range(1, tf.constant(7.5)), "
                          "tf.range(tf.constant(1), 2.5), tf.range(2, delta=tf.constant(0.5)))",
    "range_tensor/keywords": "tf.range(start=tf.constant(2), limit=tf.constant(5))",
    "range_tensor/int64_tensor": "tf.range(tf.constant(5, tf.int64))",
    "range_tensor/dtype_cast": "(tf.range(tf.constant(5), dtype=tf.float32), "
                               "tf.range(tf.constant(0.5), 3, dtype=tf.int32), "
                               "tf.range(tf.constant(7), dtype=tf.int64))",
    "range_tensor/numpy_scalars": "(tf.range(np.int64(5)), tf.range(np.float64(2.5)), "
                                  "tf.range(np.float32(3)), tf.range(np.int32(3), 5.0), "
                                  "tf.range(np.array(3)), tf.range(np.array(2.5), 5, "
                                  "dtype=tf.int32))",
    "range_tensor/one_element_vector": "(tf.range(tf.constant([5])), "
                                       "tf.range(tf.constant([2]), 5))",
    "range_tensor/variable": "tf.range(tf.Variable(4))",
    "range_tensor/negative_delta": "(tf.range(tf.constant(10), 0, -3), tf.range(tf.constant("
                                   "3.0), tf.constant(1.0), tf.constant(-0.5)), "
                                   "tf.range(5, 0, -1), tf.range(0, -10, -3))",
    "range_tensor/empty": "(tf.range(5, 5), tf.range(tf.constant(2.0), 2.0))",
    "range_tensor/float_steps": "(tf.range(0, 1, 0.3), tf.range(tf.constant(0.0), 1.0, "
                                "tf.constant(0.1)), tf.range(-1.0, 1.0, 0.3))",
    "range_tensor/float32_size": "tf.range(1e8, 1e8 + 5)",
    "range_tensor/float64_tensor": "(tf.range(0, tf.constant(3.0, tf.float64)), "
                                   "tf.range(tf.constant(5.0), dtype=tf.float64))",
    "range_tensor/vector_error": ("tf.range(tf.constant([5, 6]))",
                                  {"match": ["limit", "scalar", "[2]"]}),
    "range_tensor/matrix_error": ("tf.range(tf.constant([[5]]))", {"match": ["[1,1]"]}),
    "range_tensor/zero_delta_error": ("tf.range(tf.constant(5), delta=tf.constant(0))",
                                      {"match": ["delta != 0"]}),
    "range_tensor/zero_float_delta_error": ("tf.range(tf.constant(5.0), delta=0.0)",
                                            {"match": ["delta != 0"]}),
    "range_tensor/backwards_error": ("tf.range(tf.constant(5), 2.0)",
                                     {"match": ["start <= limit", "5/2"]}),
    "range_tensor/backwards_float_error": ("tf.range(tf.constant(3), tf.constant(1.5))",
                                           {"match": ["3/1.5"]}),
    "range_tensor/negative_delta_error": ("tf.range(0, 5, -1)",
                                          {"match": ["start >= limit", "0/5"]}),
    "range_tensor/nan_error": ("tf.range(tf.constant(np.nan))", {"match": ["0/nan"]}),
    "range_tensor/inf_error": ("tf.range(tf.constant(np.inf))",
                               {"match": ["9223372036854775807"]}),
    "range_tensor/python_float_int_dtype_error": ("tf.range(0.5, 3, dtype=tf.int32)",
                                                  {"match": ["0.5", "int32"]}),
    "range_tensor/bool_dtype_error": ("tf.range(tf.constant(2.5), dtype=tf.bool)",
                                      {"match": ["bool"]}),
    "size_out_type/float32": "tf.size(tf.zeros([2, 3, 4]), out_type=tf.float32)",
    "size_out_type/others": "x = tf.zeros([2, 3, 4])\n"
                            "(tf.size(x, out_type=tf.int64), tf.size(x, out_type=tf.float64), "
                            "tf.size(x, out_type=tf.int32), tf.size(x, out_type=tf.int16), "
                            "tf.size(x, out_type=tf.uint8), tf.size(x, out_type=tf.int8))",
    "size_out_type/bool": "(tf.size(tf.zeros([2, 3]), out_type=tf.bool), "
                          "tf.size(tf.zeros([0, 3]), out_type=tf.bool))",
    "size_out_type/empty": "(tf.size(tf.zeros([0, 3]), out_type=tf.float32), "
                           "tf.size(tf.zeros([0, 3])))",
    "size_out_type/python_values": "(tf.size([[1, 2], [3, 4]], out_type=tf.float32), "
                                   "tf.size(3.0), tf.shape(3.0), tf.rank([[1, 2]]))",
    "size_out_type/string_error": "tf.size(tf.zeros([2]), out_type=tf.string)",
    "size_out_type/shape_int64_name": "tf.shape(tf.zeros([2, 3]), out_type='int64')",
    "size_out_type/shape_float_error": ("tf.shape(tf.zeros([2]), out_type=tf.float32)",
                                        {"match": ["out_type", "int32, int64"]}),
    "size_out_type/shape_int16_error": ("tf.shape(tf.zeros([2]), out_type=tf.int16)",
                                        {"match": ["out_type", "int16"]}),
    "size_out_type/rank": "(tf.rank(tf.zeros([2, 3, 4])), tf.rank(3.0), "
                          "tf.rank(tf.zeros([0])).dtype)",
}

_SEQ = "x = tf.constant(np.random.default_rng(3).normal(0, 1, (2, 7, 3)).astype(np.float32))\n"
_GRAD = ("w = tf.constant(np.random.default_rng(4).normal(0, 1, y_shape).astype(np.float32))\n"
         "with tf.GradientTape() as g:\n    g.watch(x)\n    y = {}\n"
         "    loss = tf.reduce_sum(y * w)\n(y, g.gradient(loss, x))")

SNIPPETS.update({
    "pool1d/max_valid": _SEQ + "tf.nn.max_pool1d(x, 2, 2, 'VALID')",
    "pool1d/max_same": _SEQ + "(tf.nn.max_pool1d(x, 3, 2, 'SAME'), "
                              "tf.nn.max_pool1d(x, [3], [2], 'SAME'), "
                              "tf.nn.max_pool1d(x, [1, 3, 1], [1, 2, 1], 'SAME'))",
    "pool1d/avg_same": _SEQ + "(tf.nn.avg_pool1d(x, 3, 2, 'SAME'), "
                              "tf.nn.avg_pool1d(x, 2, 3, 'SAME'), "
                              "tf.nn.avg_pool1d(x, 2, 2, 'VALID', data_format='NWC'))",
    "pool1d/strides_none": _SEQ + "tf.nn.max_pool1d(x, 2, None, 'VALID')",
    "pool1d/explicit": _SEQ + "tf.nn.max_pool1d(x, 2, 2, [[0, 0], [1, 1], [0, 0]])",
    "pool1d/all_minus_inf": "(tf.nn.max_pool1d(tf.fill([1, 4, 1], -np.inf), 2, 2, 'VALID'), "
                            "tf.nn.max_pool1d(tf.fill([1, 3, 1], -np.inf), 2, 2, 'SAME'))",
    "pool1d/nan": "tf.nn.max_pool1d(tf.constant([[[1.0], [np.nan], [3.0]]]), 2, 1, 'VALID')",
    "pool1d/empty": "(tf.nn.max_pool1d(tf.zeros([0, 4, 2]), 2, 2, 'VALID'), "
                    "tf.nn.avg_pool1d(tf.ones([2, 7, 3]), 9, 2, 'VALID'))",
    "pool1d/max_grad": _SEQ + "y_shape = [2, 4, 3]\n" + _GRAD.format(
        "tf.nn.max_pool1d(x, 3, 2, 'SAME')"),
    "pool1d/max_grad_explicit": _SEQ + "y_shape = [2, 8, 3]\n" + _GRAD.format(
        "tf.nn.max_pool1d(x, 2, 1, [[0, 0], [1, 1], [0, 0]])"),
    "pool1d/avg_grad": _SEQ + "y_shape = [2, 4, 3]\n" + _GRAD.format(
        "tf.nn.avg_pool1d(x, 3, 2, 'SAME')"),
    "pool1d/ncw_error": _SEQ + "tf.nn.max_pool1d(x, 2, 2, 'VALID', data_format='NCW')",
    "pool1d/avg_ncw_error": _SEQ + "tf.nn.avg_pool1d(x, 2, 2, 'VALID', data_format='NCW')",
    "pool1d/rank_error": "tf.nn.max_pool1d(tf.ones([2, 3]), 2, 2, 'VALID')",
    "pool1d/ksize_length_error": (_SEQ + "tf.nn.max_pool1d(x, [2, 2], 2, 'VALID')",
                                  {"match": ["ksize", "length 2"]}),
    "pool1d/strides_length_error": (_SEQ + "tf.nn.avg_pool1d(x, 2, [2, 2], 'VALID')",
                                    {"match": ["strides", "length 2"]}),
    "pool1d/ksize_zero_error": (_SEQ + "tf.nn.max_pool1d(x, 0, 1, 'VALID')",
                                {"match": ["ksize must be positive"]}),
    "pool1d/stride_zero_error": (_SEQ + "tf.nn.max_pool1d(x, 2, 0, 'VALID')",
                                 {"match": ["Stride must be > 0, but got 0"]}),
    "pool1d/window_too_big_error": (_SEQ + "tf.nn.max_pool1d(x, 9, 1, 'VALID')",
                                    {"match": ["Computed output size would be negative: -1",
                                               "input_size: 7"]}),
    "pool1d/padding_case_error": (_SEQ + "tf.nn.max_pool1d(x, 2, 2, 'valid')",
                                  {"match": ['"valid"']}),
    "pool1d/padding_size_error": (_SEQ + "tf.nn.max_pool1d(x, 2, 2, [[0, 0], [1, 1]])",
                                  {"match": ["size 3"]}),
    "pool1d/padding_negative_error": (_SEQ + "tf.nn.max_pool1d(x, 2, 2, "
                                             "[[0, 0], [-1, 1], [0, 0]])",
                                      {"match": ["nonnegative"]}),
    "pool1d/padding_window_error": (_SEQ + "tf.nn.max_pool1d(x, 3, 2, "
                                           "[[0, 0], [3, 3], [0, 0]])",
                                    {"match": ["Left padding 3", "window size 3"]}),
    "pool1d/avg_explicit_error": (_SEQ + "tf.nn.avg_pool1d(x, 2, 2, [[0, 0], [1, 1], [0, 0]])",
                                  {"match": ["padding"]}),
    "pool1d/depth_error": _SEQ + "tf.nn.max_pool1d(x, [1, 3, 2], 2, 'VALID')",
})

_VOL = ("x = tf.constant(np.random.default_rng(3).normal(0, 1, (2, 5, 4, 6, 3))"
        ".astype(np.float32))\n")

SNIPPETS.update({
    "pool3d/avg_valid": _VOL + "(tf.nn.avg_pool3d(x, 2, 2, 'VALID'), "
                               "tf.nn.avg_pool3d(x, 2, None, 'VALID'), "
                               "tf.nn.avg_pool3d(x, 2, 2, 'VALID', data_format='NDHWC'))",
    "pool3d/avg_same": _VOL + "(tf.nn.avg_pool3d(x, [2, 3, 2], [1, 2, 3], 'SAME'), "
                              "tf.nn.avg_pool3d(x, [1, 2, 3, 2, 1], [1, 1, 2, 3, 1], 'SAME'), "
                              "tf.nn.avg_pool3d(x, 3, 2, 'SAME'))",
    "pool3d/avg_grad": _VOL + "y_shape = [2, 3, 2, 3, 3]\n" + _GRAD.format(
        "tf.nn.avg_pool3d(x, 3, 2, 'SAME')"),
    "pool3d/avg_grad_valid": _VOL + "y_shape = [2, 2, 1, 3, 3]\n" + _GRAD.format(
        "tf.nn.avg_pool3d(x, [2, 3, 2], [2, 1, 2], 'VALID')"),
    "pool3d/ncdhw_error": _VOL + "tf.nn.avg_pool3d(x, 2, 2, 'VALID', data_format='NCDHW')",
    "pool3d/ksize_length_error": (_VOL + "tf.nn.avg_pool3d(x, [2, 2], 2, 'VALID')",
                                  {"match": ["ksize", "length 2"]}),
    "pool3d/ksize_zero_error": (_VOL + "tf.nn.avg_pool3d(x, 0, 2, 'VALID')",
                                {"match": ["ksize", "non-negative"]}),
    "pool3d/stride_zero_error": (_VOL + "tf.nn.avg_pool3d(x, 2, 0, 'VALID')",
                                 {"match": ["Stride must be > 0, but got 0"]}),
    "pool3d/window_too_big_error": (_VOL + "tf.nn.avg_pool3d(x, 6, 1, 'VALID')",
                                    {"match": ["Computed output size would be negative: -1",
                                               "input_size: 4"]}),
    "pool3d/rank_error": "tf.nn.avg_pool3d(tf.ones([2, 3, 4, 5]), 2, 1, 'VALID')",
    "pool3d/batch_error": _VOL + "tf.nn.avg_pool3d(x, [2, 2, 2, 2, 2], 1, 'VALID')",
    "pool3d/padding_case_error": (_VOL + "tf.nn.avg_pool3d(x, 2, 1, 'valid')",
                                  {"match": ['"valid"']}),
    "pool3d/explicit_error": (_VOL + "tf.nn.avg_pool3d(x, 2, 1, [[0, 0], [1, 1], [1, 1], "
                                     "[1, 1], [0, 0]])", {"match": ["padding"]}),
})
