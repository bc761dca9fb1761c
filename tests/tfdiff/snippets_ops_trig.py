"""TensorFlow-differential snippets: the trigonometric and hyperbolic functions, atan2,
log_sigmoid, reciprocal_no_nan, rint and the no-NaN products and quotients (xlogy, xdivy,
multiply_no_nan): values over each domain, NaN, infinities, signed zeros, out-of-domain
inputs, int inputs (TensorFlow has float kernels only) and gradients with TensorFlow's
conventions at 0.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py ops_trig`.
"""

_SPECIALS = "[np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1e-30, 100.0, -100.0]"
_NORMAL = "np.random.default_rng({}).normal(0, 3, (3, 5)).astype(np.float32)"
# values, and the sign bits of the results but NaN's (signed zeros)
_SIGNS = "y = tf.math.{}(tf.constant({}))\n(y, np.signbit(y.numpy()) & ~np.isnan(y.numpy()))"
# fn(x), and the gradient of sum(fn(x) * w) for a ramp w
_GRAD = """
x = tf.constant(np.array({x}, np.float32))
with tf.GradientTape() as t:
    t.watch(x)
    y = {fn}
g = t.gradient(tf.reduce_sum(y * tf.range(1.0, 1.0 + float(tf.size(y)))), x)
(y, g)
"""
_GRAD2 = """
x = tf.constant(np.array({x}, np.float32))
y = tf.constant(np.array({y}, np.float32))
with tf.GradientTape(persistent=True) as t:
    t.watch([x, y])
    z = {fn}
(z, t.gradient(z, x), t.gradient(z, y))
"""
_UNIT = "[-1.0, -0.99, -0.5, -1e-6, 0.0, 0.3, 0.5, 0.7, 0.99999994]"


def _unary(name, domain):
    return {
        f"{name}/specials": _SIGNS.format(name, _SPECIALS),
        f"{name}/domain": f"tf.math.{name}(tf.constant({domain}))",
        f"{name}/random": f"tf.math.{name}(tf.constant({_NORMAL.format(len(name))}))",
        f"{name}/int_error": (f"tf.math.{name}(tf.constant([1, 2]))", {"match": ["int32"]}),
    }


SNIPPETS = {
    **_unary("tan", "[1.5707963, 1.5707964, -1.5707964, 4.712389, 3.1415927, 1e4, 1e8, "
                    "1e30]"),
    **_unary("sinh", "[-89.4, -89.5, -20.0, -1e-4, 1e-8, 0.9, 1.1, 88.0, 89.41, 89.42]"),
    **_unary("cosh", "[-89.4, -89.5, -20.0, -1e-4, 1e-8, 0.9, 1.1, 88.0, 89.41, 89.42]"),
    **_unary("asin", _UNIT),
    **_unary("acos", _UNIT),
    **_unary("atan", "[-1e30, -3.0, -2.4142137, -1.0, -0.41421357, 1e-20, 0.4, 2.5, 1e8]"),
    **_unary("asinh", "[-1e30, -5000.0, -3.0, -1.0, -1e-8, 1e-4, 0.5, 1.9, 2.1, 4097.0]"),
    **_unary("acosh", "[0.999, 1.0, 1.0000001, 1.5, 2.0, 3.0, 4095.0, 4097.0, 1e30, -2.0]"),
    **_unary("atanh", _UNIT + " + [1.0, 1.0000001, -2.0]"),
    **_unary("log_sigmoid", "[-1e4, -88.0, -20.0, -1.0, -1e-8, 0.5, 15.0, 30.0]"),
    **_unary("reciprocal_no_nan", "[4.0, -0.25, 1e-30, 3e38, -3e38]"),
    **_unary("rint", "[0.5, 1.5, 2.5, -0.5, -1.5, -0.4, 0.49999997, 8388607.5, 1e30]"),
    "top_level/names": "[hasattr(tf, n) for n in ('tan', 'sinh', 'cosh', 'asin', 'acos', "
                       "'atan', 'asinh', 'acosh', 'atanh', 'atan2', 'log_sigmoid', "
                       "'reciprocal_no_nan', 'rint', 'xlogy', 'xdivy', 'multiply_no_nan')]",
    # -- atan2: quadrants, signed zeros, infinities; TensorFlow's parameter order (y, x)
    "atan2/quadrants": "tf.math.atan2(tf.constant([1.0, 1.0, -1.0, -1.0, 3.0, -1e-30]), "
                       "tf.constant([1.0, -1.0, 1.0, -1.0, 1e-30, -3.0]))",
    "atan2/zeros": "y = tf.atan2(tf.constant([0.0, -0.0, 0.0, -0.0, 0.0, -0.0]), "
                   "tf.constant([0.0, 0.0, -0.0, -0.0, 2.0, -2.0]))\n"
                   "(y, np.signbit(y.numpy()) & ~np.isnan(y.numpy()))",
    "atan2/infinities": "tf.math.atan2(tf.constant([np.inf, np.inf, -np.inf, -np.inf, 1.0, "
                        "-1.0, np.inf, np.nan, 1.0]), tf.constant([np.inf, -np.inf, np.inf, "
                        "-np.inf, -np.inf, np.inf, 5.0, 1.0, np.nan]))",
    "atan2/keywords": "tf.math.atan2(x=tf.constant([1.0, -2.0]), y=tf.constant([0.5, 0.5]))",
    "atan2/broadcast": f"tf.math.atan2(tf.constant({_NORMAL.format(7)}), "
                       "tf.constant([1.0, -1.0, 0.0, -0.0, 2.0]))",
    "atan2/int_error": ("tf.math.atan2(tf.constant([1]), tf.constant([2]))",
                        {"match": ["int32"]}),
    # -- xlogy, xdivy: x itself (keeping -0) where x is 0, even for y 0, NaN or inf
    "xlogy/zeros": "z = tf.math.xlogy(tf.constant([0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 2.0, 1.0, "
                   "-3.0, np.nan]), tf.constant([0.0, np.nan, np.inf, 0.0, -1.0, -np.inf, "
                   "0.0, np.nan, 0.5, 0.0]))\n(z, np.signbit(z.numpy()) & ~np.isnan(z.numpy()))",
    "xlogy/near_one": "tf.math.xlogy(tf.constant([3.0, -2.0, 1e30]), "
                      "tf.constant([1.0000001, 0.99999994, 1.0001]))",
    "xlogy/scalar": "tf.math.xlogy(tf.constant([[1.0, 0.0], [2.0, 3.0]]), 2)",
    "xlogy/int_error": ("tf.math.xlogy(tf.constant([1]), tf.constant([2]))",
                        {"match": ["int32"]}),
    "xdivy/zeros": "z = tf.math.xdivy(tf.constant([0.0, 0.0, -0.0, 0.0, 2.0, -2.0, np.nan, "
                   "1.0]), tf.constant([0.0, np.nan, 0.0, -0.0, 0.0, 0.0, 0.0, np.inf]))\n"
                   "(z, np.signbit(z.numpy()) & ~np.isnan(z.numpy()))",
    "xdivy/int_error": ("tf.math.xdivy(tf.constant([1]), tf.constant([2]))",
                        {"match": ["int32"]}),
    "multiply_no_nan/zeros": "z = tf.math.multiply_no_nan(tf.constant([np.inf, np.nan, "
                             "-np.inf, 0.0, -0.0, 0.0, np.inf, 3.0]), tf.constant([0.0, "
                             "0.0, -0.0, np.nan, 0.0, np.inf, 2.0, -1.0]))\n"
                             "(z, np.signbit(z.numpy()) & ~np.isnan(z.numpy()))",
    "multiply_no_nan/broadcast": "tf.math.multiply_no_nan(tf.constant([[1.0], [np.inf]]), "
                                 "tf.constant([0.0, 2.0, -0.5]))",
    "multiply_no_nan/int_error": ("tf.math.multiply_no_nan(tf.constant([1]), "
                                  "tf.constant([2]))", {"match": ["int32"]}),
    # -- gradients, TensorFlow's formulas and conventions at 0 and at the domain's edges
    "trig_grad/tan": _GRAD.format(x="[0.0, 1.0, -1.2, 1.5707964]", fn="tf.math.tan(x)"),
    "trig_grad/sinh_cosh": _GRAD.format(x="[0.0, 1.0, -2.0, 89.0]",
                                        fn="tf.math.sinh(x) + tf.math.cosh(x) * 2.0"),
    "trig_grad/asin": _GRAD.format(x="[0.0, 0.5, -0.9, 1.0, 2.0]", fn="tf.math.asin(x)"),
    "trig_grad/acos": _GRAD.format(x="[0.0, 0.5, -0.9, 1.0, -1.0]", fn="tf.math.acos(x)"),
    "trig_grad/atan": _GRAD.format(x="[0.0, 1.0, -3.0, np.inf]", fn="tf.math.atan(x)"),
    "trig_grad/asinh": _GRAD.format(x="[0.0, 1.0, -3.0, np.inf]", fn="tf.math.asinh(x)"),
    "trig_grad/acosh": _GRAD.format(x="[1.0, 2.0, 0.5, 10.0]", fn="tf.math.acosh(x)"),
    "trig_grad/atanh": _GRAD.format(x="[0.0, 0.5, -0.9, 1.0]", fn="tf.math.atanh(x)"),
    "trig_grad/log_sigmoid": _GRAD.format(x="[0.0, -100.0, 100.0, 2.0]",
                                          fn="tf.math.log_sigmoid(x)"),
    "trig_grad/reciprocal_no_nan": _GRAD.format(x="[0.0, -0.0, 2.0, np.inf, -0.5]",
                                                fn="tf.math.reciprocal_no_nan(x)"),
    "trig_grad/rint": "x = tf.constant([0.5, 1.2])\nwith tf.GradientTape() as t:\n"
                      "    t.watch(x)\n    y = tf.math.rint(x)\nt.gradient(y, x)",
    "no_nan_grad/xlogy": _GRAD2.format(x="[0.0, 0.0, 2.0, 0.0, 2.0]",
                                       y="[0.0, 2.0, 3.0, np.nan, 0.0]",
                                       fn="tf.math.xlogy(x, y)"),
    "no_nan_grad/xdivy": _GRAD2.format(x="[0.0, 0.0, 2.0, 0.0, 2.0]",
                                       y="[0.0, 2.0, 3.0, np.nan, 0.0]",
                                       fn="tf.math.xdivy(x, y)"),
    "no_nan_grad/multiply_no_nan": _GRAD2.format(x="[0.0, np.inf, 2.0, np.nan, 2.0]",
                                                 y="[0.0, 0.0, 3.0, 0.0, np.inf]",
                                                 fn="tf.math.multiply_no_nan(x, y)"),
    "no_nan_grad/atan2": _GRAD2.format(x="[0.0, 1.0, -1.0, 0.0]", y="[0.0, 1.0, 2.0, -1.0]",
                                       fn="tf.math.atan2(x, y)"),
}
