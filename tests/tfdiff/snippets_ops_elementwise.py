"""TensorFlow-differential snippets: the elementwise ops of issue 8 (owner: tf2ops).

`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py ops_elementwise`.
"""

_NORMAL = "np.random.default_rng({}).normal(0, 3, {}).astype(np.float32)"

SNIPPETS = {
    "log1p/values": "tf.math.log1p(tf.constant([-1.0, -0.5, -0.0, 1e-7, 1.0, 1e6]))",
    "log1p/specials": "tf.math.log1p(tf.constant([-2.0, np.inf, np.nan, -1e-30]))",
    "log1p/matrix": f"tf.math.log1p(tf.abs(tf.constant({_NORMAL.format(1, '(3, 5)')})))",
    "log1p/int_error": ("tf.math.log1p(tf.constant([1, 2]))", {"match": ["int32"]}),
    "expm1/values": "tf.math.expm1(tf.constant([-200.0, -1e-8, -0.0, 1e-5, 0.5, 88.0, 89.0]))",
    "expm1/specials": "tf.math.expm1(tf.constant([np.inf, -np.inf, np.nan]))",
    "expm1/int_error": ("tf.math.expm1(tf.constant([1]))", {"match": ["int32"]}),
    "softplus/range": "tf.math.softplus(tf.constant(np.linspace(-20, 20, 41, dtype=np.float32)))",
    "softplus/nn_alias": "tf.nn.softplus(tf.constant([[-1.0, 0.0], [1.0, 100.0]]))",
    "softplus/specials": "tf.nn.softplus(tf.constant([np.nan, np.inf, -np.inf, -14.5]))",
    "softplus/int_error": ("tf.nn.softplus(tf.constant([1, 2]))", {"match": ["int32"]}),
    "softsign/range": "tf.nn.softsign(tf.constant(np.linspace(-20, 20, 41, dtype=np.float32)))",
    "softsign/math_alias": "tf.math.softsign(tf.constant([[-1.0, 0.0], [3.0, 1e30]]))",
    "softsign/specials": "tf.nn.softsign(tf.constant([np.nan, np.inf, -np.inf, -0.0]))",
    "softsign/int_error": ("tf.nn.softsign(tf.constant([1, 2]))", {"match": ["int32"]}),
    "reciprocal/float": "tf.math.reciprocal(tf.constant([2.0, -4.0, 0.0, -0.0, np.inf]))",
    "reciprocal/int_error": "tf.math.reciprocal(tf.constant([1, 2]))",
    "erf/values": "tf.math.erf(tf.constant([-3.0, -1.0, -1e-3, 0.0, 0.3, 0.99, 1.5, 3.9, 4.5]))",
    "erf/random": f"tf.math.erf(tf.constant({_NORMAL.format(2, '(4, 6)')}))",
    "erf/specials": "tf.math.erf(tf.constant([np.nan, np.inf, -np.inf]))",
    "erf/int_error": ("tf.math.erf(tf.constant([1]))", {"match": ["int32"]}),
    "erfc/tail": "tf.math.erfc(tf.constant([-3.0, 0.0, 0.9, 1.0, 3.0, 5.0, 9.0, 10.5]))",
    "erfc/random": f"tf.math.erfc(tf.constant({_NORMAL.format(3, '(3, 4)')}))",
    "relu6/float": "tf.nn.relu6(tf.constant([np.nan, -1.0, -0.0, 3.5, 6.0, 7.0, np.inf]))",
    "relu6/int": "tf.nn.relu6(tf.constant([[-3, 0, 4], [6, 7, 100]]))",
    "relu6/empty": "tf.nn.relu6(tf.zeros([0, 3]))",
    "silu/default": "tf.nn.silu(tf.constant([-5.0, -1.0, 0.0, 1.0, 5.0]))",
    "silu/beta": "tf.nn.silu(tf.constant([[-2.0, 1.0], [0.5, 3.0]]), beta=2.0)",
    "silu/swish": "tf.nn.swish(tf.constant([-2.0, 1.0]))",
    "silu/int_error": ("tf.nn.silu(tf.constant([1, 2]))", {"match": ["int32"]}),
    "gelu/exact": "tf.nn.gelu(tf.constant([-6.0, -2.0, -0.5, 0.0, 0.5, 1.0, 3.0]))",
    "gelu/approximate": "tf.nn.gelu(tf.constant([-6.0, -2.0, 0.0, 1.0, 3.0]), approximate=True)",
    "gelu/int_error": ("tf.nn.gelu(tf.constant([1, 2]))", {"match": ["int32"]}),
    "l2_loss/matrix": "tf.nn.l2_loss(tf.constant([[1.0, 2.0], [3.0, -4.0]]))",
    "l2_loss/empty": "tf.nn.l2_loss(tf.zeros([0]))",
    "l2_loss/int_error": ("tf.nn.l2_loss(tf.constant([1, 2]))", {"match": ["int32"]}),
    "bias_add/last_axis": "tf.nn.bias_add(tf.ones([2, 2, 3]), tf.constant([1.0, 2.0, 3.0]))",
    "bias_add/nchw": "tf.nn.bias_add(tf.ones([2, 3, 2]), [1.0, 2.0, 3.0], data_format='NCHW')",
    "bias_add/list_of_ints": "tf.nn.bias_add(tf.ones([2, 3]), [1, 2, 3])",
    "bias_add/int_values": "tf.nn.bias_add(tf.constant([[1, 2], [3, 4]]), tf.constant([10, 20]))",
    "bias_add/size_error": ("tf.nn.bias_add(tf.ones([2, 3]), [1.0, 2.0])",
                            {"match": ["[2]"]}),
    "bias_add/rank_error": ("tf.nn.bias_add(tf.ones([2, 3]), [[1.0, 2.0, 3.0]])",
                            {"match": ["1D"]}),
    "bias_add/1d_input_error": "tf.nn.bias_add(tf.ones([3]), [1.0, 2.0, 3.0])",
    "floordiv/int_signs": "tf.math.floordiv(tf.constant([7, -7, 7, -7, 0]), "
                          "tf.constant([2, 2, -2, -2, 3]))",
    "floordiv/float_signs": "tf.math.floordiv(tf.constant([7.0, -7.0, 7.5, -0.5, 1.0]), "
                            "tf.constant([2.0, 2.0, -2.0, 3.0, 0.1]))",
    "floordiv/float_by_zero": "tf.math.floordiv(tf.constant([1.0, -1.0, 0.0]), 0.0)",
    "floordiv/int_by_zero": ("tf.math.floordiv(tf.constant([7, 8]), tf.constant([1, 0]))",
                             {"match": ["division by zero"]}),
    "floordiv/broadcast": "tf.math.floordiv(tf.reshape(tf.range(-6, 6), [3, 4]), "
                          "tf.constant([[3], [-4], [5]]))",
    "floordiv/operator": "(tf.constant([7, -8]) // 3, 7 // tf.constant([2, -2]))",
    "floordiv/operator_float": "tf.constant([[7.5], [-7.5]]) // tf.constant([2.0, -2.0])",
    "floormod/int_signs": "tf.math.floormod(tf.constant([7, -7, 7, -7, 6]), "
                          "tf.constant([2, 2, -2, -2, 3]))",
    "floormod/float_signs": "tf.math.floormod(tf.constant([7.0, -7.0, 7.5, -7.5, -0.0]), "
                            "tf.constant([2.0, 2.0, -2.0, -2.0, 2.0]))",
    "floormod/float_specials": "tf.math.floormod(tf.constant([5.0, 5.0, -5.0, 1.0, np.nan]), "
                               "tf.constant([np.inf, -np.inf, np.inf, 0.0, 1.0]))",
    "floormod/exact_large_quotient": "tf.math.floormod(tf.constant([1e10, 3.3e7, -1e20]), "
                                     "tf.constant([3.0, 0.7, 0.3]))",
    "floormod/int_by_zero": ("tf.math.floormod(tf.constant([7]), tf.constant([0]))",
                             {"match": ["division by zero"]}),
    "floormod/operator": "(tf.constant([7, 8]) % -3, tf.constant([7.0, 8.0]) % 3, "
                         "10 % tf.constant([3, -3]))",
    "logical/and_or_xor": """
        a = tf.constant([True, True, False, False])
        b = tf.constant([True, False, True, False])
        (tf.logical_and(a, b), tf.logical_or(a, b), tf.math.logical_xor(a, b),
         tf.logical_not(a))
    """,
    "logical/broadcast": "tf.logical_or(tf.constant([[True], [False]]), "
                         "tf.constant([True, False, False]))",
    "logical/python_lists": "tf.math.logical_and([True, False], [True, True])",
    "logical/int_error": ("tf.logical_and(tf.constant([1, 0]), tf.constant([1, 1]))",
                          {"match": ["int32"]}),
    "logical/operators": """
        a = tf.constant([True, False, True])
        b = tf.constant([False, False, True])
        (a & b, a | b, a ^ b, ~a)
    """,
    "bitwise/operators": """
        a = tf.constant([6, 3, -8, 0])
        b = tf.constant([3, 3, 3, -1])
        (a & b, a | b, a ^ b, ~a, a | 5, 5 ^ a)
    """,
    "bitwise/functions": "(tf.bitwise.bitwise_and(tf.constant([12, -1]), 10), "
                         "tf.bitwise.bitwise_or(tf.constant([-8, 7]), tf.constant([3, -1])), "
                         "tf.bitwise.bitwise_xor(tf.constant([5]), tf.constant([[1], [4]])), "
                         "tf.bitwise.invert(tf.constant([0, -1, 7])))",
    "bitwise/float_error": "tf.constant([3.0]) & tf.constant([3.0])",
    "bitwise/bool_error": "tf.bitwise.invert(tf.constant([True]))",
}
