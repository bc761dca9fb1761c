#!/usr/bin/env python3
"""Seed 000's MNIST CNN fitted from the SAME initial weights by TensorFlow and by texflow:
whether the two `fit`s compute the same steps, with the random draws (initial weights,
shuffling) taken out. Run TensorFlow first (in its own venv), then texflow:

    PYTHONPATH=py /path/to/tf-venv/bin/python scripts/mnist_same_start.py --tensorflow DIR
    .venv/bin/python scripts/mnist_same_start.py DIR [--backend numpy|wgpu]

TensorFlow's side writes DIR/start.npz (its initial weights) and DIR/tensorflow.npz (the
weights after `fit`); texflow's side starts from DIR/start.npz, fits the same batches
(batch 64, Adam(1e-3), shuffle off) and prints both losses and, per weight, the largest
difference from TensorFlow's result.
"""

import argparse
import os
from pathlib import Path

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--tensorflow", action="store_true")
    parser.add_argument("--backend", default=None)
    parser.add_argument("--images", type=int, default=640, help="10 batches by default")
    args = parser.parse_args()
    if args.tensorflow:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import texflow as tf
        if args.backend:
            tf.set_backend(args.backend)
    from texflow.bench.keras_reference import seed_cnn
    from texflow.keras.datasets import mnist

    (x, y), _ = mnist.load_data()
    x = (x[:args.images, ..., None] / np.float32(255)).astype(np.float32)
    y = y[:args.images]
    tf.keras.utils.set_random_seed(0)
    model = seed_cnn(tf)  # the bench's model, compiled with Adam(1e-3)
    if args.tensorflow:
        args.dir.mkdir(parents=True, exist_ok=True)
        np.savez(args.dir / "start.npz", *model.get_weights())
    else:
        with np.load(args.dir / "start.npz") as start:
            model.set_weights([start[f"arr_{i}"] for i in range(len(start.files))])
    history = model.fit(x, y, batch_size=64, epochs=1, shuffle=False, verbose=0).history
    weights = model.get_weights()
    if args.tensorflow:
        np.savez(args.dir / "tensorflow.npz", *weights, loss=history["loss"][0])
        print(f"TensorFlow {tf.__version__}: loss {history['loss'][0]:.7f}")
        return
    with np.load(args.dir / "tensorflow.npz") as theirs:
        print(f"texflow on {tf.get_backend()}: loss {history['loss'][0]:.7f}, TensorFlow's "
              f"{float(theirs['loss']):.7f}")
        for i, mine in enumerate(weights):
            ref = theirs[f"arr_{i}"]
            print(f"weight {i} {tuple(ref.shape)}: largest difference "
                  f"{np.abs(mine - ref).max():.2e} (it moved by up to "
                  f"{np.abs(ref - start_weight(args.dir, i)).max():.2e})")


def start_weight(folder, i):
    with np.load(folder / "start.npz") as start:
        return start[f"arr_{i}"]


if __name__ == "__main__":
    main()
