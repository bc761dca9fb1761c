"""The MNIST page's Python, run by worker.js inside Pyodide in a Web Worker.

`train` runs train.py's model and `fit`, posting each batch's and epoch's logs (with the
step time and `tf.memory()`) to the page; `predict` turns a drawing into an MNIST digit
and returns the trained model's ten probabilities. Between batches the training yields
to the worker's event loop (through JSPI), so the page's Stop message is seen.
"""

import time

import js
import numpy as np
from pyodide.ffi import to_js

import texflow as tf
import train as demo

_state = {"model": None}


def _post(message):
    js.postMessage(to_js(message, dict_converter=js.Object.fromEntries))


def _yield_to_events():
    """Lets the worker handle messages (Stop) mid-training; False where JSPI is missing."""
    try:
        from pyodide.ffi import run_sync
        run_sync(js.texflowYield())
        return True
    except Exception:  # no JSPI here: Stop falls back to ending the worker
        return False


class PageProgress(tf.keras.callbacks.Callback):
    """Posts batch and epoch logs to the page and stops when the page asks."""

    def __init__(self, epochs, steps):
        super().__init__()
        self.epochs, self.steps = epochs, steps
        self.step_ms = []
        self._last = None
        self.can_stop = True

    def on_train_begin(self, logs=None):
        self._last = time.perf_counter()

    def on_train_batch_end(self, batch, logs=None):
        now = time.perf_counter()  # the logs are read back: the step has finished
        self.step_ms.append((now - self._last) * 1e3)
        if self.can_stop:
            self.can_stop = _yield_to_events()
        _post(dict(type="batch", epoch=self._epoch, batch=batch, steps=self.steps,
                   epochs=self.epochs, step=self._epoch * self.steps + batch + 1,
                   loss=logs["loss"], accuracy=logs["accuracy"],
                   stepMs=float(np.median(self.step_ms[-10:])), memory=tf.memory(),
                   canStop=self.can_stop))
        if js.texflowStopRequested:
            self.model.stop_training = True
        self._last = time.perf_counter()

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        _post(dict(type="epoch", epoch=epoch, loss=logs["loss"], accuracy=logs["accuracy"]))


async def train(epochs, steps=None, test_images=None):
    """Trains the demo's model for `epochs` (of `steps` batches; None: all) and tests it
    (on the first `test_images` test images; None: all)."""
    (x_train, y_train), (x_test, y_test) = demo.load_data()
    full = -(-len(x_train) // demo.BATCH_SIZE)
    steps = min(int(steps), full) if steps else full
    _post(dict(type="status", text=f"training on {tf.get_backend()!r}", backend=tf.get_backend()))
    model = demo.build_model()
    progress = PageProgress(epochs, steps)
    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=demo.BATCH_SIZE, epochs=epochs,
              steps_per_epoch=steps, callbacks=[progress], verbose=0)
    seconds = time.perf_counter() - start
    _state["model"] = model
    n = min(int(test_images or len(x_test)), len(x_test))
    _post(dict(type="status", text=f"testing on {n:,} test images"))
    loss, accuracy = model.evaluate(x_test[:n], y_test[:n], batch_size=demo.EVAL_BATCH_SIZE,
                                    verbose=0)
    _post(dict(type="done", testLoss=loss, testAccuracy=accuracy, seconds=seconds, tested=n,
               stopped=bool(model.stop_training), canStop=progress.can_stop,
               memory=tf.memory()))


async def predict(pixels, height, width):
    """{probabilities, digit, image} for a drawing given as ink values (row-major)."""
    model = _state["model"]
    if model is None:
        raise RuntimeError("no trained model yet: train before predicting")
    ink = np.asarray(pixels.to_py() if hasattr(pixels, "to_py") else pixels, np.float32)
    image = demo.to_mnist(ink.reshape(height, width))
    if image is None:
        return to_js(dict(empty=True), dict_converter=js.Object.fromEntries)
    probabilities = model.predict(image[None, :, :, None], verbose=0)[0]
    return to_js(dict(probabilities=[float(p) for p in probabilities],
                      digit=int(np.argmax(probabilities)),
                      image=[float(v) for v in image.reshape(-1)]),
                 dict_converter=js.Object.fromEntries)
