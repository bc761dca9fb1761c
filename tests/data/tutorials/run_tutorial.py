"""Runs a tutorial script unchanged (the tests copy it beside this file) and then prints
what the tests compare: its model's weights, summed, per weight.

    run_tutorial.py TUTORIAL.py [TRAIN_ROWS]

TRAIN_ROWS keeps only the first rows of MNIST's training set, so a test's run takes
seconds; the tutorial's own code is not touched.
"""

import json
import runpy
import sys

import numpy as np

import texflow as tf

script = sys.argv[1]
if len(sys.argv) > 2:
    rows = int(sys.argv[2])
    load_data = tf.keras.datasets.mnist.load_data

    def first_rows(path=None):
        (x, y), test = load_data(path)
        return (x[:rows], y[:rows]), test

    tf.keras.datasets.mnist.load_data = first_rows
sys.argv = [script]
names = runpy.run_path(script, run_name="__main__")
weights = names["multi_worker_model"].get_weights()
print("weights " + json.dumps([[float(np.sum(w, dtype=np.float64)),
                                float(np.sum(np.abs(w), dtype=np.float64))] for w in weights]),
      flush=True)
