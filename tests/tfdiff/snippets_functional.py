"""TensorFlow-differential snippets for tf.map_fn, tf.scan, tf.foldl and tf.foldr: nested
elems, fn_output_signature, empty leading dimensions, TensorArray errors, gradients, and
each inside tf.function (texflow unrolls the loop at trace time); tf.py_function and
tf.numpy_function eagerly and inside tf.function (host code at every call).
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py functional`.
"""

from tfdiff_check import VALUES_AND_GRADIENTS

_X = "x = tf.constant([[1., 2.], [3., 4.], [5., 6.]])\n"
# the function's values, then its gradients, eagerly and in a tf.function (two calls)
_BOTH = _X + VALUES_AND_GRADIENTS

SNIPPETS = {
    # -- map_fn ------------------------------------------------------------------------
    "map_fn/basic": _X + "tf.map_fn(lambda r: r * 2, x)",
    "map_fn/reduce": _X + "tf.map_fn(lambda r: tf.reduce_sum(r), x)",
    "map_fn/tuple_out": _X + "tf.map_fn(lambda t: (t[0], t[1] * t[0]), (x, x + 1))",
    "map_fn/dict": _X + "tf.map_fn(lambda d: {'p': d['a'] * d['b'], 'q': d['b']}, "
                        "{'a': x, 'b': x - 1})",
    "map_fn/sig_int": _X + "tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r), tf.int32), x, "
                           "fn_output_signature=tf.int32)",
    "map_fn/dtype_int": _X + "tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r), tf.int32), x, "
                             "dtype=tf.int32)",
    "map_fn/sig_struct": _X + "tf.map_fn(lambda r: (r, tf.reduce_max(r)), x, "
                              "fn_output_signature=(tf.float32, tf.float32))",
    "map_fn/sig_list": _X + "tf.map_fn(lambda r: [r, -r], x, "
                            "fn_output_signature=[tf.float32, tf.float32])",
    "map_fn/sig_spec": _X + "tf.map_fn(lambda r: tf.reduce_sum(r), x, "
                            "fn_output_signature=tf.TensorSpec([], tf.float32))",
    "map_fn/tuple_in_one_out": _X + "tf.map_fn(lambda t: t[0] + t[1], (x, x), "
                                    "fn_output_signature=tf.float32)",
    "map_fn/python_out": _X + "tf.map_fn(lambda r: 1.0, x)",
    "map_fn/numpy_elems": "tf.map_fn(lambda r: r * 2, np.arange(3, dtype=np.int32))",
    "map_fn/empty": "tf.map_fn(lambda r: r * 2, tf.zeros([0, 3]))",
    "map_fn/empty_sig": "tf.map_fn(lambda r: tf.reduce_sum(r), tf.zeros([0, 3]), "
                        "fn_output_signature=tf.float32)",
    "map_fn/empty_spec": "tf.map_fn(lambda r: tf.reduce_sum(r), tf.zeros([0, 3]), "
                         "fn_output_signature=tf.TensorSpec([2], tf.int32))",
    "map_fn/empty_nested": "tf.map_fn(lambda t: t, (tf.zeros([0, 3]), tf.zeros([0], tf.int32)))",
    "map_fn/err_struct": (_X + "tf.map_fn(lambda t: t[0] + t[1], (x, x))",
                          {"match": ["same nested structure"]}),
    "map_fn/err_list_out": (_X + "tf.map_fn(lambda r: [r, r], x)",
                            {"match": ["same nested structure"]}),
    "map_fn/err_dtype": (_X + "tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r), tf.int32), x)",
                         {"match": ["TensorArray dtype is float32", "dtype int32"]}),
    "map_fn/err_sig_dtype": (_X + "tf.map_fn(lambda r: tf.reduce_sum(r), x, "
                                  "fn_output_signature=tf.int32)",
                             {"match": ["TensorArray dtype is int32"]}),
    "map_fn/err_scalar": ("tf.map_fn(lambda r: r, tf.constant(1.0))",
                          {"match": ["1+ dimensional"]}),
    "map_fn/err_python_list": ("tf.map_fn(lambda r: r, [1., 2., 3.])",
                               {"match": ["1+ dimensional"]}),
    "map_fn/err_lengths": ("tf.map_fn(lambda t: t[0], (tf.zeros([2]), tf.zeros([3])))",
                           {"match": ["Dimensions 2 and 3 are not compatible"]}),
    "map_fn/err_shapes": ("tf.map_fn(lambda r: r[:tf.cast(r[0], tf.int32)], "
                          "tf.constant([[1., 2.], [2., 3.]]))",
                          {"match": ["Incompatible shape for value ((2,)), expected ((1,))"]}),
    "map_fn/err_none": (_X + "tf.map_fn(lambda r: None, x)", {"match": ["None"]}),
    "map_fn/err_empty_elems": ("tf.map_fn(lambda t: t, ())", {"match": ["any Tensors"]}),
    "map_fn_traced/values_and_grads": "body = lambda v: tf.map_fn(lambda r: r * r + "
                                      "tf.reduce_sum(r), v)\n" + _BOTH,
    "map_fn_traced/nested_sig": "body = lambda v: tf.map_fn(lambda t: (tf.reduce_sum(t[0] * "
                                "t[1]), t[0]), (v, v + 1.0), fn_output_signature=(tf.float32, "
                                "tf.float32))\n" + _BOTH,
    "map_fn_traced/matmul": "w = tf.constant([[1., -1.], [0.5, 2.]])\n"
                            "body = lambda v: tf.map_fn(lambda r: tf.tanh(tf.reduce_sum(w * r, 1) "
                            "+ tf.matmul(w, r[:, None])[:, 0]), v)\n" + _BOTH,
    "map_fn_traced/empty": "f = tf.function(lambda v: tf.map_fn(lambda r: tf.reduce_sum(r), v, "
                           "fn_output_signature=tf.TensorSpec([], tf.int32)))\n"
                           "f(tf.zeros([0, 4], tf.int32))",
    # -- vectorized_map (texflow: map_fn, TensorFlow's fallback) -----------------------
    "vectorized_map/basic": _X + "tf.vectorized_map(lambda r: r * 2, x)",
    "vectorized_map/tuple": _X + "tf.vectorized_map(lambda r: (r[0], tf.reduce_sum(r)), x)",
    "vectorized_map/tuple_in": _X + "tf.vectorized_map(lambda t: t[0] * t[1], (x, x + 1))",
    "vectorized_map/empty": "tf.vectorized_map(lambda r: r * 2, tf.zeros([0, 3]))",
    "vectorized_map_traced/values_and_grads": "body = lambda v: tf.vectorized_map(lambda r: "
                                              "tf.sin(r) * tf.reduce_max(r), v)\n" + _BOTH,
    # -- scan --------------------------------------------------------------------------
    "scan/basic": _X + "tf.scan(lambda a, r: a + r, x)",
    "scan/init": _X + "tf.scan(lambda a, r: a * 2 + r, x, initializer=tf.ones([2]))",
    "scan/reverse": _X + "tf.scan(lambda a, r: a * 2 + r, x, reverse=True)",
    "scan/reverse_init": _X + "tf.scan(lambda a, r: a * 2 + r, x, initializer=tf.ones([2]), "
                              "reverse=True)",
    "scan/nested": _X + "tf.scan(lambda a, r: (a[0] + r[0], a[1] * r[1]), (x, x))",
    "scan/nested_init": _X + "tf.scan(lambda a, r: (a[0] + r, a[1] + tf.reduce_sum(r)), x, "
                             "initializer=(tf.zeros([2]), tf.constant(0.)))",
    "scan/dict": _X + "tf.scan(lambda a, r: {'s': a['s'] + r['s']}, {'s': x})",
    "scan/int_python_init": "tf.scan(lambda a, r: a + r, tf.constant([1, 2, 3]), initializer=0)",
    "scan/empty_init": "tf.scan(lambda a, r: a + r, tf.zeros([0, 2]), initializer=tf.zeros([2]))",
    "scan/err_empty": ("tf.scan(lambda a, r: a + r, tf.zeros([0, 2]))",
                       {"match": ["Tried to read from index 0 but array size is: 0"]}),
    "scan/err_empty_reverse": ("tf.scan(lambda a, r: a + r, tf.zeros([0, 2]), reverse=True)",
                               {"match": ["negative indices (index -1)"]}),
    "map_fn/err_spec_shape": ("tf.map_fn(lambda r: r, tf.zeros([2, 3]), "
                              "fn_output_signature=tf.TensorSpec([5], tf.float32))",
                              {"match": ["Incompatible shape for value ((3,)), expected ((5,))"]}),
    "map_fn/spec_none_dim": ("tf.map_fn(lambda r: r, tf.zeros([2, 3]), dtype=tf.int32, "
                             "fn_output_signature=tf.TensorSpec([None], tf.float32))"),
    "scan/err_shape": (_X + "tf.scan(lambda a, r: (a[0] + r, a[1] * r), (x,), "
                            "initializer=(tf.zeros([2]), tf.ones([2])))",
                       {"match": ["Incompatible shape for value ((1, 2)), expected ((2,))"]}),
    "scan_traced/values_and_grads": "body = lambda v: tf.scan(lambda a, r: a * r + tf.sin(r), "
                                    "v, initializer=tf.ones([2]))\n" + _BOTH,
    "scan_traced/reverse_nested": "body = lambda v: tf.scan(lambda a, r: (a[0] * 0.5 + r, "
                                  "a[1] + tf.reduce_sum(r * r)), v, initializer=(tf.zeros([2]), "
                                  "tf.constant(1.0)), reverse=True)\n" + _BOTH,
    "scan_traced/variable_grad": """
w = tf.Variable([[1., -1.], [0.5, 2.]])
def step(x):
    with tf.GradientTape() as t:
        y = tf.scan(lambda a, r: tf.tanh(tf.matmul(a[None], w)[0] + r), x,
                    initializer=tf.zeros([2]))
        loss = tf.reduce_sum(y * y)
    return loss, t.gradient(loss, w)
x = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2) / 8)
f = tf.function(step)
(step(x), f(x), f(x * 2))
""",
    # -- foldl / foldr -----------------------------------------------------------------
    "fold/foldl": _X + "tf.foldl(lambda a, r: a + r, x)",
    "fold/foldl_init": _X + "tf.foldl(lambda a, r: a * 2 + r, x, initializer=tf.ones([2]))",
    "fold/foldr": _X + "tf.foldr(lambda a, r: a * 2 + r, x)",
    "fold/foldr_init": _X + "tf.foldr(lambda a, r: a * 2 + r, x, initializer=tf.ones([2]))",
    "fold/nested": _X + "tf.foldl(lambda a, r: (a[0] + r[0], a[1] - r[1]), (x, 2 * x))",
    "fold/int": "(tf.foldl(lambda a, r: a + r, tf.constant([1, 2, 3])), "
                "tf.foldr(lambda a, r: a * 10 + r, tf.constant([1, 2, 3])))",
    "fold/python_init": "tf.foldl(lambda a, r: a + r, tf.constant([1., 2., 3.]), "
                        "initializer=0.5)",
    "fold/empty_init": "tf.foldl(lambda a, r: a + r, tf.zeros([0, 2]), initializer=tf.ones([2]))",
    "fold/err_empty": ("tf.foldr(lambda a, r: a + r, tf.zeros([0, 2]))",
                       {"match": ["negative indices (index -1)"]}),
    "fold_traced/values_and_grads": "body = lambda v: (tf.foldl(lambda a, r: a * r, v), "
                                    "tf.foldr(lambda a, r: a * 0.5 + r * r, v))\n" + _BOTH,
    # -- py_function / numpy_function ------------------------------------------------------
    "py_function/single": _X + "tf.py_function(lambda a: a * 2, [x], tf.float32)",
    "py_function/list": _X + "tf.py_function(lambda a, b: [a * b, a], [x, x + 1], "
                             "[tf.float32, tf.float32])",
    "py_function/tuple_tout": _X + "tf.py_function(lambda a: (a, -a), [x], "
                                   "(tf.float32, tf.float32))",
    "py_function/one_in_list": _X + "tf.py_function(lambda a: a, [x], [tf.float32])",
    "py_function/more_than_tout": _X + "tf.py_function(lambda a: [a, a], [x], [tf.float32])",
    "py_function/python_result": _X + "tf.py_function(lambda a: 3, [x], tf.float32)",
    "py_function/none_empty": _X + "tf.py_function(lambda a: None, [x], [])",
    "py_function/keywords": _X + "tf.py_function(func=lambda a: a + 1, inp=[x], Tout=tf.float32)",
    "py_function/gradient": _X + """
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.py_function(lambda a: a * a, [x], tf.float32)
t.gradient(y, x)
""",
    "py_function/gradient_unused_and_variable": _X + """
v = tf.Variable(2.0)
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.py_function(lambda a, b: a * v, [x, x[0, 0]], tf.float32)
t.gradient(y, [x, v])
""",
    "py_function/gradient_second_order": _X + """
with tf.GradientTape() as t2:
    t2.watch(x)
    with tf.GradientTape() as t1:
        t1.watch(x)
        y = tf.py_function(lambda a: a * a * a, [x], tf.float32)
    g = t1.gradient(y, x)
(g, t2.gradient(g, x))
""",
    "numpy_function/gradient": _X + """
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.numpy_function(lambda a: a * 2, [x], tf.float32)
t.gradient(y, x)
""",
    "py_function/err_count": (_X + "tf.py_function(lambda a: a, [x], [tf.float32, tf.float32])",
                              {"match": ["returns 1 values, but expects to see 2 values"]}),
    "py_function/err_dtype": (_X + "tf.py_function(lambda a: tf.cast(a, tf.int32), [x], "
                                   "tf.float32)",
                              {"match": ["requested dtype float32 for Tensor with dtype int32"]}),
    "py_function/err_raise": (_X + "tf.py_function(lambda a: 1 / 0, [x], tf.float32)",
                              {"match": ["ZeroDivisionError: division by zero"]}),
    "py_function/err_no_tout": (_X + "tf.py_function(lambda a: a, [x])",
                                {"match": ["Missing required argument: 'Tout'"]}),
    "py_function_traced/every_call": _X + """
calls = []
def host(a):
    calls.append(1)
    return a * float(len(calls))
f = tf.function(lambda v: tf.py_function(host, [v * 2], tf.float32) + 1)
(f(x), f(x), f(x + 1), len(calls))
""",
    "py_function_traced/numpy_every_call": _X + """
calls = []
def host(a, b):
    calls.append(1)
    return (a * b + len(calls)).astype(np.float32), np.int32(a.shape[0])
f = tf.function(lambda v: tf.numpy_function(host, [v, v - 1], [tf.float32, tf.int32]))
(f(x), f(x), f(x * 3), len(calls))
""",
    "py_function_traced/gradient": _X + """
calls = []
def host(a, b):
    calls.append(1)
    return a * a * 3.0, tf.sin(b) + a
@tf.function
def f(v, w):
    with tf.GradientTape() as t:
        t.watch([v, w])
        p, q = tf.py_function(host, [v, w], [tf.float32, tf.float32])
        z = tf.reduce_sum(p) + tf.reduce_sum(q * 2.0)
    return t.gradient(z, [v, w])
(f(x, x[0, 0]), f(x * 2.0, x[1, 1]), len(calls))
""",
    "py_function_traced/gradient_unused_input": _X + """
@tf.function
def f(v, w):
    with tf.GradientTape() as t:
        t.watch([v, w])
        y = tf.py_function(lambda a, b: a * 2.0, [v, w], tf.float32)
    return t.gradient(y, [v, w])
f(x, x[0, 0] * 3.0)
""",
    "py_function_traced/tape_outside": _X + """
f = tf.function(lambda v: tf.py_function(lambda a: a * a, [v], tf.float32) * 2.0)
grads = []
for k in (1.0, 2.0):
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x * k)
    grads.append(t.gradient(y, x))
grads
""",
    "py_function_traced/err_dtype": (_X + "f = tf.function(lambda v: tf.py_function(lambda a: "
                                          "tf.cast(a, tf.int32), [v], tf.float32))\nf(x)",
                                     {"match": ["requested dtype float32"]}),
    "numpy_function/single": _X + "tf.numpy_function(lambda a: a * 2, [x], tf.float32)",
    "numpy_function/pair": _X + "tf.numpy_function(lambda a, b: (a + b, a.sum()), [x, x], "
                                "(tf.float32, tf.float32))",
    "numpy_function/python_int": _X + "tf.numpy_function(lambda a: 3, [x], tf.float32)",
    "numpy_function/none": _X + "tf.numpy_function(lambda a: None, [x], tf.float32)",
    "numpy_function/receives_numpy": _X + "tf.numpy_function(lambda a: np.float32(isinstance("
                                          "a, np.ndarray)), [x], tf.float32)",
    "numpy_function/err_raise": (_X + "tf.numpy_function(lambda a: 1 / 0, [x], tf.float32)",
                                 {"match": ["division by zero"]}),
}
