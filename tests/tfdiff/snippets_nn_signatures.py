"""TensorFlow-differential snippets for tf.nn's required arguments: the pooling functions
and conv2d take `strides` and `padding` without defaults (TypeError without them), None
strides step by 1; tf.concat needs its axis; sigmoid_cross_entropy_with_logits both
its keyword arguments.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py nn_signatures`.
"""

_X = """
x3 = tf.reshape(tf.range(20.0), [1, 5, 4])
x4 = tf.reshape(tf.range(50.0), [1, 5, 5, 2])
x5 = tf.reshape(tf.range(100.0), [1, 2, 5, 5, 2])
"""


def _missing(call):
    return (_X + call, {"match": ["required positional argument"]})


SNIPPETS = {
    "nn_required/max_pool_no_padding": _missing("tf.nn.max_pool(x4, 2, 2)"),
    "nn_required/max_pool_no_strides": _missing("tf.nn.max_pool(x4, 2, padding='VALID')"),
    "nn_required/avg_pool_no_strides": _missing("tf.nn.avg_pool(x5, 2)"),
    "nn_required/max_pool1d": _missing("tf.nn.max_pool1d(x3, 2, padding='SAME')"),
    "nn_required/max_pool2d": _missing("tf.nn.max_pool2d(x4, 2)"),
    "nn_required/max_pool3d": _missing("tf.nn.max_pool3d(x5, 2, 1)"),
    "nn_required/avg_pool1d": _missing("tf.nn.avg_pool1d(x3, 2)"),
    "nn_required/avg_pool2d": _missing("tf.nn.avg_pool2d(x4, 2, 2)"),
    "nn_required/avg_pool3d": _missing("tf.nn.avg_pool3d(x5, 2, padding='VALID')"),
    "nn_required/conv2d": _missing("tf.nn.conv2d(x4, tf.ones([2, 2, 2, 1]))"),
    "nn_required/concat": _missing("tf.concat([x3, x3])"),
    "nn_required/sigmoid_xent": ("tf.nn.sigmoid_cross_entropy_with_logits(logits=[1.0])",
                                 {"match": ["labels", "logits", "must be provided"]}),
    # None strides step by 1 (texflow's own tf.max_pool steps by ksize instead)
    "nn_strides_none/pools": _X + "(tf.nn.max_pool2d(x4, 2, None, 'VALID'), "
                                  "tf.nn.avg_pool2d(x4, 3, None, 'SAME'), "
                                  "tf.nn.max_pool(x4, [2, 3], None, 'SAME'), "
                                  "tf.nn.avg_pool(x4, 2, None, 'VALID'), "
                                  "tf.nn.max_pool(x3, 2, None, 'VALID'), "
                                  "tf.nn.avg_pool(x5, 2, None, 'VALID'))",
    "nn_strides_none/conv2d": _X + "tf.nn.conv2d(x4, tf.ones([2, 3, 2, 1]), None, 'VALID', "
                                   "dilations=None)",
    "nn_strides_none/keywords": _X + "(tf.nn.max_pool2d(input=x4, ksize=2, strides=2, "
                                     "padding='SAME', data_format='NHWC'), "
                                     "tf.nn.conv2d(input=x4, filters=tf.ones([1, 1, 2, 3]), "
                                     "strides=[1, 2, 2, 1], padding='VALID'))",
}
