"""TensorFlow-differential snippets for tf.linalg's decompositions and solvers (ops/solve.py,
ops/decomp.py): values, gradients (of a weighted sum, `grad`) and errors. Singular vectors
and eigenvectors are determined up to sign (TensorFlow's Eigen and numpy's LAPACK may
choose differently), so snippets use sign-free functions of them (v * v, u @ diag(s) @ v^T).
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py decomp`.
"""

# grad(fn, x, *rest): fn(x, *rest) and the gradient toward x of sum(fn(...) * w), w a
# ramp so that every element weighs differently
_GRAD = """
def grad(fn, x, *rest):
    x = tf.constant(np.array(x, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x, *rest)
        w = tf.reshape(tf.range(1.0, 1.0 + float(tf.size(y))), tf.shape(y)) / 7.0
        loss = tf.reduce_sum(y * w)
    return y, tape.gradient(loss, x)
"""
_A = "[[4.0, 1.0, -2.0], [0.5, 3.0, 1.0], [-1.0, 2.0, 5.0]]"  # general, well conditioned
_S = "[[4.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 5.0]]"  # symmetric positive definite
_B = "[[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]]"
_WIDE = "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]"
_TALL = "[[1.0, 4.0], [2.0, 5.0], [3.0, 6.5], [-1.0, 0.5]]"
_BATCH = "np.random.default_rng({}).normal(0, 1, {}).astype(np.float32) + 3 * np.eye({}, " \
         "dtype=np.float32)"
_LOOSE = {"rtol": 50, "atol": 50}  # float64 on the host against TensorFlow's float32

SNIPPETS = {
    # -- determinants ----------------------------------------------------------------------
    "det/values": (f"tf.linalg.det(tf.constant({_A}))", _LOOSE),
    "det/batch": (f"tf.linalg.det(tf.constant({_BATCH.format(1, '(2, 3, 4, 4)', 4)}))", _LOOSE),
    "det/singular": "tf.linalg.det(tf.constant([[1.0, 2.0], [2.0, 4.0]]))",
    "det/empty": "tf.linalg.det(tf.zeros([3, 0, 0]))",
    "det/grad": (_GRAD + f"grad(tf.linalg.det, {_A})", _LOOSE),
    "det/slogdet": (f"tf.linalg.slogdet(tf.constant([{_A}, [[-1.0, 0.0, 0.0], "
                    f"[0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]]))", _LOOSE),
    "det/slogdet_singular": "tf.linalg.slogdet(tf.constant([[1.0, 2.0], [2.0, 4.0]]))",
    "det/slogdet_grad": (_GRAD + f"grad(lambda a: tf.linalg.slogdet(a).log_abs_determinant, "
                         f"{_A})", _LOOSE),
    "det/logdet": (f"tf.linalg.logdet(tf.constant({_S}))", _LOOSE),
    "det/logdet_not_pd": "tf.linalg.logdet(tf.constant([[1.0, 2.0], [2.0, 1.0]]))",
    "det/logdet_grad": (_GRAD + f"grad(tf.linalg.logdet, {_S})", _LOOSE),
    "det/float64": ("tf.linalg.det(tf.constant([[2.0, 1.0], [1.0, 3.0]], tf.float64))",
                    _LOOSE),
    "det/non_square_error": ("tf.linalg.det(tf.ones([2, 3]))", {"match": ["square"]}),
    "det/rank_error": ("tf.linalg.det(tf.ones([3]))", {"match": ["rank >= 2"]}),
    "det/int_error": ("tf.linalg.det(tf.constant([[1, 2], [3, 4]]))",
                      {"match": ["int32"]}),
    # -- inverse and solves ----------------------------------------------------------------
    "solve/inv": (f"tf.linalg.inv(tf.constant({_A}))", _LOOSE),
    "solve/inv_adjoint": (f"tf.linalg.inv(tf.constant({_A}), adjoint=True)", _LOOSE),
    "solve/inv_batch": (f"tf.linalg.inv(tf.constant({_BATCH.format(2, '(2, 3, 3)', 3)}))",
                        _LOOSE),
    "solve/inv_grad": (_GRAD + f"grad(tf.linalg.inv, {_A})", _LOOSE),
    "solve/inv_adjoint_grad": (_GRAD + f"grad(lambda a: tf.linalg.inv(a, adjoint=True), "
                               f"{_A})", _LOOSE),
    "solve/inv_singular_error": ("tf.linalg.inv(tf.constant([[1.0, 2.0], [2.0, 4.0]]))",
                                 {"match": ["Input is not invertible."]}),
    "solve/inv_nan_error": ("tf.linalg.inv(tf.constant([[np.nan, 1.0], [1.0, 1.0]]))",
                            {"match": ["Input is not invertible."]}),
    "solve/solve": (f"tf.linalg.solve(tf.constant({_A}), tf.constant({_B}))", _LOOSE),
    "solve/solve_adjoint": (f"tf.linalg.solve(tf.constant({_A}), tf.constant({_B}), "
                            f"adjoint=True)", _LOOSE),
    "solve/solve_grads": (_GRAD + f"b = tf.constant({_B})\na = tf.constant({_A})\n"
                          f"grad(lambda m: tf.linalg.solve(m, b), {_A}), "
                          f"grad(lambda r: tf.linalg.solve(a, r, adjoint=True), {_B})",
                          _LOOSE),
    "solve/solve_singular_error": ("tf.linalg.solve(tf.constant([[1.0, 2.0], [2.0, 4.0]]), "
                                   "tf.ones([2, 1]))",
                                   {"match": ["Input matrix is not invertible."]}),
    "solve/solve_rank_error": ("tf.linalg.solve(tf.eye(2), tf.ones([2]))",
                               {"match": ["same rank"]}),
    "solve/solve_batch_error": ("tf.linalg.solve(tf.eye(2, batch_shape=[3]), "
                                "tf.ones([2, 2, 1]))", {"match": ["outer dimensions"]}),
    "solve/solve_square_error": ("tf.linalg.solve(tf.ones([2, 3]), tf.ones([2, 1]))",
                                 {"match": ["square"]}),
    "solve/solve_rhs_error": ("tf.linalg.solve(tf.eye(2), tf.ones([3, 1]))",
                              {"match": ["incompatible"]}),
    "solve/triangular": (f"tf.linalg.triangular_solve(tf.constant({_A}), tf.constant({_B}))",
                         _LOOSE),
    "solve/triangular_upper_adjoint": (f"tf.linalg.triangular_solve(tf.constant({_A}), "
                                       f"tf.constant({_B}), lower=False, adjoint=True)",
                                       _LOOSE),
    "solve/triangular_broadcast": (f"tf.linalg.triangular_solve(tf.constant({_A}), "
                                   f"tf.constant([{_B}, {_B}]) * [[[1.0]], [[2.0]]])",
                                   _LOOSE),
    "solve/triangular_zero_pivot": ("tf.linalg.triangular_solve(tf.constant([[0.0, 0.0], "
                                    "[1.0, 1.0]]), tf.ones([2, 1]))"),
    "solve/triangular_grads": (_GRAD + f"b = tf.constant([{_B}, {_B}])\n"
                               f"a = tf.constant({_A})\n"
                               f"grad(lambda m: tf.linalg.triangular_solve(m, b), {_A}), "
                               f"grad(lambda r: tf.linalg.triangular_solve(a, r, lower=False,"
                               f" adjoint=True), [{_B}, {_B}])", _LOOSE),
    "solve/triangular_square_error": ("tf.linalg.triangular_solve(tf.ones([2, 3]), "
                                      "tf.ones([2, 1]))", {"match": ["square"]}),
    "solve/triangular_rows_error": ("tf.linalg.triangular_solve(tf.eye(2), tf.ones([3, 1]))",
                                    {"match": ["2 vs. 3"]}),
    "solve/triangular_batch_error": ("tf.linalg.triangular_solve(tf.eye(2, batch_shape=[3]),"
                                     " tf.ones([2, 2, 1]))", {"match": ["batch dimensions"]}),
    "solve/triangular_rank_error": ("tf.linalg.triangular_solve(tf.eye(2), tf.ones([2]))",
                                    {"match": ["In[1] ndims must be >= 2"]}),
    # -- Cholesky and least squares --------------------------------------------------------
    "cholesky/values": (f"tf.linalg.cholesky(tf.constant({_S}))", _LOOSE),
    "cholesky/lower_only": "tf.linalg.cholesky(tf.constant([[4.0, 100.0], [2.0, 3.0]]))",
    "cholesky/not_pd": ("tf.math.is_nan(tf.linalg.cholesky(tf.constant([[1.0, 2.0], "
                        "[2.0, 4.0]])))"),
    "cholesky/batch": (f"c = tf.constant({_BATCH.format(3, '(2, 3, 3)', 3)})\n"
                       "tf.linalg.cholesky(tf.matmul(c, c, transpose_b=True))", _LOOSE),
    "cholesky/grad": (_GRAD + f"grad(tf.linalg.cholesky, {_S})", _LOOSE),
    "cholesky/solve": (f"tf.linalg.cholesky_solve(tf.linalg.cholesky(tf.constant({_S})), "
                       f"tf.constant({_B}))", _LOOSE),
    "cholesky/solve_grad": (_GRAD + f"b = tf.constant({_B})\n"
                            f"grad(lambda s: tf.linalg.cholesky_solve(tf.linalg.cholesky(s),"
                            f" b), {_S})", _LOOSE),
    "cholesky/square_error": ("tf.linalg.cholesky(tf.ones([2, 3]))", {"match": ["square"]}),
    "lstsq/tall": (f"tf.linalg.lstsq(tf.constant({_TALL}), tf.ones([4, 2]))", _LOOSE),
    "lstsq/wide": (f"tf.linalg.lstsq(tf.constant({_WIDE}), tf.constant([[1.0], [2.0]]))",
                   _LOOSE),
    "lstsq/regularized": (f"tf.linalg.lstsq(tf.constant({_TALL}), tf.ones([4, 1]), "
                          f"l2_regularizer=0.5), tf.linalg.lstsq(tf.constant({_WIDE}), "
                          f"tf.ones([2, 1]), l2_regularizer=0.5)", _LOOSE),
    "lstsq/grads": (_GRAD + f"grad(lambda a: tf.linalg.lstsq(a, tf.ones([4, 2]), "
                    f"l2_regularizer=0.1), {_TALL}), grad(lambda a: tf.linalg.lstsq(a, "
                    f"tf.ones([2, 1])), {_WIDE})", _LOOSE),
    "lstsq/slow": (f"tf.linalg.lstsq(tf.constant({_TALL}), tf.ones([4, 2]), fast=False), "
                   f"tf.linalg.lstsq(tf.constant({_WIDE}), tf.ones([2, 1]), fast=False), "
                   "tf.linalg.lstsq(tf.constant([[1.0, 2.0], [2.0, 4.0], [1.0, 2.0]]), "
                   "tf.ones([3, 1]), fast=False), tf.linalg.lstsq(tf.ones([2, 3, 2]), "
                   "tf.ones([2, 3, 1]), fast=False)", _LOOSE),
    "lstsq/slow_ignores_l2": (f"tf.linalg.lstsq(tf.constant({_TALL}), tf.ones([4, 1]), "
                              "l2_regularizer=0.5, fast=False)", _LOOSE),
    "lstsq/slow_grad_error": (_GRAD + f"grad(lambda a: tf.linalg.lstsq(a, tf.ones([4, 1]), "
                              f"fast=False), {_TALL})",
                              {"match": ["Gradient not defined for fast=False"]}),
    "lstsq/slow_rows_error": ("tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([2, 1]), "
                              "fast=False)", {"match": ["incompatible"]}),
    "lstsq/slow_rank_error": ("tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([3]), fast=False)",
                              {"match": ["same rank"]}),
    # -- QR, SVD, eigh ---------------------------------------------------------------------
    "qr/square": (f"tf.linalg.qr(tf.constant({_A}))", _LOOSE),
    "qr/tall": (f"tf.linalg.qr(tf.constant({_TALL}))", _LOOSE),
    "qr/tall_full": (f"tf.linalg.qr(tf.constant({_TALL}), full_matrices=True)", _LOOSE),
    "qr/wide": (f"tf.linalg.qr(tf.constant({_WIDE}))", _LOOSE),
    "qr/grads": (_GRAD + f"[grad(lambda a: tf.concat([tf.reshape(t, [-1]) for t in "
                 f"tf.linalg.qr(a)], 0), m) for m in ({_A}, {_TALL}, {_WIDE})]", _LOOSE),
    "qr/rank_error": ("tf.linalg.qr(tf.ones([3]))", {"match": ["rank >= 2"]}),
    "svd/values": (f"tf.linalg.svd(tf.constant([{_A}, {_S}]), compute_uv=False)", _LOOSE),
    "svd/reconstruct": (f"s, u, v = tf.linalg.svd(tf.constant({_TALL}))\n"
                        "s, u * u, v * v, tf.matmul(u * s, v, transpose_b=True)", _LOOSE),
    "svd/full": (f"s, u, v = tf.linalg.svd(tf.constant({_WIDE}), full_matrices=True)\n"
                 "s, u.shape, v.shape, tf.matmul(u, u, transpose_a=True), "
                 "tf.matmul(v, v, transpose_a=True)", _LOOSE),
    "svd/grads": (_GRAD + f"[grad(lambda a: tf.concat([tf.reshape(t * t, [-1]) for t in "
                  f"tf.linalg.svd(a)], 0), m) for m in ({_A}, {_TALL}, {_WIDE})]", _LOOSE),
    "svd/values_grad": (_GRAD + f"grad(lambda a: tf.linalg.svd(a, compute_uv=False), "
                        f"{_WIDE})", _LOOSE),
    "svd/full_grad": (_GRAD + f"grad(lambda a: tf.concat([tf.reshape(t * t, [-1]) for t in "
                      f"tf.linalg.svd(a, full_matrices=True)], 0), [[1.0, 2.0, 3.0], "
                      f"[4.0, 5.0, 6.5], [0.5, -1.0, 2.0], [1.0, 1.0, -1.0]])", _LOOSE),
    "svd/empty": "tf.linalg.svd(tf.zeros([2, 0, 3]))",
    "eigh/values": (f"e, v = tf.linalg.eigh(tf.constant({_S}))\ne, v * v", _LOOSE),
    "eigh/lower_only": (f"tf.linalg.eigvalsh(tf.constant([[4.0, 100.0], [2.0, 3.0]]))",
                        _LOOSE),
    "eigh/grads": (_GRAD + f"grad(lambda a: tf.concat([tf.reshape(t * t, [-1]) for t in "
                   f"tf.linalg.eigh(a)], 0), {_A}), grad(tf.linalg.eigvalsh, {_A})", _LOOSE),
    "eigh/square_error": ("tf.linalg.eigh(tf.ones([2, 3]))", {"match": ["square"]}),
    "pinv/values": (f"tf.linalg.pinv(tf.constant({_WIDE})), "
                    "tf.linalg.pinv(tf.constant([[1.0, 2.0], [2.0, 4.0]]))", _LOOSE),
    "pinv/rcond": (f"tf.linalg.pinv(tf.constant({_WIDE}), rcond=0.5)", _LOOSE),
    "pinv/grad": (_GRAD + f"grad(tf.linalg.pinv, {_TALL})", _LOOSE),
    "pinv/rank": (f"tf.linalg.matrix_rank(tf.constant([{_A}, [[1.0, 2.0, 3.0], "
                  f"[2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]])), tf.linalg.matrix_rank("
                  f"tf.constant({_WIDE}), tol=0.5), tf.linalg.matrix_rank(tf.zeros([0, 0]))"),
    "pinv/rank_error": ("tf.linalg.pinv(tf.ones([3]))", {"match": ["at least 2 dimensions"]}),
    "pinv/dtype_error": ("tf.linalg.matrix_rank(tf.constant([[1, 2], [3, 4]]))",
                         {"match": ["float"]}),
    # -- NaN and infinities: TensorFlow's CPU kernels' outcomes ---------------------------
    "nonfinite/det": "nan, inf = np.nan, np.inf\n[tf.linalg.det(tf.constant(m)) for m in "
                     "([[nan, 1.0], [1.0, 1.0]], [[inf, 1.0], [1.0, 1.0]])]",
    "nonfinite/slogdet": "nan, inf = np.nan, np.inf\n[tf.linalg.slogdet(tf.constant(m)) for m"
                         " in ([[nan, 1.0], [1.0, 1.0]], [[inf, 1.0], [1.0, 1.0]])]",
    "nonfinite/svd": "nan, inf = np.nan, np.inf\ntf.linalg.svd(tf.constant([[[nan, 1.0], "
                     "[1.0, 1.0]], [[inf, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 1.0]]]), "
                     "compute_uv=False), tf.norm(tf.constant([[np.nan, 1.0], [1.0, 1.0]]), "
                     "ord=2, axis=[0, 1])",
    "nonfinite/svd_vectors": "s, u, v = tf.linalg.svd(tf.constant([[np.inf, 1.0], "
                             "[1.0, 1.0]]))\ns, u, v",
    "nonfinite/eigh_inf": "tf.linalg.eigh(tf.constant([[np.inf, 1.0], [1.0, 1.0]]))",
    "nonfinite/eigh_upper_ignored": "tf.linalg.eigvalsh(tf.constant([[2.0, np.nan], "
                                    "[1.0, 2.0]]))",
    "nonfinite/eigh_nan_error": ("tf.linalg.eigh(tf.constant([[np.nan, 1.0], [1.0, 1.0]]))",
                                 {"match": ["Self-adjoint eigen decomposition was not "
                                            "successful"]}),
    "nonfinite/eigvalsh_nan_error": ("tf.linalg.eigvalsh(tf.constant([[1.0, 0.0], "
                                     "[np.nan, 1.0]]))", {"match": ["not successful"]}),
}
