"""Seed 000's MNIST CNN trained with Keras `fit`, then evaluated on the test split.

    python demos/mnist/train.py                       # natively (numpy; --backend wgpu)
    texflow run-browser demos/mnist/train.py --backend webgl   # in Pyodide, headless
    python demos/mnist/train.py --epochs 1 --steps 50 --test-images 250   # quick mode

The model is the tutorial's (Conv2D(32, 3) -> MaxPooling2D -> Flatten -> Dense(64) ->
Dense(10, softmax)), trained with Adam(1e-3) in batches of 64 on
`tf.keras.datasets.mnist.load_data()` (texflow's 9,000 / 1,000 split of the 10,000-digit
MNIST subset), images scaled to [0, 1]. The page demos/mnist/ imports this module to train
in a Web Worker and to turn a drawing into a 28x28 MNIST-style digit (`to_mnist`).
"""

import argparse
import sys
import time

import numpy as np

import texflow as tf

BATCH_SIZE = 64
EVAL_BATCH_SIZE = 250  # evaluation only: fewer, larger batches, the same result


def load_data():
    """((x_train, y_train), (x_test, y_test)): float32 images (N, 28, 28, 1) in [0, 1]."""
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
    scale = lambda x: (x[..., None] / np.float32(255)).astype(np.float32)  # noqa: E731
    return (scale(x_train), y_train), (scale(x_test), y_test)


def build_model():
    """The seed's CNN, compiled as the demo trains it."""
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation='relu', input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation='relu'),
        tf.keras.layers.Dense(10, activation='softmax'),
    ])
    model.compile(loss=tf.keras.losses.sparse_categorical_crossentropy,
                  optimizer=tf.keras.optimizers.Adam(learning_rate=1e-3),
                  metrics=['accuracy'])
    return model


def _box_weights(size, out, scale, offset):
    """(out, size) matrix of a box filter: output pixel j averages the input interval that
    [j, j + 1) maps back to under x_out = x_in * scale + offset."""
    lo = (np.arange(out)[:, None] - offset) / scale
    hi = lo + 1.0 / scale
    i = np.arange(size)[None, :]
    overlap = np.clip(np.minimum(hi, i + 1) - np.maximum(lo, i), 0.0, None)
    return (overlap * scale).astype(np.float32)


def to_mnist(ink, box=20, size=28):
    """A drawing as an MNIST digit, or None when nothing is drawn.

    MNIST's preprocessing: the digit's bounding box is scaled (anti-aliased, aspect ratio
    kept) to fit a `box` x `box` square, then placed in a `size` x `size` image with its
    centre of mass on pixel (14, 14), where MNIST's digits have theirs (on average over
    the training set, to 0.01 pixel).

    Args:
        ink: (height, width) array of ink in [0, 1] (1 = full stroke), any size.

    Returns:
        float32 (size, size) array in [0, 1].
    """
    ink = np.asarray(ink, np.float32)
    if ink.ndim != 2:
        raise ValueError(f"to_mnist expects a (height, width) image, received shape "
                         f"{ink.shape}")
    rows = np.flatnonzero(ink.max(axis=1) > 0.01)
    cols = np.flatnonzero(ink.max(axis=0) > 0.01)
    if rows.size == 0:
        return None
    crop = ink[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    scale = box / max(crop.shape)
    mass = crop.sum()
    # centres in continuous coordinates (pixel i spans [i, i + 1)): pixel 14's is 14.5
    centre_y = (crop.sum(axis=1) @ (np.arange(crop.shape[0]) + 0.5)) / mass
    centre_x = (crop.sum(axis=0) @ (np.arange(crop.shape[1]) + 0.5)) / mass
    target = size // 2 + 0.5
    weights_y = _box_weights(crop.shape[0], size, scale, target - centre_y * scale)
    weights_x = _box_weights(crop.shape[1], size, scale, target - centre_x * scale)
    return np.clip(weights_y @ crop @ weights_x.T, 0.0, 1.0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=None,
                        help="numpy or wgpu natively (default numpy); in the browser "
                             "run-browser's --backend picks it")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None,
                        help="batches per epoch (quick mode; default: all 141)")
    parser.add_argument("--test-images", type=int, default=None,
                        help="test on the first N test images only (quick mode; default all)")
    parser.add_argument("--seed", type=int, default=None, help="seed the weights and order")
    args = parser.parse_args(argv)
    for name in ("epochs", "steps", "test_images"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be positive, received {value}")
    if args.backend:
        tf.set_backend(args.backend)
    if args.seed is not None:
        tf.keras.utils.set_random_seed(args.seed)
    (x_train, y_train), (x_test, y_test) = load_data()
    print(f"texflow {tf.__version__} on {tf.get_backend()!r}: {len(x_train)} training and "
          f"{len(x_test)} test images", flush=True)
    model = build_model()
    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=BATCH_SIZE, epochs=args.epochs,
              steps_per_epoch=args.steps)
    seconds = time.perf_counter() - start
    n = min(args.test_images or len(x_test), len(x_test))
    loss, accuracy = model.evaluate(x_test[:n], y_test[:n], batch_size=EVAL_BATCH_SIZE,
                                    verbose=0)
    tested = "" if n == len(x_test) else f" (on {n} of the {len(x_test)} test images)"
    print(f"trained in {seconds:.1f} s; test loss {loss:.4f}, test accuracy {accuracy:.4f}"
          f"{tested}", flush=True)
    return accuracy


if __name__ == "__main__":
    main(sys.argv[1:])
