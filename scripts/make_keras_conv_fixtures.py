#!/usr/bin/env python3
"""Writes tests/data/keras/conv_layers.json: what real Keras 3 computes for the transposed,
depthwise, separable and 3-D convolution layers (tests/backend/test_keras_conv_layers.py).

Run once, by hand, with the reference TensorFlow 2.21 / Keras 3 (never a test dependency):

    $TF_PYTHON scripts/make_keras_conv_fixtures.py

For each case: the layer's config, input, weights (drawn with numpy from a fixed seed),
output, the gradients of sum(output * dy) for the input and each weight, the weights'
names and shapes and compute_output_shape; and each class's default get_config.
"""

import json
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

keras = tf.keras
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "conv_layers.json"
RNG = np.random.default_rng(12)

CASES = [  # (class name, config, input shape)
    ("Conv2DTranspose", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"},
     (1, 4, 5, 3)),
    ("Conv2DTranspose", {"filters": 4, "kernel_size": 4, "strides": 2, "padding": "same",
                         "output_padding": 1}, (1, 4, 5, 3)),
    ("Conv2DTranspose", {"filters": 2, "kernel_size": (2, 3), "strides": (2, 1),
                         "activation": "relu"}, (1, 4, 5, 3)),
    ("Conv2DTranspose", {"filters": 3, "kernel_size": 5, "strides": 2, "padding": "valid",
                         "output_padding": 1, "use_bias": False}, (1, 4, 4, 2)),
    ("Conv1DTranspose", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"},
     (2, 6, 3)),
    ("Conv1DTranspose", {"filters": 4, "kernel_size": 5, "strides": 3, "output_padding": 2},
     (2, 6, 3)),
    ("DepthwiseConv2D", {"kernel_size": 3, "depth_multiplier": 2, "padding": "same",
                         "strides": 2}, (1, 6, 5, 3)),
    ("DepthwiseConv2D", {"kernel_size": 3, "dilation_rate": 2, "activation": "tanh"},
     (1, 6, 5, 3)),
    ("DepthwiseConv1D", {"kernel_size": 3, "depth_multiplier": 2, "padding": "same"},
     (2, 6, 3)),
    ("SeparableConv2D", {"filters": 5, "kernel_size": 3, "depth_multiplier": 2,
                         "padding": "same", "strides": 2}, (1, 6, 5, 3)),
    ("SeparableConv1D", {"filters": 5, "kernel_size": 3, "use_bias": False}, (2, 6, 3)),
    ("Conv3D", {"filters": 3, "kernel_size": (2, 3, 2), "strides": (1, 2, 1),
                "padding": "same"}, (1, 4, 5, 4, 2)),
    ("Conv3D", {"filters": 2, "kernel_size": 2, "dilation_rate": (2, 1, 1),
                "activation": "relu"}, (1, 5, 4, 4, 3)),
    ("Conv3DTranspose", {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"},
     (1, 2, 3, 3, 2)),
    ("Conv3DTranspose", {"filters": 2, "kernel_size": (2, 3, 3), "strides": (1, 2, 2),
                         "output_padding": (0, 1, 1)}, (1, 3, 2, 3, 2)),
    # TensorFlow's CPU has no gradients of grouped convolutions: outputs only
    ("Conv2D", {"filters": 6, "kernel_size": 3, "groups": 2, "padding": "same"},
     (1, 5, 4, 4)),
    ("Conv1D", {"filters": 4, "kernel_size": 2, "groups": 4, "strides": 2}, (2, 7, 4)),
]
DEFAULTS = {"Conv2DTranspose": {"filters": 4, "kernel_size": 3},
            "Conv1DTranspose": {"filters": 4, "kernel_size": 3},
            "DepthwiseConv2D": {"kernel_size": 3}, "DepthwiseConv1D": {"kernel_size": 3},
            "SeparableConv2D": {"filters": 4, "kernel_size": 3},
            "SeparableConv1D": {"filters": 4, "kernel_size": 3},
            "Conv3D": {"filters": 4, "kernel_size": 3},
            "Conv3DTranspose": {"filters": 4, "kernel_size": 3}}


def plain(value):
    """JSON-friendly: numpy arrays as nested lists, tuples as lists."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


def case(name, config, shape):
    layer = getattr(keras.layers, name)(**config)
    x = RNG.uniform(-1, 1, shape).astype(np.float32)
    layer.build(shape)
    weights = [RNG.uniform(-1, 1, tuple(w.shape)).astype(np.float32) for w in layer.weights]
    layer.set_weights(weights)
    xv = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = layer(xv)
        dy = RNG.uniform(-1, 1, tuple(y.shape)).astype(np.float32)
        loss = tf.reduce_sum(y * dy)
    grads = [None, []] if config.get("groups", 1) > 1 else tape.gradient(
        loss, [xv] + layer.trainable_weights)
    return {"layer": name, "config": config, "input": x, "weights": weights, "output": y,
            "dy": dy, "grad_input": grads[0], "grad_weights": grads[1:],
            "weight_names": [w.name for w in layer.weights],
            "weight_shapes": [list(w.shape) for w in layer.weights],
            "output_shape": layer.compute_output_shape((None,) + shape[1:])}


def main():
    data = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__,
            "cases": [case(*c) for c in CASES],
            "configs": {n: getattr(keras.layers, n)(**a).get_config()
                        for n, a in DEFAULTS.items()}}
    OUT.write_text(json.dumps(plain(data), separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
