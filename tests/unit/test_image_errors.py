"""tf.image's errors that TensorFlow cannot record for us (tests/tfdiff/snippets_image.py
has TensorFlow's own): static arguments inside tf.function, texflow's messages where
TensorFlow's name its kernels, numpy uint8 data against int32 tensors, and tf.image's
names (TensorFlow's only; tests/unit/test_tf_signatures.py checks their parameters)."""

import json
from pathlib import Path

import numpy as np
import pytest

import texflow as tf


def test_traced_sizes_seeds_and_k_must_be_known():
    images = tf.zeros([1, 4, 4, 1])
    resize = tf.function(lambda x, s: tf.image.resize(x, s))
    with pytest.raises(ValueError, match="'size' must be known when the function is traced"):
        resize(images, tf.constant([2, 2]))
    rot = tf.function(lambda x, k: tf.image.rot90(x, k))
    with pytest.raises(ValueError, match="rot90: k must be known"):
        rot(images, tf.constant(1))
    flip = tf.function(lambda x, s: tf.image.stateless_random_flip_left_right(x, s))
    with pytest.raises(ValueError, match="the seed must be known"):
        flip(images, tf.constant([1, 2]))
    # values known at trace time (constants made in the function) are fine
    fixed = tf.function(lambda x: tf.image.resize(x, tf.constant([2, 3])))
    assert fixed(images).shape == [1, 2, 3, 1]


def test_messages_name_the_problem():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"got shape \(2, 2, 4\)"):
        tf.image.rgb_to_grayscale(tf.ones([2, 2, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.image.resize(tf.zeros([2, 2, 1], tf.bool), [3, 3], "nearest")
    with pytest.raises(TypeError, match="Cannot convert 2.5"):
        tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), 2.5, 0, 1, 1)


def test_uint8_data_scales_by_255_an_int32_tensor_by_int32_max():
    data = np.array([[[0, 51, 255]]], np.uint8)
    assert np.allclose(tf.image.convert_image_dtype(data, tf.float32).numpy(), [0, 0.2, 1])
    as_tensor = tf.image.convert_image_dtype(tf.constant(data), tf.float32).numpy()
    assert np.allclose(as_tensor, np.array([0, 51, 255]) / (2 ** 31 - 1))
    back = tf.image.convert_image_dtype(tf.constant([0.0, 0.2, 1.0]), tf.uint8)
    assert back.dtype == tf.int32 and back.numpy().tolist() == [0, 51, 255]


def test_resize_methods_are_tensorflows_names():
    assert tf.image.ResizeMethod.NEAREST_NEIGHBOR == "nearest"
    assert tf.image.ResizeMethod.BILINEAR == "bilinear"
    with pytest.raises(ValueError, match="Resize method is not implemented: Area"):
        tf.image.resize(tf.zeros([2, 2, 1]), [1, 1], "Area")


def test_publishes_only_tensorflows_names():
    fixture = Path(__file__).resolve().parent.parent / "data" / "fixtures" / "tf_signatures.json"
    recorded = json.loads(fixture.read_text())["signatures"]
    public = {n for n in dir(tf.image) if not n.startswith("_")} - {"ResizeMethod"}
    assert all(recorded.get("tf.image." + n) for n in public), sorted(
        n for n in public if not recorded.get("tf.image." + n))


def test_non_max_suppression_in_tf_function_needs_known_boxes():
    boxes = tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1]])
    nms = tf.function(lambda b, s: tf.image.non_max_suppression(b, s, 2))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="non_max_suppression"):
        nms(boxes, tf.constant([0.9, 0.8]))
    known = tf.function(lambda: tf.image.non_max_suppression(
        tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1]]), [0.7, 0.8], 2))
    assert known().numpy().tolist() == [1]
