"""Keras losses, metrics and `fit` given Python lists (beside tuples, numpy arrays and
tensors) against what real Keras 3.15 did with the same arguments (tests/data/keras/
lists.json, written by scripts/make_keras_list_fixtures.py), on every backend: the same
value and shape, or the same exception with the same message.

Keras 3 reads a list as a structure, not an array, so `MeanSquaredError()([1.0, 2.0],
[[1.0], [2.0]])` raises ValueError while the same values as arrays give 0.0.
"""

import builtins
import re

import numpy as np

import keras_cases
import list_forms
import texflow as tf
from harness import each_backend
from keras_cases import close


def _make(value, form):
    return list_forms.make(value, form, tf.constant)


def _squares_loss():
    class Squares(tf.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.square(y_pred - y_true)
    return Squares(reduction="sum")


def _run(case):
    ft, fp = case["forms"]
    if case["kind"] == "loss":
        loss = (_squares_loss() if case["name"] == "Squares"
                else getattr(tf.keras.losses, case["name"])(**case["config"]))
        return loss(_make(case["y_true"], ft), _make(case["y_pred"], fp),
                    sample_weight=case["sample_weight"])
    if case["kind"] == "function":
        module, fn = case["name"].split(".")
        return getattr(getattr(tf.keras, module), fn)(_make(case["y_true"], ft),
                                                       _make(case["y_pred"], fp))
    if case["kind"] == "metric":
        metric = getattr(tf.keras.metrics, case["name"])(**case["config"])
        weights = case["sample_weight"]
        metric.update_state(_make(case["y_true"], ft), _make(case["y_pred"], fp),
                            sample_weight=None if weights is None else _make(weights, ft))
        return metric.result()
    tf.keras.utils.set_random_seed(0)
    units = 2 if case["name"].startswith("sparse") else 1
    model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(units)])
    model.compile(optimizer="sgd", loss=case["name"])
    return model.fit(_make(case["x"], ft), _make(case["y"], fp), epochs=1,
                     verbose=0).history["loss"]


def _tensors_elided(message):
    # a tensor's printed values are the backend's formatting (TF prints float32 scalars
    # through float64: 0.800000011920929); the rest of the message is Keras's
    return re.sub(r"numpy=.*?>", "numpy=...>", message, flags=re.S)


@each_backend(case=keras_cases.cases("cases", "lists.json"))
def test_lists_do_what_keras_does(case):
    what = f"{case['kind']} {case['name']} {case.get('config', '')} forms={case['forms']}"
    if "error" in case:
        try:
            got = _run(case)
        except getattr(builtins, case["error"]) as e:
            assert _tensors_elided(str(e)) == _tensors_elided(case["message"]), what
            return
        raise AssertionError(f"{what}: Keras raised {case['error']}: {case['message']}; "
                             f"texflow returned {got!r}")
    value = np.asarray(_run(case))
    assert list(value.shape) == case["shape"], what
    close(value, case["value"], rtol=1e-5, atol=1e-6, what=what)
