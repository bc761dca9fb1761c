#!/usr/bin/env python3
"""Writes tests/data/keras/metrics_extra.json: what real Keras 3 gives for the metrics
and losses texflow added after its first set (confusion counts, F-scores, R2, the IoU
family, correlations, the *AtRecall family, focal losses, Dice, Tversky, ...).

Run by hand with TensorFlow 2.21 / Keras 3.15 in a separate virtual environment (never a
test dependency):

    $TF_PYTHON scripts/make_keras_metric_fixtures.py

Each metric case is a class, its constructor arguments and a few `update_state` calls
(inputs as numpy arrays, with or without sample weights); the file keeps the result after
them, its dtype, `get_config()`, and the result after `reset_state()` and the first call
again. Loss cases keep each call's value; function cases their per-example values. Fit
cases train a small model from constant weights and keep `fit`'s history and
`evaluate`'s logs.
"""

import json
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

keras = tf.keras
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "metrics_extra.json"
rng = np.random.RandomState(7)


def arr(x, dtype="float32"):
    return {"v": np.asarray(x).tolist(), "dtype": dtype}


def probs(*shape):
    return np.round(rng.uniform(0.0, 1.0, shape), 2).astype(np.float32)


def labels(*shape):
    return (rng.uniform(size=shape) > 0.5).astype(np.float32)


def classes(n, k):
    return rng.randint(0, k, size=n).astype(np.int32)


def one_hot(ids, k):
    return np.eye(k, dtype=np.float32)[ids]


def weights(n):
    return np.round(rng.uniform(0.0, 2.0, n), 2).astype(np.float32)


B1, B2 = (labels(6), probs(6)), (labels(6), probs(6))
M1, M2 = (labels(4, 3), probs(4, 3)), (labels(4, 3), probs(4, 3))
R1, R2 = (probs(5, 2) * 3, probs(5, 2) * 3), (probs(5, 2) * 3, probs(5, 2) * 3)
S1, S2 = (classes(8, 3), classes(8, 3)), (classes(8, 3), classes(8, 3))
SW6, SW4, SW5, SW8 = weights(6), weights(4), weights(5), weights(8)
ONEHOT = (one_hot(classes(6, 3), 3), probs(6, 3))
_EMB = rng.normal(size=(6, 4)).astype(np.float32)
CIRCLE = (classes(6, 2), _EMB / np.linalg.norm(_EMB, axis=1, keepdims=True))


def calls(*pairs, sw=None):
    return [[arr(t, str(t.dtype)), arr(p, str(p.dtype)), None if s is None else arr(s)]
            for (t, p), s in zip(pairs, sw or [None] * len(pairs))]


METRICS = [
    ("TruePositives", {}, calls(B1, B2)),
    ("TruePositives", {"thresholds": [0.2, 0.5, 0.8]}, calls(B1, B2, sw=[SW6, None])),
    ("FalsePositives", {"thresholds": 0.3}, calls(B1, B2, sw=[SW6, SW6])),
    ("TrueNegatives", {"thresholds": [0.0, 0.25, 0.5, 0.75, 1.0]}, calls(B1, B2)),
    ("FalseNegatives", {}, calls(M1, M2, sw=[SW4, None])),
    ("Precision", {"class_id": 1}, calls(M1, M2)),
    ("Recall", {"thresholds": [0.3, 0.6]}, calls(M1, M2, sw=[SW4, SW4])),
    ("PrecisionAtRecall", {"recall": 0.5}, calls(B1, B2)),
    ("PrecisionAtRecall", {"recall": 0.8, "num_thresholds": 5}, calls(B1, B2, sw=[SW6, SW6])),
    ("RecallAtPrecision", {"precision": 0.6}, calls(M1, M2)),
    ("SensitivityAtSpecificity", {"specificity": 0.4}, calls(B1, B2)),
    ("SensitivityAtSpecificity", {"specificity": 0.5, "class_id": 2}, calls(M1, M2)),
    ("SpecificityAtSensitivity", {"sensitivity": 0.6, "num_thresholds": 1}, calls(B1, B2)),
    ("SpecificityAtSensitivity", {"sensitivity": 0.3}, calls(M1, M2, sw=[SW4, SW4])),
    ("F1Score", {}, calls(M1, M2)),
    ("F1Score", {"average": "macro", "threshold": 0.5}, calls(M1, M2, sw=[SW4, SW4])),
    ("F1Score", {"average": "micro", "threshold": 0.4}, calls(M1, M2)),
    ("FBetaScore", {"beta": 2.0, "average": "weighted"}, calls(M1, M2)),
    ("FBetaScore", {"beta": 0.5, "threshold": 0.6}, calls(M1, M2, sw=[SW4, None])),
    ("R2Score", {}, calls(R1, R2)),
    ("R2Score", {"class_aggregation": None}, calls(R1, R2, sw=[SW5, SW5])),
    ("R2Score", {"class_aggregation": "variance_weighted_average"}, calls(R1, R2)),
    ("R2Score", {"num_regressors": 2}, calls(R1, R2)),
    ("IoU", {"num_classes": 3, "target_class_ids": [0, 2]}, calls(S1, S2)),
    ("IoU", {"num_classes": 3, "target_class_ids": [1], "dtype": "float32"},
     calls(S1, S2, sw=[SW8, SW8])),
    ("MeanIoU", {"num_classes": 3}, calls(S1, S2)),
    ("MeanIoU", {"num_classes": 3, "ignore_class": 1}, calls(S1, S2)),
    ("MeanIoU", {"num_classes": 3}, calls(S1, sw=[SW8])),  # int dtype: weights truncate
    ("BinaryIoU", {}, calls(B1, B2)),
    ("BinaryIoU", {"target_class_ids": [1], "threshold": 0.3, "dtype": "float32"},
     calls(B1, B2, sw=[SW6, SW6])),
    ("OneHotIoU", {"num_classes": 3, "target_class_ids": [0, 1]}, calls(ONEHOT)),
    ("OneHotMeanIoU", {"num_classes": 3}, calls(ONEHOT)),
    ("PearsonCorrelation", {}, calls(R1, R2)),
    ("ConcordanceCorrelation", {}, calls(R1, R2, sw=[SW5, SW5])),
    ("CosineSimilarity", {}, calls(M1, M2)),
    ("LogCoshError", {}, calls(R1, R2)),
    ("Poisson", {}, calls(R1, R2)),
    ("KLDivergence", {}, calls(M1, M2)),
    ("SquaredHinge", {}, calls(M1, M2)),
    ("CategoricalHinge", {}, calls(M1, M2, sw=[SW4, SW4])),
]

LOSSES = [
    ("BinaryFocalCrossentropy", {}, calls(M1, M2, sw=[None, SW4])),
    ("BinaryFocalCrossentropy", {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5,
                                 "label_smoothing": 0.1}, calls(M1)),
    ("BinaryFocalCrossentropy", {"from_logits": True, "reduction": "sum"},
     calls((M1[0], M1[1] * 4 - 2))),
    ("CategoricalFocalCrossentropy", {}, calls(M1, M2, sw=[None, SW4])),
    ("CategoricalFocalCrossentropy", {"from_logits": True, "gamma": 3.0,
                                      "label_smoothing": 0.2}, calls((M1[0], M1[1] * 4 - 2))),
    ("Dice", {}, calls(M1, M2)),
    ("Dice", {"axis": -1, "reduction": None}, calls(M1)),
    ("Tversky", {"alpha": 0.3, "beta": 0.7}, calls(M1, M2)),
    ("Tversky", {"axis": 1}, calls(M1, sw=[SW4])),
    ("Circle", {}, calls(CIRCLE)),
    ("Circle", {"gamma": 10.0, "margin": 0.25, "reduction": "sum"}, calls(CIRCLE, sw=[SW6])),
    ("Circle", {"remove_diagonal": False}, calls(CIRCLE, sw=[SW6])),
    # labels 2 and 3 have no positive pair: their zero losses are masked out of the mean
    ("Circle", {}, calls((np.array([0, 0, 1, 1, 2, 3], np.int32), CIRCLE[1]), sw=[SW6])),
    ("CategoricalGeneralizedCrossEntropy", {}, calls((classes(4, 3), M1[1]))),
    ("CategoricalGeneralizedCrossEntropy", {"q": 0.8, "reduction": "sum"},
     calls((classes(4, 3), M2[1]), sw=[SW4])),
]

FUNCTIONS = [
    ("metrics", "hinge", {}, M1), ("metrics", "squared_hinge", {}, M1),
    ("metrics", "categorical_hinge", {}, M1), ("metrics", "poisson", {}, R1),
    ("metrics", "kl_divergence", {}, M1), ("metrics", "log_cosh", {}, R1),
    ("metrics", "huber", {"delta": 0.5}, R1),
    ("metrics", "pearson_correlation", {}, R1), ("metrics", "concordance_correlation", {}, R2),
    ("metrics", "binary_focal_crossentropy", {"gamma": 1.0}, M1),
    ("losses", "categorical_focal_crossentropy", {"alpha": 0.5}, M2),
    ("losses", "dice", {"axis": 1}, M2), ("losses", "tversky", {"alpha": 0.2, "beta": 0.8}, M2),
    ("losses", "categorical_generalized_cross_entropy", {"q": 0.3}, (classes(4, 3), M2[1])),
    ("losses", "circle", {"gamma": 20.0}, CIRCLE),
]


def value(x):
    x = np.asarray(x)
    return {"v": x.tolist(), "dtype": str(x.dtype)}


def load(a):
    return None if a is None else np.asarray(a["v"], dtype=a["dtype"])


def metric_case(name, config, call_list):
    keras.backend.clear_session()  # default names without Keras's _1, _2 suffixes
    m = getattr(keras.metrics, name)(**config)
    for t, p, s in call_list:
        m.update_state(load(t), load(p), sample_weight=load(s))
    result = np.array(m.result())  # a copy: a vector result can be the variable itself
    m.reset_state()
    t, p, s = call_list[0]
    m.update_state(load(t), load(p), sample_weight=load(s))
    return {"class": name, "args": config, "calls": call_list, "result": value(result),
            "result_dtype": str(np.asarray(result).dtype), "after_reset": value(m.result()),
            "config": m.get_config()}


def loss_case(name, config, call_list):
    loss = getattr(keras.losses, name)(**config)
    values = [value(loss(load(t), load(p), sample_weight=load(s))) for t, p, s in call_list]
    return {"class": name, "args": config, "calls": call_list, "values": values,
            "config": loss.get_config()}


def function_case(module, name, kwargs, pair):
    t, p = pair
    import keras as keras3  # tf.keras.metrics lacks kl_divergence and log_cosh
    out = getattr(getattr(keras3, module), name)(t, p, **kwargs)
    return {"module": module, "function": name, "kwargs": kwargs,
            "args": [arr(t, str(t.dtype)), arr(p, str(p.dtype))], "value": value(out)}


FIT_X = np.round(rng.uniform(-1, 1, (12, 4)), 2).astype(np.float32)
FIT_Y = one_hot(classes(12, 3), 3)
FIT_METRICS = [
    ["f1_score", "true_positives", "r2_score", "binary_io_u", "pearson_correlation"],
    [{"class_name": "FBetaScore", "config": {"beta": 2.0, "average": "macro",
                                             "threshold": 0.3}},
     {"class_name": "OneHotMeanIoU", "config": {"num_classes": 3}},
     {"class_name": "PrecisionAtRecall", "config": {"recall": 0.5}},
     {"class_name": "FalseNegatives", "config": {"thresholds": [0.3, 0.6]}}],
]
FIT_LOSSES = ["categorical_crossentropy", "binary_focal_crossentropy",
              {"class_name": "CategoricalFocalCrossentropy", "config": {"gamma": 1.0}},
              {"class_name": "Dice", "config": {}}]


def build_model(activation):
    kernel = np.round(rng.uniform(-0.5, 0.5, (4, 3)), 2).astype(np.float32)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(
        3, activation=activation, kernel_initializer=keras.initializers.Constant(kernel))])
    return model, kernel


def make_metric(spec):
    if isinstance(spec, str):
        return spec
    return getattr(keras.metrics, spec["class_name"])(**spec["config"])


def make_loss(spec):
    if isinstance(spec, str):
        return spec
    return getattr(keras.losses, spec["class_name"])(**spec["config"])


def fit_case(metrics, loss):
    keras.backend.clear_session()
    # sigmoid outputs for the binary loss: Keras computes binary cross-entropy of a
    # softmax layer's output from the logits it kept, as if they were sigmoid logits
    activation = "sigmoid" if loss == "binary_focal_crossentropy" else "softmax"
    model, kernel = build_model(activation)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=make_loss(loss),
                  metrics=[make_metric(m) for m in metrics])
    history = model.fit(FIT_X, FIT_Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    logs = model.evaluate(FIT_X, FIT_Y, batch_size=5, verbose=0, return_dict=True)
    return {"metrics": metrics, "loss": loss, "kernel": kernel.tolist(),
            "activation": activation,
            "x": FIT_X.tolist(), "y": FIT_Y.tolist(),
            "history": {k: [np.asarray(v).tolist() for v in vs]
                    for k, vs in history.history.items()},
            "evaluate": {k: np.asarray(v).tolist() for k, v in logs.items()}}


def main():
    fit = [fit_case(m, l) for m, l in zip(FIT_METRICS * 2, FIT_LOSSES)]
    data = {"keras": keras.__version__, "tensorflow": tf.__version__,
            "metrics": [metric_case(*c) for c in METRICS],
            "losses": [loss_case(*c) for c in LOSSES],
            "functions": [function_case(*c) for c in FUNCTIONS],
            "fit": fit}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}: {len(data['metrics'])} metric, {len(data['losses'])} loss, "
          f"{len(data['functions'])} function and {len(fit)} fit cases")


if __name__ == "__main__":
    main()
