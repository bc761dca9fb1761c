"""The Keras `fit` cases of `texflow bench`: seed 000's MNIST CNN, one step and one epoch.

The model is demos/mnist's (Conv2D(32, 3, relu) -> MaxPooling2D -> Flatten -> Dense(64,
relu) -> Dense(10, softmax); sparse categorical cross-entropy, accuracy, Adam(1e-3),
batches of 64) on the 9,000 training images of `tf.keras.datasets.mnist.load_data()`,
given to `fit` as numpy arrays, as the demo does (each batch is uploaded as it is used).

Each side first fits 3 batches (64, 64 and the 40 an epoch ends with) to compile its
kernels. A step is then timed as `fit` over `STEPS` batches (shuffle off) divided by
`STEPS`, alternating rounds between the two sides; the epoch is one `fit` over all 9,000
images (shuffled, 141 batches). `fit` returns only after reading the epoch's loss and
accuracy back, and the GPU runs work in order, so every launch is counted.
"""

import statistics
import time

import numpy as np

BATCH = 64
STEPS = 10
WARM_UP = 2 * BATCH + 40
FIT_STEP = "fit step, batch 64 (ms)"
FIT_EPOCH = "fit epoch, 9,000 images (ms)"
_benches = {}


def mnist():
    """(x, y): the 9,000 MNIST training images as float32 (N, 28, 28, 1) and int32 labels."""
    from ..keras.datasets import mnist as dataset

    (x, y), _ = dataset.load_data()
    return (x[..., None] / np.float32(255)).astype(np.float32), y.astype(np.int32)


def seed_cnn(keras):
    """The seed's CNN with `keras` (texflow's tf.keras), compiled as the demo compiles it."""
    model = keras.Sequential([
        keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(loss="sparse_categorical_crossentropy",
                  optimizer=keras.optimizers.Adam(learning_rate=1e-3), metrics=["accuracy"])
    return model


class FitBench:
    """texflow's side on one backend: `steps(n)` (ms per step) and `epoch()` (ms)."""

    def __init__(self, backend, x, y):
        import texflow as tf

        self.tf, self.backend = tf, backend
        tf.set_backend(backend)
        tf.keras.utils.set_random_seed(0)
        self.x, self.y = x, y
        self.model = seed_cnn(tf.keras)
        self._fit(WARM_UP, shuffle=False)

    def _fit(self, n, shuffle):
        self.tf.set_backend(self.backend)
        start = time.perf_counter()
        self.model.fit(self.x[:n], self.y[:n], batch_size=BATCH, epochs=1, verbose=0,
                       shuffle=shuffle)
        return (time.perf_counter() - start) * 1e3

    def steps(self, n=STEPS):
        return self._fit(BATCH * n, shuffle=False) / n

    def epoch(self):
        return self._fit(len(self.x), shuffle=True)


def browser_bench(backend):
    """The FitBench for `backend` in this Pyodide, made (and warmed up) on first use."""
    if backend not in _benches:
        x, y = mnist()
        _benches[backend] = FitBench(backend, x, y)
    return _benches[backend]


def alternate(sides, rounds):
    """{name: median ms/step} over `rounds` rounds in which each side times one round."""
    times = {name: [] for name in sides}
    for _ in range(rounds):
        for name, run in sides.items():
            times[name].append(run())
    return {name: statistics.median(values) for name, values in times.items()}


class KerasProcess:
    """TensorFlow Keras's side natively: keras_reference.py in interpreter `python`."""

    def __init__(self, python, data_path):
        import subprocess
        from pathlib import Path

        script = Path(__file__).with_name("keras_reference.py")
        self.proc = subprocess.Popen([python, str(script), str(data_path)], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        ready = self.proc.stdout.readline().split()
        if not ready or ready[0] != "ready":
            self.close()
            raise RuntimeError(f"the TensorFlow Keras side ({python} {script}) did not start: "
                               f"it printed {' '.join(ready)!r}; is TensorFlow installed there?")
        self.version = ready[1]

    def _ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        try:
            return float(answer)
        except ValueError:
            raise RuntimeError(f"the TensorFlow Keras side answered {command!r} with "
                               f"{answer!r}") from None

    def steps(self, n=STEPS):
        return self._ask(f"steps {n}")

    def epoch(self):
        return self._ask("epoch")

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def measure_native(tf_python, rounds, epoch=True):
    """{case: (texflow numpy ms, TensorFlow Keras ms)} and TensorFlow's version."""
    from ..keras.datasets import mnist as dataset

    x, y = mnist()
    keras = KerasProcess(tf_python, dataset._native_path())
    try:
        mine = FitBench("numpy", x, y)
        steps = alternate({"texflow": mine.steps, "keras": keras.steps}, rounds)
        out = {FIT_STEP: (steps["texflow"], steps["keras"])}
        if epoch:
            out[FIT_EPOCH] = (mine.epoch(), keras.epoch())
    finally:
        keras.close()
    return out, keras.version


def browser_data():
    """The training images and labels for the tfjs side, as float32 numpy (made once)."""
    if "data" not in _benches:
        x, y = mnist()
        _benches["data"] = (x.reshape(-1), y.astype(np.float32))
    return _benches["data"]


_TFJS_SETUP = """async (backend) => {
  const data = pyodide.runPython("from texflow.bench.fit import browser_data\\nbrowser_data()");
  const copy = (proxy) => {
    const buffer = proxy.getBuffer("f32");
    const values = buffer.data.slice();
    buffer.release();
    proxy.destroy();
    return values;
  };
  const images = copy(data.get(0)), labels = copy(data.get(1));
  data.destroy();
  return await texflowFitTfjs.setup(backend, images, labels);
}"""
_TEXFLOW_CALL = ("async ([backend, call]) => await pyodide.runPythonAsync("
                 "`from texflow.bench.fit import browser_bench\\n"
                 "browser_bench('${backend}').${call}`)")


def measure_browser(page, backend, quick):
    """{case: (texflow ms, tfjs-layers ms)} on `backend` in the page (Pyodide + tfjs)."""
    import sys

    n, rounds = (3, 1) if quick else (STEPS, 3)
    print(f"[bench] fit on {backend}: warming up tfjs-layers and texflow ...", file=sys.stderr,
          flush=True)
    page.evaluate(_TFJS_SETUP, backend)
    page.evaluate(_TEXFLOW_CALL, [backend, "backend"])
    steps = alternate({
        "texflow": lambda: page.evaluate(_TEXFLOW_CALL, [backend, f"steps({n})"]),
        "tfjs": lambda: page.evaluate("(n) => texflowFitTfjs.steps(n)", n),
    }, rounds)
    out = {FIT_STEP: (steps["texflow"], steps["tfjs"])}
    if not quick:
        print(f"[bench] fit on {backend}: one epoch each ...", file=sys.stderr, flush=True)
        out[FIT_EPOCH] = (page.evaluate(_TEXFLOW_CALL, [backend, "epoch()"]),
                          page.evaluate("() => texflowFitTfjs.epoch()"))
    return out
