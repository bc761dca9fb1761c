"""Keras 3's confusion counts, F-scores, R2, IoU family, correlation and *AtRecall
metrics, focal / Dice / Tversky / generalized cross-entropy losses and their functions,
against what real Keras 3.15 gave for the same inputs (tests/data/keras/
metrics_extra.json, written by scripts/make_keras_metric_fixtures.py), on every backend:
results after several `update_state` calls, after `reset_state`, result dtypes,
`get_config`, loss values under each reduction, and `fit`/`evaluate` logs when the
metrics are compiled by name or as objects.
"""

import numpy as np

import keras_cases
import texflow as tf
from harness import each_backend, raises
from keras_cases import close


def _load(a):
    return None if a is None else np.asarray(a["v"], dtype=a["dtype"])


def _keras_config(config):
    # Keras stores IoU's confusion matrix as int64; texflow has no 64-bit integers
    return {k: ("int32" if k == "dtype" and v == "int64" else v) for k, v in config.items()}


def _plain(config):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in config.items()}


@each_backend(case=keras_cases.cases("metrics", "metrics_extra.json"))
def test_metric_matches_keras(case):
    what = f"{case['class']}({case['args']})"
    metric = getattr(tf.keras.metrics, case["class"])(**case["args"])
    for t, p, s in case["calls"]:
        metric.update_state(_load(t), _load(p), sample_weight=_load(s))
    result = metric.result()
    assert result.dtype == tf.float32, what
    close(result.numpy(), case["result"]["v"], what=what)
    metric.reset_state()
    t, p, s = case["calls"][0]
    metric.update_state(_load(t), _load(p), sample_weight=_load(s))
    close(metric.result().numpy(), case["after_reset"]["v"], what=f"{what} after reset")
    assert _plain(metric.get_config()) == _keras_config(case["config"]), what
    again = type(metric).from_config(metric.get_config())
    assert _plain(again.get_config()) == _plain(metric.get_config()), what


@each_backend(case=keras_cases.cases("losses", "metrics_extra.json"))
def test_loss_matches_keras(case):
    what = f"{case['class']}({case['args']})"
    loss = getattr(tf.keras.losses, case["class"])(**case["args"])
    for (t, p, s), expected in zip(case["calls"], case["values"]):
        close(loss(_load(t), _load(p), sample_weight=_load(s)).numpy(), expected["v"],
              what=what)
    assert loss.get_config() == case["config"], what


@each_backend(case=keras_cases.cases("functions", "metrics_extra.json"))
def test_function_matches_keras(case):
    fn = getattr(getattr(tf.keras, case["module"]), case["function"])
    t, p = (_load(a) for a in case["args"])
    close(fn(t, p, **case["kwargs"]).numpy(), case["value"]["v"], what=case["function"])


def _object(module, spec):
    if isinstance(spec, str):
        return spec
    return getattr(module, spec["class_name"])(**spec["config"])


@each_backend(case=keras_cases.cases("fit", "metrics_extra.json"))
def test_fit_logs_match_keras(case):
    """Compiled by name ('f1_score', 'binary_io_u') or as objects, through `fit`'s
    compiled step and `evaluate`: the same log names and values as Keras."""
    what = f"{case['loss']} {case['metrics']}"
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(
        3, activation=case["activation"],
        kernel_initializer=tf.keras.initializers.Constant(np.asarray(case["kernel"])))])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1),
                  loss=_object(tf.keras.losses, case["loss"]),
                  metrics=[_object(tf.keras.metrics, m) for m in case["metrics"]])
    x, y = np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32)
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    assert sorted(history) == sorted(case["history"]), what
    for key, values in case["history"].items():
        close(np.asarray(history[key]), values, rtol=1e-4, atol=1e-5, what=f"{what} {key}")
    logs = model.evaluate(x, y, batch_size=5, verbose=0, return_dict=True)
    assert sorted(logs) == sorted(case["evaluate"]), what
    for key, value in case["evaluate"].items():
        close(np.asarray(logs[key]), value, rtol=1e-4, atol=1e-5, what=f"{what} {key}")


@each_backend
def test_names_keras_accepts():
    """`get` by the names Keras 3 knows: each class by its snake_case name (made with
    default arguments), tf.keras's short aliases, and the losses' functions."""
    metrics, losses = tf.keras.metrics, tf.keras.losses
    for name, cls in (("f1_score", metrics.F1Score), ("r2_score", metrics.R2Score),
                      ("true_positives", metrics.TruePositives),
                      ("binary_io_u", metrics.BinaryIoU),
                      ("log_cosh_error", metrics.LogCoshError),
                      ("pearson_correlation", metrics.PearsonCorrelation),
                      ("TrueNegatives", metrics.TrueNegatives)):
        assert type(metrics.get(name)) is cls, name
    assert metrics.get("log_cosh_error").name == "logcosh"
    with raises(ValueError, match="fbeta_score"):
        metrics.get("fbeta_score")  # Keras: FBetaScore's snake name is f_beta_score
    assert metrics.KLD is metrics.kld is metrics.kullback_leibler_divergence
    assert losses.get("dice") is losses.dice
    assert losses.get("binary_focal_crossentropy") is losses.binary_focal_crossentropy
    assert type(losses.get("Tversky")) is losses.Tversky
    with raises(ValueError, match="categorical_generalized_cross_entropy"):
        losses.get("categorical_generalized_cross_entropy")


@each_backend
def test_constructor_errors_name_the_value():
    """Keras's messages for out-of-range arguments."""
    m = tf.keras.metrics
    with raises(ValueError, match=r"Received: beta=1 of type"):
        m.FBetaScore(beta=1)
    with raises(ValueError, match=r"0 < threshold <= 1. Received: threshold=1.5"):
        m.F1Score(threshold=1.5)
    with raises(ValueError, match=r"Received: average=mean"):
        m.F1Score(average="mean")
    with raises(ValueError, match=r"Received: class_aggregation=sum"):
        m.R2Score(class_aggregation="sum")
    with raises(ValueError, match=r"Received: recall=1.5"):
        m.PrecisionAtRecall(1.5)
    with raises(ValueError, match=r"Received: num_thresholds=0"):
        m.SensitivityAtSpecificity(0.5, num_thresholds=0)
    with raises(ValueError, match=r"Target class id 3 is out of range"):
        m.IoU(num_classes=3, target_class_ids=[3])
    with raises(ValueError, match=r"expects 2D inputs"):
        m.F1Score().update_state(np.ones(3, np.float32), np.ones(3, np.float32))
    with raises(ValueError, match=r"q must be in the interval \(0, 1\)"):
        tf.keras.losses.CategoricalGeneralizedCrossEntropy(q=1.0)
