"""TensorFlow-differential snippets for the gradients of the softmax family: reduce_logsumexp
(its stabilising max is a constant to the gradient: d/dx is exactly softmax), log_softmax
and softmax (TensorFlow's kernels shift by the raw max: an infinite or NaN logit makes
its row NaN) and sparse_softmax_cross_entropy_with_logits, to the second order, with
-inf, inf and NaN entries and rows of -inf only.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py softmax_grads`.
"""

# orders(fn, x): fn(x), the gradient g of sum(fn(x) * w) and the gradient of sum(g * v)
# (nested tapes), with w and v ramps so that every element weighs differently
_ORDERS = """
inf, nan = np.inf, np.nan

def ramp(t, scale):
    return tf.reshape(tf.range(1.0, 1.0 + float(tf.size(t))), tf.shape(t)) / scale

def orders(fn, x):
    x = tf.constant(np.array(x, np.float32))
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = fn(x)
            loss = tf.reduce_sum(y * ramp(y, 4))
        g = t1.gradient(loss, x)
        second = tf.reduce_sum(g * ramp(g, 8))
    return y, g, t2.gradient(second, x)
"""
# finite rows, ties at the max included
_FINITE = "[[1.0, 0.0, 2.0], [3.0, 3.0, 1.0], [-0.5, 4.0, 4.0], [-3.0, 2.5, -1.0]]"
# one row per rule: -inf, +inf, NaN, -inf only, two +inf, +inf and -inf, -inf but one
_NON_FINITE = ("[[1.0, -inf, 2.0], [inf, 1.0, 2.0], [nan, 1.0, 2.0], [-inf, -inf, -inf], "
               "[inf, inf, 1.0], [inf, -inf, 0.0], [-inf, -inf, 0.5]]")
_LABELS = "[1, 0, 2, 2, 0, 2, 2]"

SNIPPETS = {
    # -- reduce_logsumexp ------------------------------------------------------------------
    "logsumexp_grad/rows": _ORDERS + f"orders(lambda v: tf.reduce_logsumexp(v, axis=1), "
                                     f"{_FINITE})",
    "logsumexp_grad/axes": _ORDERS + f"""
x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 5 - 2
(orders(lambda v: tf.reduce_logsumexp(v), x),
 orders(lambda v: tf.reduce_logsumexp(v, axis=0, keepdims=True), {_FINITE}),
 orders(lambda v: tf.reduce_logsumexp(v, axis=[0, 2]), x),
 orders(lambda v: tf.reduce_logsumexp(v, axis=-1, keepdims=True), x))
""",
    "logsumexp_grad/non_finite": _ORDERS + f"orders(lambda v: tf.reduce_logsumexp(v, axis=1), "
                                           f"{_NON_FINITE})",
    "logsumexp_grad/all_neg_inf": _ORDERS + "(orders(lambda v: tf.reduce_logsumexp(v), "
                                            "[-inf, -inf]), orders(lambda v: "
                                            "tf.reduce_logsumexp(v, axis=0), [[-inf, 1.0], "
                                            "[-inf, -inf]]))",
    "logsumexp_grad/traced": _ORDERS + f"""
x = tf.constant(np.array({_NON_FINITE}, np.float32))

@tf.function
def grad(v):
    with tf.GradientTape() as t:
        t.watch(v)
        y = tf.reduce_logsumexp(v, axis=1)
    return t.gradient(y, v, output_gradients=tf.range(1.0, 8.0) / 2)
grad(x)
""",
    # -- log_softmax and softmax: TensorFlow's kernels -------------------------------------
    # second order: TensorFlow differentiates grad - sum(grad) * exp(y), texflow the
    # primitives; values near 0.025 are sums of terms near 1 (absolute error ~2e-6)
    "log_softmax_grad/rows": (_ORDERS + f"(orders(tf.nn.log_softmax, {_FINITE}), "
                                        f"orders(lambda v: tf.nn.log_softmax(v, axis=0), "
                                        f"{_FINITE}))", {"atol": 5}),
    "log_softmax_grad/non_finite": _ORDERS + f"orders(tf.nn.log_softmax, {_NON_FINITE})",
    "softmax_grad/rows": _ORDERS + f"(orders(tf.nn.softmax, {_FINITE}), "
                                   f"orders(lambda v: tf.nn.softmax(v, axis=0), {_FINITE}))",
    "softmax_grad/non_finite": _ORDERS + f"orders(tf.nn.softmax, {_NON_FINITE})",
    # -- sparse softmax cross-entropy: the gradient softmax - one_hot ----------------------
    "sparse_xent_grad/rows": _ORDERS + "orders(lambda v: "
                                       "tf.nn.sparse_softmax_cross_entropy_with_logits("
                                       f"labels=[1, 0, 2, 0], logits=v), {_FINITE})",
    # a -inf logit that is not the label's: TensorFlow's kernel gives its row a loss of 0
    # (-inf for the label's own), no NaN from 0 * -inf
    "sparse_xent_grad/non_finite": _ORDERS + "orders(lambda v: "
                                             "tf.nn.sparse_softmax_cross_entropy_with_logits("
                                             f"labels={_LABELS}, logits=v), {_NON_FINITE})",
    "sparse_xent_grad/neg_inf_label": _ORDERS + "orders(lambda v: "
                                                "tf.nn.sparse_softmax_cross_entropy_with_logits("
                                                "labels=[0, 2], logits=v), [[-inf, 1.0, 0.5], "
                                                "[-inf, -inf, 2.0]])",
    "sparse_xent_grad/keras": _ORDERS + "loss = tf.keras.losses.SparseCategoricalCrossentropy("
                                        "from_logits=True, reduction=None)\n"
                                        "orders(lambda v: loss(tf.constant([1, 0, 2, 2]), v), "
                                        "[[1.0, -inf, 2.0], [3.0, 3.0, -inf], [-inf, -inf, 0.5],"
                                        " [-3.0, 2.5, -1.0]])",
    # -- second order through a composite op that frees its intermediates (texflow's
    # scopes): the outer tape still sees them -------------------------------------------
    "scoped_composite_grad/variance": _ORDERS + f"(orders(lambda v: tf.math.reduce_variance("
                                                f"v, axis=1), {_FINITE}), orders(lambda v: "
                                                f"tf.math.reduce_std(v), {_FINITE}))",
}
