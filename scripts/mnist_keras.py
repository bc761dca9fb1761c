#!/usr/bin/env python3
"""Seed 000's MNIST CNN trained with `fit` as TensorFlow's tutorial sets it up, on the
9,000 / 1,000 split of `tf.keras.datasets.mnist.load_data()`: batch 64, Adam(1e-3),
3 epochs, images scaled to [0, 1]; prints the history and the test accuracy.

    .venv/bin/python scripts/mnist_keras.py [numpy|wgpu] [--epochs 3] [--optimizer sgd]
    texflow run-browser scripts/mnist_keras.py --backend webgl
    PYTHONPATH=py /path/to/tf-venv/bin/python scripts/mnist_keras.py --tensorflow

With --tensorflow the same code runs with `import tensorflow as tf` (the reference).
--optimizer sgd uses the seed's SGD(learning_rate=0.001) instead (a smoke test: it
learns slowly).
"""

import argparse
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backend", nargs="?", default=None)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tensorflow", action="store_true")
    args = parser.parse_args()
    if args.tensorflow:
        import os
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        from texflow.keras.datasets import mnist
        load = mnist.load_data
    else:
        import texflow as tf
        if args.backend:
            tf.set_backend(args.backend)
        load = tf.keras.datasets.mnist.load_data
        print("backend:", tf.get_backend())
    tf.keras.utils.set_random_seed(args.seed)
    (x_train, y_train), (x_test, y_test) = load()
    x_train = (x_train[..., None] / np.float32(255)).astype(np.float32)
    x_test = (x_test[..., None] / np.float32(255)).astype(np.float32)

    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation='relu', input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation='relu'),
        tf.keras.layers.Dense(10, activation='softmax')])
    optimizer = (tf.keras.optimizers.Adam(learning_rate=0.001) if args.optimizer == "adam"
                 else tf.keras.optimizers.SGD(learning_rate=0.001))
    model.compile(loss=tf.keras.losses.sparse_categorical_crossentropy, optimizer=optimizer,
                  metrics=['accuracy'])
    start = time.perf_counter()
    history = model.fit(x_train, y_train, batch_size=64, epochs=args.epochs)
    seconds = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    steps = args.epochs * int(np.ceil(len(x_train) / 64))
    print(f"history: {history.history}")
    print(f"fit: {seconds:.1f} s ({seconds / steps * 1e3:.1f} ms/step)")
    print(f"test loss {loss:.4f}, test accuracy {accuracy:.4f}")


if __name__ == "__main__":
    main()
