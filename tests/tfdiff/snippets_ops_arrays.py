"""TensorFlow-differential snippets: reductions, scans and array functions of issue 8
(owner: tf2ops). `id: source` or `id: (source, options)`; the id's part before '/' is
its test group. After editing:
`$TF_PYTHON scripts/make_tf_diff_fixtures.py ops_arrays`.
"""

_X234 = "tf.reshape(tf.range(1, 25), [2, 3, 4])"
_F34 = "tf.constant(np.random.default_rng(5).normal(0, 2, (3, 4)).astype(np.float32))"

SNIPPETS = {
    "reduce_prod/all": "tf.reduce_prod(tf.constant([[1.0, 2.0], [3.0, 4.0]]))",
    "reduce_prod/axes": f"tf.reduce_prod(tf.cast({_X234}, tf.float32), axis=[0, -1])",
    "reduce_prod/keepdims_int": f"tf.reduce_prod({_X234} % 5, axis=1, keepdims=True)",
    "reduce_prod/int_wraps": "tf.reduce_prod(tf.constant([65536, 65536, 3]))",
    "reduce_prod/empty": "(tf.reduce_prod(tf.zeros([0])), tf.reduce_prod(tf.zeros([2, 0]), 1))",
    "reduce_prod/bool_error": "tf.reduce_prod(tf.constant([True, False]))",
    "reduce_prod/math_alias": "tf.math.reduce_prod(tf.constant([2.0, -0.5, np.inf]))",
    "reduce_any/axes": "tf.reduce_any(tf.constant([[True, False], [False, False]]), axis=1)",
    "reduce_any/all_axes": "tf.reduce_any(tf.constant([[False, False], [False, True]]))",
    "reduce_any/empty": "(tf.reduce_any(tf.zeros([0]) > 0), "
                        "tf.reduce_all(tf.zeros([2, 0]) > 0, 1))",
    "reduce_any/int_error": ("tf.reduce_any(tf.constant([1, 0]))", {"match": ["int32"]}),
    "reduce_all/keepdims": "tf.reduce_all(tf.constant([[True, True], [False, True]]), "
                           "axis=-1, keepdims=True)",
    "reduce_all/math_alias": "tf.math.reduce_all(tf.constant([True, True]))",
    "reduce_all/float_error": ("tf.reduce_all(tf.constant([1.0]))", {"match": ["float"]}),
    "moments/variance": f"tf.math.reduce_variance({_F34})",
    "moments/variance_axis": f"tf.math.reduce_variance({_F34}, axis=0, keepdims=True)",
    "moments/std_axis": f"tf.math.reduce_std({_F34}, axis=-1)",
    "moments/std_int_error": "tf.math.reduce_std(tf.constant([1, 2, 3]))",
    "moments/variance_empty": "tf.math.reduce_variance(tf.zeros([0, 2]), axis=0)",
    "shape/default": "tf.shape(tf.zeros([2, 0, 3]))",
    "shape/int64": "tf.shape(tf.zeros([4, 5]), out_type=tf.int64)",
    "shape/scalar": "(tf.shape(tf.constant(3.0)), tf.size(tf.constant(3.0)), "
                    "tf.rank(tf.constant(3.0)))",
    "shape/size_rank": "(tf.size(tf.zeros([2, 3, 4])), tf.rank(tf.zeros([2, 3, 4])))",
    "shape/python_list": "(tf.shape([[1, 2, 3], [4, 5, 6]]), tf.size([1, 2]), tf.rank([[1]]))",
    "shape/size_int64": "tf.size(tf.zeros([2, 3]), out_type=tf.int64)",
    "shape/float_out_type_error": "tf.shape(tf.zeros([2]), out_type=tf.float32)",
    "identity/tensor": "tf.identity(tf.constant([[1, 2], [3, 4]]))",
    "identity/variable": """
        v = tf.Variable([1.0, 2.0])
        snapshot = tf.identity(v)
        v.assign([5.0, 6.0])
        (snapshot, v + 0.0)
    """,
    "add_n/three": "tf.add_n([tf.constant([1, 2]), tf.constant([3, 4]), tf.constant([5, 6])])",
    "add_n/one": "tf.add_n([tf.constant([[1.5, 2.0]])])",
    "add_n/lists": "tf.add_n([[1.0, 2.0], [3.0, 4.0]])",
    "add_n/dtype_error": "tf.add_n([tf.constant([1, 2]), tf.constant([3.0, 4.0])])",
    "add_n/shape_error": ("tf.add_n([tf.constant([1, 2]), tf.constant([3, 4, 5])])",
                          {"match": ["[2]", "[3]"]}),
    "add_n/empty_error": "tf.add_n([])",
    "split/num": "tf.split(tf.range(12), 3)",
    "split/sizes_with_minus_one": "tf.split(tf.range(10), [3, -1, 2])",
    "split/axis": "tf.split(tf.reshape(tf.range(12), [3, 4]), 2, axis=-1)",
    "split/zero_size_part": "tf.split(tf.reshape(tf.range(6.0), [2, 3]), [0, 3], axis=1)",
    "split/empty": "tf.split(tf.zeros([0, 2]), 2)",
    "split/uneven_error": ("tf.split(tf.range(10), 3)", {"match": ["10", "3"]}),
    "split/two_unknown_error": "tf.split(tf.range(10), [3, -1, -1])",
    "split/sum_error": "tf.split(tf.range(6), [3, 4])",
    "split/zero_error": "tf.split(tf.range(6), 0)",
    "eye/square": "tf.eye(3)",
    "eye/rect_batch": "tf.eye(2, 3, batch_shape=[2])",
    "eye/int": "tf.eye(2, dtype=tf.int32)",
    "eye/empty": "tf.eye(0)",
    "eye/negative_error": "tf.eye(-1)",
    "eye/linalg_alias": "tf.linalg.eye(2, 1)",
    "linspace/basic": "tf.linspace(0.0, 1.0, 5)",
    "linspace/descending": "tf.linspace(3.0, -1.5, 7)",
    "linspace/python_ints": "tf.linspace(0, 10, 4)",
    "linspace/one_and_none": "(tf.linspace(2.0, 5.0, 1), tf.linspace(2.0, 5.0, 0))",
    "linspace/tensors_axis": "tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=-1)",
    "linspace/tensors_axis0": "tf.linspace([0.0, 10.0], [1.0, 20.0], 4)",
    "linspace/inexact": "tf.linspace(0.1, 0.7, 13)",
    "reverse/axes": f"tf.reverse({_X234}, [0, -1])",
    "reverse/none": f"tf.reverse({_X234}, [])",
    "reverse/bool": "tf.reverse(tf.constant([[True, False, False]]), [1])",
    "reverse/duplicate_error": "tf.reverse(tf.constant([[1, 2], [3, 4]]), [0, 0])",
    "reverse/range_error": "tf.reverse(tf.constant([[1, 2], [3, 4]]), [2])",
    "reverse/scalar_axis_error": "tf.reverse(tf.constant([1, 2]), 0)",
    "cumsum/default": "tf.cumsum(tf.constant([1, 2, 3, 4]))",
    "cumsum/exclusive_reverse": "tf.cumsum(tf.constant([1, 2, 3]), exclusive=True, reverse=True)",
    "cumsum/axis": f"tf.math.cumsum(tf.cast({_X234}, tf.float32), axis=1)",
    "cumsum/negative_axis": f"tf.cumsum({_X234}, axis=-1, reverse=True)",
    "cumsum/float": f"tf.cumsum({_F34}, axis=1, exclusive=True)",
    "cumsum/long": ("tf.cumsum(tf.constant(np.random.default_rng(6).normal(0, 1, 5000)"
                    ".astype(np.float32)))", {"atol": 20}),
    "cumsum/empty": "tf.cumsum(tf.zeros([0, 3]), axis=1)",
    "cumsum/scalar_error": "tf.cumsum(tf.constant(5))",
    "cumsum/axis_error": ("tf.cumsum(tf.constant([1, 2]), axis=1)", {"match": ["1"]}),
    "cumsum/bool_error": "tf.cumsum(tf.constant([True, False]))",
    "cumprod/default": "tf.math.cumprod(tf.constant([1, 2, 3, 4]))",
    "cumprod/exclusive": "tf.math.cumprod(tf.constant([2.0, 3.0, 0.5]), exclusive=True)",
    "cumprod/reverse_axis": f"tf.math.cumprod({_F34}, axis=0, reverse=True)",
    "cumprod/with_zero_nan": "tf.math.cumprod(tf.constant([2.0, 0.0, np.nan, 3.0]))",
}
