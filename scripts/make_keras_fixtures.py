#!/usr/bin/env python3
"""Writes tests/data/keras/fixtures.json: what real Keras computes, for texflow's tests.

Run once, by hand, with TensorFlow 2.21 / Keras 3.15 in a separate virtual
environment (never a test dependency):

    $TF_PYTHON scripts/make_keras_fixtures.py

It records, from Keras itself: layer outputs for given inputs and weights (training
and inference), layers' default configs, optimizer trajectories (weights and slots
after each step), loss values (functions, classes, reductions, sample weights),
metric results after sequences of updates, short deterministic `fit` runs (history,
final weights, evaluate), and `summary()` text. Inputs are drawn with numpy from
fixed seeds and stored with the results, so the tests replay exactly these cases.
"""

import json
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

keras = tf.keras
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "fixtures.json"
RNG = np.random.default_rng(7)


def rand(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def plain(value):
    """JSON-friendly: numpy arrays as nested lists, tuples as lists."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if hasattr(value, "numpy"):
        return plain(np.asarray(value))
    return value


# -- layers ----------------------------------------------------------------------------

LAYERS = [  # (class name, config, input shape, input kind, training flags)
    ("Dense", {"units": 3, "activation": "relu"}, (4, 5), "float", [False]),
    ("Dense", {"units": 2, "use_bias": False}, (2, 3, 4), "float", [False]),
    ("Conv2D", {"filters": 3, "kernel_size": 3}, (2, 6, 6, 2), "float", [False]),
    ("Conv2D", {"filters": 2, "kernel_size": (3, 2), "strides": 2, "padding": "same",
                "activation": "tanh"}, (1, 7, 6, 3), "float", [False]),
    ("Conv2D", {"filters": 2, "kernel_size": 3, "dilation_rate": 2, "padding": "same"},
     (1, 7, 7, 1), "float", [False]),
    ("Conv1D", {"filters": 2, "kernel_size": 3, "padding": "same"}, (2, 8, 3), "float", [False]),
    ("MaxPooling2D", {}, (2, 5, 5, 3), "float", [False]),
    ("MaxPooling2D", {"pool_size": 3, "strides": 2, "padding": "same"}, (1, 7, 6, 2), "float",
     [False]),
    ("AveragePooling2D", {"pool_size": 2, "padding": "same"}, (1, 5, 5, 2), "float", [False]),
    ("AveragePooling2D", {"pool_size": (2, 3), "strides": 1}, (1, 4, 5, 1), "float", [False]),
    ("GlobalAveragePooling2D", {}, (2, 3, 4, 5), "float", [False]),
    ("GlobalMaxPooling2D", {"keepdims": True}, (2, 3, 4, 5), "float", [False]),
    ("MaxPooling1D", {"pool_size": 2}, (2, 7, 3), "float", [False]),
    ("GlobalAveragePooling1D", {}, (2, 7, 3), "float", [False]),
    ("Flatten", {}, (2, 3, 4), "float", [False]),
    ("Reshape", {"target_shape": (2, -1)}, (3, 4, 3), "float", [False]),
    ("Permute", {"dims": (2, 1)}, (2, 3, 4), "float", [False]),
    ("RepeatVector", {"n": 3}, (2, 4), "float", [False]),
    ("ZeroPadding2D", {"padding": ((1, 2), (0, 1))}, (1, 3, 3, 2), "float", [False]),
    ("Dropout", {"rate": 0.5}, (3, 4), "float", [False]),
    ("BatchNormalization", {}, (6, 4), "float", [True, False]),
    ("BatchNormalization", {"momentum": 0.9, "epsilon": 0.01}, (2, 3, 3, 2), "float",
     [True, False]),
    ("LayerNormalization", {}, (3, 5), "float", [False]),
    ("LayerNormalization", {"axis": [1, 2], "epsilon": 0.1}, (2, 3, 4), "float", [False]),
    ("Activation", {"activation": "softmax"}, (3, 4), "float", [False]),
    ("Activation", {"activation": "gelu"}, (3, 4), "float", [False]),
    ("Activation", {"activation": "selu"}, (3, 4), "float", [False]),
    ("Activation", {"activation": "softplus"}, (3, 4), "float", [False]),
    ("Activation", {"activation": "swish"}, (3, 4), "float", [False]),
    ("Activation", {"activation": "hard_sigmoid"}, (3, 4), "float", [False]),
    ("ReLU", {"max_value": 0.5, "negative_slope": 0.1, "threshold": 0.2}, (3, 4), "float",
     [False]),
    ("LeakyReLU", {}, (3, 4), "float", [False]),
    ("ELU", {"alpha": 0.5}, (3, 4), "float", [False]),
    ("Softmax", {"axis": 1}, (2, 3, 4), "float", [False]),
    ("Embedding", {"input_dim": 6, "output_dim": 3}, (2, 4), "int", [False]),
    ("Rescaling", {"scale": 0.5, "offset": -1.0}, (2, 3), "float", [False]),
]

MERGES = [("Add", {}), ("Subtract", {}), ("Multiply", {}), ("Average", {}), ("Maximum", {}),
          ("Minimum", {}), ("Concatenate", {"axis": -1}), ("Concatenate", {"axis": 1})]


def layer_cases():
    cases = []
    for name, config, shape, kind, flags in LAYERS:
        layer = getattr(keras.layers, name)(**config)
        x = RNG.integers(0, 6, shape).astype(np.int32) if kind == "int" else rand(*shape)
        layer.build(shape)
        weights = [rand(*w.shape) for w in layer.weights]
        if name == "BatchNormalization":  # moving variance must stay positive
            weights[-1] = np.abs(weights[-1]) + 0.5
        layer.set_weights(weights)
        outputs = {}
        for training in flags:
            outputs[str(training)] = layer(x, training=training)
        cases.append({"layer": name, "config": config, "input": x, "weights": weights,
                      "outputs": outputs, "weights_after": [w.numpy() for w in layer.weights]})
    for name, config in MERGES:
        a, b = rand(2, 3), rand(2, 3)
        cases.append({"layer": name, "config": config, "input": [a, b], "weights": [],
                      "outputs": {"False": getattr(keras.layers, name)(**config)([a, b])},
                      "weights_after": []})
    return cases


CONFIG_LAYERS = ["Dense", "Conv2D", "Conv1D", "MaxPooling2D", "AveragePooling2D",
                 "GlobalAveragePooling2D", "Flatten", "Reshape", "Dropout",
                 "BatchNormalization", "LayerNormalization", "Activation", "ReLU", "Softmax",
                 "Embedding", "Add", "Concatenate", "Rescaling", "LeakyReLU"]
CONFIG_ARGS = {"Dense": {"units": 4}, "Conv2D": {"filters": 2, "kernel_size": 3},
               "Conv1D": {"filters": 2, "kernel_size": 3}, "Reshape": {"target_shape": (2, 2)},
               "Dropout": {"rate": 0.3}, "Activation": {"activation": "relu"},
               "Embedding": {"input_dim": 5, "output_dim": 2}, "Rescaling": {"scale": 2.0},
               "AveragePooling2D": {"pool_size": 2}}


def layer_configs():
    return {name: getattr(keras.layers, name)(**CONFIG_ARGS.get(name, {})).get_config()
            for name in CONFIG_LAYERS}


# -- optimizers ----------------------------------------------------------------------------

OPTIMIZERS = [
    ("SGD", {"learning_rate": 0.1}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {}),
    ("Adam", {"learning_rate": 0.05, "beta_1": 0.5, "amsgrad": True}),
    ("AdamW", {"learning_rate": 0.05}),
    ("RMSprop", {}),
    ("RMSprop", {"learning_rate": 0.01, "rho": 0.8, "momentum": 0.5, "centered": True}),
    ("Adagrad", {"learning_rate": 0.1}),
    ("SGD", {"learning_rate": 0.1, "clipnorm": 0.5}),
    ("SGD", {"learning_rate": 0.1, "clipvalue": 0.3}),
    ("Adam", {"learning_rate": 0.1, "global_clipnorm": 0.4}),
    ("SGD", {"learning_rate": {"class_name": "ExponentialDecay",
                               "config": {"initial_learning_rate": 0.1, "decay_steps": 2,
                                          "decay_rate": 0.5}}}),
    ("SGD", {"learning_rate": {"class_name": "PiecewiseConstantDecay",
                               "config": {"boundaries": [1, 3], "values": [0.1, 0.05, 0.01]}}}),
]


def optimizer_cases():
    cases = []
    for name, config in OPTIMIZERS:
        kwargs = dict(config)
        if isinstance(kwargs["learning_rate"] if "learning_rate" in kwargs else None, dict):
            spec = kwargs["learning_rate"]
            kwargs["learning_rate"] = getattr(keras.optimizers.schedules, spec["class_name"])(
                **spec["config"])
        opt = getattr(keras.optimizers, name)(**kwargs)
        w0 = [rand(4), rand(2, 3)]
        variables = [tf.Variable(w) for w in w0]
        grads, trajectory = [], []
        for _ in range(5):
            g = [rand(4, lo=-2, hi=2), rand(2, 3, lo=-2, hi=2)]
            opt.apply_gradients(zip([tf.constant(v) for v in g], variables))
            grads.append(g)
            trajectory.append([v.numpy() for v in variables])
        cases.append({"optimizer": name, "config": config, "w0": w0, "grads": grads,
                      "trajectory": trajectory, "iterations": int(opt.iterations.numpy()),
                      "num_variables": len(opt.variables)})
    return cases


# -- losses and metrics ---------------------------------------------------------------------

def loss_cases():
    n = 4
    probs = tf.nn.softmax(rand(n, 3) * 3).numpy()
    onehot = np.eye(3, dtype=np.float32)[RNG.integers(0, 3, n)]
    labels = RNG.integers(0, 3, n).astype(np.int32)
    binary = RNG.integers(0, 2, (n, 1)).astype(np.float32)
    sig = tf.sigmoid(rand(n, 1) * 3).numpy()
    reg_true, reg_pred = rand(n, 2), rand(n, 2)
    pos_true, pos_pred = rand(n, 2, lo=0.1, hi=2), rand(n, 2, lo=0.1, hi=2)
    sw = rand(n, lo=0, hi=2)
    table = [
        ("MeanSquaredError", {}, reg_true, reg_pred),
        ("MeanAbsoluteError", {}, reg_true, reg_pred),
        ("MeanAbsolutePercentageError", {}, pos_true, pos_pred),
        ("MeanSquaredLogarithmicError", {}, pos_true, pos_pred),
        ("Huber", {"delta": 0.5}, reg_true, reg_pred),
        ("LogCosh", {}, reg_true, reg_pred),
        ("Hinge", {}, binary, rand(n, 1)),
        ("SquaredHinge", {}, binary, rand(n, 1)),
        ("CategoricalHinge", {}, onehot, probs),
        ("KLDivergence", {}, onehot * 0.9 + 0.03, probs),
        ("Poisson", {}, pos_true, pos_pred),
        ("CosineSimilarity", {}, reg_true, reg_pred),
        ("BinaryCrossentropy", {}, binary, sig),
        ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.2}, binary,
         rand(n, 1) * 3),
        ("CategoricalCrossentropy", {}, onehot, probs),
        ("CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, onehot,
         rand(n, 3) * 3),
        ("SparseCategoricalCrossentropy", {}, labels, probs),
        ("SparseCategoricalCrossentropy", {"from_logits": True}, labels[:, None], rand(n, 3)),
    ]
    cases = []
    for name, config, y_true, y_pred in table:
        for reduction in ("sum_over_batch_size", "sum", None, "mean_with_sample_weight"):
            for weights in (None, sw):
                loss = getattr(keras.losses, name)(reduction=reduction, **config)
                cases.append({"loss": name, "config": dict(config, reduction=reduction),
                              "y_true": y_true, "y_pred": y_pred, "sample_weight": weights,
                              "value": loss(y_true, y_pred, sample_weight=weights)})
    return cases


def metric_cases():
    probs = [tf.nn.softmax(rand(5, 4) * 3).numpy() for _ in range(2)]
    labels = [RNG.integers(0, 4, 5).astype(np.int32) for _ in range(2)]
    onehot = [np.eye(4, dtype=np.float32)[lab] for lab in labels]
    binary = [RNG.integers(0, 2, (5, 1)).astype(np.float32) for _ in range(2)]
    scores = [RNG.uniform(0, 1, (5, 1)).astype(np.float32) for _ in range(2)]
    reg = [(rand(5, 2), rand(5, 2)) for _ in range(2)]
    sw = [rand(5, lo=0, hi=2) for _ in range(2)]
    table = [
        ("SparseCategoricalAccuracy", {}, list(zip(labels, probs))),
        ("CategoricalAccuracy", {}, list(zip(onehot, probs))),
        ("BinaryAccuracy", {"threshold": 0.6}, list(zip(binary, scores))),
        ("SparseTopKCategoricalAccuracy", {"k": 2}, list(zip(labels, probs))),
        ("TopKCategoricalAccuracy", {"k": 2}, list(zip(onehot, probs))),
        ("MeanSquaredError", {}, reg),
        ("MeanAbsoluteError", {}, reg),
        ("RootMeanSquaredError", {}, reg),
        ("AUC", {}, list(zip(binary, scores))),
        ("AUC", {"num_thresholds": 7, "curve": "PR"}, list(zip(binary, scores))),
        ("AUC", {"num_thresholds": 9, "summation_method": "minoring"},
         list(zip(binary, scores))),
        ("Precision", {}, list(zip(binary, scores))),
        ("Recall", {"thresholds": 0.3}, list(zip(binary, scores))),
    ]
    cases = []
    for name, config, pairs in table:
        for weighted in (False, True):
            metric = getattr(keras.metrics, name)(**config)
            updates = []
            for (y_true, y_pred), w in zip(pairs, sw):
                weights = w if weighted else None
                metric.update_state(y_true, y_pred, sample_weight=weights)
                updates.append([y_true, y_pred, weights])
            cases.append({"metric": name, "config": config, "updates": updates,
                          "result": metric.result()})
    mean = keras.metrics.Mean()
    mean.update_state([1.0, 2.0, 4.0], sample_weight=[1.0, 0.5, 2.0])
    mean.update_state(3.0)
    cases.append({"metric": "Mean", "config": {},
                  "updates": [[[1.0, 2.0, 4.0], [1.0, 0.5, 2.0]], [3.0, None]],
                  "result": mean.result()})
    return cases


# -- fit ------------------------------------------------------------------------------------

def fit_cases():
    cases = []
    x = rand(10, 3)
    y_reg = rand(10, 2)
    y_cls = RNG.integers(0, 3, 10).astype(np.int32)
    sw = rand(10, lo=0.2, hi=2)
    setups = [
        ("regression", y_reg, {"loss": "mse", "metrics": ["mae"]},
         {"batch_size": 4, "epochs": 2}, "relu", 2, None),
        ("classification", y_cls, {"loss": "sparse_categorical_crossentropy",
                                   "metrics": ["accuracy"]},
         {"batch_size": 3, "epochs": 2, "class_weight": {0: 1.0, 1: 2.0, 2: 0.5}},
         "softmax", 3, None),
        ("weighted", y_reg, {"loss": "mae", "metrics": ["mse"], "weighted_metrics": ["mse"]},
         {"batch_size": 5, "epochs": 1}, None, 2, sw),
        ("validation", y_cls, {"loss": "sparse_categorical_crossentropy",
                               "metrics": ["acc"]},
         {"batch_size": 4, "epochs": 2, "validation_split": 0.3}, "softmax", 3, None),
    ]
    for name, y, compile_args, fit_args, activation, units, weights in setups:
        model = keras.Sequential([
            keras.Input((3,)),
            keras.layers.Dense(4, activation="tanh",
                               kernel_regularizer=keras.regularizers.L2(0.01)),
            keras.layers.Dense(units, activation=activation)])
        w0 = [rand(*w.shape) for w in model.weights]
        model.set_weights(w0)
        model.compile(optimizer=keras.optimizers.SGD(0.1), **compile_args)
        history = model.fit(x, y, shuffle=False, verbose=0, sample_weight=weights, **fit_args)
        result = model.evaluate(x, y, verbose=0, return_dict=True)
        cases.append({"name": name, "x": x, "y": y, "sample_weight": weights,
                      "compile": compile_args, "fit": fit_args, "activation": activation,
                      "units": units, "w0": w0, "history": history.history,
                      "weights": model.get_weights(), "evaluate": result})
    return cases


# -- summary ----------------------------------------------------------------------------------

def summaries():
    out = []
    keras.backend.clear_session()
    cnn = keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Flatten(), keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10, activation="softmax")])
    inp = keras.Input((4,), name="x")
    inp2 = keras.Input((3,), name="extra_input_with_a_long_name")
    h = keras.layers.Dense(8, activation="relu")(inp)
    c = keras.layers.Concatenate()([h, inp2])
    bn = keras.layers.BatchNormalization()(c)
    functional = keras.Model([inp, inp2], [keras.layers.Dense(2, name="out_a")(bn),
                                           keras.layers.Dense(1)(h)])
    for model, name in ((cnn, "cnn"), (functional, "functional")):
        for line_length in (None, 70, 120):
            for show_trainable in (False, True):
                lines = []
                model.summary(line_length=line_length, show_trainable=show_trainable,
                              print_fn=lambda s, **k: lines.append(s))
                out.append({"model": name, "line_length": line_length,
                            "show_trainable": show_trainable, "text": "".join(lines)})
    cnn.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    cnn.fit(np.zeros((2, 28, 28, 1)), np.zeros(2), verbose=0)
    lines = []
    cnn.summary(print_fn=lambda s, **k: lines.append(s))
    out.append({"model": "cnn_trained", "line_length": None, "show_trainable": False,
                "text": "".join(lines)})
    return out


def main():
    os.environ["COLUMNS"] = "200"  # summary's default width: min(88 or 108, columns - 4)
    keras.utils.set_random_seed(0)
    data = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__,
            "layers": layer_cases(), "layer_configs": layer_configs(),
            "optimizers": optimizer_cases(), "losses": loss_cases(),
            "metrics": metric_cases(), "fits": fit_cases(), "summaries": summaries()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(plain(data), indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
