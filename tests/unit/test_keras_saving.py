"""`.keras` archives, weights files and custom-object registration (numpy backend; the
backend suite checks predictions and resumed training on every backend)."""

import json
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import texflow as tf

RNG = np.random.default_rng(0)
XA = RNG.normal(size=(8, 3)).astype(np.float32)
XB = RNG.normal(size=(8, 2)).astype(np.float32)
YA = RNG.normal(size=(8, 1)).astype(np.float32)
YB = RNG.integers(0, 3, 8).astype(np.int32)


@tf.keras.saving.register_keras_serializable(package="saving_test")
class Scale(tf.keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    def call(self, x):
        return x * self.w * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@tf.keras.saving.register_keras_serializable(package="saving_test")
def squared_error(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


@tf.keras.saving.register_keras_serializable(package="saving_test")
def doubled(x, by=2.0):
    return x * by


class Subclassed(tf.keras.Model):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = tf.keras.layers.Dense(units, activation="relu")
        self.scale = Scale(3.0)
        self.head = tf.keras.layers.Dense(1)

    def call(self, x, training=None):
        return self.head(self.scale(self.hidden(x)))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def _functional():
    a, b = tf.keras.Input((3,), name="a"), tf.keras.Input((2,), name="b")
    h = tf.keras.layers.Concatenate()([tf.keras.layers.Dense(4, activation="relu")(a), b])
    model = tf.keras.Model([a, b], [tf.keras.layers.Dense(1, name="reg")(h),
                                    tf.keras.layers.Dense(3, activation="softmax",
                                                          name="cls")(h)])
    model.compile(tf.keras.optimizers.Adam(0.02),
                  loss=["mse", tf.keras.losses.sparse_categorical_crossentropy],
                  loss_weights=[1.0, 0.5], metrics=[["mae"], ["accuracy"]])
    return model


def test_functional_model_with_two_inputs_and_outputs(tmp_path):
    model = _functional()
    model.fit([XA, XB], [YA, YB], epochs=2, verbose=0)
    model.save(tmp_path / "f.keras")
    loaded = tf.keras.models.load_model(tmp_path / "f.keras")
    for mine, theirs in zip(model.predict([XA, XB], verbose=0),
                            loaded.predict([XA, XB], verbose=0)):
        assert np.array_equal(mine, theirs)
    assert loaded.get_compile_config() == model.get_compile_config()
    first = model.fit([XA, XB], [YA, YB], epochs=1, verbose=0, shuffle=False).history
    again = loaded.fit([XA, XB], [YA, YB], epochs=1, verbose=0, shuffle=False).history
    assert first == again                                  # same losses and metrics
    unc = tf.keras.models.load_model(tmp_path / "f.keras", compile=False)
    assert not unc.compiled and unc.optimizer is None


def test_subclassed_model_with_registered_layer_and_loss(tmp_path):
    model = Subclassed(5)
    model.compile(tf.keras.optimizers.SGD(0.01, momentum=0.9), loss=squared_error)
    model.fit(XA, YA, epochs=2, verbose=0)
    model.save(tmp_path / "s.keras")
    with pytest.raises(ValueError, match="could not deserialize model 'Subclassed'.*"
                                         "custom_objects"):
        tf.keras.models.load_model(tmp_path / "s.keras")
    loaded = tf.keras.models.load_model(tmp_path / "s.keras",
                                        custom_objects={"Subclassed": Subclassed})
    assert isinstance(loaded, Subclassed) and loaded.units == 5
    assert loaded.scale.factor == 3.0 and loaded.loss is squared_error
    assert np.array_equal(loaded.predict(XA, verbose=0), model.predict(XA, verbose=0))
    model.fit(XA, YA, epochs=1, verbose=0, shuffle=False)
    loaded.fit(XA, YA, epochs=1, verbose=0, shuffle=False)
    assert np.array_equal(loaded.predict(XA, verbose=0), model.predict(XA, verbose=0))
    with tf.keras.saving.custom_object_scope({"Subclassed": Subclassed}):
        assert isinstance(tf.keras.models.load_model(tmp_path / "s.keras"), Subclassed)


def test_archive_layout_follows_keras_3(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile("adam", loss="mse", metrics=["mae"])
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        assert z.namelist() == ["metadata.json", "config.json", "model.weights.safetensors"]
        metadata = json.loads(z.read("metadata.json"))
        config = json.loads(z.read("config.json"))
    assert sorted(metadata) == ["date_saved", "keras_version"]
    assert sorted(config) == ["build_config", "class_name", "compile_config", "config",
                              "module", "registered_name"]
    assert (config["module"], config["class_name"]) == ("keras", "Sequential")
    assert config["build_config"] == {"input_shape": [None, 3]}
    assert config["compile_config"]["optimizer"]["class_name"] == "Adam"


def test_builtin_loss_functions_are_recorded_as_keras_records_them(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(3)])
    model.compile("sgd", loss=tf.keras.losses.sparse_categorical_crossentropy)
    assert model.get_compile_config()["loss"] == {
        "module": "builtins", "class_name": "function",
        "config": "sparse_categorical_crossentropy", "registered_name": "function"}
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert loaded.loss is tf.keras.losses.sparse_categorical_crossentropy


def test_load_model_errors(tmp_path):
    with pytest.raises(ValueError, match="File not found: filepath=.*nope.keras"):
        tf.keras.models.load_model(tmp_path / "nope.keras")
    (tmp_path / "m.h5").write_bytes(b"\x89HDF")
    with pytest.raises(ValueError, match="File format not supported"):
        tf.keras.models.load_model(tmp_path / "m.h5")
    with zipfile.ZipFile(tmp_path / "keras.keras", "w") as z:   # as Keras itself writes
        z.writestr("config.json", "{}")
        z.writestr("model.weights.h5", b"")
    with pytest.raises(ValueError, match="written by Keras .*HDF5"):
        tf.keras.models.load_model(tmp_path / "keras.keras")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        model.save(tmp_path / "dir")
    model.save(tmp_path / "m.keras")
    with pytest.raises(tf.errors.AlreadyExistsError):
        model.save(tmp_path / "m.keras", overwrite=False)


def test_load_weights_checks_and_skips(tmp_path):
    def make(units=2, opt="adam"):
        m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                                 tf.keras.layers.Dense(units)])
        m.compile(opt, "mse")
        return m
    model = make()
    model.fit(XA, np.ones((8, 2), np.float32), verbose=0)
    path = str(tmp_path / "w.weights.safetensors")
    model.save_weights(path)
    # from a .keras archive too
    model.save(tmp_path / "m.keras")
    other = make()
    other.load_weights(tmp_path / "m.keras")
    assert np.array_equal(other.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
    # another shape: skipped with a warning, the rest loads
    wrong = make(units=3)
    with pytest.warns(UserWarning) as record:
        wrong.load_weights(path, skip_mismatch=True)
    messages = [str(r.message) for r in record]
    assert "(4, 3), the file's is (4, 2)" in messages[0] and "skipped" in messages[0]
    assert "Skipping variable loading for optimizer 'adam'" in messages[1]
    assert np.array_equal(wrong.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
    # fewer layers than the file: the extra weights are named
    short = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
    before = short.get_weights()
    with pytest.raises(ValueError, match="layers/dense_1/vars/0 .*model has no such weight"):
        short.load_weights(path)
    assert all(np.array_equal(a, b) for a, b in zip(short.get_weights(), before, strict=True))
    # another optimizer: its state is skipped with Keras's warning, the weights load
    sgd = make(opt="sgd")
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer 'sgd'"):
        sgd.load_weights(path)
    # an uncompiled model ignores optimizer state
    plain = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                                 tf.keras.layers.Dense(2)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain.load_weights(path)
    unbuilt = tf.keras.Sequential([tf.keras.layers.Dense(4)])
    with pytest.raises(ValueError, match="not yet been built"):
        unbuilt.save_weights(path)
    with pytest.raises(ValueError, match="not yet been built"):
        unbuilt.load_weights(path)
    with pytest.raises(ValueError, match="texflow cannot read HDF5 weights"):
        plain.load_weights(tmp_path / "w.weights.h5")


def test_lambda_layers_train_and_save_a_registered_function(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)),
                                 tf.keras.layers.Lambda(doubled, arguments={"by": 3.0}),
                                 tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
    model.fit(XA, YA, epochs=2, verbose=0)
    assert np.array_equal(model.layers[0](XA).numpy(), XA * 3)
    model.save(tmp_path / "m.keras")
    again = tf.keras.models.load_model(tmp_path / "m.keras")
    assert again.layers[0].function is doubled and again.layers[0].arguments == {"by": 3.0}
    assert np.allclose(again.predict(XA, verbose=0), model.predict(XA, verbose=0))
    anonymous = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Lambda(lambda x: -x)])
    assert np.array_equal(anonymous.predict(XA, verbose=0), -XA)
    anonymous.save(tmp_path / "anonymous.keras")
    with pytest.raises(ValueError, match="Lambda layer 'lambda.*' wraps a Python lambda"):
        tf.keras.models.load_model(tmp_path / "anonymous.keras")


def test_registration_api():
    assert tf.keras.saving.get_registered_name(Scale) == "saving_test>Scale"
    assert tf.keras.saving.get_custom_objects()["saving_test>Scale"] is Scale
    config = tf.keras.saving.serialize_keras_object(Scale(5.0, name="s"))
    assert config["registered_name"] == "saving_test>Scale"
    assert config["config"]["factor"] == 5.0
    again = tf.keras.saving.deserialize_keras_object(config)
    assert isinstance(again, Scale) and again.factor == 5.0

    class Unregistered(Scale):
        pass

    tf.keras.saving.get_custom_objects()["Unregistered"] = Unregistered
    try:
        config = {"module": "x", "class_name": "Unregistered", "config": {"factor": 1.0},
                  "registered_name": None}
        assert isinstance(tf.keras.saving.deserialize_keras_object(config), Unregistered)
    finally:
        del tf.keras.saving.get_custom_objects()["Unregistered"]


FIXTURES = json.loads((Path(__file__).parent.parent / "data" / "keras" /
                       "saving.json").read_text())


@pytest.mark.parametrize("name", sorted(k for k in FIXTURES if not k.startswith("_")))
def test_files_have_the_layout_keras_writes(tmp_path, name):
    """The same model (same source) in texflow and in Keras 3.15: the weights' keys and
    shapes, optimizer slots included, and the archive's layout (fixture made by
    scripts/make_keras_saving_fixtures.py)."""
    from texflow.checkpoint import get_state

    expected = FIXTURES[name]
    scope = {"keras": tf.keras, "np": np}
    exec(expected["source"], scope)
    model = scope["model"]
    model.fit(scope["x"], scope["y"], epochs=1, batch_size=4, verbose=0)
    state = get_state(model)
    assert {k: list(v.shape) for k, v in state.items()} == expected["weights"]
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        config = json.loads(z.read("config.json"))
        files = z.namelist()
    assert files == [n.replace(".weights.h5", ".weights.safetensors")
                     for n in expected["files"]]
    assert sorted(config) == expected["config_keys"]
    assert sorted(config["compile_config"]) == expected["compile_config_keys"]


def test_the_safetensors_library_reads_weights_files(tmp_path):
    from safetensors.numpy import load_file

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                                 tf.keras.layers.Dense(2)])
    model.compile("adam", "mse")
    model.fit(XA, np.ones((8, 2), np.float32), verbose=0)
    model.save_weights(tmp_path / "m.weights.safetensors")
    stored = load_file(tmp_path / "m.weights.safetensors")
    keys = [f"layers/{layer}/vars/{i}" for layer in ("dense", "dense_1") for i in (0, 1)]
    weights = dict(zip(keys, model.get_weights()))  # Keras 3 keys layers by class in a model
    for key, value in weights.items():
        np.testing.assert_array_equal(stored[key], value)
    optimizer = {k: v for k, v in stored.items() if k.startswith("optimizer/")}
    assert len(optimizer) == len(model.optimizer.variables) and \
        len(stored) == len(weights) + len(optimizer), sorted(stored)
