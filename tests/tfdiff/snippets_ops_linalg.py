"""TensorFlow-differential snippets: tensordot, einsum, norm, clipping, average loss and
GradientTape.jacobian (owner: tf2ops). `id: source` or `id: (source, options)`; the id's
part before '/' is its test group. After editing:
`$TF_PYTHON scripts/make_tf_diff_fixtures.py ops_linalg`.
"""

_R = "tf.constant(np.random.default_rng({}).normal(0, 1, {}).astype(np.float32))"

SNIPPETS = {
    "tensordot/matmul": f"tf.tensordot({_R.format(1, '(2, 3)')}, {_R.format(2, '(3, 4)')}, 1)",
    "tensordot/outer": "tf.tensordot(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0]), 0)",
    "tensordot/axis_lists": f"tf.tensordot({_R.format(3, '(2, 3, 4)')}, "
                            f"{_R.format(4, '(4, 3, 5)')}, axes=[[1, 2], [1, 0]])",
    "tensordot/int_pair": f"tf.tensordot({_R.format(5, '(2, 3)')}, {_R.format(6, '(3, 2)')}, "
                          "axes=[1, 0])",
    "tensordot/full": f"tf.tensordot({_R.format(7, '(2, 3)')}, {_R.format(8, '(2, 3)')}, 2)",
    "tensordot/ints": "tf.tensordot(tf.reshape(tf.range(6), [2, 3]), tf.ones([3], tf.int32), 1)",
    "tensordot/axes_error": "tf.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), axes=3)",
    "tensordot/negative_error": "tf.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), axes=-1)",
    "tensordot/count_error": "tf.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), "
                             "axes=[[1], [0, 1]])",
    "tensordot/size_error": "tf.tensordot(tf.ones([2, 3]), tf.ones([4, 5]), axes=1)",
    "einsum/matmul": f"tf.einsum('ij,jk->ik', {_R.format(9, '(2, 3)')}, "
                     f"{_R.format(10, '(3, 4)')})",
    "einsum/batch_matmul": f"tf.einsum('bij,bjk->bik', {_R.format(11, '(2, 2, 3)')}, "
                           f"{_R.format(12, '(2, 3, 4)')})",
    "einsum/matvec": f"tf.einsum('ij,j->i', {_R.format(13, '(3, 4)')}, {_R.format(14, '(4,)')})",
    "einsum/transpose": "tf.einsum('ij->ji', tf.reshape(tf.range(6), [2, 3]))",
    "einsum/sum_all": f"tf.einsum('ij->', {_R.format(15, '(3, 4)')})",
    "einsum/sum_axis": f"tf.einsum('ijk->ik', {_R.format(16, '(2, 3, 4)')})",
    "einsum/outer": "tf.einsum('i,j->ij', tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0]))",
    "einsum/hadamard": f"tf.einsum('ij,ij->ij', {_R.format(17, '(2, 3)')}, "
                       f"{_R.format(18, '(2, 3)')})",
    "einsum/dot": "tf.einsum('i,i->', tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))",
    "einsum/row_dots": f"tf.einsum('ij,ij->i', {_R.format(19, '(2, 3)')}, "
                       f"{_R.format(20, '(2, 3)')})",
    "einsum/implicit": f"tf.einsum('ij,jk', {_R.format(21, '(2, 3)')}, {_R.format(22, '(3, 4)')})",
    "einsum/implicit_order": "tf.einsum('ba,ab', tf.ones([2, 3]), tf.ones([3, 2]))",
    "einsum/three_operands": f"tf.einsum('ij,jk,kl->il', {_R.format(23, '(2, 3)')}, "
                             f"{_R.format(24, '(3, 4)')}, {_R.format(25, '(4, 2)')})",
    "einsum/diagonal": "tf.einsum('ii->i', tf.reshape(tf.range(9.0), [3, 3]))",
    "einsum/trace": "tf.einsum('ii', tf.reshape(tf.range(9.0), [3, 3]))",
    "einsum/diagonal_3d": "tf.einsum('iij->ij', tf.reshape(tf.range(18.0), [3, 3, 2]))",
    "einsum/ellipsis": "tf.einsum('...j,j->...', tf.ones([2, 5, 3]), tf.constant([1.0, 2.0, 3.0]))",
    "einsum/ellipsis_broadcast": f"tf.einsum('...ij,...jk->...ik', {_R.format(26, '(5, 2, 3)')}, "
                                 f"{_R.format(27, '(3, 4)')})",
    "einsum/capitals": "tf.einsum('Ab,bC->AC', tf.ones([2, 3]), tf.ones([3, 4]))",
    "einsum/ints": "tf.einsum('ij,jk->ik', tf.ones([2, 3], tf.int32), tf.ones([3, 4], tf.int32))",
    "einsum/repeated_output_error": "tf.einsum('i->ii', tf.ones([2]))",
    "einsum/unknown_output_error": "tf.einsum('ij,jk->iz', tf.ones([2, 3]), tf.ones([3, 4]))",
    "einsum/operand_count_error": "tf.einsum('ij->ij', tf.ones([2, 3]), tf.ones([3]))",
    "einsum/size_error": "tf.einsum('ij,jk', tf.ones([2, 3]), tf.ones([4, 4]))",
    "einsum/ellipsis_output_error": "tf.einsum('...ij,...jk', tf.ones([5, 2, 3]), "
                                    "tf.ones([4, 3, 4]))",
    "norm/vector": "tf.norm(tf.constant([3.0, 4.0]))",
    "norm/all_entries": "tf.norm(tf.constant([[3.0, 4.0], [1.0, 2.0]]), ord=1)",
    "norm/axis_p": "tf.norm(tf.constant([[3.0, 4.0], [1.0, 2.0]]), ord=3, axis=1)",
    "norm/axis_half": "tf.norm(tf.constant([[3.0, 4.0], [1.0, 2.0]]), ord=0.5, axis=1)",
    "norm/inf_keepdims": "tf.norm(tf.constant([[3.0, -4.0], [1.0, 2.0]]), ord=np.inf, axis=1, "
                         "keepdims=True)",
    "norm/matrix_1": "tf.norm(tf.constant([[3.0, 4.0], [1.0, 2.0]]), ord=1, axis=[0, 1])",
    "norm/matrix_inf": "tf.norm(tf.constant([[3.0, -4.0], [1.0, 2.0]]), ord=np.inf, "
                       "axis=[-2, -1])",
    "norm/matrix_fro": f"tf.norm({_R.format(28, '(2, 3, 4)')}, ord='fro', axis=[1, 2])",
    "norm/matrix_2": f"tf.norm({_R.format(29, '(2, 3, 4)')}, ord=2, axis=[-2, -1])",
    "norm/matrix_2_axes_swapped": f"tf.norm({_R.format(30, '(3, 2, 4)')}, ord=2, axis=[2, 0], "
                                  "keepdims=True)",
    "norm/empty": "tf.norm(tf.zeros([0]))",
    "norm/linalg_alias": "tf.linalg.norm(tf.constant([[1.0, 2.0]]), axis=-1)",
    "norm/fro_vector_error": "tf.norm(tf.constant([[3.0, 4.0]]), ord='fro')",
    "norm/negative_ord_error": "tf.norm(tf.constant([3.0, 4.0]), ord=-1)",
    "norm/matrix_ord_error": "tf.norm(tf.ones([2, 2]), ord=3, axis=[0, 1])",
    "norm/int_error": "tf.norm(tf.constant([1, 2]))",
    "clip/by_norm_axes": "tf.clip_by_norm(tf.constant([[3.0, 4.0], [0.0, 0.0]]), 1.0, axes=[1])",
    "clip/by_norm_unchanged": "tf.clip_by_norm(tf.constant([3.0, 4.0]), 10.0)",
    "clip/by_norm_all": f"tf.clip_by_norm({_R.format(31, '(3, 4)')}, 0.5)",
    "clip/by_norm_int_error": "tf.clip_by_norm(tf.constant([3, 4]), 1)",
    "clip/global_norm": "tf.linalg.global_norm([tf.ones([2]), None, tf.ones([3]) * 2.0])",
    "clip/by_global_norm": "tf.clip_by_global_norm([tf.ones([2]) * 3.0, None, "
                           "tf.ones([3]) * 4.0], 5.0)",
    "clip/by_global_norm_small": "tf.clip_by_global_norm([tf.constant([0.3, 0.4])], 5.0)",
    "clip/by_global_norm_use_norm": "tf.clip_by_global_norm([tf.constant([3.0, 4.0])], 1.0, "
                                    "use_norm=tf.constant(10.0))",
    "clip/by_global_norm_inf": "tf.clip_by_global_norm([tf.ones([2]) * np.inf], 5.0)",
    "clip/by_global_norm_tensor_error": "tf.clip_by_global_norm(tf.ones([2]), 5.0)",
    "average_loss/default": "tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0, 4.0]))",
    "average_loss/global_batch": "tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0, 4.0]), "
                                 "global_batch_size=8)",
    "average_loss/weights": "tf.nn.compute_average_loss(tf.constant([1.0, 2.0]), "
                            "sample_weight=tf.constant([0.5, 2.0]))",
    "average_loss/scalar_weight": "tf.nn.compute_average_loss(tf.constant([1.0, 2.0]), "
                                  "sample_weight=0.5, global_batch_size=4)",
    "average_loss/column_weights": "tf.nn.compute_average_loss(tf.constant([1.0, 2.0]), "
                                   "sample_weight=tf.constant([[0.5], [2.0]]))",
    "average_loss/matrix": "tf.nn.compute_average_loss(tf.constant([[1.0, 2.0], [3.0, 4.0]]))",
    "average_loss/zero_batch": "tf.nn.compute_average_loss(tf.constant([1.0, 2.0]), "
                               "global_batch_size=0)",
    "average_loss/ints": "tf.nn.compute_average_loss(tf.constant([1, 2]))",
    "average_loss/scalar_error": "tf.nn.compute_average_loss(tf.constant(1.0))",
    "average_loss/float_batch_error": "tf.nn.compute_average_loss(tf.constant([1.0, 2.0]), "
                                      "global_batch_size=2.5)",
    "jacobian/vector": """
        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x + tf.reduce_sum(x)
        tape.jacobian(y, x)
    """,
    "jacobian/matrix_and_variable": """
        x = tf.constant([1.0, 2.0])
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.matmul(w, tf.reshape(x * x, [2, 1]))
        tape.jacobian(y, [x, w])
    """,
    "jacobian/empty_target": """
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.slice(x, [0], [0]) * 2.0
        tape.jacobian(y, x)
    """,
    "jacobian/unconnected": """
        x = tf.constant([1.0, 2.0])
        z = tf.constant([3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            tape.watch(z)
            y = tf.exp(x)
        tape.jacobian(y, {"x": x, "z": z})
    """,
}
