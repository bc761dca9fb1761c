"""Keras optimizers, losses and metrics against values recorded from real Keras 3.15, on
every backend."""

import numpy as np

import keras_cases
import texflow as tf
from harness import each_backend
from keras_cases import arr, close


@each_backend(case=keras_cases.cases("optimizers"))
def test_optimizer_matches_keras(case):
    opt = getattr(tf.keras.optimizers, case["optimizer"])(
        **keras_cases.schedule_or_float(case["config"]))
    variables = [tf.Variable(arr(w)) for w in case["w0"]]
    for step, (grads, want) in enumerate(zip(case["grads"], case["trajectory"])):
        opt.apply_gradients(zip([tf.constant(arr(g)) for g in grads], variables))
        for v, w in zip(variables, want):
            close(v.numpy(), w, rtol=1e-4, atol=1e-5, what=f"{case['optimizer']} step {step}")
    assert int(opt.iterations.numpy()) == case["iterations"]
    assert len(opt.variables) == case["num_variables"]


@each_backend(case=keras_cases.cases("losses"))
def test_loss_matches_keras(case):
    config = dict(case["config"])
    loss = getattr(tf.keras.losses, case["loss"])(**config)
    y_true = arr(case["y_true"], np.int32 if "Sparse" in case["loss"] else np.float32)
    value = loss(y_true, arr(case["y_pred"]), sample_weight=arr(case["sample_weight"]))
    close(value.numpy(), case["value"], rtol=1e-4, atol=1e-5,
          what=f"{case['loss']} {config}")


@each_backend(case=keras_cases.cases("metrics"))
def test_metric_matches_keras(case):
    metric = getattr(tf.keras.metrics, case["metric"])(**case["config"])
    for update in case["updates"]:
        if case["metric"] == "Mean":
            metric.update_state(arr(update[0]), sample_weight=arr(update[1]))
        else:
            y_true, y_pred, weights = update
            dtype = np.int32 if "Sparse" in case["metric"] else np.float32
            metric.update_state(arr(y_true, dtype), arr(y_pred), sample_weight=arr(weights))
    close(metric.result().numpy(), case["result"], rtol=1e-4, atol=1e-5,
          what=f"{case['metric']} {case['config']}")
    metric.reset_state()
    assert float(np.sum(metric.result().numpy())) == 0.0
