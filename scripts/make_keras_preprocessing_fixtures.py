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


SEQUENCE = image((2, 5, 3))
VOLUME = image((1, 3, 4, 5, 2))
MASKED = image((2, 4, 3))
MASKED[0, 1] = 0.0
MASKED[1, 3] = 0.0
ADAPT = image((6, 4, 3)) ** 1.5
CONSTANT = {"class_name": "Constant", "config": {"value": 0.3}}
# layers that are not image layers, with adapt() data: (array, batch size or None)
OTHER = [
    ("Normalization", {}, SEQUENCE, None, (ADAPT, None)),
    ("Normalization", {"axis": None}, SEQUENCE, None, (ADAPT, None)),
    ("Normalization", {"axis": (1, 2)}, ADAPT[:2], None, (ADAPT, 4)),
    ("Normalization", {"axis": -1, "invert": True}, SEQUENCE, None, (ADAPT, 5)),
    ("Normalization", {"mean": [1.0, 2.0, 3.0], "variance": [4.0, 9.0, 0.0]}, SEQUENCE,
     None, None),
    ("Normalization", {"axis": (1, 2), "mean": 2.0, "variance": 3.0, "invert": True},
     SEQUENCE, None, None),
    ("Cropping1D", {"cropping": (1, 2)}, SEQUENCE, None, None),
    ("Cropping2D", {"cropping": ((1, 2), (0, 3))}, BATCH, None, None),
    ("Cropping2D", {"cropping": 1, "data_format": "channels_first"}, BATCH, None, None),
    ("Cropping3D", {}, VOLUME, None, None),
    ("Cropping3D", {"cropping": (0, 1, 2)}, VOLUME, None, None),
    ("ZeroPadding1D", {"padding": (2, 1)}, SEQUENCE, None, None),
    ("ZeroPadding2D", {"padding": (1, 2), "data_format": "channels_first"}, BATCH, None,
     None),
    ("ZeroPadding3D", {"padding": ((0, 1), (2, 0), (1, 1))}, VOLUME, None, None),
    ("PReLU", {"alpha_initializer": CONSTANT}, SEQUENCE - 12.0, None, None),
    ("PReLU", {"alpha_initializer": CONSTANT, "shared_axes": [1, 2]}, BATCH - 12.0, None,
     None),
    ("Masking", {}, MASKED, None, None),
    ("Masking", {"mask_value": 5.5}, MASKED + 5.5, None, None),
    ("ActivityRegularization", {"l1": 0.1, "l2": 0.01}, SEQUENCE, None, None),
    ("GaussianNoise", {"stddev": 0.5}, SEQUENCE, False, None),
    ("GaussianDropout", {"rate": 0.5}, SEQUENCE, False, None),
    ("AlphaDropout", {"rate": 0.5}, SEQUENCE, False, None),
    ("AlphaDropout", {"rate": 0.0}, SEQUENCE, True, None),
    ("SpatialDropout1D", {"rate": 0.5}, SEQUENCE, False, None),
    ("SpatialDropout2D", {"rate": 0.5}, BATCH, False, None),
    ("SpatialDropout3D", {"rate": 0.5, "data_format": "channels_first"}, VOLUME, False,
     None),
    ("Discretization", {"bin_boundaries": [3.0, 10.0, 17.5]}, SEQUENCE, None, None),
]
IDS = np.array([[0, 3, 3, 1], [2, 2, 0, 3]], np.float32)
OTHER += [("CategoryEncoding", {"num_tokens": 5, "output_mode": m}, x, None, None)
          for m in ("one_hot", "multi_hot", "count") for x in (IDS, IDS[:, :1], IDS[0])]
OTHER += [("Discretization", {"bin_boundaries": [3.0, 10.0, 17.5], "output_mode": m},
           SEQUENCE[0], None, None) for m in ("one_hot", "multi_hot", "count")]


def main():
    cases = []
    for name, config, x, training, adapt in [c + (None,) for c in CASES] + OTHER:
        layer = getattr(keras.layers, name)(**config)
        if adapt is not None:
            data, batch = adapt
            layer.adapt(data if batch is None else
                        tf.data.Dataset.from_tensor_slices(data).batch(batch))
        out = layer(x) if training is None else layer(x, training=training)
        case = {"layer": name, "config": config, "input": x.tolist(), "training": training,
                "output": np.round(np.asarray(out, np.float64), 4).tolist(),
                "config_keys": sorted(layer.get_config()), "dtype": out.dtype.name}
        if adapt is not None:
            case["adapt"] = {"data": adapt[0].tolist(), "batch": adapt[1]}
        if layer.losses:
            case["losses"] = [float(v) for v in layer.losses]
        cases.append(case)
    data = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__,
            "cases": cases}
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
