"""TensorFlow-differential snippets for ops/nn_extra.py: in_top_k, space_to_depth,
depth_to_space, space_to_batch(_nd), batch_to_space, crelu, lrn, log_poisson_loss,
weighted_cross_entropy_with_logits, the moments helpers, zero_fraction, shape_n,
scalar_mul, realdiv, parallel_stack, saturate_cast, the broadcast shape helpers,
grad_pass_through, dynamic_partition and dynamic_stitch; values, errors, gradients.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py nn_extra`.
"""

from tfdiff_check import VALUES_AND_GRADIENTS

_IMG = "x = tf.reshape(tf.range(2 * 4 * 6 * 2, dtype=tf.float32) / 10, [2, 4, 6, 2])\n"


def _grads(body):
    return _IMG + f"body = lambda v: {body}\n" + VALUES_AND_GRADIENTS


SNIPPETS = {
    "in_top_k/ties_and_nonfinite": "tf.nn.in_top_k([0, 0, 0, 2, 1], [[1., np.nan, 0.], "
                                   "[np.inf, 1., 0.], [1., np.inf, 0.], [1., 2., 3.], "
                                   "[2., 2., 2.]], 2)",
    "in_top_k/range": "tf.nn.in_top_k([0, 1, 3, -1, 4], [[1., 1., 0., 0.], [.5, .2, .3, .1], "
                      "[1., 2., 3., 0.], [1., 2., 3., 4.], [1., 2., 3., 4.]], 1)",
    "in_top_k/math": "tf.math.in_top_k([2], [[0.1, 0.2, 0.7]], 3)",
    "space_to_depth/values": _IMG + "tf.nn.space_to_depth(x, 2)",
    "space_to_depth/round_trip": _IMG + "tf.nn.depth_to_space(tf.nn.space_to_depth(x, 2), 2)",
    "space_to_depth/grads": _grads("tf.nn.space_to_depth(v, 2) * tf.range(8.0)"),
    "space_to_depth/depth_to_space": "tf.nn.depth_to_space(tf.reshape(tf.range(32.), "
                                     "[1, 2, 2, 8]), 2)",
    "space_to_depth_err/size": ("tf.nn.space_to_depth(tf.zeros([1, 3, 4, 1]), 2)",
                                {"match": ["should be divisible by block_size: 2"]}),
    "space_to_depth_err/depth": ("tf.nn.depth_to_space(tf.zeros([1, 2, 2, 3]), 2)",
                                 {"match": ["Input depth dimension 3 should be divisible by: 4"]}),
    "space_to_batch/values": _IMG + "tf.space_to_batch(x, [2, 3], [[0, 0], [1, 2]])",
    "space_to_batch/nn": _IMG + "tf.nn.space_to_batch(x, [2, 2], [[1, 1], [0, 2]])",
    "space_to_batch/nd_1d": "tf.space_to_batch_nd(tf.reshape(tf.range(12.), [2, 6]), [3], "
                            "[[0, 0]])",
    "space_to_batch/round_trip": _IMG + "tf.batch_to_space(tf.space_to_batch(x, [2, 3], "
                                        "[[0, 0], [1, 2]]), [2, 3], [[0, 0], [1, 2]])",
    "space_to_batch/grads": _grads("tf.space_to_batch(v, [2, 2], [[0, 0], [1, 1]])"),
    "space_to_batch/crop": _IMG + "tf.batch_to_space(x, [2, 1], [[1, 2], [0, 3]])",
    "space_to_batch_err/divisible": ("tf.space_to_batch(tf.zeros([1, 3, 4, 1]), [2, 2], "
                                     "[[0, 0], [0, 0]])",
                                     {"match": ["padded_shape[0]=3 is not divisible by "
                                                "block_shape[0]=2"]}),
    "crelu/values": "tf.nn.crelu(tf.constant([[1., -2.], [0., 3.]]))",
    "crelu/axis": "tf.nn.crelu(tf.constant([[1., -2.], [0., 3.]]), axis=0)",
    "lrn/values": "tf.nn.lrn(tf.reshape(tf.range(8.), [1, 1, 1, 8]), 2, 1.0, 0.1, 0.5)",
    "lrn/defaults": "tf.nn.local_response_normalization(tf.reshape(tf.range(24.) / 10, "
                    "[1, 2, 1, 12]))",
    "lrn/grads": _grads("tf.nn.lrn(v, 1, 2.0, 0.3, 0.75)"),
    "losses/log_poisson": "tf.nn.log_poisson_loss(tf.constant([0., 1., 3.]), "
                          "tf.constant([0.5, 0.1, 1.2]))",
    "losses/log_poisson_full": "tf.nn.log_poisson_loss(tf.constant([0., 1., 3.]), "
                               "tf.constant([0.5, 0.1, 1.2]), True)",
    "losses/weighted_ce": "tf.nn.weighted_cross_entropy_with_logits(tf.constant([0., 1., .5]), "
                          "tf.constant([0.5, -1.2, 30.]), 2.0)",
    "moments/weighted": "tf.nn.weighted_moments(tf.constant([[1., 2.], [3., 5.]]), [0], "
                        "tf.constant([[1.], [3.]]))",
    "moments/weighted_keepdims": "tf.nn.weighted_moments(tf.constant([[1., 2.], [3., 5.]]), "
                                 "[1], tf.constant([1., 3.]), keepdims=True)",
    "moments/normalize": "tf.nn.normalize_moments(tf.constant(2.), tf.constant([2., 4.]), "
                         "tf.constant([4., 10.]), None)",
    "moments/normalize_shift": "tf.nn.normalize_moments(tf.constant(2.), tf.constant([2., 4.]), "
                               "tf.constant([4., 10.]), tf.constant(1.))",
    "moments/sufficient": "tf.nn.sufficient_statistics(tf.reshape(tf.range(6.), [2, 3]), [0], "
                          "shift=1.0)[:3]",
    "moments/sufficient_keepdims": "tf.nn.sufficient_statistics(tf.reshape(tf.range(6.), "
                                   "[2, 3]), [0, 1], keepdims=True)[:3]",
    "misc/zero_fraction": "tf.nn.zero_fraction(tf.constant([0, 1, 0, 2]))",
    "misc/shape_n": "tf.shape_n([tf.zeros([2, 3]), tf.zeros([4])])",
    "misc/scalar_mul": "tf.scalar_mul(2.0, tf.constant([1., 2.]))",
    "misc/realdiv": "tf.realdiv(tf.constant([1., 2.]), 4.0)",
    "misc/parallel_stack_traced": "tf.function(lambda a, b: tf.parallel_stack([a, b]))("
                                  "tf.constant([1.]), tf.constant([2.]))",
    "misc/parallel_stack_eager": ("tf.parallel_stack([tf.constant([1.])])",
                                  {"match": ["not compatible with eager execution"]}),
    "misc/saturate_cast": "tf.saturate_cast(tf.constant([-1e10, 3.7, 1e10]), tf.int32)",
    "misc/saturate_cast_int": "tf.saturate_cast(tf.constant([-5, 300, 7]), tf.int32)",
    "misc/broadcast_dynamic_shape": "tf.broadcast_dynamic_shape([2, 1], [3])",
    "misc/grad_pass_through": "x = tf.constant([0.3, 1.7])\n"
                              "with tf.GradientTape() as t:\n"
                              "    t.watch(x)\n"
                              "    y = tf.reduce_sum(tf.grad_pass_through(tf.round)(x) * 3.0)\n"
                              "(y, t.gradient(y, x))",
    "partition/dynamic_partition": "tf.dynamic_partition(tf.constant([1., 2., 3., 4.]), "
                                   "[1, 0, 1, 1], 2)",
    "partition/rows": "tf.dynamic_partition(tf.reshape(tf.range(6.), [3, 2]), [1, 1, 0], 3)",
    "partition/err_range": ("tf.dynamic_partition(tf.constant([1., 2.]), [0, 2], 2)",
                            {"match": ["is not in [0, 2)"]}),
    "partition/stitch": "tf.dynamic_stitch([[0, 2], [1, 3]], [[1., 2.], [3., 4.]])",
    "partition/stitch_later_wins": "tf.dynamic_stitch([[0, 1], [1]], [[1., 2.], [9.]])",
    "partition/stitch_rows": "tf.dynamic_stitch([[0, 1], [2]], [[[1., 2.], [3, 4]], [[9., 8]]])",
    "partition/stitch_scalar_index": "tf.dynamic_stitch([1, [0]], [[5., 6.], [[7., 8.]]])",
}
