"""Cases recorded from real Keras 3.15 (tests/data/keras/fixtures.json, written by
scripts/make_keras_fixtures.py; lists.json, by scripts/make_keras_list_fixtures.py) and
helpers to replay them with texflow.

Natively the cases are read from the file and handed to test bodies as parameters,
so bodies running inside Pyodide receive them as JSON and need no file.
"""

import json
import os
import sys

import numpy as np

IN_BROWSER = sys.platform == "emscripten"
FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "keras")
_cache = {}


def cases(kind, file="fixtures.json"):
    """The recorded cases of `kind` ('layers', 'optimizers', ...); [] inside Pyodide."""
    if IN_BROWSER:
        return []
    if file not in _cache:
        with open(os.path.join(FOLDER, file)) as f:
            _cache[file] = json.load(f)
    return _cache[file][kind]


def ids(kind, key):
    """Readable pytest ids: the case's `key` entry, numbered."""
    return [f"{i}-{c[key]}" for i, c in enumerate(cases(kind))]


def arr(value, dtype=np.float32):
    return None if value is None else np.asarray(value, dtype=dtype)


def close(mine, theirs, rtol=2e-4, atol=2e-5, what=""):
    mine = np.asarray(mine, np.float64)
    theirs = np.asarray(theirs, np.float64)
    assert mine.shape == theirs.shape, f"{what}: shape {mine.shape} != Keras's {theirs.shape}"
    assert np.allclose(mine, theirs, rtol=rtol, atol=atol), \
        f"{what}: max |diff| {np.max(np.abs(mine - theirs))}\ntexflow {mine}\nKeras {theirs}"


def schedule_or_float(config):
    """An optimizer config with a recorded schedule dict turned into the schedule."""
    import texflow as tf
    config = dict(config)
    lr = config.get("learning_rate")
    if isinstance(lr, dict):
        config["learning_rate"] = getattr(tf.keras.optimizers.schedules, lr["class_name"])(
            **lr["config"])
    return config
