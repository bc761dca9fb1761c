"""Model.fit/evaluate/predict on every backend: short deterministic runs against real
Keras 3.15's history and weights, the seed tutorials' models, memory, and bad input."""

import numpy as np

import harness
import keras_cases
import texflow as tf
from harness import each_backend
from keras_cases import arr, close


def _model(case):
    return tf.keras.Sequential([
        tf.keras.Input((3,)),
        tf.keras.layers.Dense(4, activation="tanh",
                              kernel_regularizer=tf.keras.regularizers.L2(0.01)),
        tf.keras.layers.Dense(case["units"], activation=case["activation"])])


@each_backend(case=keras_cases.cases("fits"))
def test_fit_matches_keras(case):
    model = _model(case)
    model.set_weights([arr(w) for w in case["w0"]])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), **case["compile"])
    y = arr(case["y"], np.int32 if case["units"] == 3 else np.float32)
    fit_args = dict(case["fit"])
    if "class_weight" in fit_args:
        fit_args["class_weight"] = {int(k): v for k, v in fit_args["class_weight"].items()}
    history = model.fit(arr(case["x"]), y, shuffle=False, verbose=0,
                        sample_weight=arr(case["sample_weight"]), **fit_args)
    assert sorted(history.history) == sorted(case["history"])
    for key, values in case["history"].items():
        close(history.history[key], values, rtol=2e-4, atol=2e-5, what=f"history {key}")
    for mine, theirs in zip(model.get_weights(), case["weights"]):
        close(mine, theirs, rtol=2e-4, atol=2e-5, what="weights after fit")
    result = model.evaluate(arr(case["x"]), y, verbose=0, return_dict=True)
    for key, value in case["evaluate"].items():
        close(result[key], value, rtol=2e-4, atol=2e-5, what=f"evaluate {key}")


def _mnist(n_train, n_test):
    (x, y), (xt, yt) = tf.keras.datasets.mnist.load_data()
    scale = np.float32(255)
    return ((x[:n_train, ..., None] / scale).astype(np.float32), y[:n_train],
            (xt[:n_test, ..., None] / scale).astype(np.float32), yt[:n_test])


def seed_cnn():
    """Seed 000's model, as written there."""
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation='relu', input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation='relu'),
        tf.keras.layers.Dense(10, activation='softmax')])


@each_backend
def test_seed_cnn_learns_mnist():
    # 20 steps of 64 (a learning rate of 3e-3 learns in that few; seed 000 uses 1e-3): far
    # above chance on every backend, in seconds even on software WebGPU.
    tf.keras.utils.set_random_seed(1)
    x, y, xt, yt = _mnist(1280, 500)
    model = seed_cnn()
    model.compile(loss=tf.keras.losses.sparse_categorical_crossentropy,
                  optimizer=tf.keras.optimizers.Adam(learning_rate=0.003), metrics=['accuracy'])
    train = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1280, seed=1).batch(64)
    history = model.fit(x=train, epochs=1, verbose=0)
    loss, accuracy = model.evaluate(xt, yt, verbose=0)
    assert history.history["loss"][0] < 1.6 and accuracy > 0.7, (history.history, accuracy)
    probs = model.predict(xt[:8], verbose=0)
    assert probs.shape == (8, 10) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)


@each_backend
def test_seed_003_regression_on_dataset_and_numpy():
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(1, input_shape=(1,),
                              kernel_regularizer=tf.keras.regularizers.L2(1e-4))])
    model.compile(loss='mse', optimizer='sgd')
    dataset = tf.data.Dataset.from_tensors(([1.], [1.])).repeat(100).batch(10)
    first = model.fit(dataset, epochs=2, verbose=0).history["loss"]
    result = model.evaluate(dataset, verbose=0)
    assert isinstance(result, float) and first[1] < first[0]
    inputs, targets = np.ones((100, 1)), np.ones((100, 1))
    later = model.fit(inputs, targets, epochs=2, batch_size=10, verbose=0).history["loss"]
    assert later[1] < later[0] < first[1]
    kernel = model.layers[0].kernel.numpy()
    reg = float(model.losses[0])
    assert np.isclose(reg, 1e-4 * float(np.sum(kernel ** 2)), rtol=1e-5)
    # The loss fit reports includes the regularization term.
    w, b = kernel.item(), model.layers[0].bias.numpy().item()
    total = model.evaluate(inputs, targets, verbose=0)
    assert np.isclose(total, (w + b - 1.0) ** 2 + reg, rtol=1e-4), (total, w, b, reg)


@each_backend
def test_memory_stays_flat_over_an_epoch():
    class Watch(tf.keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.seen = []

        def on_train_batch_end(self, batch, logs=None):
            info = harness.memory()
            self.seen.append((info["num_arrays"], info["num_bytes"],
                              info["num_gpu_objects"]))

    x = np.random.default_rng(0).random((96, 8, 8, 1), dtype=np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 0.5).astype(np.int32)
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
        tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten(),
        tf.keras.layers.Dropout(0.2), tf.keras.layers.Dense(2, activation="softmax")])
    model.compile(loss="sparse_categorical_crossentropy", optimizer="adam",
                  metrics=["accuracy"])
    watch = Watch()
    model.fit(x, y, batch_size=16, epochs=2, verbose=0, callbacks=[watch])
    assert len(set(watch.seen[2:])) == 1, watch.seen


@each_backend
def test_progress_prints_the_classic_bar():
    import contextlib
    import io
    import re

    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.fit(np.ones((8, 2)), np.ones((8, 1)), batch_size=4, epochs=2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2", lines
    assert re.fullmatch(r"2/2 \[==============================\] - \d+s \d+(ms|us|s)/step - "
                        r"loss: \d+\.\d{4} - mae: \d+\.\d{4}", lines[3]), lines


@each_backend
def test_live_logs_reach_a_page_callback():
    """LiveLogs hands a Python function dicts, and in the browser a page's JavaScript
    function plain objects (what a chart reads), every n batches and per epoch."""
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x, y = np.ones((8, 2)), np.ones((8, 1))
    seen = []
    if harness.IN_BROWSER:
        from pyodide.code import run_js
        page = run_js("globalThis.texflowLogs = []; (logs) => texflowLogs.push(logs)")
        live = tf.keras.callbacks.LiveLogs(page, every_n_batches=2)
    else:
        live = tf.keras.callbacks.LiveLogs(seen.append, every_n_batches=2)
    model.fit(x, y, batch_size=2, epochs=2, verbose=0, callbacks=[live])
    if harness.IN_BROWSER:
        import json

        assert run_js("texflowLogs.every(l => l.constructor === Object)")
        seen = json.loads(run_js("JSON.stringify(texflowLogs)"))
    events = [(logs["event"], logs.get("epoch"), logs.get("batch")) for logs in seen]
    assert events == [("batch", 0, 1), ("batch", 0, 3), ("epoch", 0, None),
                      ("batch", 1, 1), ("batch", 1, 3), ("epoch", 1, None),
                      ("end", None, None)], events
    assert all(type(logs[k]) in (float, int) for logs in seen for k in ("loss", "mae")), seen
    assert seen[1]["steps"] == 4 and seen[-1]["loss"] == seen[-2]["loss"], seen


@each_backend
def test_model_subclass_called_with_inputs_and_outputs():
    """keras.io's "customizing fit()" guide: a Model subclass overriding train_step, made
    as `CustomModel(inputs, outputs)`, is a functional model with the subclass's step."""
    class CustomModel(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {"custom": tf.constant(1.0), **{m.name: m.result() for m in self.metrics}}

    def fitted(cls):
        inputs = tf.keras.Input((3,))
        model = cls(inputs, tf.keras.layers.Dense(1)(inputs))
        model.set_weights([np.full((3, 1), 0.5, np.float32), np.zeros(1, np.float32)])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
        x = np.arange(24, dtype=np.float32).reshape(8, 3) / 24
        history = model.fit(x, x[:, :1], batch_size=4, epochs=2, verbose=0, shuffle=False)
        return model, history.history

    model, history = fitted(CustomModel)
    plain, plain_history = fitted(tf.keras.Model)
    assert isinstance(model, CustomModel) and isinstance(model.layers[1], tf.keras.layers.Dense)
    assert model.input_shape == (None, 3) and len(model.layers) == 2
    assert sorted(history) == ["custom", "loss", "mae"] and history["custom"] == [1.0, 1.0]
    for key in plain_history:
        close(history[key], plain_history[key], what=key)
    close(model.get_weights()[0], plain.get_weights()[0], what="kernel")


@each_backend
def test_functional_outputs_keep_their_python_structure():
    # Keras 3.15: model(x), predict and predict_on_batch give a list, tuple or dict as
    # the outputs were given (not a tracking wrapper); output_names are the output
    # layers' names, a dict's in its sorted keys' order.
    a = tf.keras.Input((4,), name="a")
    reg, cls = tf.keras.layers.Dense(1, name="reg")(a), tf.keras.layers.Dense(3, name="cls")(a)
    x = np.ones((2, 4), np.float32)
    for outputs, kind, names in (([reg, cls], list, ["reg", "cls"]),
                                 ((reg, cls), tuple, ["reg", "cls"]),
                                 ({"r": reg, "c": cls}, dict, ["cls", "reg"])):
        model = tf.keras.Model(a, outputs)
        assert model.output_names == names
        for out in (model(x), model.predict(x, verbose=0), model.predict_on_batch(x)):
            assert type(out) is kind, (kind, type(out))
    assert tf.keras.Model(a, reg).output_names == ["reg"]


@each_backend
def test_logs_come_in_tensorflow_keras_order():
    # TensorFlow's Keras 3.15 hands logs (History, callbacks, return_dict) in sorted key
    # order; evaluate's list is the loss, the per-output losses, then the compiled metrics
    # (in compile order for one output, by name for several).
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(8, 2)
    y = (x[:, :1] > 0).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.Input((2,)),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="sgd", loss="binary_crossentropy",
                  metrics=["mse", "accuracy", tf.keras.metrics.AUC(name="auc")])
    seen = []
    record = tf.keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(list(logs)),
        on_epoch_end=lambda epoch, logs: seen.append(list(logs)))
    history = model.fit(x, y, batch_size=4, validation_data=(x, y), verbose=0,
                        callbacks=[record])
    keys = ["accuracy", "auc", "loss", "mse"]
    assert seen == [keys, keys, keys + ["val_" + k for k in keys]], seen
    assert list(history.history) == seen[-1]
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == keys
    assert model.evaluate(x, y, verbose=0) == [logs[k] for k in ("loss", "mse", "accuracy",
                                                                 "auc")]
    assert list(model.test_on_batch(x, y, return_dict=True)) == keys

    a = tf.keras.Input((2,))
    two = tf.keras.Model(a, [tf.keras.layers.Dense(1, name="reg")(a),
                             tf.keras.layers.Dense(3, name="cls")(a)])
    two.compile(optimizer="sgd", loss=["mse", "sparse_categorical_crossentropy"],
                metrics={"reg": ["mae"], "cls": ["accuracy"]})
    labels = np.arange(8) % 3
    logs = two.evaluate(x, [y, labels], verbose=0, return_dict=True)
    assert list(logs) == ["cls_accuracy", "cls_loss", "loss", "reg_loss", "reg_mae"]
    assert two.evaluate(x, [y, labels], verbose=0) == [
        logs[k] for k in ("loss", "reg_loss", "cls_loss", "cls_accuracy", "reg_mae")]


@each_backend
def test_model_checkpoint_makes_its_folder_and_says_when_saved():
    # Keras 3.15 prints both lines per save, and makes the folder the path names.
    import contextlib
    import io
    import os
    import shutil
    import tempfile

    top = tempfile.mkdtemp()
    folder = os.path.join(top, "runs", "a")
    path = os.path.join(folder, "m-{epoch:02d}.keras")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[
            tf.keras.callbacks.ModelCheckpoint(path, verbose=1)])
    saved = [os.path.join(folder, f"m-0{i}.keras") for i in (1, 2)]
    assert out.getvalue() == "".join(f"\nEpoch {i}: saving model to {p}\n\nEpoch {i}: finished "
                                      f"saving model to {p}\n" for i, p in zip((1, 2), saved))
    assert sorted(os.listdir(folder)) == ["m-01.keras", "m-02.keras"]
    shutil.rmtree(top)


@each_backend
def test_fit_takes_a_py_dataset():
    # keras.utils.PyDataset (Sequence): fit, evaluate and predict read batches by index;
    # history and weights are what Keras 3.15 gave (no shuffle), and the epoch hooks run.
    import math

    class Batches(tf.keras.utils.Sequence):
        def __init__(self, x, y, batch_size, **kwargs):
            super().__init__(**kwargs)
            self.x, self.y, self.batch_size, self.events = x, y, batch_size, []

        def __len__(self):
            return math.ceil(len(self.x) / self.batch_size)

        def __getitem__(self, index):
            lo = index * self.batch_size
            return self.x[lo:lo + self.batch_size], self.y[lo:lo + self.batch_size]

        def on_epoch_begin(self):
            self.events.append("begin")

        def on_epoch_end(self):
            self.events.append("end")

    x = np.linspace(-1, 1, 40, dtype=np.float32).reshape(20, 2)
    y = x.sum(axis=1, keepdims=True) * 2
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.set_weights([np.zeros((2, 1), np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    data = Batches(x, y, 8)
    history = model.fit(data, epochs=3, verbose=0, shuffle=False,
                        validation_data=Batches(x[:6], y[:6], 4)).history
    want = {"loss": [5.19706, 1.68012, 0.59361], "mae": [2.02101, 1.10789, 0.63371],
            "val_loss": [3.68716, 1.47512, 0.57012], "val_mae": [1.88147, 1.19543, 0.74512]}
    assert sorted(history) == sorted(want)
    for key, values in want.items():
        close(history[key], values, rtol=1e-4, atol=2e-5, what=key)
    close(model.get_weights()[0].ravel(), [1.64521, 1.65774], rtol=1e-4, what="kernel")
    assert data.events[-6:] == ["begin", "end"] * 3 and data.num_batches == 3
    close(model.evaluate(Batches(x, y, 5), verbose=0), [0.22981, 0.39869], rtol=1e-4,
          atol=2e-5, what="evaluate")
    assert model.predict(Batches(x, y, 7), verbose=0).shape == (20, 1)
    assert tf.keras.utils.PyDataset is tf.keras.utils.Sequence
    model.fit(data, epochs=1, verbose=0)  # shuffled batch order: every batch once
    assert data.events[-2:] == ["begin", "end"]


@each_backend
def test_summary_counts_the_optimizer_as_keras_does():
    # Keras 3.15's last summary lines for this model after a step of Adam (its iteration
    # count is an int64, 8 bytes).
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, "relu"),
                                 tf.keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 8)), np.ones((4, 3)), verbose=0)
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines).splitlines()
    assert text[-4:] == [" Total params: 587 (2.30 KB)", " Trainable params: 195 (780.00 B)",
                         " Non-trainable params: 0 (0.00 B)",
                         " Optimizer params: 392 (1.54 KB)"], text[-4:]
