"""Bad input to Keras models raises a clear error naming the thing, before any weight
changes, on every backend."""

import re

import numpy as np

import texflow as tf
from harness import each_backend, raises


def _classifier(compile_it=True):
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, "relu"),
                                 tf.keras.layers.Dense(3, activation="softmax")])
    if compile_it:
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
    return model


def _unchanged(model, before):
    return all(np.array_equal(a, b) for a, b in zip(model.get_weights(), before))


@each_backend
def test_labels_out_of_range_raise_before_training():
    model = _classifier()
    before = model.get_weights()
    x = np.ones((10, 4), np.float32)
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 3])
    with raises(tf.errors.InvalidArgumentError, match=r"label value of 3 .*\[0, 3\)"):
        model.fit(x, y, batch_size=2, verbose=0)
    data = tf.data.Dataset.from_tensor_slices((x, y[::-1].copy())).batch(4)
    with raises(tf.errors.InvalidArgumentError, match=r"label value of 3"):
        model.fit(data, verbose=0)
    with raises(tf.errors.InvalidArgumentError, match=r"label value of -1"):
        model.evaluate(x, -np.ones(10), verbose=0)
    assert _unchanged(model, before)


@each_backend
def test_a_replay_checks_the_labels_once():
    # the Keras loss and the op under it check the same labels: a replay runs one check
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    step = tf.function(lambda y: loss(y, tf.zeros([2, 3])))
    y = tf.constant([0, 2])
    steps = step.get_concrete_function(y)._steps
    assert [getattr(s[1], "key", None) for s in steps if getattr(s[1], "check", False)] == \
        [("class labels", 3)]
    assert np.allclose(step(y).numpy(), np.log(3.0))
    with raises(tf.errors.InvalidArgumentError, match=r"label value of 3 .*\[0, 3\)"):
        step(tf.constant([0, 3]))


@each_backend
def test_input_shape_mismatch_names_the_model_and_shapes():
    model = _classifier()
    before = model.get_weights()
    with raises(ValueError, match=r'layer "sequential.*" is incompatible.*expected '
                                  r'shape=\(None, 4\), found shape=\(10, 5\)'):
        model.fit(np.ones((10, 5)), np.zeros(10), verbose=0)
    cnn = tf.keras.Sequential([tf.keras.layers.Conv2D(2, 3, input_shape=(8, 8, 1))])
    with raises(ValueError, match=r"expected ndim=4, found ndim=3. Full shape received: "
                                  r"\(2, 8, 8\)"):
        cnn(np.zeros((2, 8, 8), np.float32))
    dense = tf.keras.layers.Dense(2)
    dense(np.ones((1, 3), np.float32))
    with raises(ValueError, match=r'layer "dense.*expected axis -1 of input shape to have '
                                  r'value 3, but received input with shape \(1, 4\)'):
        dense(np.ones((1, 4), np.float32))
    assert _unchanged(model, before)


@each_backend
def test_unknown_names_in_compile_raise():
    model = _classifier(compile_it=False)
    with raises(ValueError, match="optimizer identifier: 'adamm'"):
        model.compile(optimizer="adamm", loss="mse")
    with raises(ValueError, match="loss identifier: 'msee'"):
        model.compile(optimizer="adam", loss="msee")
    with raises(ValueError, match="metric identifier: 'acuracy'"):
        model.compile(optimizer="adam", loss="mse", metrics=["acuracy"])
    assert not model.compiled


@each_backend
def test_fit_before_compile_raises():
    model = _classifier(compile_it=False)
    for call in (lambda: model.fit(np.ones((2, 4)), np.zeros(2), verbose=0),
                 lambda: model.evaluate(np.ones((2, 4)), np.zeros(2), verbose=0),
                 lambda: model.train_on_batch(np.ones((2, 4)), np.zeros(2))):
        with raises(ValueError, match=r"must call `compile\(\)` before using the model"):
            call()


@each_backend
def test_set_weights_checks_every_shape_first():
    model = _classifier()
    before = model.get_weights()
    bad = [w + 1 for w in before]
    bad[2] = np.zeros((8, 4), np.float32)
    with raises(ValueError, match=r"weight sequential.*/dense_\d+/kernel has shape \(8, 3\), "
                                  r"but the value given has shape \(8, 4\)"):
        model.set_weights(bad)
    with raises(ValueError, match=r"weight list of length 3, but the layer was expecting 4"):
        model.set_weights(before[:3])
    assert _unchanged(model, before)


@each_backend
def test_dataset_of_the_wrong_structure_raises():
    model = _classifier()
    before = model.get_weights()
    x, y = np.ones((6, 4), np.float32), np.zeros(6, np.int32)
    four = tf.data.Dataset.from_tensor_slices((x, y, y, y)).batch(3)
    with raises(ValueError, match=r"format `x`, `\(x,\)`, `\(x, y\)`, or "
                                  r"`\(x, y, sample_weight\)`, found a tuple of 4"):
        model.fit(four, verbose=0)
    only_x = tf.data.Dataset.from_tensor_slices(x).batch(3)
    with raises(ValueError, match="needs targets"):
        model.fit(only_x, verbose=0)
    with raises(ValueError, match="Data cardinality is ambiguous.*'x' sizes: 6.*'y' sizes: 5"):
        model.fit(x, y[:5], verbose=0)
    assert _unchanged(model, before)


@each_backend
def test_the_wrong_cross_entropy_for_the_labels_raises_keras_value_errors():
    # Keras 3.15's ValueErrors (it prints the traced shapes, (None, 3); an eager call
    # prints these), raised before any weight changes.
    x = np.ones((8, 4), np.float32)
    one_hot, classes = np.eye(3)[np.arange(8) % 3], np.arange(8) % 3
    cases = [("sparse_categorical_crossentropy", one_hot,
              "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
              "target.shape=(8, 3), output.shape=(8, 3)"),
             ("categorical_crossentropy", classes,
              "Arguments `target` and `output` must have the same rank (ndim). Received: "
              "target.shape=(8,), output.shape=(8, 3)"),
             ("binary_crossentropy", one_hot[:, :2],
              "Arguments `target` and `output` must have the same shape. Received: "
              "target.shape=(8, 2), output.shape=(8, 3)")]
    for loss, y, message in cases:
        model = _classifier(compile_it=False)
        model.compile(optimizer="adam", loss=loss)
        before = model.get_weights()
        with raises(ValueError, match="^" + re.escape(message) + "$"):
            model.fit(x, y, batch_size=8, verbose=0)
        assert _unchanged(model, before)
    with raises(ValueError, match=r"same shape up until the last dimension: target.shape"
                                  r"=\(2,\), output.shape=\(3, 3\)"):
        tf.keras.losses.sparse_categorical_crossentropy(np.zeros(2), np.ones((3, 3)) / 3)
