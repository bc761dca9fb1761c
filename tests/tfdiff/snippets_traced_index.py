"""TensorFlow-differential snippets for indexing with traced values inside tf.function
(`x[i]`, `tf.slice` with a tensor begin, their errors at each call and gradients), a
Variable slice's `assign`, and lists holding tensors packed where a tensor goes.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py traced_index`.
"""

_X = "x = tf.reshape(tf.range(24.0), [2, 3, 4])\n"
_F = _X + "f = tf.function(lambda x, i: {})\n"


def _calls(body, *indices):
    return _F.format(body) + "(" + ", ".join(f"f(x, tf.constant({i}))" for i in indices) + ")"


SNIPPETS = {
    "getitem/row": _calls("x[i]", 0, 1, -1),
    "getitem/middle": _calls("x[:, i]", 0, 2, -3),
    "getitem/last": _calls("x[..., i]", 3, -4),
    "getitem/mixed": _calls("x[1, i, 1:3]", 2, 0),
    "getitem/newaxis": _calls("x[None, i, ::2]", 1),
    "getitem/two": _calls("x[i, i + 1]", 0, 1),
    "getitem/computed": _calls("x[tf.argmax(tf.reduce_sum(x, [1, 2]), output_type=tf.int32)]", 0),
    "getitem_err/too_big": (_calls("x[i]", 0, 2), {"match": ["slice index 2 of dimension 0"]}),
    "getitem_err/too_small": (_calls("x[:, i]", 0, -4),
                              {"match": ["slice index -1 of dimension 1"]}),
    "getitem_grad/gather": "w = tf.Variable(tf.reshape(tf.range(16.0), [4, 4]))\n"
                           "def g(i):\n"
                           "    with tf.GradientTape() as t:\n"
                           "        y = tf.reduce_sum(w[i] * w[:, i])\n"
                           "    return t.gradient(y, w)\n"
                           "(g(tf.constant(2)), tf.function(g)(tf.constant(2)), "
                           "tf.function(g)(tf.constant(-1)))",
    "slice/begin_list": _X + "f = tf.function(lambda x, i: tf.slice(x, [0, i, 1], [2, 2, -1]))\n"
                             "(f(x, tf.constant(0)), f(x, tf.constant(1)))",
    "slice/begin_tensor": _X + "f = tf.function(lambda x, b: tf.slice(x, b, [1, 2, 2]))\n"
                               "(f(x, tf.constant([0, 1, 2])), f(x, tf.constant([1, 0, 0])))",
    "slice_err/begin": (_X + "f = tf.function(lambda x, i: tf.slice(x, [i, 0, 0], [1, 3, 4]))\n"
                             "(f(x, tf.constant(0)), f(x, tf.constant(3)))",
                        {"match": ["Expected begin[0] in [0, 2], but got 3"]}),
    "slice_err/size": (_X + "f = tf.function(lambda x, i: tf.slice(x, [0, i, 0], [1, 2, 4]))\n"
                            "(f(x, tf.constant(0)), f(x, tf.constant(2)))",
                       {"match": ["Expected size[1] in [0, 1], but got 2"]}),
    "slice_err/eager": ("tf.slice(tf.zeros([4, 3]), [3, 0], [2, 3])",
                        {"match": ["Expected size[0] in [0, 1], but got 2"]}),
    "variable_slice/assign": "v = tf.Variable(tf.zeros([3, 4]))\n"
                             "v[1].assign([1., 2., 3., 4.])\n"
                             "v[:, 1:3].assign(tf.ones([3, 2]) * 5)\n"
                             "v[::2, -1].assign(7.0)\n"
                             "v.numpy()",
    "variable_slice/traced": "v = tf.Variable(tf.zeros([3, 2]))\n"
                             "f = tf.function(lambda i: v[i].assign(tf.fill([2], 9.0)))\n"
                             "f(tf.constant(2))\nf(tf.constant(-3))\nv.numpy()",
    "variable_slice/err_shape": ("v = tf.Variable(tf.zeros([3, 4]))\nv[1].assign([1., 2.])",
                                 {"match": ["Cannot broadcast input shape [2] into final shape "
                                            "[4]"]}),
    "variable_slice/err_dtype": ("w = tf.Variable([0, 0])\nw[0].assign(5.5)",
                                 {"match": ["Cannot convert 5.5"]}),
    "pack/convert": "x = tf.constant([[1., 2.], [3., 4.]])\n"
                    "tf.convert_to_tensor([[x[0, 0], 2.0], x[1]])",
    "pack/traced": "x = tf.constant([[1., 2.], [3., 4.]])\n"
                   "f = tf.function(lambda x, i: tf.tensor_scatter_nd_update(x, [[0]], [x[i]]))\n"
                   "f(x, tf.constant(1))",
}
