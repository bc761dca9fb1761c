"""tf.keras.constraints on every backend against numpy versions of Keras 3's formulas
(values checked against Keras 3 in TensorFlow 2.21), their names and configs, and a
constraint applied by fit after each step."""

import numpy as np

import texflow as tf
from harness import each_backend, raises
from keras_cases import close

W = np.array([[3.0, 4.0, -1.0], [0.0, 1.0, 2.0]], np.float32)


def _norms(w, axis):
    return np.sqrt(np.sum(w * w, axis=tuple(np.atleast_1d(axis)), keepdims=True))


@each_backend
def test_constraints_match_keras_formulas():
    c = tf.keras.constraints
    cases = {
        "MaxNorm": (c.MaxNorm(2.0), lambda n: W * np.minimum(n, 2.0) / (n + 1e-7), 0),
        "MaxNorm axis=1": (c.MaxNorm(2.0, axis=1), None, 1),
        "MaxNorm axis=[0, 1]": (c.MaxNorm(1.0, axis=[0, 1]),
                                lambda n: W * np.minimum(n, 1.0) / (n + 1e-7), [0, 1]),
        "UnitNorm": (c.UnitNorm(), lambda n: W / (n + 1e-7), 0),
        "MinMaxNorm": (c.MinMaxNorm(1.0, 2.0, rate=0.5),
                       lambda n: W * (0.5 * np.clip(n, 1.0, 2.0) + 0.5 * n) / (n + 1e-7), 0),
    }
    for what, (constraint, formula, axis) in cases.items():
        n = _norms(W, axis)
        expected = formula(n) if formula else W * np.minimum(n, 2.0) / (n + 1e-7)
        close(constraint(tf.constant(W)).numpy(), expected.astype(np.float32), rtol=1e-5,
              atol=1e-6, what=what)
    got = c.NonNeg()(tf.constant([-1.0, 0.0, 2.0])).numpy()
    assert got.tolist() == [0.0, 0.0, 2.0] and not np.signbit(got).any(), got


@each_backend
def test_constraints_by_name_config_and_in_fit():
    c = tf.keras.constraints
    assert [type(c.get(n)).__name__ for n in ("non_neg", "max_norm", "unit_norm",
                                              "min_max_norm")] == \
        ["NonNeg", "MaxNorm", "UnitNorm", "MinMaxNorm"]
    assert c.serialize(c.MaxNorm(3)) == {"module": "keras.constraints", "class_name": "MaxNorm",
                                         "config": {"max_value": 3, "axis": 0},
                                         "registered_name": None}
    with raises(ValueError, match="Could not interpret constraint identifier"):
        c.get("nope")
    dense = tf.keras.layers.Dense(2, kernel_constraint="max_norm", bias_constraint=c.NonNeg())
    assert type(tf.keras.layers.Dense.from_config(dense.get_config()).kernel_constraint) \
        is c.MaxNorm
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(
        2, kernel_initializer="ones", kernel_constraint=c.NonNeg())])
    model.compile(optimizer=tf.keras.optimizers.SGD(10.0), loss="mse")
    model.fit(np.ones((4, 3), np.float32), np.full((4, 2), -5.0, np.float32), verbose=0)
    kernel = model.layers[-1].kernel.numpy()
    assert kernel.tolist() == [[0.0, 0.0]] * 3, kernel  # the step made them negative
