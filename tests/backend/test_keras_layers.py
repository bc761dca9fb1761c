"""Keras layers against outputs recorded from real Keras 3.15 (same inputs and weights),
and get_config/from_config round trips, on every backend."""

import numpy as np

import keras_cases
import texflow as tf
from harness import each_backend
from keras_cases import arr, close

LAYER_CASES = keras_cases.cases("layers")


@each_backend(case=LAYER_CASES)
def test_layer_matches_keras(case):
    layer = getattr(tf.keras.layers, case["layer"])(**case["config"])
    x = case["input"]
    if isinstance(x[0], list) and case["layer"] in ("Add", "Subtract", "Multiply", "Average",
                                                   "Maximum", "Minimum", "Concatenate"):
        inputs = [arr(v) for v in x]
    else:
        inputs = arr(x, np.int32 if case["layer"] == "Embedding" else np.float32)
        layer.build(inputs.shape)
    layer.set_weights([arr(w) for w in case["weights"]])
    for training, want in case["outputs"].items():
        out = layer(inputs, training=training == "True")
        close(out.numpy(), want, what=f"{case['layer']} training={training}")
    for mine, theirs in zip(layer.get_weights(), case["weights_after"]):
        close(mine, theirs, what=f"{case['layer']} weights after the calls")


@each_backend(case=LAYER_CASES)
def test_layer_config_round_trips(case):
    layer = getattr(tf.keras.layers, case["layer"])(**case["config"])
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert again.get_config() == config
    assert type(again) is type(layer)
