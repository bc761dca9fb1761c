"""TensorFlow-differential snippets for tf.truncatediv / truncatemod, tf.math.bincount and
tf.histogram_fixed_width(_bins) (py/texflow/ops/counting.py): values, dtypes, edge values
and errors. After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py counting`.
"""

_DIV = "x, y = tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2])\n"
_FDIV = "x, y = tf.constant([7.0, -7.0, 7.5, -7.5]), tf.constant([2.0, 2.0, -2.0, -2.0])\n"
_V = "v = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0, 0.7, 0.3])\n"


def _errors(group, cases):
    return {f"{group}/error_{i}": (src, {"match": words}) for i, (src, words) in enumerate(cases)}


SNIPPETS = {
    "truncate/int": _DIV + "(tf.truncatediv(x, y), tf.truncatemod(x, y), tf.truncatediv(7, 2), "
                    "tf.truncatediv(tf.constant([[7], [9]]), tf.constant([2, 4])))",
    "truncate/float": _FDIV + "(tf.truncatediv(x, y), tf.truncatemod(x, y), "
                      "tf.truncatemod(7.5, 2), tf.truncatemod(tf.constant([7.0, -7.0, 1.0, "
                      "-0.0]), tf.constant([0.0, 0.0, float('inf'), 3.0])), "
                      "tf.truncatediv(tf.constant([7.0, -7.0]), tf.constant([0.0, 2.0])))",
    "truncate/gradient": "x = tf.Variable([7.5, -7.5])\nwith tf.GradientTape() as t:\n"
                         "    y = tf.truncatediv(x, 2.0)\nt.gradient(y, x)",
    **_errors("truncate", [
        ("tf.truncatediv(tf.constant([7, -7]), tf.constant([0, 2]))",
         ["only integer div and mod should have errors"]),
        ("tf.truncatemod(tf.constant([True]), tf.constant([True]))",
         ["Value for attr 'T' of bool is not in the list of allowed values"]),
        ("tf.truncatediv(tf.constant([7]), tf.constant([2.0]))",
         ["expected to be a int32 tensor but is a float tensor"]),
        ("x = tf.Variable([7.5, -7.5])\nwith tf.GradientTape() as t:\n"
         "    y = tf.truncatemod(x, 2.0)\nt.gradient(y, x)",
         ["gradient registry has no entry for: TruncateMod"]),
    ]),
    "bincount/flat": "a = [1, 1, 3, 0]\n(tf.math.bincount(a), tf.math.bincount(a, minlength=6), "
                     "tf.math.bincount(a, maxlength=2), tf.math.bincount(a, minlength=6, "
                     "maxlength=2), tf.math.bincount(a, minlength=-1), "
                     "tf.math.bincount([1.0, 2.0]), tf.math.bincount(3))",
    "bincount/weights": "a = [1, 1, 3, 0]\n(tf.math.bincount(a, weights=[0.5, 1.0, 2.0, 3.0]), "
                        "tf.math.bincount(a, weights=[1, 2, 3, 4]), "
                        "tf.math.bincount(a, dtype=tf.float32), "
                        "tf.math.bincount([1, 2], weights=[1.0, 2.0], dtype=tf.int32))",
    "bincount/axis": "m = [[1, 1], [3, 0]]\n(tf.math.bincount(m), tf.math.bincount(m, axis=-1), "
                     "tf.math.bincount(m, axis=-1, minlength=5, weights=[[1.0, 2.0], "
                     "[3.0, 4.0]]), tf.math.bincount(m, axis=0), "
                     "tf.math.bincount(m, binary_output=True), "
                     "tf.math.bincount(m, binary_output=True, axis=-1))",
    "bincount/empty": "(tf.math.bincount(tf.zeros([0], tf.int32)), "
                      "tf.math.bincount(tf.zeros([0], tf.int32), minlength=3), "
                      "tf.math.bincount(tf.zeros([2, 0], tf.int32), axis=-1))",
    **_errors("bincount", [
        ("tf.math.bincount([1, -1, 3, 0])", ["Input arr must be non-negative!"]),
        ("tf.math.bincount([[1, -1], [3, 0]], axis=-1)",
         ["must be non-negative! Negative input value found: -1"]),
        ("tf.math.bincount([1, 2], weights=[1.0])",
         ["`weights` must be the same shape as `arr`", "Received [1]"]),
        ("tf.math.bincount([1, 2], dtype=tf.bool)",
         ["Value for attr 'T' of bool is not in the list of allowed values"]),
        ("tf.math.bincount([[1, 1], [3, 0]], axis=1)", ["Unsupported value for argument axis=1"]),
        ("tf.math.bincount([1, 1], weights=[0.5, 1.0], binary_output=True)",
         ["`binary_output` and `weights` are mutually exclusive"]),
        ("tf.math.bincount([[[1, 2]]], axis=-1)", ["Shape must be at most rank 2 but is rank 3"]),
    ]),
    "histogram/counts": _V + "(tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5), "
                        "tf.histogram_fixed_width(v, [0.0, 5.0]), "
                        "tf.histogram_fixed_width(tf.reshape(v, [2, 4]), [0.0, 5.0], nbins=3), "
                        "tf.histogram_fixed_width([1, 2, 3, 9], [0, 10], nbins=5), "
                        "tf.histogram_fixed_width(v, [0.0, 1.0], nbins=10), "
                        "tf.histogram_fixed_width(v, [0.0, 5.0], nbins=3, dtype=tf.int64))",
    "histogram/bins": _V + "(tf.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=5), "
                      "tf.histogram_fixed_width_bins(tf.reshape(v, [2, 4]), [0.0, 5.0], nbins=3),"
                      " tf.histogram_fixed_width_bins(v, [5.0, 0.0], nbins=3), "
                      "tf.histogram_fixed_width_bins(v, [0.0, 1.0], nbins=10), "
                      "tf.histogram_fixed_width_bins([1.0, float('nan'), float('inf')], "
                      "[0.0, 5.0], nbins=3))",
    **_errors("histogram", [
        ("tf.histogram_fixed_width([1.0, 2.0], [0.0, 5.0], nbins=0)",
         ["nbins should be a positive number, but got '0'"]),
        ("tf.histogram_fixed_width([1.0, 2.0], [5.0, 0.0], nbins=3)",
         ["value_range should satisfy value_range[0] < value_range[1], but got '[5, 0]'"]),
        ("tf.histogram_fixed_width([1.0, 2.0], [0.0, 5.0, 6.0], nbins=3)",
         ["value_range should be a vector of 2 elements."]),
        ("tf.histogram_fixed_width([1.0, 2.0], [0.0, 5.0], nbins=3, dtype=tf.float32)",
         ["Value for attr 'dtype' of float is not in the list of allowed values: int32, int64"]),
        ("tf.histogram_fixed_width([1.0, float('nan')], [0.0, 5.0], nbins=3)",
         ["Histogram values must not contain NaN"]),
        ("tf.histogram_fixed_width([1.0, 2.0], [0.0, 5.0], nbins=[3])",
         ["nbins should be a scalar."]),
        ("tf.histogram_fixed_width_bins([1.0, 2.0], [0.0, 5.0], nbins=0)", ["must > 0"]),
        ("tf.histogram_fixed_width_bins([1, 2, 3, 9], [0, 10], nbins=5)",
         ["cannot compute Mul", "expected to be a int32 tensor but is a double tensor"]),
    ]),
}
