"""TensorFlow-differential snippets for tf.TensorArray: eagerly (write changes the array,
clear_after_read, unwritten elements read as zeros, TensorFlow's eager errors), inside
tf.function (write returns a new array; Python loops and tf.while_loop unrolled at trace
time) and gradients through its methods.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py tensor_array`.
"""

from tfdiff_check import VALUES_AND_GRADIENTS

_X = "x = tf.constant([[1., 2.], [3., 4.], [5., 6.]])\n"
_TA = "ta = tf.TensorArray(tf.float32, size=3)\n"
_KEEP = "ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)\n"
# `body(v)`'s values and gradients, eagerly and in a tf.function (two calls)
_BOTH = _X + VALUES_AND_GRADIENTS

SNIPPETS = {
    # -- eager values ----------------------------------------------------------------------
    "tensor_array/write_stack": _X + _TA + "for i in range(3):\n    ta = ta.write(i, x[i] * 2)\n"
                                           "(ta.stack(), ta.size(), ta.element_shape)",
    "tensor_array/write_in_place": _X + _TA + "ta.write(1, x[1])\nta.stack()",
    "tensor_array/chained": "tf.TensorArray(tf.int32, size=2).write(0, 5).write(1, 7).stack()",
    "tensor_array/properties": "ta = tf.TensorArray(tf.int32, size=2, dynamic_size=True, "
                               "element_shape=[None, 2])\n"
                               "(ta.dtype, ta.dynamic_size, ta.element_shape, ta.size(), "
                               "tf.TensorArray('float32', size=1).dynamic_size)",
    "tensor_array/infer_shape": _TA + "ta.write(0, [[1., 2.]])\nta.element_shape",
    "tensor_array/partial_shape": "ta = tf.TensorArray(tf.float32, size=2, "
                                  "element_shape=[None, 2])\nta.write(0, [[1., 2.]])\n"
                                  "ta.element_shape",
    "tensor_array/python_int_to_float": _TA + "ta.write(0, 1).write(1, 2.5).stack()",
    "tensor_array/unwritten_zeros": _KEEP + "ta.write(1, [1., 2.])\n(ta.read(0), ta.stack())",
    "tensor_array/element_shape_zeros": "ta = tf.TensorArray(tf.int32, size=2, "
                                        "element_shape=[2, 1])\n(ta.stack(), ta.read(1))",
    "tensor_array/read_keeps": _X + _KEEP + "ta = ta.unstack(x)\n(ta.read(1), ta.read(1))",
    "tensor_array/dynamic": "ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)\n"
                            "ta = ta.write(3, 2.)\n(ta.size(), ta.stack())",
    "tensor_array/empty": "(tf.TensorArray(tf.float32, size=0).stack(), "
                          "tf.TensorArray(tf.int32, size=0, element_shape=[2, 3]).stack())",
    "tensor_array/negative_size": "tf.TensorArray(tf.float32, size=-1).size()",
    "tensor_array/tensor_size": "tf.TensorArray(tf.float32, size=tf.constant(2)).size()",
    "tensor_array/tensor_index": _X + _KEEP + "ta = ta.write(tf.constant(2), x[0])\n"
                                              "ta.read(tf.constant(2))",
    "tensor_array/unstack": _X + _KEEP + "ta = ta.unstack(x)\n"
                                         "(ta.read(2), ta.gather([2, 0]), ta.concat(), ta.size())",
    "tensor_array/unstack_fewer": _X + _TA + "ta = ta.unstack(x[:2])\n(ta.size(), ta.stack())",
    "tensor_array/unstack_python": "tf.TensorArray(tf.float32, size=2).unstack([1, 2]).stack()",
    "tensor_array/gather_repeat": _X + _TA + "ta.unstack(x).gather([0, 0, 1])",
    "tensor_array/scatter": "tf.TensorArray(tf.float32, size=3).scatter([2, 0], [5., 6.]).stack()",
    "tensor_array/scatter_short": "tf.TensorArray(tf.float32, size=3).scatter([1, 2], [5.])"
                                  ".stack()",
    "tensor_array/split": _KEEP + "ta = ta.split([1., 2., 3., 4.], [1, 0, 3])\n"
                                  "(ta.read(0), ta.read(1), ta.read(2), ta.size(), ta.concat())",
    "tensor_array/concat": "ta = tf.TensorArray(tf.float32, size=3, infer_shape=False)\n"
                           "ta.write(0, [1.]).write(1, [2., 3.]).write(2, [4., 5., 6.])\n"
                           "(ta.concat(), ta.element_shape)",
    "tensor_array/concat_2d": _X + _TA + "ta.unstack(tf.reshape(x, [3, 1, 2])).concat()",
    "tensor_array/close": _TA + "ta.close()\nta.size()",
    "tensor_array/identity": _TA + "ta.identity() is ta",
    "tensor_array/bool": "tf.TensorArray(tf.bool, size=2).write(0, True).stack()",
    "tensor_array/after_clear_unknown": (_X + _TA + "ta = ta.unstack(x)\nta.read(0)\nta.stack()",
                                         {"match": ["partially known"]}),
    "tensor_array/after_clear": _X + "ta = tf.TensorArray(tf.float32, size=3, "
                                     "element_shape=[2])\nta = ta.unstack(x)\nfirst = ta.read(0)\n"
                                           "(first, ta.stack(), ta.gather([0, 1]), "
                                           "ta.write(0, x[2]).read(0))",
    "tensor_array/dynamic_unstack_split": _X + "ta = tf.TensorArray(tf.float32, size=1, "
                                          "dynamic_size=True, clear_after_read=False)\n"
                                          "a = ta.unstack(x)\n(a.size(), a.element_shape, "
                                          "a.scatter([4], x[:1]).size(), "
                                          "a.split(tf.reshape(x, [6]), [2, 2, 1, 1]).size())",
    "tensor_array/overwrite": _X + _KEEP + "ta.write(1, x[0]).write(1, x[2])\n"
                                           "(ta.read(1), tf.function(lambda v: tf.TensorArray("
                                           "tf.float32, size=2).write(0, v[0]).write(0, v[1])"
                                           ".stack())(x))",
    # -- eager errors ----------------------------------------------------------------------
    "tensor_array_err/read_twice": (_X + _TA + "ta.write(0, x[0])\nta.read(0)\nta.read(0)",
                                    {"match": ["Could not read index 0 twice",
                                               "clear_after_read = false"]}),
    "tensor_array_err/read_unwritten_twice": (_TA + "ta.write(0, 1.)\nta.read(1)\nta.read(1)",
                                              {"match": ["Could not read index 1 twice"]}),
    "tensor_array_err/read_past": (_TA + "ta.read(5)",
                                   {"match": ["Tried to read from index 5 but array size is: 3"]}),
    "tensor_array_err/read_negative": (_TA + "ta.read(-1)",
                                       {"match": ["negative indices (index -1)"]}),
    "tensor_array_err/write_past": (_TA + "ta.write(3, 1.)",
                                    {"match": ["Tried to write to index 3 but array is not "
                                               "resizeable and size is: 3"]}),
    "tensor_array_err/write_negative": (_TA + "ta.write(-2, 1.)",
                                        {"match": ["Writing to negative indices (index -2)"]}),
    "tensor_array_err/dtype": (_TA + "ta.write(0, tf.constant(1))",
                               {"match": ["TensorArray dtype is float32 but Op is trying to "
                                          "write dtype int32"]}),
    "tensor_array_err/python_float_to_int": ("tf.TensorArray(tf.int32, size=2).write(0, 1.5)",
                                             {"match": ["TensorArray dtype is int32",
                                                        "dtype float32"]}),
    "tensor_array_err/shape": (_TA + "ta.write(0, 1.)\nta.write(1, [1., 2.])",
                               {"match": ["Incompatible shape for value ((2,)), expected (())"]}),
    "tensor_array_err/element_shape": ("tf.TensorArray(tf.float32, size=2, element_shape=[None,"
                                       " 2]).write(0, [[1., 2., 3.]])",
                                       {"match": ["Incompatible shape for value ((1, 3)), "
                                                  "expected ((None, 2))"]}),
    "tensor_array_err/stack_unknown": (_TA + "ta.stack()", {"match": ["partially known"]}),
    "tensor_array_err/stack_ragged": ("ta = tf.TensorArray(tf.float32, size=2, "
                                      "infer_shape=False)\nta.write(0, [1.]).write(1, [2., 3.])"
                                      ".stack()", {}),
    "tensor_array_err/concat_scalars": ("ta = tf.TensorArray(tf.float32, size=2)\n"
                                        "ta.write(0, 1.).write(1, 2.).concat()",
                                        {"match": ["Concat saw a scalar shape at index 0"]}),
    "tensor_array_err/no_size": ("tf.TensorArray(tf.float32)",
                                 {"match": ["Size must be declared"]}),
    "tensor_array_err/handle": ("tf.TensorArray(tf.float32, size=1, handle=1)",
                                {"match": ["handles are not supported"]}),
    "tensor_array_err/unstack_too_many": (_X + "tf.TensorArray(tf.float32, size=2).unstack(x)",
                                          {"match": ["Cannot unstack 3 tensors into a "
                                                     "TensorArray of static size 2"]}),
    "tensor_array_err/scatter_past": (_TA + "ta.scatter([3], [5.])",
                                      {"match": ["Tried to write to index 3"]}),
    "tensor_array_err/split_sum": (_TA + "ta.split([1., 2., 3.], [1, 1, 0])",
                                   {"match": ["sum of lengths is 2 and value's shape is: [3]"]}),
    "tensor_array_err/split_count": (_TA + "ta.split([1., 2., 3.], [1, 2])",
                                     {"match": ["size of lengths (3 vs. 2)"]}),
    "tensor_array_err/split_scalar_lengths": (_TA + "ta.split([1., 2., 3.], 3)",
                                              {"match": ["Expected lengths to be a vector"]}),
    "tensor_array_err/split_scalar": ("tf.TensorArray(tf.float32, size=1).split(3., [1])",
                                      {"match": ["at least a vector"]}),
    "tensor_array_err/float_size": ("tf.TensorArray(tf.float32, size=2.0)", {}),
    "tensor_array_err/grad": (_TA + "ta.grad('x')", {"match": ["not supported"]}),
    # -- gradients, eagerly and traced -------------------------------------------------------
    "tensor_array_grad/write_stack": "def body(v):\n    ta = tf.TensorArray(tf.float32, size=3)\n"
                                     "    for i in range(3):\n"
                                     "        ta = ta.write(i, tf.sin(v[i]) * (i + 1.))\n"
                                     "    return ta.stack()\n" + _BOTH,
    "tensor_array_grad/unstack_read": "def body(v):\n"
                                      "    ta = tf.TensorArray(tf.float32, size=3)\n"
                                      "    ta = ta.unstack(v * 2.)\n"
                                      "    return ta.read(2) * ta.read(0)\n" + _BOTH,
    "tensor_array_grad/gather_concat": "def body(v):\n"
                                       "    ta = tf.TensorArray(tf.float32, size=3, "
                                       "clear_after_read=False)\n"
                                       "    ta = ta.unstack(v)\n"
                                       "    return ta.gather([2, 0]), ta.concat() * 3.\n"
                                       + _BOTH,
    # eagerly only: TensorFlow 2.21's graph gradient of a gather repeating an index counts
    # it once (20 here, 10 in a tf.function)
    "tensor_array_grad/gather_repeat": _X + """
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.TensorArray(tf.float32, size=3).unstack(x).gather([2, 0, 2])
    loss = tf.reduce_sum(y * y)
t.gradient(loss, x)
""",
    "tensor_array_grad/scatter_split": "def body(v):\n"
                                       "    ta = tf.TensorArray(tf.float32, size=3)\n"
                                       "    ta = ta.scatter([1, 0], v[:2] ** 2)\n"
                                       "    tb = tf.TensorArray(tf.float32, size=2)\n"
                                       "    tb = tb.split(tf.reshape(v, [6]), [4, 2])\n"
                                       "    first = tb.read(0)\n"
                                       "    return ta.stack(), first * first\n"
                                       + _BOTH,
    "tensor_array_grad/unwritten": "def body(v):\n"
                                   "    ta = tf.TensorArray(tf.float32, size=3)\n"
                                   "    return ta.write(1, v[0] * v[2]).stack()\n" + _BOTH,
    # -- inside tf.function ------------------------------------------------------------------
    "tensor_array_traced/write_returns_new": _X + """
@tf.function
def f(v):
    ta = tf.TensorArray(tf.float32, size=3)
    tb = ta.write(0, v[0])
    ta.write(1, v[1])
    return tb.stack(), ta.stack()
(f(x), f(x + 1))
""",
    "tensor_array_traced/read_twice": _X + """
@tf.function
def f(v):
    ta = tf.TensorArray(tf.float32, size=3).unstack(v)
    return ta.read(1) + ta.read(1), ta.read(0)
f(x)
""",
    "tensor_array_traced/while_loop": _X + """
@tf.function
def f(v):
    n = tf.shape(v)[0]
    ta = tf.TensorArray(tf.float32, size=n)
    def body(i, ta):
        return i + 1, ta.write(i, tf.reduce_sum(v[i] * v[i]))
    _, ta = tf.while_loop(lambda i, ta: i < n, body, [tf.constant(0), ta])
    return ta.stack()
(f(x), f(x * 2))
""",
    "tensor_array_traced/while_loop_python_counter": _X + """
@tf.function
def f(v):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    def body(i, acc, ta):
        acc = acc * 0.5 + v[i]
        return i + 1, acc, ta.write(i, acc)
    _, last, ta = tf.while_loop(lambda i, acc, ta: i < 3, body, [0, tf.zeros([2]), ta])
    return last, ta.stack(), ta.size()
(f(x), f(-x))
""",
    "tensor_array_traced/range_loop": _X + """
@tf.function
def f(v):
    ta = tf.TensorArray(tf.int32, size=3)
    for i in tf.unstack(tf.range(3)):
        ta = ta.write(i, tf.cast(v[i, 0], tf.int32) * i)
    return ta.stack()
f(x)
""",
    "tensor_array_traced/rnn": _X + """
w = tf.Variable([[0.5, -1.], [1., 0.25]])
@tf.function
def step(v):
    with tf.GradientTape() as t:
        ta = tf.TensorArray(tf.float32, size=3)
        h = tf.zeros([2])
        for i in range(3):
            h = tf.tanh(tf.linalg.matvec(w, h) + v[i])
            ta = ta.write(i, h)
        loss = tf.reduce_sum(ta.stack() ** 2)
    return loss, t.gradient(loss, w)
(step(x / 4), step(x / 8))
""",
    # -- a traced index: tf.while_loop with maximum_iterations, an index argument ------------
    "tensor_array_loop/masked_while": _X + """
x = tf.concat([x, x[:1] + 6.], 0)
def run(v, limit):
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[2])
    def cond(i, s, ta):
        return tf.logical_and(i < 4, tf.reduce_sum(s) < limit)
    def body(i, s, ta):
        s = s + tf.gather(v, i)
        return i + 1, s, ta.write(i, s * 2.)
    i, s, ta = tf.while_loop(cond, body, (tf.constant(0), tf.zeros([2]), ta),
                             maximum_iterations=4)
    return i, s, ta.stack(), ta.read(tf.maximum(i - 1, 0))
def grads(v, limit):
    with tf.GradientTape() as t:
        t.watch(v)
        out = run(v, limit)
        loss = tf.reduce_sum(out[2] ** 2) + tf.reduce_sum(out[3])
    return out, tf.convert_to_tensor(t.gradient(loss, v))  # TensorFlow's is IndexedSlices
f = tf.function(grads)
[(grads(x, tf.constant(k)), f(x, tf.constant(k))) for k in (5., 12., 100.)]
""",
    "tensor_array_loop/index_argument": _X + """
@tf.function
def f(v, k):
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta = ta.write(k, v[0] * 2.).write(2 - k, v[1])
    return ta.stack(), ta.read(k), ta.read(2), ta.size()
(f(x, tf.constant(0)), f(x, tf.constant(1)), f(x, tf.constant(2)))
""",
    "tensor_array_loop/cond": _X + """
def g(v, p):
    with tf.GradientTape() as t:
        t.watch(v)
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2]).write(0, v[0])
        ta = tf.cond(p > 0, lambda: ta.write(1, v[1] * 2.), lambda: ta.write(2, v[2] ** 2))
        y = ta.stack()
        loss = tf.reduce_sum(y * y)
    return y, t.gradient(loss, v)
f = tf.function(g)
[(g(x, tf.constant(k)), f(x, tf.constant(k))) for k in (1., -1.)]
""",
}
