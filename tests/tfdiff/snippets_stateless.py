"""TensorFlow-differential snippets for tf.random's stateless draws (py/texflow/_stateless.py):
shapes, dtypes and TensorFlow's argument errors (the numbers themselves are texflow's own,
see the README). After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py stateless`.
"""

_S = "tf.random.stateless_"


def _errors(cases):
    return {f"stateless/error_{i}": (src, {"match": words}) for i, (src, words) in enumerate(cases)}


SNIPPETS = {
    "stateless/shapes": f"[tf.shape(t) for t in ({_S}uniform([2, 3], seed=[1, 2]), "
                        f"{_S}normal([4], seed=tf.constant([1, 2], tf.int64)), "
                        f"{_S}truncated_normal([0, 2], seed=[1, 2]), "
                        f"{_S}categorical([[0.0, 1.0]], 3, seed=[1, 2]), "
                        f"{_S}binomial([2, 3], seed=[1, 2], counts=[1.0, 2.0, 3.0], probs=0.5))]",
    "stateless/edges": f"({_S}binomial([2], seed=[1, 2], counts=10.0, probs=1.5), "
                       f"{_S}uniform([3], seed=[1, 2], minval=4, maxval=5, dtype=tf.int32), "
                       f"{_S}categorical([[-float('inf'), 0.0]], 2, seed=[3, 4], dtype=tf.int32))",
    **_errors([
        (f"{_S}uniform([2], seed=[1, 2, 3])", ["seed must have shape [2], not [3]"]),
        (f"{_S}normal([2], seed=1)", ["seed must have shape [2], not []"]),
        (f"{_S}uniform([2], seed=[1.0, 2.0])",
         ["Value for attr 'Tseed' of float is not in the list of allowed values"]),
        (f"{_S}uniform([2], seed=[1, 2], dtype=tf.int32)",
         ["`minval` and `maxval` must be both None or not None"]),
        (f"{_S}uniform([2], seed=[1, 2], minval=5, maxval=3, dtype=tf.int32)",
         ["Need minval < maxval, got 5 >= 3"]),
        (f"{_S}uniform([2], seed=[1, 2], dtype=tf.bool)", ["Argument `dtype` got invalid value"]),
        (f"{_S}uniform([-1], seed=[1, 2])", ["Dimension -1 must be >= 0"]),
        (f"{_S}uniform([2], seed=[1, 2], alg='bogus')", ["Argument `alg` got unsupported value"]),
        (f"{_S}truncated_normal([2], seed=[1, 2], dtype=tf.int32)",
         ["Cannot convert 0.0 to EagerTensor of dtype int32"]),
        (f"{_S}categorical([0.0, 1.0], 3, seed=[1, 2])",
         ["logits should be a matrix, got shape [2]"]),
        (f"{_S}categorical([[0.0, 1.0]], -1, seed=[1, 2])",
         ["num_samples should be non-negative, got -1"]),
        (f"{_S}categorical(tf.zeros([2, 0]), 3, seed=[1, 2])",
         ["num_classes should be positive, got 0"]),
        (f"{_S}categorical([[0.0, 1.0]], 3, seed=[1, 2], dtype=tf.float32)",
         ["Argument `dtype` got invalid value"]),
        (f"{_S}binomial([3], seed=[1, 2], counts=[10.0, 20.0], probs=0.5)",
         ["Shape passed in must end with broadcasted shape."]),
    ]),
}
