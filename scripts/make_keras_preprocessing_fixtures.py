#!/usr/bin/env python3
"""Writes tests/data/keras/preprocessing.json: what real Keras 3's preprocessing and
augmentation layers give for fixed inputs, where the output is determined: deterministic
layers, random layers outside training, and random layers whose range is one value
(`RandomRotation((0.3, 0.3))`) or whose outcome does not depend on the draw.

Run by hand with TensorFlow 2.21 / Keras 3.15 in a separate virtual environment (never a
test dependency):

    $TF_PYTHON scripts/make_keras_preprocessing_fixtures.py

Each case stores the layer's class, its constructor arguments, the input, the `training`
flag, the output and the get_config() keys.
"""

import json
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

keras = tf.keras
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "keras" / "preprocessing.json"


def image(shape):
    """Values that float32 and JSON hold exactly, varied enough to see any mix-up."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 37) % 101) / 4.0).reshape(shape).astype(np.float32)


BATCH = image((2, 5, 7, 3))
SINGLE = image((4, 6, 2))
CASES = [("Resizing", {"height": 3, "width": 4, "interpolation": m}, BATCH, None)
         for m in ("bilinear", "nearest", "bicubic", "area")]
CASES += [
    ("Resizing", {"height": 3, "width": 4, "crop_to_aspect_ratio": True}, BATCH, None),
    ("Resizing", {"height": 4, "width": 2, "crop_to_aspect_ratio": True}, BATCH, None),
    ("Resizing", {"height": 4, "width": 2, "pad_to_aspect_ratio": True, "fill_value": 7.0},
     BATCH, None),
    ("Resizing", {"height": 2, "width": 6, "pad_to_aspect_ratio": True}, BATCH, None),
    ("Resizing", {"height": 2, "width": 3}, SINGLE, None),
    ("Resizing", {"height": 2, "width": 3, "data_format": "channels_first"}, BATCH, None),
    ("CenterCrop", {"height": 3, "width": 4}, BATCH, None),
    ("CenterCrop", {"height": 6, "width": 4}, BATCH, None),
    ("CenterCrop", {"height": 8, "width": 9}, SINGLE, None),
    ("RandomCrop", {"height": 5, "width": 4}, BATCH, True),
    ("RandomCrop", {"height": 6, "width": 9}, BATCH, True),
    ("RandomCrop", {"height": 3, "width": 3}, BATCH, False),
    ("RandomZoom", {"height_factor": (0.5, 0.5)}, SINGLE, True),
    ("RandomRotation", {"factor": (-0.2, -0.2), "data_format": "channels_first"}, BATCH,
     True),
    ("RandomBrightness", {"factor": (0.1, 0.1)}, BATCH, True),
    ("RandomBrightness", {"factor": (-0.6, -0.6), "value_range": (10, 200)}, BATCH, True),
    ("RandomBrightness", {"factor": 0.5}, BATCH, False),
    ("RandomContrast", {"factor": (0.0, 0.0)}, BATCH, True),
    ("RandomContrast", {"factor": 0.5}, BATCH, False),
    ("RandomHeight", {"factor": (0.5, 0.5)}, BATCH, True),
    ("RandomWidth", {"factor": (-0.5, -0.5), "interpolation": "nearest"}, BATCH, True),
    ("RandomFlip", {}, BATCH, False),
]
for fill in ("reflect", "wrap", "constant", "nearest"):
    for interp in ("bilinear", "nearest"):
        modes = {"fill_mode": fill, "interpolation": interp}
        CASES += [
            ("RandomZoom", {"height_factor": (-0.3, -0.3), "width_factor": (0.4, 0.4),
                            "fill_value": 5.0, **modes}, BATCH, True),
            ("RandomTranslation", {"height_factor": (0.3, 0.3),
                                   "width_factor": (-0.45, -0.45), **modes}, BATCH, True),
            ("RandomRotation", {"factor": (0.3, 0.3), **modes}, BATCH, True),
            ("RandomRotation", {"factor": 0.3, **modes}, BATCH, False),
        ]


def main():
    cases = []
    for name, config, x, training in CASES:
        layer = getattr(keras.layers, name)(**config)
        out = layer(x) if training is None else layer(x, training=training)
        cases.append({"layer": name, "config": config, "input": x.tolist(),
                      "training": training,
                      "output": np.round(np.asarray(out, np.float64), 4).tolist(),
                      "config_keys": sorted(layer.get_config())})
    data = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__,
            "cases": cases}
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
