#!/usr/bin/env python3
"""Writes tests/data/keras/lists.json: what real Keras 3 does when losses, metrics and
`fit` are given Python lists (beside tuples, numpy arrays and tensors).

Run by hand with TensorFlow 2.21 / Keras 3.15 in a separate virtual environment (never a
test dependency):

    $TF_PYTHON scripts/make_keras_list_fixtures.py

Keras 3 reads a list as a structure, not as an array: `Loss.__call__` converts it leaf by
leaf and `LossFunctionWrapper` pairs the leaves of y_true with those of y_pred, so lists
of different layouts raise ValueError where the same values as arrays broadcast. Each
case stores its inputs (values, and the form each argument is given in) and what Keras
gave: a value with its shape, or an exception's type and message.
"""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import list_forms  # noqa: E402

keras = tf.keras
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "lists.json"
FORMS = ("list", "tuple", "np", "tensor")
PROBS = [[0.1, 0.9], [0.8, 0.2]]

# (class, config, y_true, y_pred, sample_weight, forms as (y_true's, y_pred's))
LOSSES = [
    ("MeanSquaredError", {}, [1.0, 2.0], [[1.0], [2.0]], None, "all"),
    ("MeanSquaredError", {}, [[1.0], [2.0]], [1.0, 2.0], None, "all"),
    ("MeanSquaredError", {}, [1.0, 2.0], [1.5, 2.5], None, "all"),
    ("MeanSquaredError", {}, [1, 2], [1, 3], None, [("list", "list"), ("np", "np")]),
    ("MeanSquaredError", {}, [[1.0, 2.0], [3.0, 4.0]], [[1.5, 2.0], [3.0, 5.0]], None, "all"),
    ("MeanSquaredError", {}, [1.0, 2.0, 3.0], [1.0, 2.0], None, [("list", "list"),
                                                                 ("tuple", "tuple")]),
    ("MeanSquaredError", {}, [1.0, 2.0], [1.5, 3.0], None, [("list", "tuple")]),
    ("MeanSquaredError", {}, [1.0, 2.0], [1.5, 3.0], [1.0, 2.0], [("list", "list")]),
    ("MeanSquaredError", {}, [[1.0], [2.0]], [[1.5], [3.0]], [1.0, 2.0], [("list", "list")]),
    ("MeanSquaredError", {"reduction": None}, [1.0, 2.0], [[1.0], [2.0]], None,
     [("list", "list"), ("np", "np")]),
    ("MeanSquaredError", {"reduction": "sum"}, [[1.0], [2.0]], [[1.5], [3.0]], None,
     [("list", "list")]),
    ("MeanAbsoluteError", {}, [1.0, 2.0], [[1.5], [2.0]], None, "all"),
    ("Huber", {}, [1.0, 2.0], [1.5, 4.0], None, [("list", "list")]),
    ("LogCosh", {}, [1.0, 2.0], [[1.5], [2.0]], None, [("list", "list"), ("np", "np")]),
    ("Hinge", {}, [1.0, 0.0], [0.3, -0.2], None, [("list", "list")]),
    ("Poisson", {}, [1.0, 2.0], [1.5, 2.5], None, [("list", "list")]),
    ("KLDivergence", {}, [[0.5, 0.5]], [[0.3, 0.7]], None, [("list", "list")]),
    ("CosineSimilarity", {}, [[1.0, 0.0]], [[0.3, 0.4]], None, [("list", "list")]),
    ("CategoricalCrossentropy", {}, [[0.0, 1.0], [1.0, 0.0]], PROBS, None, "all"),
    ("BinaryCrossentropy", {}, [[1.0], [0.0]], [[0.7], [0.2]], None, "all"),
    ("BinaryCrossentropy", {}, [1.0, 0.0], [0.7, 0.2], None, "all"),
    ("BinaryCrossentropy", {}, [1.0, 0.0], [[0.7], [0.2]], None, "all"),
    ("SparseCategoricalCrossentropy", {}, [1, 0], PROBS, None, "all"),
    ("SparseCategoricalCrossentropy", {}, [[1], [0]], PROBS, None, "all"),
    ("SparseCategoricalCrossentropy", {}, [1, 0], [[0.2, 0.8]], None, [("list", "list")]),
    ("SparseCategoricalCrossentropy", {"from_logits": True, "reduction": None}, [1, 0],
     PROBS, None, [("list", "list"), ("np", "np")]),
]

# (function path, y_true, y_pred, forms)
FUNCTIONS = [
    ("losses.mse", [[1.0, 2.0]], [[1.0, 4.0]], [("list", "list"), ("np", "np")]),
    ("losses.sparse_categorical_crossentropy", [1, 0], PROBS,
     [("list", "list"), ("np", "list"), ("np", "np"), ("tensor", "tensor")]),
    ("metrics.binary_accuracy", [1.0, 0.0], [0.7, 0.6], [("list", "list"), ("np", "np")]),
    ("metrics.binary_accuracy", [[1.0], [0.0]], [[0.7], [0.6]], [("list", "list")]),
    ("metrics.binary_accuracy", [[1.0, 0.0], [0.0, 0.0]], [[0.7, 0.2], [0.6, 0.1]],
     [("list", "list")]),
    ("metrics.binary_accuracy", [1.0, 0.0], [[0.7], [0.6]], [("list", "list")]),
]

# (class, config, y_true, y_pred, sample_weight): each updated once with lists, once with
# numpy arrays
METRICS = [
    ("MeanSquaredError", {}, [1.0, 2.0], [[1.5], [2.0]], None),
    ("MeanAbsoluteError", {}, [[1.0], [2.0]], [1.5, 2.0], None),
    ("RootMeanSquaredError", {}, [1.0, 2.0], [1.5, 3.0], [1.0, 2.0]),
    ("SparseCategoricalAccuracy", {}, [1, 0], PROBS, [1.0, 3.0]),
    ("CategoricalAccuracy", {}, [[0, 1], [0, 1]], PROBS, None),
    ("BinaryAccuracy", {}, [1, 0], [0.7, 0.6], None),
    ("BinaryAccuracy", {}, [1, 0], [0.7, 0.6], [1.0, 3.0]),
    ("BinaryAccuracy", {}, [[1.0, 0.0], [0.0, 0.0]], [[0.7, 0.2], [0.6, 0.1]], [1.0, 3.0]),
    ("BinaryAccuracy", {}, [[1.0, 0.0], [0.0, 0.0]], [[0.7, 0.2], [0.6, 0.1]],
     [[1.0, 2.0], [3.0, 4.0]]),
    ("Accuracy", {}, [1, 2, 3], [1, 2, 4], None),
    ("SparseCategoricalCrossentropy", {}, [1, 0], PROBS, None),
    ("BinaryCrossentropy", {}, [1, 0], [0.7, 0.2], None),
    ("AUC", {}, [1, 0, 1], [0.7, 0.2, 0.4], None),
    ("Precision", {}, [1, 0, 1], [0.7, 0.6, 0.4], None),
    ("SparseTopKCategoricalAccuracy", {"k": 1}, [1, 0], PROBS, None),
]

X = [[1.0], [2.0], [3.0], [4.0]]
# (loss, x, y, forms of x and y)
FITS = [
    ("mse", X, [1.0, 2.0, 3.0, 4.0], ("list", "list")),
    ("mse", X, [1.0, 2.0, 3.0, 4.0], ("np", "list")),
    ("sparse_categorical_crossentropy", X, [0, 1, 0, 1], ("list", "list")),
    ("mse", [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], ("list", "np")),
]


def make(value, form):
    return list_forms.make(value, form, tf.constant)


def outcome(fn):
    try:
        value = np.asarray(fn())
    except Exception as e:  # noqa: BLE001 (the exception is what is recorded)
        return {"error": type(e).__name__, "message": str(e)}
    return {"value": value.astype(np.float64).tolist(), "shape": list(value.shape)}


def form_pairs(forms):
    return [(f, f) for f in FORMS] + [("list", "np"), ("np", "list"), ("list", "tensor"),
                                      ("tensor", "list")] if forms == "all" else forms


def squares_loss():
    class Squares(keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.square(y_pred - y_true)
    return Squares(reduction="sum")


def main():
    cases = []
    for name, config, y_true, y_pred, weights, forms in LOSSES:
        for ft, fp in form_pairs(forms):
            loss = getattr(keras.losses, name)(**config)
            cases.append({"kind": "loss", "name": name, "config": config, "y_true": y_true,
                          "y_pred": y_pred, "sample_weight": weights, "forms": [ft, fp],
                          **outcome(lambda: loss(make(y_true, ft), make(y_pred, fp),
                                                 sample_weight=weights))})
    for ft, fp in (("list", "list"), ("np", "np"), ("tensor", "tensor")):
        cases.append({"kind": "loss", "name": "Squares", "config": {}, "y_true": [1.0, 2.0],
                      "y_pred": [0.0, 0.0], "sample_weight": None, "forms": [ft, fp],
                      **outcome(lambda: squares_loss()(make([1.0, 2.0], ft),
                                                       make([0.0, 0.0], fp)))})
    for path, y_true, y_pred, forms in FUNCTIONS:
        module, fn = path.split(".")
        for ft, fp in forms:
            cases.append({"kind": "function", "name": path, "y_true": y_true,
                          "y_pred": y_pred, "forms": [ft, fp],
                          **outcome(lambda: getattr(getattr(keras, module), fn)(
                              make(y_true, ft), make(y_pred, fp)))})
    for name, config, y_true, y_pred, weights in METRICS:
        for form in ("list", "np"):
            def update():
                metric = getattr(keras.metrics, name)(**config)
                metric.update_state(make(y_true, form), make(y_pred, form),
                                    sample_weight=None if weights is None
                                    else make(weights, form))
                return metric.result()
            cases.append({"kind": "metric", "name": name, "config": config,
                          "y_true": y_true, "y_pred": y_pred, "sample_weight": weights,
                          "forms": [form, form], **outcome(update)})
    for loss, x, y, (fx, fy) in FITS:
        def fit():
            keras.utils.set_random_seed(0)
            units = 2 if loss.startswith("sparse") else 1
            model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(units)])
            model.compile(optimizer="sgd", loss=loss)
            return model.fit(make(x, fx), make(y, fy), epochs=1, verbose=0).history["loss"]
        cases.append({"kind": "fit", "name": loss, "x": x, "y": y, "forms": [fx, fy],
                      **outcome(fit)})
    data = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__,
            "cases": cases}
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {len(cases)} cases, "
          f"{sum('error' in c for c in cases)} of them errors")


if __name__ == "__main__":
    main()
