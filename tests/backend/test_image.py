"""tf.image on every backend, beyond the TensorFlow-recorded snippets (tests/tfdiff/
snippets_image.py): resize against a float64 reference of TensorFlow 2's sampling rule on
random shapes (one wider than a texture), tf.function, and the seeded random ops."""

import numpy as np

import texflow as tf
from harness import each_backend


def _source(n_in, n_out, i, method):
    """Where output `i` samples, by TensorFlow 2's half-pixel-centre rule: (i + 0.5) * scale
    in float32, as TensorFlow's kernels compute it (the place of a far pixel rounds)."""
    f32 = np.float32
    centre = (f32(i) + f32(0.5)) * (f32(n_in) / f32(n_out))
    if method == "nearest":
        return [(min(int(np.floor(centre)), n_in - 1), 1.0)]
    where = centre - f32(0.5)
    low = np.floor(where)
    lerp = float(where - low)
    return [(int(max(low, 0)), 1.0 - lerp), (int(min(np.ceil(where), n_in - 1)), lerp)]


def reference_resize(images, height, width, method):
    """A float64 [batch, height, width, channels] resize written pixel by pixel."""
    b, h, w, c = images.shape
    out = np.zeros((b, height, width, c))
    for y in range(height):
        for x in range(width):
            for sy, wy in _source(h, height, y, method):
                for sx, wx in _source(w, width, x, method):
                    out[:, y, x] += wy * wx * images[:, sy, sx]
    return out


@each_backend(method=["bilinear", "nearest"])
def test_resize_matches_reference(method):
    rng = np.random.default_rng(11)
    tol = 1e-6 if tf.get_backend() == "numpy" else 1e-5
    for shape, size in (((2, 6, 5, 3), (4, 9)), ((1, 1, 7, 2), (3, 2)), ((3, 8, 8, 1), (8, 3)),
                        ((1, 2, 5000, 1), (3, 4099))):
        images = rng.normal(size=shape).astype(np.float32)
        got = tf.image.resize(images, size, method).numpy()
        want = reference_resize(images.astype(np.float64), *size, method)
        assert got.shape == want.shape, (shape, size, got.shape)
        assert np.allclose(got, want, rtol=tol, atol=tol), (
            f"{method} {shape} -> {size}: largest difference "
            f"{np.abs(got - want).max():.3g}")


@each_backend
def test_image_functions_in_tf_function():
    rng = np.random.default_rng(3)
    images = tf.constant(rng.random((2, 6, 8, 3)).astype(np.float32))

    def pipeline(x):
        x = tf.image.resize(x, [9, 5])
        x = tf.image.flip_left_right(tf.image.rot90(x, 1))
        x = tf.image.resize_with_crop_or_pad(x, 4, 10)
        x = tf.image.adjust_contrast(tf.image.adjust_brightness(x, 0.1), 1.5)
        x = tf.image.adjust_saturation(tf.image.adjust_hue(x, 0.2), 1.3)
        return tf.image.per_image_standardization(tf.image.rgb_to_grayscale(x))

    eager = pipeline(images).numpy()
    traced = tf.function(pipeline)
    for _ in range(2):
        got = traced(images).numpy()
        assert got.shape == (2, 4, 10, 1)
        assert np.allclose(got, eager, rtol=1e-5, atol=1e-5), np.abs(got - eager).max()


def _flipped(out, images, axis):
    """Per image: True if flipped along `axis` (of the image), False if unchanged."""
    flips = []
    for o, x in zip(out, images):
        if np.array_equal(o, x):
            flips.append(False)
        else:
            assert np.array_equal(o, np.flip(x, axis)), "neither the image nor its flip"
            flips.append(True)
    return flips


@each_backend
def test_random_flips_are_seeded_and_per_image():
    images = np.arange(64 * 2 * 3, dtype=np.float32).reshape(64, 2, 3, 1)
    tf.random.set_seed(5)
    first = _flipped(tf.image.random_flip_left_right(images, seed=2).numpy(), images, 1)
    tf.random.set_seed(5)
    again = _flipped(tf.image.random_flip_left_right(images, seed=2).numpy(), images, 1)
    assert first == again, "the same seeds gave other flips"
    assert 8 < sum(first) < 56, f"{sum(first)} of 64 images flipped"
    down = _flipped(tf.image.random_flip_up_down(images, seed=4).numpy(), images, 0)
    assert 8 < sum(down) < 56, f"{sum(down)} of 64 images flipped"

    flip = tf.function(lambda x: tf.image.random_flip_left_right(x, seed=9))
    calls = [_flipped(flip(images).numpy(), images, 1) for _ in range(2)]
    assert calls[0] != calls[1], "a tf.function drew the same flips on every call"


@each_backend
def test_random_brightness_and_contrast_ranges():
    images = np.linspace(0, 1, 2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3)
    tf.random.set_seed(1)
    deltas = []
    for _ in range(6):
        shift = tf.image.random_brightness(images, 0.25).numpy() - images
        assert np.ptp(shift) < 1e-5 and abs(shift.flat[0]) <= 0.25
        deltas.append(float(shift.flat[0]))
    assert len(set(deltas)) == 6, deltas
    for _ in range(3):
        out = tf.image.random_contrast(images, 0.5, 0.8).numpy()
        centre = images.mean(axis=(1, 2), keepdims=True)
        factor = (out - centre)[0, 0, 0, 0] / (images - centre)[0, 0, 0, 0]
        assert 0.5 <= factor < 0.8 + 1e-5, factor
        assert np.allclose(out, (images - centre) * factor + centre, atol=1e-5)


@each_backend
def test_random_crop_in_tf_function_draws_on_the_device():
    images = np.arange(6 * 8, dtype=np.float32).reshape(6, 8, 1)
    crop = tf.function(lambda x: tf.image.random_crop(x, [2, 3, 1], seed=7))
    corners = set()
    for _ in range(6):
        out = crop(images).numpy()
        top, left = divmod(int(out[0, 0, 0]), 8)
        assert top <= 4 and left <= 5, (top, left)
        assert np.array_equal(out, images[top:top + 2, left:left + 3]), out[..., 0]
        corners.add((top, left))
    assert len(corners) > 1, "a tf.function cropped at the same place on every call"


@each_backend
def test_crop_and_resize_of_boxes_computed_in_tf_function():
    images = np.arange(2 * 6 * 7 * 2, dtype=np.float32).reshape(2, 6, 7, 2)
    raw = np.array([[0.1, 0.2, 0.9, 0.7], [-0.2, 0.0, 0.5, 1.1]], np.float32)

    def crops(x, boxes):
        # boxes computed on the device, as a detector's are
        return tf.image.crop_and_resize(x, boxes * 1.0 + 0.0, [1, 0], [3, 4])

    eager = tf.image.crop_and_resize(images, raw, [1, 0], [3, 4]).numpy()
    got = tf.function(crops)(images, raw).numpy()
    assert np.allclose(got, eager, rtol=1e-5, atol=1e-4), np.abs(got - eager).max()
    # the second box reaches above and right of the image: its first row and last column
    # are the extrapolation value
    assert np.all(got[1, 0] == 0.0) and np.all(got[1, :, 3] == 0.0)
    assert np.all(got[1, 1:, :3] != 0.0)


@each_backend
def test_draw_bounding_boxes_in_tf_function():
    images = np.zeros((2, 6, 7, 3), np.float32)
    boxes = np.array([[[0.1, 0.2, 0.9, 0.8]], [[0.5, -0.2, 1.3, 0.5]]], np.float32)
    colors = [[1.0, 0.5, 0.25, 1.0]]
    eager = tf.image.draw_bounding_boxes(images, boxes, colors).numpy()
    # boxes computed on the device
    draw = tf.function(lambda x, b: tf.image.draw_bounding_boxes(x, b * 1.0, colors))
    assert np.array_equal(draw(images, boxes).numpy(), eager)
    # rows 0..4 and columns 1..4 (trunc(coordinate * (size - 1))), the inside untouched
    first = eager[0, :, :, 0]
    assert first[[0, 4], 1:5].tolist() == [[1.0] * 4] * 2
    assert first[1:4, [1, 4]].tolist() == [[1.0, 1.0]] * 3 and not first[1:4, 2:4].any()
    # the second box's bottom (row 6) and left (column -1) sides lie outside: not drawn
    second = eager[1, :, :, 0]
    assert second[2, :4].tolist() == [1.0] * 4 and second[3:, 3].tolist() == [1.0] * 3
    assert second.sum() == 7


@each_backend
def test_sample_distorted_bounding_box_draws_at_every_call():
    sample = tf.function(lambda: tf.image.sample_distorted_bounding_box(
        [40, 30, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=3).size)
    sizes = {tuple(sample().numpy().tolist()) for _ in range(4)}
    assert len(sizes) > 1, sizes
    assert all(s[2] == -1 and 0 < s[0] <= 40 and 0 < s[1] <= 30 for s in sizes), sizes


@each_backend
def test_fixed_shape_nms_runs_at_every_tf_function_call():
    rng = np.random.default_rng(1)
    corners = rng.random([2, 7, 1, 2]).astype(np.float32)
    boxes = np.concatenate([corners, corners + 0.3], -1)
    combined = tf.function(lambda b, s: tf.image.combined_non_max_suppression(b, s, 2, 5))
    padded = tf.function(lambda b, s: tf.image.non_max_suppression_padded(
        b[:, :, 0], s[..., 0], 4, pad_to_max_output_size=True))
    for _ in range(2):  # other scores at each call: each call's own selection
        scores = rng.random([2, 7, 3]).astype(np.float32)
        want = tf.image.combined_non_max_suppression(boxes, scores, 2, 5)
        got = combined(boxes, scores)
        assert type(got).__name__ == "CombinedNonMaxSuppression"
        for g, w in zip(got, want):
            assert np.array_equal(g.numpy(), w.numpy()), (g.numpy(), w.numpy())
        want = tf.image.non_max_suppression_padded(boxes[:, :, 0], scores[..., 0], 4,
                                                   pad_to_max_output_size=True)
        for g, w in zip(padded(boxes, scores), want):
            assert np.array_equal(g.numpy(), w.numpy()), (g.numpy(), w.numpy())
