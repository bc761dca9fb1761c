#!/usr/bin/env python3
"""Trains seed 000's MNIST CNN with texflow and with TensorFlow Keras from the SAME initial
weights on the SAME batches (no shuffling) and compares the histories and final weights:
texflow's training is TensorFlow's, up to float32 rounding.

    PYTHONPATH=py /path/to/tf-venv/bin/python scripts/compare_keras_tf.py [--steps 141]
        [--epochs 3] [--backend numpy] [--seed 0]

Test accuracies of separate runs differ by a point or so from seed to seed (initial
weights and shuffling); this removes that variation.
"""

import argparse
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def cnn(keras):
    return keras.Sequential([
        keras.layers.Input((28, 28, 1)), keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(), keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10, activation="softmax")])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=141, help="batches of 64 (141: an epoch)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--seed", type=int, default=0, help="TensorFlow's seed: the weights")
    args = parser.parse_args()
    import tensorflow
    import texflow
    texflow.set_backend(args.backend)
    (x, y), (xt, yt) = texflow.keras.datasets.mnist.load_data()
    x = (x[..., None] / np.float32(255)).astype(np.float32)[:64 * args.steps]
    y = y.astype(np.int32)[:64 * args.steps]
    xt = (xt[..., None] / np.float32(255)).astype(np.float32)
    tensorflow.keras.utils.set_random_seed(args.seed)
    theirs, mine = cnn(tensorflow.keras), cnn(texflow.keras)
    mine.set_weights(theirs.get_weights())
    results = {}
    for name, model, keras in (("TensorFlow", theirs, tensorflow.keras),
                               (f"texflow {args.backend}", mine, texflow.keras)):
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        history = model.fit(x, y, batch_size=64, epochs=args.epochs, shuffle=False,
                            verbose=0).history
        results[name] = (history, model.evaluate(xt, yt, verbose=0, return_dict=True))
    for name, (history, test) in results.items():
        print(f"{name:>16}: train loss {history['loss'][-1]:.6f} accuracy "
              f"{history['accuracy'][-1]:.6f} (epoch {len(history['loss'])}); test loss "
              f"{test['loss']:.6f} accuracy {test['accuracy']:.4f}")
    print("\nlargest difference of each weight after training (and its largest value):")
    for a, b, w in zip(theirs.get_weights(), mine.get_weights(), theirs.weights):
        print(f"  {w.path:28} {np.abs(a - b).max():.2e}  ({np.abs(a).max():.3f})")


if __name__ == "__main__":
    main()
