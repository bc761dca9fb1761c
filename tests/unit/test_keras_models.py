"""tf.keras models on the numpy backend: summary() and configs against real Keras 3.15,
Sequential, functional and subclassed models, weights, freezing."""

import numpy as np
import pytest

import keras_cases
import texflow as tf


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


CONFIG_ARGS = {"Dense": {"units": 4}, "Conv2D": {"filters": 2, "kernel_size": 3},
               "Conv1D": {"filters": 2, "kernel_size": 3}, "Reshape": {"target_shape": (2, 2)},
               "Dropout": {"rate": 0.3}, "Activation": {"activation": "relu"},
               "Embedding": {"input_dim": 5, "output_dim": 2}, "Rescaling": {"scale": 2.0},
               "AveragePooling2D": {"pool_size": 2}}


@pytest.mark.parametrize("name", sorted(keras_cases.cases("layer_configs")))
def test_layer_configs_match_keras(name):
    theirs = _plain(keras_cases.cases("layer_configs")[name])
    mine = _plain(getattr(tf.keras.layers, name)(**CONFIG_ARGS.get(name, {})).get_config())
    assert mine.pop("name").startswith(theirs.pop("name").rstrip("_0123456789"))
    assert mine == theirs


def _summary_models():
    tf.keras.backend.clear_session()
    cnn = tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"), tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(), tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax")])
    inp = tf.keras.Input((4,), name="x")
    inp2 = tf.keras.Input((3,), name="extra_input_with_a_long_name")
    h = tf.keras.layers.Dense(8, activation="relu")(inp)
    c = tf.keras.layers.Concatenate()([h, inp2])
    bn = tf.keras.layers.BatchNormalization()(c)
    functional = tf.keras.Model([inp, inp2], [tf.keras.layers.Dense(2, name="out_a")(bn),
                                              tf.keras.layers.Dense(1)(h)])
    return {"cnn": cnn, "functional": functional}


def test_summary_matches_keras_text(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    models = _summary_models()
    for case in keras_cases.cases("summaries"):
        model = models[case["model"].replace("_trained", "")]
        if case["model"] == "cnn_trained":
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
            model.fit(np.zeros((2, 28, 28, 1)), np.zeros(2), verbose=0)
        lines = []
        model.summary(line_length=case["line_length"], show_trainable=case["show_trainable"],
                      print_fn=lines.append)
        assert "".join(lines) == case["text"], (case["model"], case["line_length"])


def test_summary_of_unbuilt_and_subclassed_models(capsys):
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(2)])
    model.summary(line_length=76)
    text = capsys.readouterr().out
    assert "│ dense (Dense)                   │ ?                      │   0 (unbuilt) │" in text
    model(np.zeros((2, 5), np.float32))
    model.summary(line_length=76)
    text = capsys.readouterr().out
    assert "│ dense_1 (Dense)                 │ (2, 2)                 │             8 │" in text
    assert " Total params: 26 (104.00 B)" in text


def test_sequential_construction_and_access():
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential(name="stack")
    model.add(tf.keras.layers.Dense(4, input_shape=(3,)))
    model.add(tf.keras.layers.Dense(2))
    assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert model.get_layer("dense_1") is model.layers[1] is model.get_layer(index=1)
    assert [w.path for w in model.weights] == ["stack/dense/kernel", "stack/dense/bias",
                                               "stack/dense_1/kernel", "stack/dense_1/bias"]
    assert model.count_params() == 3 * 4 + 4 + 4 * 2 + 2
    popped = model.pop()
    assert popped.name == "dense_1" and model.output_shape == (None, 4)
    with pytest.raises(ValueError, match="No such layer: nope. Existing layers are"):
        model.get_layer("nope")
    with pytest.raises(ValueError, match="unique names. Name 'dense'"):
        model.add(tf.keras.layers.Dense(1, name="dense"))
    lazy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    assert not lazy.built
    lazy.build((None, 7))
    assert lazy.layers[0].kernel.shape == (7, 2)


def test_sequential_config_round_trip_keeps_predictions():
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
        tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten(),
        tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(3, activation="softmax")])
    again = tf.keras.Sequential.from_config(model.get_config())
    again.set_weights(model.get_weights())
    x = np.random.default_rng(0).random((2, 8, 8, 1), dtype=np.float32)
    assert np.allclose(model.predict(x, verbose=0), again.predict(x, verbose=0))
    assert again.get_config()["layers"][1]["config"] == model.get_config()["layers"][1]["config"]
    clone = tf.keras.models.model_from_json(model.to_json())
    assert [type(layer) for layer in clone.layers] == [type(layer) for layer in model.layers]


def test_functional_model_inputs_outputs_and_config():
    tf.keras.backend.clear_session()
    image = tf.keras.Input((4,), name="image")
    meta = tf.keras.Input((2,), name="meta")
    shared = tf.keras.layers.Dense(3, activation="relu", name="shared")
    h = tf.keras.layers.concatenate([shared(image), meta])
    out = {"score": tf.keras.layers.Dense(1, name="score")(h),
           "klass": tf.keras.layers.Dense(2, activation="softmax", name="klass")(h + 1.0)}
    model = tf.keras.Model(inputs={"image": image, "meta": meta}, outputs=out)
    x = {"image": np.ones((5, 4), np.float32), "meta": np.zeros((5, 2), np.float32)}
    y = model(x)
    assert y["score"].shape == (5, 1) and y["klass"].shape == (5, 2)
    model.compile(optimizer="adam", loss={"score": "mse", "klass": "sparse_categorical_"
                                          "crossentropy"},
                  loss_weights={"score": 0.5, "klass": 1.0}, metrics={"klass": ["accuracy"]})
    history = model.fit(x, {"score": np.zeros((5, 1)), "klass": np.zeros(5)}, epochs=2,
                        verbose=0)
    assert list(history.history) == ["klass_accuracy", "klass_loss", "loss", "score_loss"]
    again = tf.keras.Model.from_config(model.get_config())
    again.set_weights(model.get_weights())
    for key in ("score", "klass"):
        assert np.allclose(again(x)[key].numpy(), model(x)[key].numpy(), atol=1e-6)
    with pytest.raises(ValueError, match=r"expects inputs named \['image', 'meta'\]"):
        model({"image": x["image"]})


def test_subclassed_model_tracks_layers_and_passes_training():
    seen = []

    class Probe(tf.keras.layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [tf.keras.layers.Dense(4, activation="relu") for _ in range(2)]
            self.probe = Probe()
            self.head = tf.keras.layers.Dense(1)

        def call(self, inputs, training=None):
            x = inputs
            for block in self.blocks:
                x = block(x)
            return self.head(self.probe(x))

    net = Net()
    net(np.ones((2, 3), np.float32), training=True)
    net(np.ones((2, 3), np.float32))
    assert seen == [True, None]
    assert len(net.layers) == 4 and len(net.trainable_variables) == 6
    assert net.weights[0].path == "net/dense/kernel" or net.weights[0].path.endswith("/kernel")
    net.compile(optimizer="sgd", loss="mse")
    net.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)
    assert seen[-1] is True


def test_freezing_keeps_weights_and_batch_norm_statistics():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(1)])
    model.layers[0].trainable = False
    model.layers[1].trainable = False
    assert len(model.trainable_weights) == 2 and len(model.non_trainable_weights) == 6
    frozen = [w.numpy() for w in model.layers[0].weights + model.layers[1].weights]
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.random.default_rng(0).random((16, 3)), np.ones((16, 1)), verbose=0)
    after = [w.numpy() for w in model.layers[0].weights + model.layers[1].weights]
    assert all(np.array_equal(a, b) for a, b in zip(frozen, after))
    model.layers[0].trainable = True
    assert len(model.trainable_weights) == 4


def test_regularizers_and_add_loss_join_losses():
    layer = tf.keras.layers.Dense(2, kernel_regularizer=tf.keras.regularizers.L1L2(0.1, 0.2),
                                  bias_regularizer="l2", activity_regularizer="l1")
    out = layer(np.ones((4, 3), np.float32))
    kernel, bias = layer.kernel.numpy(), layer.bias.numpy()
    want = [0.1 * np.abs(kernel).sum() + 0.2 * (kernel ** 2).sum(), 0.01 * (bias ** 2).sum(),
            0.01 * np.abs(out.numpy()).sum() / 4]
    got = sorted(float(v) for v in layer.losses)
    assert np.allclose(got, sorted(want), rtol=1e-5)


def test_models_nest_as_layers():
    tf.keras.backend.clear_session()
    inner = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dropout(0.5)], name="inner")
    x = tf.keras.Input((3,))
    outer = tf.keras.Model(x, tf.keras.layers.Dense(1)(inner(x)))
    assert [w.path for w in outer.weights] == ["inner/dense/kernel", "inner/dense/bias",
                                               "dense_1/kernel", "dense_1/bias"]
    lines = []
    outer.summary(line_length=80, expand_nested=True, print_fn=lines.append)
    assert "│ └ dropout (Dropout)" in lines[0]
    outer.compile(optimizer="adam", loss="mse")
    outer.fit(np.ones((8, 3)), np.ones((8, 1)), verbose=0)
    stacked = tf.keras.Sequential([inner, tf.keras.layers.Dense(2)])
    assert stacked.output_shape == (None, 2)
    again = tf.keras.Model.from_config(outer.get_config())
    assert len(again.weights) == 4
