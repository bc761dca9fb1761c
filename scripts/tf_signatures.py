#!/usr/bin/env python3
"""Writes tests/data/fixtures/tf_signatures.json: TensorFlow 2's parameter names, in
order, and which have no default, for every public callable texflow exports in tf.*,
tf.math, tf.nn, tf.linalg, tf.random, tf.nest and tf.image
(tests/unit/test_tf_signatures.py checks texflow's against them).

Two steps, run by hand (TensorFlow is never a test dependency):

    .venv/bin/python scripts/tf_signatures.py names /tmp/names.json
    $TF_PYTHON scripts/tf_signatures.py dump /tmp/names.json

The first lists texflow's names (natively); the second looks each up in TensorFlow and
records its parameters (null where TensorFlow has no such callable).
"""

import inspect
import json
import os
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "fixtures"
NAMESPACES = ("", "math", "nn", "linalg", "random", "nest", "image")


def _resolve(root, dotted):
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def texflow_names():
    """texflow's public callables (functions, not classes) in the namespaces above."""
    import texflow
    names = []
    for space in NAMESPACES:
        ns = _resolve(texflow, "tf." + space) if space else texflow
        prefix = "tf." + space + "." if space else "tf."
        for name in dir(ns):
            value = getattr(ns, name)
            if name.startswith("_") or inspect.isclass(value) or inspect.ismodule(value) \
                    or not callable(value):
                continue
            names.append(prefix + name)
    return sorted(names)


def tf_parameters(tf, dotted):
    """TensorFlow's parameters for `dotted` in order, [name, kind, required (no default)],
    or None (no such callable)."""
    obj = _resolve(tf, dotted)
    if obj is None or inspect.isclass(obj) or not callable(obj):
        return None
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, p.default is inspect.Parameter.empty] for p in params]


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "names":
        Path(path).write_text(json.dumps(texflow_names(), indent=0))
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    names = json.loads(Path(path).read_text())
    result = {"tensorflow": tf.__version__,
              "signatures": {n: tf_parameters(tf, n) for n in names}}
    tmp = OUT / "tf_signatures.json.tmp"
    tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, OUT / "tf_signatures.json")


if __name__ == "__main__":
    main()
