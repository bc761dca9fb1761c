"""TensorFlow 2 semantics of the core on every backend: inputs every op accepts, one
program one answer for out-of-range indices, seeded random streams, tf.function,
tf.print, devices and debugging asserts (values checked against TensorFlow 2.21)."""

import numpy as np

import texflow as tf
from harness import each_backend, raises


@each_backend
def test_ops_accept_what_tensorflow_accepts():
    v = tf.Variable([1.0, 2.0])
    for value, expected in ((3, 3.0), (np.int64(3), 3.0), (2.5, 2.5), ([1, 2], [1.0, 2.0]),
                            (np.array([1, 2]), [1.0, 2.0]), (v, [1.0, 2.0])):
        got = tf.cast(value, tf.float32)
        assert got.dtype == tf.float32 and got.numpy().tolist() == expected, (value, got)
    assert tf.cast(2.5, tf.int32).numpy() == 2 and tf.cast(-2.5, tf.int32).numpy() == -2
    assert tf.cast(0.5, tf.bool).numpy() and tf.cast([1, 0], "bool").numpy().tolist() == [1, 0]
    assert tf.zeros_like([[1, 2]]).numpy().tolist() == [[0, 0]]
    assert tf.ones_like(2.5).dtype == tf.float32 and tf.ones_like(v).shape == (2,)
    assert tf.reduce_sum([[1, 2], [3, 4]], axis=tf.constant(1)).numpy().tolist() == [3, 7]
    x = (tf.cast(np.arange(6, dtype=np.uint8).reshape(2, 3), tf.float32) / 255.0)
    assert x.dtype == tf.float32 and abs(float(x[1, 2]) - 5 / 255) < 1e-7


@each_backend
def test_out_of_range_indices_known_on_the_host_raise_everywhere():
    logits = tf.zeros([2, 10]) + 0.0
    with raises(tf.errors.InvalidArgumentError,
                match=r"Received a label value of 10 which is outside the valid range of "
                      r"\[0, 10\)\.  Label values: 10 1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([10, 1]), logits)
    with raises(tf.errors.InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(np.array([-1, 1]), logits)
    with raises(tf.errors.InvalidArgumentError, match="label value of 5 .* \\[0, 2\\)"):
        tf.sparse_categorical_crossentropy([5.0], [[0.5, 0.5]])
    params = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]) * 1.0  # on the device
    with raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 3\)"):
        tf.gather(params, [0, 5])
    with raises(tf.errors.InvalidArgumentError, match=r"indices\[0,1\] = 2 is not in \[0, 2\)"):
        tf.gather(params, [[0, 2]], axis=1)
    with raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[1\] = 5 is out of range"):
        tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0, 3.0]), [0, 5, 1], 2)
    # TensorFlow's rules where it does not raise: negative segment ids are dropped,
    # out-of-range one_hot indices give rows of zeros
    assert tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0, 3.0]), [0, -1, 1],
                                        2).numpy().tolist() == [1.0, 3.0]
    assert tf.one_hot([0, 5, -1], 3).numpy().tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]


@each_backend
def test_out_of_range_indices_only_on_a_gpu_are_never_plausible():
    """Indices computed on a GPU cannot be checked without a download: the kernels write
    NaN (floats) or the lowest int32 (ints); numpy has them on the host and raises."""
    on_device = tf.cast(tf.constant([3.0, 0.0]) * 1.0, tf.int32)
    labels = tf.cast(tf.constant([10.0, 1.0]) * 1.0, tf.int32)
    ids = tf.cast(tf.constant([0.0, 5.0]) * 1.0, tf.int32)
    cases = [lambda: tf.gather(tf.constant([1.0, 2.0, 3.0]), on_device),
             lambda: tf.gather(tf.constant([1, 2, 3]), on_device),
             lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, tf.zeros([2, 10])),
             lambda: tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0]), ids, 2),
             lambda: tf.math.unsorted_segment_sum(tf.constant([1, 2]), ids, 2)]
    if tf.get_backend() == "numpy":
        for case in cases:
            with raises(tf.errors.InvalidArgumentError):
                case()
        return
    got = [case().numpy() for case in cases]
    low = np.iinfo(np.int32).min
    assert np.isnan(got[0][0]) and got[0][1] == 1.0, got[0]
    assert got[1].tolist() == [low, 1], got[1]
    assert np.isnan(got[2][0]) and abs(got[2][1] - np.log(10)) < 1e-5, got[2]
    assert np.isnan(got[3]).all() and (got[4] == low).all(), (got[3], got[4])
