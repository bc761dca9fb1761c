"""Conv2DTranspose, Conv1DTranspose, DepthwiseConv2D/1D, SeparableConv2D/1D, Conv3D and
Conv3DTranspose against real Keras 3 (tests/data/keras/conv_layers.json, written by
scripts/make_keras_conv_fixtures.py): outputs, gradients for the input and every weight,
weight names and shapes, output shapes and default configs, on every backend."""

import numpy as np

import keras_cases
import texflow as tf
from harness import each_backend
from keras_cases import arr, close

FILE = "conv_layers.json"
CASES = keras_cases.cases("cases", FILE)
CONFIGS = sorted(keras_cases.cases("configs", FILE).items()) if CASES else []


@each_backend(case=CASES)
def test_conv_layer_matches_keras(case):
    what = f"{case['layer']}({case['config']})"
    layer = getattr(tf.keras.layers, case["layer"])(**case["config"])
    x = arr(case["input"])
    layer.build(x.shape)
    assert [w.name for w in layer.weights] == case["weight_names"], what
    assert [list(w.shape) for w in layer.weights] == case["weight_shapes"], what
    out_shape = list(layer.compute_output_shape((None,) + x.shape[1:]))
    assert out_shape == case["output_shape"], f"{what}: {out_shape}"
    layer.set_weights([arr(w) for w in case["weights"]])
    with tf.scope():
        xv = tf.Variable(x)
        with tf.GradientTape() as tape:
            y = layer(xv)
        grads = tape.gradient(y, [xv] + layer.trainable_weights,
                              output_gradients=tf.constant(arr(case["dy"])))
        close(y.numpy(), case["output"], what=what)
        if case["grad_input"] is None:  # grouped: TensorFlow's CPU has no gradient
            return
        close(grads[0].numpy(), case["grad_input"], what=what + " input gradient")
        for weight, mine, theirs in zip(layer.trainable_weights, grads[1:],
                                        case["grad_weights"]):
            close(mine.numpy(), theirs, what=f"{what} {weight.name} gradient")


@each_backend(config=CONFIGS)
def test_conv_layer_default_config_is_keras(config):
    name, theirs = config
    args = {k: theirs[k] for k in ("filters", "kernel_size") if k in theirs}
    layer = getattr(tf.keras.layers, name)(**args)
    mine = layer.get_config()
    assert sorted(mine) == sorted(theirs), (name, sorted(mine), sorted(theirs))
    for key, value in theirs.items():
        if key not in ("name", "dtype"):
            got = mine[key]
            got = list(got) if isinstance(got, tuple) else got
            assert got == value, (name, key, got, value)
    again = type(layer).from_config(mine)
    assert again.get_config() == mine
    x = np.ones((1,) + (6,) * layer.rank + (2,), np.float32)
    assert layer(x).shape[0] == 1
