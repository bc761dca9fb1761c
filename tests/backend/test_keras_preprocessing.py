"""Keras's preprocessing, augmentation, noise, cropping and padding layers on every
backend: against outputs recorded from real Keras 3.15 where the output is determined
(tests/data/keras/preprocessing.json, scripts/make_keras_preprocessing_fixtures.py), and by
properties where it is random (texflow's random numbers are its own): inactive outside
training and in predict, each image transformed by one draw within the layer's range, fresh
draws at every call of a tf.function, and the same draws for the same seed."""

import numpy as np

import keras_cases
import texflow as tf
from harness import each_backend, raises
from keras_cases import close

CASES = keras_cases.cases("cases", "preprocessing.json")
L = tf.keras.layers


def _image(shape, seed=0):
    return np.random.default_rng(seed).uniform(0, 255, shape).astype(np.float32)


@each_backend(case=CASES)
def test_preprocessing_matches_keras(case):
    config = {k: tuple(v) if isinstance(v, list) else v for k, v in case["config"].items()}
    layer = getattr(L, case["layer"])(**config)
    what = f"{case['layer']}({config}) training={case['training']}"
    if "adapt" in case:
        data, batch = np.asarray(case["adapt"]["data"], np.float32), case["adapt"]["batch"]
        layer.adapt(data if batch is None else
                    tf.data.Dataset.from_tensor_slices(data).batch(batch))
        what += f" adapted (batch {batch})"
    x = np.asarray(case["input"], np.float32)
    out = layer(x) if case["training"] is None else layer(x, training=case["training"])
    assert out.dtype == case["dtype"], what
    close(out.numpy(), case["output"], rtol=1e-4, atol=2e-3, what=what)
    close([float(v) for v in layer.losses], case.get("losses", []), what=what + " losses")
    assert sorted(layer.get_config()) == case["config_keys"], what
    again = type(layer).from_config(layer.get_config())
    assert again.get_config() == layer.get_config(), what


@each_backend
def test_random_layers_inactive_outside_training_and_in_predict():
    x = _image((4, 6, 8, 3))
    layers = [L.RandomFlip(seed=1), L.RandomRotation(0.3, seed=1), L.RandomZoom(0.3, seed=1),
              L.RandomTranslation(0.2, 0.2, seed=1), L.RandomContrast(0.5, seed=1),
              L.RandomBrightness(0.5, seed=1), L.RandomCrop(4, 5, seed=1),
              L.RandomHeight((0.5, 0.6)), L.RandomWidth((-0.5, -0.4)),
              L.GaussianNoise(0.5, seed=1), L.GaussianDropout(0.5, seed=1),
              L.AlphaDropout(0.5, seed=1), L.SpatialDropout2D(0.5, seed=1)]
    for layer in layers:
        name = type(layer).__name__
        assert np.array_equal(layer(x, training=False).numpy(), x), name
        changed = layer(x, training=True).numpy()
        assert changed.shape != x.shape or not np.array_equal(changed, x), name
    model = tf.keras.Sequential([tf.keras.Input((6, 8, 3))] + layers[:7])
    assert np.array_equal(model.predict(x, verbose=0), x)
    model.compile(loss="mse")
    assert model.evaluate(x, x, verbose=0) == 0.0


@each_backend
def test_random_flip_flips_each_image_or_not():
    x = _image((16, 3, 4, 2))
    for mode, axes in (("horizontal", (1,)), ("vertical", (0,)),
                       ("horizontal_and_vertical", (0, 1))):
        out = L.RandomFlip(mode, seed=3)(x, training=True).numpy()
        flipped = [np.array_equal(o, np.flip(i, axes)) for o, i in zip(out, x)]
        kept = [np.array_equal(o, i) for o, i in zip(out, x)]
        assert all(f or k for f, k in zip(flipped, kept)), mode
        assert 0 < sum(flipped) < len(x), (mode, sum(flipped))  # 16 fair coins
    with raises(ValueError, match="unknown mode"):
        L.RandomFlip("diagonal")


@each_backend
def test_random_crop_is_a_window_of_the_input():
    x = _image((3, 7, 9, 2))
    for seed in range(4):
        out = L.RandomCrop(4, 5, seed=seed)(x, training=True).numpy()
        hits = [(t, l) for t in range(4) for l in range(5)
                if np.array_equal(out, x[:, t:t + 4, l:l + 5])]
        assert len(hits) == 1, seed
    assert L.RandomCrop(4, 5).compute_output_shape((None, 7, 9, 2)) == (None, 4, 5, 2)


@each_backend
def test_color_layers_apply_one_factor_per_image_in_range():
    x = _image((8, 5, 6, 3))
    out = L.RandomBrightness((-0.2, 0.1), seed=1)(x, training=True).numpy()
    unclipped = (out > 0) & (out < 255)
    delta = np.where(unclipped, out - x, np.nan)
    for d in delta:
        d = d[~np.isnan(d)]
        assert np.ptp(d) < 1e-3 and -0.2 * 255 - 1e-3 <= d[0] <= 0.1 * 255 + 1e-3, d[:3]
    assert out.min() >= 0 and out.max() <= 255
    x = _image((8, 5, 6, 3)) / 4 + 100  # away from the clipping bounds
    out = L.RandomContrast((0.3, 0.4), seed=2)(x, training=True).numpy()
    mean = x.mean(axis=(1, 2), keepdims=True)
    factor = (out - mean) / (x - mean)
    for f in factor.reshape(8, -1):
        assert np.ptp(f) < 1e-2 and 0.7 - 1e-3 <= f[0] <= 1.4 + 1e-3, f[:3]
    assert len({round(float(f), 3) for f in factor[:, 0, 0, 0]}) > 1


@each_backend
def test_affine_layers_draw_within_range():
    x = np.zeros((6, 9, 9, 1), np.float32)
    x[:, 4, 4] = 1.0  # a dot at the centre stays put under rotation and zoom
    for layer in (L.RandomRotation(0.5, seed=1, interpolation="nearest"),
                  L.RandomZoom(0.5, seed=1, interpolation="nearest", fill_mode="constant")):
        out = layer(x, training=True).numpy()
        assert (out[:, 4, 4, 0] == 1.0).all(), type(layer).__name__
    out = L.RandomTranslation((0.0, 0.25), (-0.25, 0.0), seed=4, fill_mode="constant",
                              interpolation="nearest")(x, training=True).numpy()
    for image in out[..., 0]:  # the dot moved down by 0..2.25 rows, left by 0..2.25
        rows, cols = np.nonzero(image)
        assert len(rows) == 1 and 4 <= rows[0] <= 6 and 2 <= cols[0] <= 4, image


@each_backend
def test_random_layers_draw_anew_in_tf_function_and_repeat_with_a_seed():
    x = _image((2, 6, 6, 1))
    layers = [L.RandomRotation(0.4, seed=5), L.RandomZoom(0.4, seed=5),
              L.RandomTranslation(0.3, 0.3, seed=5), L.RandomBrightness(0.4, seed=5),
              L.RandomContrast(0.5, seed=5), L.RandomFlip(seed=7), L.RandomCrop(4, 4, seed=5)]
    for layer in layers:
        name = type(layer).__name__
        step = tf.function(lambda v, layer=layer: layer(v, training=True))
        a, b = step(x).numpy(), step(x).numpy()
        if name == "RandomFlip":  # a fair coin per image: some of 8 calls differ
            b = [step(x).numpy() for _ in range(8)]
            assert any(not np.array_equal(a, c) for c in b), name
        else:
            assert not np.array_equal(a, b), name
        again = type(layer).from_config(layer.get_config())
        twin = tf.function(lambda v, layer=again: layer(v, training=True))
        assert np.allclose(twin(x).numpy(), a, atol=1e-3), name
    # eager and traced give the same transformation for a fixed parameter
    layer = L.RandomRotation((0.1, 0.1), fill_mode="wrap")
    close(tf.function(lambda v: layer(v, training=True))(x).numpy(),
          layer(x, training=True).numpy(), what="traced rotation")


@each_backend
def test_augmentation_model_fits_and_predicts():
    x = _image((8, 8, 8, 3), seed=4) / 255
    y = np.arange(8) % 2
    model = tf.keras.Sequential([
        tf.keras.Input((8, 8, 3)), L.RandomFlip("horizontal", seed=1),
        L.RandomRotation(0.1, seed=1), L.RandomZoom(0.1, seed=1),
        L.RandomTranslation(0.1, 0.1, seed=1), L.RandomContrast(0.1, seed=1),
        L.RandomBrightness(0.1, value_range=(0, 1), seed=1), L.Resizing(6, 6),
        L.Rescaling(2.0, offset=-1.0), L.Flatten(), L.Dense(2)])
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    inference = tf.keras.Sequential(model.layers[6:])
    close(model.predict(x, verbose=0), inference.predict(x, verbose=0), what="predict")


@each_backend
def test_preprocessing_argument_errors():
    with raises(ValueError, match="factor"):
        L.RandomRotation(1.5)
    with raises(ValueError, match="height_factor"):
        L.RandomZoom(-1.0)
    with raises(NotImplementedError, match="fill_mode"):
        L.RandomTranslation(0.1, 0.1, fill_mode="mirror")
    with raises(NotImplementedError, match="interpolation"):
        L.RandomRotation(0.1, interpolation="bicubic")
    with raises(ValueError, match="pad_to_aspect_ratio"):
        L.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with raises(ValueError, match="value_range"):
        L.RandomBrightness(0.1, value_range=3)
    with raises(ValueError, match="rank 3 or 4"):
        L.RandomRotation(0.1)(np.zeros((2, 3), np.float32), training=True)
    layer = L.RandomHeight(0.2)
    with raises(NotImplementedError, match="run_eagerly"):
        tf.function(lambda v: layer(v, training=True))(np.zeros((1, 4, 4, 1), np.float32))


@each_backend
def test_noise_layers_draw_keras_distributions():
    x = np.full((200, 50), 2.0, np.float32)
    out = L.GaussianNoise(0.5, seed=1)(x, training=True).numpy() - 2.0
    assert abs(out.mean()) < 0.02 and abs(out.std() - 0.5) < 0.02, (out.mean(), out.std())
    out = L.GaussianDropout(0.2, seed=1)(x, training=True).numpy() / 2.0
    assert abs(out.mean() - 1) < 0.01 and abs(out.std() - 0.5) < 0.02, (out.mean(), out.std())
    rate, alpha_p = 0.3, -1.6732632423543772 * 1.0507009873554805
    a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * rate
    out = L.AlphaDropout(rate, seed=1)(x, training=True).numpy()
    kept = np.isclose(out, a * 2.0 + b, atol=1e-5)
    dropped = np.isclose(out, a * alpha_p + b, atol=1e-5)
    assert (kept | dropped).all() and abs(dropped.mean() - rate) < 0.02, dropped.mean()
    out = L.AlphaDropout(rate, noise_shape=(None, 1), seed=1)(x, training=True).numpy()
    assert (out == out[:, :1]).all()
    images = np.ones((64, 3, 3, 4), np.float32)
    for layer, maps in ((L.SpatialDropout2D(0.5, seed=2), lambda o: o[:, :, :, :]),
                        (L.SpatialDropout2D(0.5, "channels_first", seed=2),
                         lambda o: o.transpose(0, 2, 3, 1))):
        out = maps(layer(images, training=True).numpy())
        assert set(np.unique(out)) == {0.0, 2.0}
        assert (out == out[:, :1, :1, :]).all()  # one draw per example and channel
        assert 0.35 < (out[:, 0, 0] == 0).mean() < 0.65
    out = L.SpatialDropout1D(0.5, seed=2)(np.ones((16, 5, 3), np.float32), training=True)
    assert (out.numpy() == out.numpy()[:, :1]).all()
    out = L.SpatialDropout3D(0.5, seed=2)(np.ones((8, 2, 2, 2, 3), np.float32), training=True)
    assert (out.numpy() == out.numpy()[:, :1, :1, :1]).all()
    step = tf.function(lambda v: L.GaussianNoise(1.0, seed=3)(v, training=True))
    assert not np.array_equal(step(x).numpy(), step(x).numpy())


@each_backend
def test_normalization_and_prelu_in_models():
    rng = np.random.default_rng(3)
    data = rng.normal(5.0, 3.0, (64, 4)).astype(np.float32)
    norm = L.Normalization()
    norm.adapt(tf.data.Dataset.from_tensor_slices(data).batch(10))
    close(norm.adapt_mean.numpy(), data.mean(0), rtol=1e-5, what="streamed mean")
    close(norm.adapt_variance.numpy(), data.var(0), rtol=1e-4, what="streamed variance")
    step = tf.function(lambda v: norm(v))
    close(step(data).numpy(), (data - data.mean(0)) / data.std(0), rtol=1e-3, atol=1e-4,
          what="traced")
    norm.adapt(data * 2)  # the trace reads the weights at every call
    close(step(data).numpy(), (data - 2 * data.mean(0)) / (2 * data.std(0)), rtol=1e-3,
          atol=1e-4, what="traced after adapt")
    prelu = L.PReLU(shared_axes=[1])
    model = tf.keras.Sequential([tf.keras.Input((4,)), norm, L.Dense(3), prelu, L.Dense(1)])
    assert [w.name for w in norm.weights] == ["mean", "variance", "count"]
    assert prelu.alpha.shape == (1,) and len(model.trainable_weights) == 5
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    before = prelu.alpha.numpy().copy()
    model.fit(data, -np.abs(data[:, :1]), epochs=3, batch_size=16, verbose=0)
    assert not np.array_equal(prelu.alpha.numpy(), before)
    assert not norm.trainable_weights and len(norm.non_trainable_weights) == 3
    with raises(ValueError, match="must be set"):
        L.Normalization(mean=1.0)
    with raises(ValueError, match="smaller than the corresponding"):
        L.Cropping1D(3)(np.zeros((1, 5, 2), np.float32))
    with raises(ValueError, match="cannot be negative"):
        L.Cropping2D(-1)


@each_backend
def test_discretization_adapt_and_category_count_weights():
    layer = L.Discretization(num_bins=4)
    layer.adapt(np.arange(100, dtype=np.float32))
    assert layer.bin_boundaries == [24.0, 49.0, 74.0]  # Keras's summary: 23.99998, ...
    assert layer(np.array([[23.0, 24.0, 99.0]], np.float32)).numpy().tolist() == [[0, 1, 3]]
    encode = L.CategoryEncoding(3, output_mode="count")
    out = encode(np.array([[0, 2, 2]]), count_weights=np.array([[0.5, 1.0, 2.0]], np.float32))
    assert out.numpy().tolist() == [[0.5, 0.0, 3.0]]  # Keras 3.15's values
    step = tf.function(lambda v: L.Discretization([0.5], output_mode="one_hot")(v))
    assert step(np.array([0.0, 1.0], np.float32)).numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    with raises(ValueError, match="count_weights"):
        L.CategoryEncoding(3)(np.array([[0]]), count_weights=np.array([[1.0]]))
    with raises(ValueError, match="bin_boundaries"):
        L.Discretization(bin_boundaries=[0.0]).adapt(np.zeros(3, np.float32))
