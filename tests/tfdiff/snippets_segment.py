"""TensorFlow-differential snippets for the segment reductions (py/texflow/ops/segment.py):
values, empty segments, NaN order, dtypes, errors and the gradients that share among ties.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py segment`.
"""

_X = "x = tf.constant([1.0, 2.0, 2.0, 0.0, 3.0, 0.0, 5.0])\n"
_GRAD = ("v = tf.Variable([1.0, 2.0, 2.0, 0.0, 3.0, 0.0, 5.0])\n"
         "with tf.GradientTape() as t:\n"
         "    y = tf.reduce_sum(tf.math.{op} * tf.constant([1.0, 2.0, 3.0, 4.0]))\n"
         "t.gradient(y, v)")
_SORTED, _UNSORTED = "[0, 0, 0, 1, 1, 1, 3]", "[3, 0, 3, 1, 1, -1, 1], 4"


def _errors(op, cases):
    return {f"segment_errors/{op}_{i}": (src, {"match": words})
            for i, (src, words) in enumerate(cases)}


SNIPPETS = {
    "segment/sorted": _X + "ids = " + _SORTED + "\n(tf.math.segment_max(x, ids), "
                      "tf.math.segment_min(x, ids), tf.math.segment_prod(x, ids), "
                      "tf.math.segment_mean(x, ids), tf.math.segment_sum(x, ids))",
    "segment/sorted_int": "x = tf.constant([[1, -2], [3, -5], [-3, 4]])\n"
                          "(tf.math.segment_max(x, [0, 0, 2]), tf.math.segment_min(x, [0, 0, 2]),"
                          " tf.math.segment_prod(x, [0, 0, 2]), "
                          "tf.math.segment_mean(x, [0, 0, 2]))",
    "segment/unsorted": _X + "(tf.math.unsorted_segment_max(x, " + _UNSORTED + "), "
                        "tf.math.unsorted_segment_min(x, " + _UNSORTED + "), "
                        "tf.math.unsorted_segment_prod(x, " + _UNSORTED + "), "
                        "tf.math.unsorted_segment_mean(x, " + _UNSORTED + "), "
                        "tf.math.unsorted_segment_sqrt_n(x, " + _UNSORTED + "))",
    "segment/unsorted_int": "x = tf.constant([1, 2, 4])\n"
                            "(tf.math.unsorted_segment_max(x, [2, 0, 2], 4), "
                            "tf.math.unsorted_segment_min(x, [2, 0, 2], 4), "
                            "tf.math.unsorted_segment_prod(x, [2, 0, 2], 4), "
                            "tf.math.unsorted_segment_mean(x, [2, 0, 2], 4))",
    "segment/unsorted_ids_matrix": "tf.math.unsorted_segment_max(tf.constant([[1.0, 2.0], "
                                   "[3.0, 4.0]]), [[2, 0], [1, 1]], tf.constant(4, tf.int64))",
    "segment/nan_order": "n = float('nan')\n"
                         "(tf.math.segment_max(tf.constant([n, 1.0, 3.0, 1.0, n, 3.0, 5.0, n]), "
                         "[0, 0, 0, 1, 1, 1, 2, 2]), tf.math.unsorted_segment_min("
                         "tf.constant([1.0, 3.0, n, 7.0, n]), [0, 1, 0, 0, 1], 2))",
    "segment/infinities": "x = tf.constant([-float('inf'), float('inf')])\n"
                          "(tf.math.segment_max(x, [0, 1]), "
                          "tf.math.unsorted_segment_max(x, [0, 1], 3), "
                          "tf.math.unsorted_segment_min(x, [0, 1], 3))",
    "segment/empty": "(tf.math.segment_max(tf.zeros([0, 2]), tf.zeros([0], tf.int32)), "
                     "tf.math.unsorted_segment_max(tf.zeros([0, 3]), tf.zeros([0], tf.int32), 2),"
                     " tf.math.unsorted_segment_mean(tf.constant([1.0, 2.0]), [-1, -1], 2))",
    "segment_grad/segment_max": _GRAD.format(op="segment_max(v, " + _SORTED + ")"),
    "segment_grad/segment_min": _GRAD.format(op="segment_min(v, " + _SORTED + ")"),
    "segment_grad/segment_prod": _GRAD.format(op="segment_prod(v, " + _SORTED + ")"),
    "segment_grad/segment_mean": _GRAD.format(op="segment_mean(v, " + _SORTED + ")"),
    "segment_grad/unsorted_max": _GRAD.format(op="unsorted_segment_max(v, " + _UNSORTED + ")"),
    "segment_grad/unsorted_min": _GRAD.format(op="unsorted_segment_min(v, " + _UNSORTED + ")"),
    "segment_grad/unsorted_prod": _GRAD.format(op="unsorted_segment_prod(v, " + _UNSORTED +
                                               ")"),
    "segment_grad/unsorted_sqrt_n": _GRAD.format(op="unsorted_segment_sqrt_n(v, " + _UNSORTED
                                                 + ")"),
    **_errors("sorted", [
        ("tf.math.segment_max(tf.constant([1.0, 2.0, 3.0]), [0, 2, 1])",
         ["segment ids are not increasing"]),
        ("tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), [-1, 0, 2])",
         ["Segment id -1 out of range [0, 3)", "not sorted"]),
        ("tf.math.segment_prod(tf.constant([1.0, 2.0, 3.0]), [1, 2, 0])",
         ["Segment id 1 out of range [0, 1)"]),
        ("tf.math.segment_mean(tf.constant([1.0, 2.0, 3.0]), [1, 1, -1])",
         ["segment ids must be >= 0"]),
        ("tf.math.segment_max(tf.constant([1.0, 2.0, 3.0]), [0, 0])",
         ["segment_ids should be the same size as dimension 0 of input"]),
        ("tf.math.segment_min(tf.constant([1.0, 2.0]), [[0, 0]])",
         ["segment_ids should be a vector"]),
        ("tf.math.segment_max(tf.constant(1.0), [0])", ["input must be at least rank 1"]),
        ("tf.math.segment_max(tf.constant([True]), [0])",
         ["Value for attr 'T' of bool is not in the list of allowed values"]),
        ("tf.math.segment_max(tf.constant([1.0, 2.0]), [0.0, 1.0])",
         ["Value for attr 'Tindices' of float is not in the list of allowed values"]),
    ]),
    **_errors("unsorted", [
        ("tf.math.unsorted_segment_max(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [[2, 0], [1, 5]],"
         " 4)", ["segment_ids[1,1] = 5 is out of range [0, 4)"]),
        ("tf.math.unsorted_segment_mean(tf.constant([1.0, 2.0, 3.0]), [2, 0, 5], 4)",
         ["segment_ids[2] = 5 is out of range [0, 4)"]),
        ("tf.math.unsorted_segment_min(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [2, 0, 1], 4)",
         ["data.shape = [2,2] does not start with segment_ids.shape = [3]"]),
        ("tf.math.unsorted_segment_prod(tf.constant([1.0, 2.0]), [1, 0], -1)",
         ["Input num_segments == -1 must not be negative."]),
        ("tf.math.unsorted_segment_max(tf.constant([1.0]), [0], [1])",
         ["num_segments should be a scalar, not shape [1]"]),
        ("tf.math.unsorted_segment_max(tf.constant([1.0]), [0], 1.0)",
         ["Value for attr 'Tnumsegments' of float is not in the list"]),
        ("tf.math.unsorted_segment_sqrt_n(tf.constant([1, 2]), [0, 0], 1)",
         ["Value for attr 'T' of int32 is not in the list of allowed values"]),
        ("tf.math.unsorted_segment_prod(tf.constant([True]), [0], 1)",
         ["Value for attr 'T' of bool is not in the list of allowed values"]),
    ]),
}
