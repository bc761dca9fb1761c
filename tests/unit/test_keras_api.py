"""Optimizer state and hooks, initializers, losses and metrics API details, train/test/
predict on batches, on the numpy backend."""

import numpy as np
import pytest

import texflow as tf


def test_optimizer_state_round_trips_and_paths_are_stable():
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    x, y = np.ones((4, 3)), np.zeros((4, 2))
    model.fit(x, y, epochs=2, verbose=0)
    opt = model.optimizer
    assert [v.path for v in opt.variables] == [
        "adam/iteration", "adam/learning_rate", "adam/sequential_dense_kernel_momentum",
        "adam/sequential_dense_kernel_velocity", "adam/sequential_dense_bias_momentum",
        "adam/sequential_dense_bias_velocity"]
    assert int(opt.iterations.numpy()) == 2
    state, weights = opt.get_state(), model.get_weights()
    clone = tf.keras.models.clone_model(model)
    clone.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    clone.optimizer.build(clone.trainable_variables)
    renamed = {k.replace(model.name, clone.name): v for k, v in state.items()}
    clone.optimizer.set_state(renamed)
    clone.set_weights(weights)
    model.fit(x, y, epochs=1, verbose=0)
    clone.fit(x, y, epochs=1, verbose=0)
    for a, b in zip(model.get_weights(), clone.get_weights()):
        assert np.allclose(a, b, atol=1e-7)
    with pytest.raises(ValueError, match="has no variables"):
        opt.set_state({"adam/nope": 1.0})


def test_gradient_aggregator_hook_sees_every_step():
    seen = []

    def aggregate(pairs):
        seen.append(len(pairs))
        return [(g * 0.0, v) for g, v in pairs]  # a no-op update proves it is used

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    model.optimizer.gradient_aggregator = aggregate
    before = model.get_weights()
    model.fit(np.ones((8, 3)), np.zeros((8, 2)), batch_size=4, verbose=0)
    assert seen == [2, 2]
    assert all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))


def test_learning_rate_is_settable_and_optimizer_errors():
    opt = tf.keras.optimizers.SGD(0.1)
    opt.learning_rate = 0.5
    assert float(opt.learning_rate) == 0.5 and opt.get_config()["learning_rate"] == 0.5
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue`"):
        tf.keras.optimizers.Adam(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="not recognized"):
        tf.keras.optimizers.Adam(betaa=1)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, tf.Variable([1.0]))])
    again = tf.keras.optimizers.Adam.from_config(tf.keras.optimizers.Adam(0.3).get_config())
    assert again.get_config() == tf.keras.optimizers.Adam(0.3).get_config()


def test_initializers_are_seeded_and_scaled():
    glorot = tf.keras.initializers.GlorotUniform(seed=3)
    # tensors, as Keras 3's (EagerTensors under TensorFlow); float16 has no storage here
    a, b = glorot((200, 300)).numpy(), glorot((200, 300)).numpy()
    assert np.array_equal(a, b) and np.abs(a).max() <= np.sqrt(6 / 500)
    with pytest.raises(tf.errors.DTypeError, match="float16"):
        glorot((2, 2), dtype=tf.float16)
    assert abs(a.std() - np.sqrt(2 / 500)) < 0.002
    he = tf.keras.initializers.HeNormal(seed=1)((400, 500)).numpy()
    assert abs(he.std() - np.sqrt(2 / 400)) < 0.003 and np.abs(he).max() <= 2 * np.sqrt(2 / 400) \
        / 0.87962566103423978 + 1e-6
    tf.keras.utils.set_random_seed(5)
    first = tf.keras.layers.Dense(3)
    first.build((None, 4))
    tf.keras.utils.set_random_seed(5)
    second = tf.keras.layers.Dense(3)
    second.build((None, 4))
    assert np.array_equal(first.kernel.numpy(), second.kernel.numpy())
    assert tf.keras.initializers.get("zeros")((2,)).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="initializer identifier: 'glorot'"):
        tf.keras.initializers.get("glorot")


def test_loss_reductions_and_names():
    assert tf.keras.losses.Reduction.NONE == "none"
    loss = tf.keras.losses.MeanSquaredError(reduction=tf.keras.losses.Reduction.SUM)
    assert float(loss([[1.0], [2.0]], [[0.0], [0.0]])) == 5.0
    none = tf.keras.losses.MeanSquaredError(reduction=None)
    assert none([[1.0], [2.0]], [[0.0], [0.0]]).tolist() == [1.0, 4.0]
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        tf.keras.losses.MeanSquaredError(reduction="avg")
    assert tf.keras.losses.get("sparse_categorical_crossentropy") is \
        tf.keras.losses.sparse_categorical_crossentropy


def test_accuracy_resolves_from_shapes():
    cases = [("binary_crossentropy", np.ones((4, 1)), 1, "BinaryAccuracy"),
             ("sparse_categorical_crossentropy", np.zeros(4), 3, "SparseCategoricalAccuracy"),
             ("categorical_crossentropy", np.eye(3)[[0, 1, 2, 0]], 3, "CategoricalAccuracy")]
    for loss, y, units, kind in cases:
        model = tf.keras.Sequential([tf.keras.Input((2,)),
                                     tf.keras.layers.Dense(units, activation="sigmoid")])
        model.compile(optimizer="sgd", loss=loss, metrics=["acc"])
        model.fit(np.ones((4, 2)), y, verbose=0)
        assert type(model.metrics[1]).__name__ == kind and model.metrics_names == ["loss", "acc"]


def test_batch_methods_and_evaluate_results():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x, y = np.ones((4, 2)), np.ones((4, 1))
    loss, mae = model.train_on_batch(x, y)
    assert isinstance(loss, float) and isinstance(mae, float)
    assert set(model.test_on_batch(x, y, return_dict=True)) == {"loss", "mae"}
    assert model.predict_on_batch(x).shape == (4, 1)
    assert len(model.evaluate(x, y, verbose=0)) == 2
    only_loss = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    only_loss.compile(optimizer="sgd", loss="mse")
    assert isinstance(only_loss.evaluate(x, y, verbose=0), float)
    assert only_loss.predict(tf.constant(np.ones((3, 2), np.float32)), verbose=0).shape == (3, 1)


def test_compile_config_round_trips():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3)])
    model.compile(optimizer=tf.keras.optimizers.RMSprop(0.01), loss=tf.keras.losses.Huber(),
                  metrics=["mae", tf.keras.metrics.AUC(num_thresholds=7)])
    config = model.get_compile_config()
    other = tf.keras.models.clone_model(model)
    other.compile_from_config(config)
    assert other.get_compile_config() == config
    assert type(other.optimizer).__name__ == "RMSprop"


def test_compile_strings_resolve_as_keras():
    # Optimizer names give Keras's classes with Keras's default learning rates; loss names
    # give the functions whose values the loss classes compute.
    defaults = {"adam": ("Adam", 0.001), "sgd": ("SGD", 0.01), "rmsprop": ("RMSprop", 0.001),
                "adagrad": ("Adagrad", 0.001)}
    for name, (cls, lr) in defaults.items():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
        model.compile(optimizer=name, loss="mse")
        assert type(model.optimizer).__name__ == cls, (name, model.optimizer)
        assert np.isclose(float(model.optimizer.learning_rate), lr), (name, lr)
    y_true, y_prob = np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[0.3, 0.7], [0.6, 0.4]])
    classes = {"mse": tf.keras.losses.MeanSquaredError(),
               "mae": tf.keras.losses.MeanAbsoluteError(),
               "binary_crossentropy": tf.keras.losses.BinaryCrossentropy(),
               "categorical_crossentropy": tf.keras.losses.CategoricalCrossentropy()}
    for name, loss in classes.items():
        by_name = np.mean(np.asarray(tf.keras.losses.get(name)(y_true, y_prob)))
        assert np.isclose(by_name, float(loss(y_true, y_prob)), rtol=1e-6), name
    sparse = tf.keras.losses.get("sparse_categorical_crossentropy")
    assert np.allclose(np.asarray(sparse(np.array([1, 0]), y_prob)), -np.log([0.7, 0.6]),
                       rtol=1e-5)
    assert tf.keras.losses.sparse_categorical_crossentropy is sparse


def test_layers_take_initializers_by_name_and_object():
    layer = tf.keras.layers.Dense(300, kernel_initializer="he_normal", bias_initializer="ones")
    layer.build((None, 200))
    kernel = layer.kernel.numpy()
    assert abs(kernel.std() - np.sqrt(2 / 200)) < 0.003, kernel.std()  # truncated, rescaled
    assert layer.bias.numpy().tolist() == [1.0] * 300
    normal = tf.keras.layers.Dense(
        200, kernel_initializer=tf.keras.initializers.RandomNormal(0.5, 0.01, seed=4),
        bias_initializer=tf.keras.initializers.Constant(0.25))
    normal.build((None, 100))
    assert abs(normal.kernel.numpy().mean() - 0.5) < 0.001
    assert abs(normal.kernel.numpy().std() - 0.01) < 0.001
    assert set(normal.bias.numpy().tolist()) == {0.25}
    seeded = tf.keras.initializers.RandomNormal(seed=9)
    assert np.array_equal(seeded((3, 3)), seeded((3, 3)))
    for name, cls in (("zeros", "Zeros"), ("ones", "Ones"), ("random_normal", "RandomNormal"),
                      ("glorot_uniform", "GlorotUniform"), ("constant", "Constant")):
        assert type(tf.keras.initializers.get(name)).__name__ == cls, name
    assert type(tf.keras.layers.Dense(2).kernel_initializer).__name__ == "GlorotUniform"
