"""TensorFlow-differential snippets for tf.switch_case, tf.case, tf.Assert and
tf.recompute_grad, eagerly and inside tf.function (a traced index or predicate: every
branch traced and selected, as tf.cond; tf.Assert a check at every call).
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py control`.
"""

_C = "c = tf.constant\n"
_B3 = "[lambda: c([1., 2.]), lambda: c([3., 4.]), lambda: c([5., 6.])]"

SNIPPETS = {
    # -- switch_case ---------------------------------------------------------------------
    "switch_case/eager": _C + "[tf.switch_case(c(k), " + _B3 + ") for k in (0, 1, 2, 7, -1)]",
    "switch_case/default": _C + "[tf.switch_case(c(k), " + _B3 + ", default=lambda: c([9., "
                           "9.])) for k in (1, 3, -2)]",
    "switch_case/python_result": _C + "tf.switch_case(c(1), [lambda: 1.0, lambda: 2.0])",
    "switch_case/int64": _C + "tf.switch_case(c(1, tf.int64), " + _B3 + ")",
    "switch_case/pairs": _C + "tf.switch_case(c(1), [(1, lambda: c(1.0)), (0, lambda: c(2.0))])",
    "switch_case/dict": _C + "tf.switch_case(c(0), {1: lambda: c(1.0), 0: lambda: c(2.0)})",
    "switch_case/struct": _C + "tf.switch_case(c(0), [lambda: (c(1.0), {'a': c(2)}), "
                               "lambda: (c(3.0), {'a': c(4)})])",
    "switch_case/err_python_index": (_C + "tf.switch_case(1, " + _B3 + ")",
                                     {"match": ["'branch_index' must be a Tensor"]}),
    "switch_case/err_float_index": (_C + "tf.switch_case(c(1.0), " + _B3 + ")",
                                    {"match": ["must be an integer Tensor"]}),
    "switch_case/err_empty": (_C + "tf.switch_case(c(0), [])",
                              {"match": ["at least one item in 'branch_fns'"]}),
    "switch_case/err_keys": (_C + "tf.switch_case(c(3), {3: lambda: 1.0, 5: lambda: 2.0})",
                             {"match": ["contiguous range of [0 to 2) but found {3,5}"]}),
    "switch_case/err_entry": (_C + "tf.switch_case(c(0), [3])", {"match": ["2-tuple"]}),
    "switch_case_traced/select": _C + "f = tf.function(lambda i: tf.switch_case(i, " + _B3 +
                                 "))\n[f(c(k)) for k in (0, 1, 2, 5, -1)]",
    "switch_case_traced/default_struct": _C + """
f = tf.function(lambda i, x: tf.switch_case(i, [lambda: (x * 2, tf.reduce_sum(x)),
                                               lambda: (x - 1, tf.reduce_max(x))],
                                           default=lambda: (x, c(0.))))
x = c([1., 3.])
[f(c(k), x) for k in (0, 1, 2)]
""",
    "switch_case_traced/gradient": _C + """
@tf.function
def f(i, x):
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.switch_case(i, [lambda: x * x, lambda: tf.sin(x), lambda: 3 * x])
    return y, t.gradient(y, x)
x = c([0.5, 2.0])
[f(c(k), x) for k in (0, 1, 2)]
""",
    "switch_case_traced/err_dtypes": (_C + "f = tf.function(lambda i: tf.switch_case(i, "
                                      "[lambda: c(1.0), lambda: c(2)]))\nf(c(0))",
                                      {"match": ["same number, type, and overall structure"]}),
    # -- case ----------------------------------------------------------------------------
    "case/first_true": _C + "tf.case([(c(False), lambda: c(1.0)), (c(True), lambda: c(2.0)), "
                            "(c(True), lambda: c(3.0))], default=lambda: c(4.0))",
    "case/default": _C + "tf.case([(c(False), lambda: (c(1.0), c(2.0)))], "
                         "default=lambda: (c(3.), c(4.)))",
    "case/exclusive": _C + "tf.case([(c(True), lambda: 1.0), (c(True), lambda: 2.0)], "
                           "exclusive=True)",
    "case/no_default_last": _C + "tf.case([(c(False), lambda: 1.0), (c(True), lambda: 2.0)])",
    "case/err_none_true": (_C + "tf.case([(c(False), lambda: 1.0), (c(False), lambda: 2.0), "
                                "(c(False), lambda: 3.0)])",
                           {"match": ["None of conditions evaluated as True",
                                      "False, False, False"]}),
    "case/err_python_pred": (_C + "tf.case([(True, lambda: 1.0)])",
                             {"match": ["pred must be a Tensor, got: True"]}),
    "case_traced/select": _C + """
f = tf.function(lambda p, q, x: tf.case([(p, lambda: x + 1), (q, lambda: x * 10)],
                                        default=lambda: -x))
x = c([1., 2.])
[f(c(a), c(b), x) for a, b in ((True, True), (False, True), (False, False), (True, False))]
""",
    "case_traced/no_default": _C + """
f = tf.function(lambda p, q: tf.case([(p, lambda: c(1.0)), (q, lambda: c(2.0))]))
(f(c(False), c(True)), f(c(True), c(False)))
""",
    "case_traced/err_none_true": (_C + """
f = tf.function(lambda p, q: tf.case([(p, lambda: c(1.0)), (q, lambda: c(2.0))]))
f(c(False), c(True))
f(c(False), c(False))
""", {"match": ["None of conditions evaluated as True"]}),
    # -- Assert --------------------------------------------------------------------------
    "Assert/holds": _C + "tf.Assert(c(True), [c([1., 2.])])",
    "Assert/summary": (_C + "tf.Assert(c(False), [c([[1., 2.], [3., 4.]]), 'hello', 3])",
                       {"match": ["Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be "
                                  "true. Summarized data: 1.0, 2.0, 3.0, ...\nb'hello'\n3"]}),
    "Assert/summarize": (_C + "tf.Assert(c(False), [c([1., 2., 3., 4.]), c(2.5), 's'], "
                              "summarize=2)",
                         {"match": ["Summarized data: 1.0, 2.0, ...\n2.5\nb's'"]}),
    "Assert/summarize_all": (_C + "tf.Assert(c(False), [c([1, 2, 3, 4])], summarize=-1)",
                             {"match": ["Summarized data: 1, 2, 3, 4"]}),
    "Assert/python_condition": (_C + "tf.Assert(False, ['msg'])",
                                {"match": ["Expected 'False' to be true. Summarized data: "
                                           "b'msg'"]}),
    "Assert/int_condition": (_C + "tf.Assert(c(0), ['m'])",
                             {"match": ["Expected 'tf.Tensor(0, shape=(), dtype=int32)'"]}),
    "Assert/err_vector": (_C + "tf.Assert(c([True, False]), ['msg'])",
                          {"match": ["truth value of an array"]}),
    "Assert_traced/each_call": (_C + """
@tf.function
def f(v):
    tf.Assert(tf.reduce_all(v > 0), [v])
    return v + 1
f(c([1., 2.]))
f(c([3., 4.]))
f(c([-1., 2.]))
""", {"match": ["-1"]}),
    "Assert_traced/passes": _C + """
@tf.function
def f(v):
    tf.Assert(tf.reduce_all(v > 0), [v])
    return v + 1
(f(c([1., 2.])), f(c([3., 4.])))
""",
    # -- recompute_grad ------------------------------------------------------------------
    "recompute_grad/values_and_grads": _C + """
def body(a, b=1.0):
    return tf.tanh(a * b) * a
g = tf.recompute_grad(body)
x, w = c([0.5, -1.5]), c([2.0, 0.25])
with tf.GradientTape() as t:
    t.watch([x, w])
    y = g(x, b=w)
(y, t.gradient(y, [x, w]))
""",
}
