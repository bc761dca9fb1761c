"""TensorFlow-differential snippets for issue 8's first half (owner: tf2core): dtypes,
TensorShape, tf.Tensor, casts of Python and numpy values, indexing (strided_slice),
argmax, out-of-range indices, tf.random's rules, tf.function, tf.print, tf.config and
tf.device, tf.debugging, tf.errors. `id: source` or `id: (source, options)`; the id's
part before '/' is its test group. After editing:
`$TF_PYTHON scripts/make_tf_diff_fixtures.py core`.
"""

_X = "x = tf.reshape(tf.range(12), [3, 4])\n"
_X3 = "x = tf.reshape(tf.range(24), [2, 3, 4])\n"
_M = "m = tf.constant([[1.0, 5.0], [7.0, 2.0], [3.0, 9.0]])\n"
# tf.print writes to a file both libraries can read back
_PRINT = ("import os, tempfile\npath = os.path.join(tempfile.mkdtemp(), 'out.txt')\n"
          "out = 'file://' + path\n")
_READ = "\nopen(path).read()"

_GEN = "g = tf.random.Generator.from_seed(1)\n"

SNIPPETS = {
    # -- dtypes are objects ----------------------------------------------------------------
    "core_dtypes/attributes": "(tf.float32.name, tf.float32.size, tf.int32.size, "
                              "tf.bool.size, tf.uint8.max, tf.int8.min, tf.int32.max, "
                              "tf.string.size, tf.float64.name)",
    "core_dtypes/predicates": "[(d.is_floating, d.is_integer, d.is_bool, d.is_unsigned) "
                              "for d in (tf.float32, tf.int32, tf.bool, tf.uint8)]",
    "core_dtypes/float_limits": "(tf.float32.max, tf.float32.min)",
    "core_dtypes/repr": "(repr(tf.float32), repr(tf.bool), repr(tf.int64))",
    "core_dtypes/numpy_type": "tf.float32.as_numpy_dtype(2.5)",
    "core_dtypes/as_dtype": "[tf.as_dtype('float32'), tf.as_dtype(np.float32), "
                            "tf.as_dtype(float), tf.as_dtype(bool), tf.as_dtype('float'), "
                            "tf.dtypes.as_dtype(np.dtype('int32'))]",
    "core_dtypes/as_dtype_error": ("tf.as_dtype('foo')", {"match": ["foo"]}),
    "core_dtypes/compare": "(tf.constant(1.0).dtype == tf.float32, tf.float32 == 'float32', "
                           "tf.float32 == np.float32, tf.int32 != tf.float32, "
                           "tf.float32 == 'foo', isinstance(tf.float32, tf.dtypes.DType))",
    "core_dtypes/bool_min_error": "tf.bool.min",
    "core_dtypes/tensor_dtypes": "(tf.constant(1).dtype, tf.constant(1.5).dtype, "
                                 "tf.constant(True).dtype, tf.constant([1.0]).dtype.name)",
    "core_dtypes/int64_constant": "tf.constant([1, 2], dtype=tf.int64)",
    "core_dtypes/float64_cast": "tf.cast(tf.constant([1.5, -2.25]), tf.float64)",
    "core_dtypes/uint8_cast": "tf.cast(tf.constant([3.7, 250.2]), tf.uint8)",
    "core_dtypes/zeros_int64": "tf.zeros([2], tf.int64)",
    # -- TensorShape -------------------------------------------------------------------------
    "core_shape/basics": "s = tf.constant([[1, 2, 3], [4, 5, 6]]).shape\n"
                         "(s, s.as_list(), s.rank, s.ndims, s[0], s[-1], s[1:], "
                         "s.num_elements(), s.is_fully_defined(), len(s), list(s), str(s))",
    "core_shape/equality": "s = tf.zeros([2, 3]).shape\n(s == (2, 3), s == [2, 3], "
                           "s != (2, 3), s == tf.TensorShape([2, 3]), s == (3, 2), s == 3)",
    "core_shape/concatenate": "s = tf.zeros([2, 3]).shape\n"
                              "(s.concatenate([4]), s + [1], [1] + s, s.with_rank(2))",
    "core_shape/with_rank_error": ("tf.zeros([2, 3]).shape.with_rank(3)",
                                   {"match": ["must have rank 3"]}),
    "core_shape/unknown_dims": "u = tf.TensorShape([None, 3])\n"
                               "(u, u[0], u[1:], u.num_elements(), u.is_fully_defined(), "
                               "u.as_list(), u.is_compatible_with([5, 3]), "
                               "u.is_compatible_with([5, 4]), u.merge_with([5, 3]), str(u))",
    "core_shape/unknown_rank": "u = tf.TensorShape(None)\n(u.rank, u.ndims, "
                               "u == tf.TensorShape(None), u.is_compatible_with([1, 2]))",
    "core_shape/unknown_as_list": "tf.TensorShape(None).as_list()",
    "core_shape/merge_error": ("tf.TensorShape([None, 3]).merge_with([5, 4])",
                               {"match": ["not compatible"]}),
    "core_shape/index_error": "tf.zeros([2]).shape[5]",
    "core_shape/negative_dim": ("tf.TensorShape([-1, 3])", {"match": ["-1"]}),
    "core_shape/scalar": "(tf.constant(1.0).shape, tf.constant(1.0).shape.as_list())",
    "core_shape/zeros_of_shape": "tf.zeros(tf.ones([2, 3]).shape)",
    "core_shape/from_int": "tf.TensorShape(3)",
    # -- tf.Tensor, is_tensor -----------------------------------------------------------------
    "core_tensor/isinstance": "(isinstance(tf.constant(1.0), tf.Tensor), "
                              "isinstance(tf.zeros([2]) + 1, tf.Tensor), tf.newaxis is None)",
    "core_tensor/is_tensor": "(tf.is_tensor(tf.constant(1)), tf.is_tensor(tf.Variable(1.0)), "
                             "tf.is_tensor(np.zeros(2)), tf.is_tensor([1]), tf.is_tensor(1), "
                             "tf.is_tensor(tf.SparseTensor([[0]], [1], [2])))",
    "core_tensor/spec": "s = tf.TensorSpec([None, 3], tf.float32, name='x')\n"
                        "(repr(s), s.shape, s.dtype, s.name, "
                        "s.is_compatible_with(tf.zeros([5, 3])), "
                        "s.is_compatible_with(tf.zeros([5, 4])), "
                        "s.is_compatible_with(tf.zeros([5, 3], tf.int32)), "
                        "s == tf.TensorSpec([None, 3], tf.float32, 'x'))",
    "core_tensor/spec_from_tensor": "repr(tf.TensorSpec.from_tensor(tf.zeros([2])))",
    "core_tensor/str": "[str(x) for x in (tf.constant(1.5), tf.constant([1.0, 2.0]), "
                       "tf.constant([[1, 2], [3, 4]]), tf.range(30), tf.zeros([0, 3]), "
                       "tf.constant([True, False]), tf.reshape(tf.range(2000.0), [40, 50]))]",
    "core_tensor/repr": "[repr(x) for x in (tf.constant(1.5), tf.constant(7), "
                        "tf.constant([1.0, 2.0]), tf.constant([[1, 2], [3, 4]]), tf.range(30), "
                        "tf.zeros([0, 3]), tf.constant([True, False]))]",
    "core_tensor/format": "x = tf.constant(0.123456)\n(f'{x:0.2f}', format(x, '.3e'), "
                          "f'{tf.constant(3):>4}', f'{tf.constant([1.0, 2.0])}', f'{x}')",
    "core_tensor/format_error": ("f'{tf.constant([1.0, 2.0]):.2f}'",
                                 {"match": ["unsupported format string"]}),
    "core_tensor/variable_repr": "v = tf.Variable([[1.0, 2.0]], name='w')\n"
                                 "(repr(v).split(' ', 2)[2], str(v) == repr(v))",
    # -- every op accepts Python and numpy values ----------------------------------------------
    "core_cast/int": "tf.cast(3, tf.float32)",
    "core_cast/numpy_int64": "tf.cast(np.int64(3), tf.float32)",
    "core_cast/float_to_int": "tf.cast([-2.5, 2.5, -0.5, 0.9], tf.int32)",
    "core_cast/scalar_float_to_int": "tf.cast(2.5, tf.int32)",
    "core_cast/list": "tf.cast([1, 2], tf.float32)",
    "core_cast/numpy": "tf.cast(np.array([1, 2]), tf.float32)",
    "core_cast/to_bool": "tf.cast([0.0, 0.5, -1.0], tf.bool)",
    "core_cast/dtype_name": "tf.cast(1, 'float32')",
    "core_cast/variable": "tf.cast(tf.Variable([1.5, 2.5]), tf.int32)",
    "core_cast/image_scaling": "tf.cast(np.array([[0, 128, 255]], np.uint8), tf.float32) / 255.0",
    "core_cast/like": "(tf.zeros_like([[1, 2]]), tf.ones_like(2.5), tf.ones_like([True]))",
    "core_cast/axis_tensor": "tf.reduce_sum([[1, 2], [3, 4]], axis=tf.constant(1))",
    # -- indexing: strided_slice --------------------------------------------------------------
    "core_index/int": _X + "(x[0], x[-1], x[2, 3], x[-1, -4])",
    "core_index/slices": _X + "(x[:, 1], x[1:3], x[::2], x[::-1], x[:, ::-2], x[1:10], "
                              "x[-100:], x[2:0], x[-10:10:-1])",
    "core_index/ellipsis_newaxis": _X3 + "(x[..., 0], x[tf.newaxis].shape, x[:, None].shape, "
                                         "x[None, ..., None, 1].shape, x[..., None, 1])",
    "core_index/mixed": _X3 + "(x[1, ::-2, 3:0:-2], x[:, 2, None, 1:3], x[-1, ..., ::3])",
    "core_index/list_is_a_tuple": _X + "x[[0, 2]]",
    "core_index/tensor_scalar": _X + "(x[tf.constant(1)], x[np.int64(1)], x[1:3][0])",
    "core_index/bool_mask": _X + "x[tf.constant([True, False, True])]",
    "core_index/float_tensor": "tf.constant([1.0, 2.0, 3.0])[::-1] * 2.0",
    "core_index/iterate": _X + "([row for row in x], len(x))",
    "core_index/iterate_empty": "[r for r in tf.zeros([0, 3])]",
    "core_index/variable": "v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])\n(v[0], v[:, 1])",
    "core_index/gradient": "v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])\n"
                           "with tf.GradientTape() as t:\n"
                           "    y = tf.reduce_sum(v[::-1, 1] * tf.constant([1.0, 2.0]))\n"
                           "t.gradient(y, v)",
    "core_index/out_of_range": (_X + "x[5]", {"match": ["5", "dimension 0", "out of bounds"]}),
    "core_index/out_of_range_axis1": (_X + "x[:, -5]", {"match": ["dimension 1",
                                                                 "out of bounds"]}),
    "core_index/too_many": (_X + "x[0, 0, 0]", {"match": ["input has only 2 dims"]}),
    "core_index/two_ellipses": (_X + "x[..., ...]", {"match": ["Multiple ellipses"]}),
    "core_index/zero_step": (_X + "x[::0]", {"match": ["must be non-zero"]}),
    "core_index/scalar": ("tf.constant(1.0)[0]", {"match": ["slice scalar input"]}),
    "core_index/tensor_of_indices": (_X + "x[tf.constant([0, 2])]",
                                     {"match": ["Only integers, slices"]}),
    "core_index/numpy_indices": (_X + "x[np.array([0, 2])]", {"match": ["Only integers"]}),
    "core_index/float_index": (_X + "x[1.0]", {"match": ["Only integers"]}),
    "core_index/scalar_mask": (_X + "x[True]", {"match": ["mask cannot be scalar"]}),
    "core_index/iterate_scalar": ("[v for v in tf.constant(1.0)]",
                                  {"match": ["Cannot iterate over a scalar tensor"]}),
    "core_index/len_scalar": ("len(tf.constant(1.0))", {"match": ["len()"]}),
    "core_index/strided_slice": _X + "tf.strided_slice(x, [0, 1], [3, 3], [1, 1])",
    "core_index/strided_slice_shrink": _X + "tf.strided_slice(x, [1, 0], [2, 4], "
                                            "shrink_axis_mask=1)",
    "core_index/strided_slice_masks": _X3 + "(tf.strided_slice(x, [0, 3], [0, 0], [1, -1], "
                                            "begin_mask=1, end_mask=3), "
                                            "tf.strided_slice(x, [0, 1], [0, 2], [1, 1], "
                                            "ellipsis_mask=1), "
                                            "tf.strided_slice(x, [0, 0, 1], [0, 0, 2], [1, 1, 1],"
                                            " new_axis_mask=2, begin_mask=1, end_mask=1))",
    "core_index/strided_slice_error": (_X + "tf.strided_slice(x, [5, 0], [6, 4], "
                                            "shrink_axis_mask=1)",
                                       {"match": ["5", "out of bounds"]}),
    # -- argmax / argmin -----------------------------------------------------------------------
    "core_argmax/default_axis": _M + "(tf.argmax(m), tf.argmin(m), tf.math.argmax(m))",
    "core_argmax/axis_and_output_type": _M + "(tf.argmax(m, 1), tf.argmin(m, axis=-1), "
                                             "tf.argmax(m, output_type=tf.int32))",
    "core_argmax/list_and_ties": "(tf.argmax([1, 3, 2]), tf.argmax([3.0, 1.0, 3.0]), "
                                 "tf.argmin([[2, 2], [1, 5]]))",
    "core_argmax/nan_skipped": "(tf.argmax([1.0, np.nan, 3.0]), tf.argmax([np.nan, 1.0, 3.0]), "
                               "tf.argmax([np.nan, np.nan]), tf.argmin([1.0, np.nan, 0.0]))",
    "core_argmax/scalar_error": "tf.argmax(tf.constant(3.0))",
    "core_argmax/axis_error": (_M + "tf.argmax(m, 2)", {"match": ["[-2, 2)", "2"]}),
    "core_argmax/output_type_error": (_M + "tf.argmax(m, output_type=tf.float32)",
                                      {"match": ["output_type"]}),
    # -- out-of-range indices: TensorFlow's errors on every backend ----------------------------
    "core_range/sparse_xent_label": ("tf.nn.sparse_softmax_cross_entropy_with_logits("
                                     "labels=tf.constant([10, 1]), logits=tf.zeros([2, 10]))",
                                     {"match": ["label value of 10", "[0, 10)"]}),
    "core_range/sparse_xent_negative": ("tf.nn.sparse_softmax_cross_entropy_with_logits("
                                        "labels=np.array([-1, 1]), logits=tf.zeros([2, 3]))",
                                        {"match": ["label value of -1", "[0, 3)"]}),
    "core_range/sparse_xent_ok": "tf.nn.sparse_softmax_cross_entropy_with_logits("
                                 "labels=[2, 0], logits=[[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]])",
    "core_range/gather": ("tf.gather(tf.constant([1.0, 2.0, 3.0]), [0, 5])",
                          {"match": ["indices[1] = 5", "[0, 3)"]}),
    "core_range/gather_negative": ("tf.gather(tf.constant([1.0, 2.0, 3.0]), [-1])",
                                   {"match": ["indices[0] = -1"]}),
    "core_range/gather_axis1": (_M + "tf.gather(m, [[0, 2]], axis=1)",
                                {"match": ["indices[0,1] = 2", "[0, 2)"]}),
    "core_range/gather_device_params": "tf.gather(tf.constant([1.0, 2.0, 3.0]) * 2.0, [2, 0])",
    "core_range/segment_sum": ("tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0, 3.0]), "
                               "[0, 5, 1], 2)", {"match": ["segment_ids[1] = 5", "[0, 2)"]}),
    "core_range/segment_sum_negative_dropped": "tf.math.unsorted_segment_sum("
                                               "tf.constant([1.0, 2.0, 3.0]), [0, -1, 1], 2)",
    "core_range/one_hot_zeros": "tf.one_hot([0, 5, -1], 3)",
    # -- tf.random: TensorFlow's seeding rules (shapes, dtypes, stream behaviour) --------------
    "core_random/normal": "x = tf.random.normal([2, 3], mean=1.0, stddev=2.0, seed=1)\n"
                          "(x.shape, x.dtype)",
    "core_random/uniform_float": "x = tf.random.uniform([500], -1.0, 3.0, seed=2)\n"
                                 "(x.dtype, bool(tf.reduce_min(x) >= -1.0), "
                                 "bool(tf.reduce_max(x) < 3.0))",
    "core_random/uniform_int": "x = tf.random.uniform([200], 0, 5, dtype=tf.int32, seed=2)\n"
                               "(x.dtype, sorted(set(x.numpy().tolist())))",
    "core_random/uniform_int_needs_maxval": ("tf.random.uniform([2], dtype=tf.int32)",
                                             {"match": ["Must specify maxval"]}),
    "core_random/normal_int_error": "tf.random.normal([2], dtype=tf.int32)",
    "core_random/uniform_dtype_int8": ("tf.random.uniform([2], maxval=5, dtype=tf.int8)",
                                       {"match": ["<dtype: 'int8'>", "Accepted dtypes"]}),
    "core_random/uniform_dtype_bool": ("tf.random.uniform([2], dtype=tf.bool)",
                                       {"match": ["<dtype: 'bool'>"]}),
    "core_random/uniform_dtype_complex": ("tf.random.uniform([2], dtype=tf.complex64)",
                                          {"match": ["<dtype: 'complex64'>"]}),
    "core_random/generator_uniform_int16": (_GEN + "g.uniform([2], maxval=4, dtype=tf.int16)",
                                            {"match": ["int16", "int32, int64, uint32"]}),
    "core_random/generator_uniform_bool": (_GEN + "g.uniform([2], dtype=tf.bool)",
                                           {"match": ["dtype bool"]}),
    "core_random/generator_uniform_complex": (_GEN + "g.uniform([2], dtype=tf.complex64)",
                                              {"match": ["complex64", "half, bfloat16"]}),
    "core_random/generator_uniform_uint32": (_GEN + "g.uniform([2], maxval=4, dtype=tf.uint32)",
                                             {"match": ["StatelessRandomUniformIntV2"]}),
    "core_random/generator_uniform_float64": _GEN + "x = g.uniform([2], dtype=tf.float64)\n"
                                             "x.dtype",
    "core_random/truncated": "x = tf.random.truncated_normal([1000], seed=3)\n"
                             "(x.dtype, bool(tf.reduce_max(tf.abs(x)) <= 2.0))",
    "core_random/op_seed_stream": "tf.random.set_seed(1)\na = tf.random.uniform([3], seed=1)\n"
                                  "b = tf.random.uniform([3], seed=1)\ntf.random.set_seed(1)\n"
                                  "c = tf.random.uniform([3], seed=1)\n"
                                  "(bool(np.all(a.numpy() == c.numpy())), "
                                  "bool(np.any(a.numpy() != b.numpy())))",
    "core_random/global_seed_sequence": "tf.random.set_seed(3)\na = tf.random.normal([4])\n"
                                        "b = tf.random.normal([4])\ntf.random.set_seed(3)\n"
                                        "c = tf.random.normal([4])\nd = tf.random.normal([4])\n"
                                        "(bool(np.all(a.numpy() == c.numpy())), "
                                        "bool(np.all(b.numpy() == d.numpy())), "
                                        "bool(np.any(a.numpy() != b.numpy())))",
    "core_random/shuffle": "x = tf.random.shuffle(tf.range(6), seed=4)\n"
                           "(x.shape, x.dtype, sorted(x.numpy().tolist()))",
    "core_random/categorical": "s = tf.random.categorical(tf.math.log([[0.5, 0.5], "
                               "[0.0, 1.0]]), 5, seed=1)\n(s.shape, s.dtype, "
                               "s[1].numpy().tolist())",
    "core_random/generator": "g1 = tf.random.Generator.from_seed(5)\n"
                             "g2 = tf.random.Generator.from_seed(5)\n"
                             "(bool(np.all(g1.normal([4]).numpy() == g2.normal([4]).numpy())), "
                             "g1.uniform([2, 2]).shape, g1.uniform([3], 0, 4, tf.int32).dtype)",
    # -- tf.config.experimental.get_memory_info: device strings (texflow counts its bytes) ----
    "core_memory_info/keys": "[sorted(tf.config.experimental.get_memory_info(d)) for d in "
                             "('CPU:0', '/device:CPU:0', '/cpu:0', '', '/job:localhost', "
                             "'/job:localhost/replica:0/task:0/device:CPU:0')]",
    "core_memory_info/reset": "tf.config.experimental.reset_memory_stats('CPU:0')",
    "core_memory_info/unparsable": ("tf.config.experimental.get_memory_info('CPU')",
                                    {"match": ["Failed parsing device name: 'CPU'"]}),
    "core_memory_info/bad_index": ("tf.config.experimental.get_memory_info('CPU:-1')",
                                   {"match": ["Failed parsing device name"]}),
    "core_memory_info/no_device": ("tf.config.experimental.get_memory_info('CPU:1')",
                                   {"match": ["No matching devices found for 'CPU:1'"]}),
    "core_memory_info/lower_case": ("tf.config.experimental.get_memory_info('cpu:0')",
                                    {"match": ["No matching devices found for 'cpu:0'"]}),
    "core_memory_info/other_job": ("tf.config.experimental.reset_memory_stats("
                                   "'/job:worker/device:CPU:0')",
                                   {"match": ["No matching devices found"]}),
    "core_memory_info/tpu": ("tf.config.experimental.get_memory_info('TPU:0')",
                             {"match": ["No matching devices found for 'TPU:0'"]}),
    # -- tf.function (eager for now) -----------------------------------------------------------
    "core_function/decorator": "@tf.function\ndef f(x, y=2):\n    return x * y\n"
                               "(f(tf.constant([1.0, 2.0])), f(3), f(1, y=5))",
    "core_function/options": "@tf.function(reduce_retracing=True, jit_compile=False, "
                             "autograph=True)\ndef f(x):\n    return tf.reduce_sum(x)\n"
                             "(f([1.0, 2.0]), f.python_function.__name__)",
    "core_function/signature": "@tf.function(input_signature=[tf.TensorSpec([None], "
                               "tf.float32)])\ndef f(x):\n    return x * 2\n"
                               "(f([1.0, 2.0]), f(tf.constant([3.0])), len(f.input_signature))",
    "core_function/signature_shape_error": ("@tf.function(input_signature=[tf.TensorSpec([3], "
                                            "tf.float32)])\ndef f(x):\n    return x\n"
                                            "f(tf.constant([1.0, 2.0]))",
                                            {"match": ["Binding inputs to tf.function failed",
                                                       "Can not cast"]}),
    "core_function/signature_dtype_error": ("@tf.function(input_signature=[tf.TensorSpec([3], "
                                            "tf.float32)])\ndef f(x):\n    return x\n"
                                            "f(tf.constant([1, 2, 3]))",
                                            {"match": ["Binding inputs to tf.function"]}),
    "core_function/method": "class M:\n    def __init__(self):\n        self.w = 3.0\n"
                            "    @tf.function\n    def __call__(self, x):\n"
                            "        return x * self.w\nM()(tf.constant([1.0, 2.0]))",
    # -- tf.print ------------------------------------------------------------------------------
    "core_print/vector": _PRINT + "tf.print(tf.constant([1, 2, 3]), output_stream=out)" + _READ,
    "core_print/matrix_and_values": _PRINT + "tf.print('a', tf.constant([[1.5, 2.0], "
                                             "[3.0, 4.0]]), 7, output_stream=out)" + _READ,
    "core_print/summarize": _PRINT + "tf.print(tf.range(20), output_stream=out)\n"
                                     "tf.print(tf.range(20), summarize=2, output_stream=out)\n"
                                     "tf.print(tf.range(20), summarize=-1, output_stream=out)\n"
                                     "tf.print(tf.range(7), output_stream=out)\n"
                                     "tf.print(tf.range(6), output_stream=out)" + _READ,
    "core_print/sep_end": _PRINT + "tf.print('x', 'y', sep='|', end='!\\n', output_stream=out)"
                                   + _READ,
    "core_print/floats_bools": _PRINT + "tf.print(tf.constant(3.5), output_stream=out)\n"
                                        "tf.print(tf.constant([True, False]), "
                                        "output_stream=out)\ntf.print(tf.constant([0.1, 1e-9, "
                                        "123456.789, 12345678.0, 1.0 / 3]), output_stream=out)"
                                        "\ntf.print(tf.constant([np.nan, np.inf, -2.0]), "
                                        "output_stream=out)" + _READ,
    "core_print/structures": _PRINT + "tf.print({'a': tf.constant([1, 2])}, [tf.constant(1), 2],"
                                      " ['a', 1, (2,)], (tf.constant(1.5),), None, True, 0.25, "
                                      "output_stream=out)" + _READ,
    "core_print/rank3_and_large": _PRINT + "tf.print(tf.reshape(tf.range(24), [2, 3, 4]), "
                                           "output_stream=out)\ntf.print(tf.reshape("
                                           "tf.range(200), [20, 10]), output_stream=out)" + _READ,
    "core_print/bad_stream": ("tf.print(1, output_stream=5)",
                              {"match": ["Unsupported output stream"]}),
    # -- tf.config, tf.device ------------------------------------------------------------------
    "core_config/cpu": "(tf.config.list_physical_devices('CPU'), "
                       "tf.config.list_logical_devices('CPU'))",
    "core_config/device_block": "with tf.device('/CPU:0'):\n    x = tf.constant([1.0]) + 1.0\nx",
    "core_config/device_cpu_name": "with tf.device('/device:CPU:0'):\n"
                                   "    x = tf.constant([2]) * 2\nx.device.endswith('CPU:0')",
    "core_config/bad_device": ("with tf.device('foo'):\n    pass",
                               {"match": ["Unknown attribute 'foo'"]}),
    # -- tf.debugging --------------------------------------------------------------------------
    "core_debugging/assert_equal": ("tf.debugging.assert_equal(tf.constant([1.0, 2.0]), "
                                    "tf.constant([1.0, 3.0]))",
                                    {"match": ["Condition x == y did not hold",
                                               "Indices of first 1 different values",
                                               "First 2 elements of x"]}),
    "core_debugging/assert_equal_message": ("tf.debugging.assert_equal(tf.constant([1, 2]), "
                                            "[1, 3], message='custom')",
                                            {"match": ["custom", "Condition x == y"]}),
    "core_debugging/assert_ok": "(tf.debugging.assert_equal(tf.constant([1, 2]), [1, 2]), "
                                "tf.debugging.assert_less(1.0, 2.0), "
                                "tf.debugging.assert_near(tf.constant([1.0]), [1.0 + 1e-7]), "
                                "tf.debugging.assert_rank(tf.zeros([2, 3]), 2), "
                                "tf.debugging.assert_shapes([(tf.zeros([2]), ('N',)), "
                                "(tf.zeros([2, 4]), ('N', 4))]))",
    "core_debugging/assert_less": ("tf.debugging.assert_less(tf.constant([1.0, 2.0]), "
                                   "tf.constant([1.0, 3.0]))",
                                   {"match": ["Condition x < y did not hold"]}),
    "core_debugging/assert_greater": ("tf.assert_greater(tf.constant([2, 3]), 2)",
                                      {"match": ["Condition x > y did not hold"]}),
    "core_debugging/assert_shapes_mismatch": "tf.debugging.assert_equal(tf.constant([1.0, 2.0]),"
                                             " tf.constant([1.0, 2.0, 3.0]))",
    "core_debugging/assert_near": ("tf.debugging.assert_near(tf.constant([1.0, 2.0]), "
                                   "tf.constant([1.0, 3.0]))",
                                   {"match": ["not equal to tolerance"]}),
    "core_debugging/assert_rank": ("tf.debugging.assert_rank(tf.zeros([2]), 2)",
                                   {"match": ["must have rank 2", "Received rank 1"]}),
    "core_debugging/assert_shapes": ("tf.debugging.assert_shapes([(tf.zeros([2]), ('N',)), "
                                     "(tf.zeros([3, 2]), ('N', 2))])",
                                     {"match": ["must have size 2", "Received size 3"]}),
    "core_debugging/all_finite": ("tf.debugging.assert_all_finite(tf.constant([1.0, np.nan]), "
                                  "'bad values')", {"match": ["bad values",
                                                              "Tensor had NaN values"]}),
    "core_debugging/check_numerics": ("tf.debugging.check_numerics(tf.constant([1.0, np.inf]), "
                                      "'msg')", {"match": ["msg", "Tensor had Inf values"]}),
    "core_debugging/check_numerics_ok": "tf.debugging.check_numerics(tf.constant([1.0, 2.0]), "
                                        "'msg')",
    "core_debugging/assert_type": ("tf.debugging.assert_type(tf.constant([1.0]), tf.int32)",
                                   {"match": ["must be of type tf.int32"]}),
    # -- GradientTape: persistent tapes, higher-order gradients through nested tapes -------
    "core_tape/persistent": "x = tf.constant(3.0)\nwith tf.GradientTape(persistent=True) as t:\n"
                            "    t.watch(x)\n    y = x * x\n    z = y * y\n"
                            "(t.gradient(y, x), t.gradient(z, x))",
    "core_tape/second_order": "x = tf.constant(3.0)\nwith tf.GradientTape() as t2:\n"
                              "    t2.watch(x)\n    with tf.GradientTape() as t1:\n"
                              "        t1.watch(x)\n        y = x ** 3\n"
                              "    dy = t1.gradient(y, x)\n(dy, t2.gradient(dy, x))",
    "core_tape/gradient_penalty": "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as t2:\n"
                                  "    with tf.GradientTape() as t1:\n"
                                  "        y = tf.reduce_sum(tf.sin(x) * x)\n"
                                  "    g = t1.gradient(y, x)\n    s = tf.reduce_sum(g * g)\n"
                                  "(g, t2.gradient(s, x))",
    "core_tape/third_order": "x = tf.constant(2.0)\nwith tf.GradientTape() as t3:\n"
                             "    t3.watch(x)\n    with tf.GradientTape() as t2:\n"
                             "        t2.watch(x)\n        with tf.GradientTape() as t1:\n"
                             "            t1.watch(x)\n            y = tf.exp(x) * x\n"
                             "        d1 = t1.gradient(y, x)\n    d2 = t2.gradient(d1, x)\n"
                             "(d1, d2, t3.gradient(d2, x))",
    # -- tf.errors -----------------------------------------------------------------------------
    "core_errors/classes": "[(c.__name__, issubclass(c, tf.errors.OpError), c(None, None, 'm')."
                           "error_code) for c in (tf.errors.InvalidArgumentError, "
                           "tf.errors.NotFoundError, tf.errors.OutOfRangeError, "
                           "tf.errors.ResourceExhaustedError, tf.errors.UnimplementedError, "
                           "tf.errors.FailedPreconditionError, tf.errors.AbortedError, "
                           "tf.errors.CancelledError, tf.errors.UnknownError, "
                           "tf.errors.DataLossError, tf.errors.InternalError, "
                           "tf.errors.UnavailableError, tf.errors.AlreadyExistsError, "
                           "tf.errors.PermissionDeniedError, tf.errors.DeadlineExceededError, "
                           "tf.errors.UnauthenticatedError)]",
    "core_errors/codes": "(tf.errors.OK, tf.errors.INVALID_ARGUMENT, tf.errors.NOT_FOUND, "
                         "tf.errors.OUT_OF_RANGE, tf.errors.DATA_LOSS)",
    "core_errors/message": "e = tf.errors.InvalidArgumentError(None, None, 'bad thing')\n"
                           "(str(e), e.message, e.op, e.node_def)",
}
