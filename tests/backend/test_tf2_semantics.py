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


@each_backend
def test_random_streams_are_the_same_on_every_backend():
    """Drawn on the host from TensorFlow's (global, op) seed pair and the stream's position
    (the elements drawn before), so every backend gives these numbers (not TensorFlow's
    own: its Philox is not copied)."""
    tf.random.set_seed(7)
    first = (tf.random.normal([3], seed=2) * 1.0).numpy()
    second = tf.random.normal([3], seed=2).numpy()
    expected = [np.random.default_rng([7, 2, k]).standard_normal(3).astype(np.float32)
                for k in (0, 3)]
    assert np.array_equal(first, expected[0]) and np.array_equal(second, expected[1])
    tf.random.set_seed(None)
    op_only = tf.random.uniform([2], seed=5).numpy()
    draw = np.random.default_rng([87654321, 5, 0]).random(2).astype(np.float32)
    assert np.array_equal(op_only, draw), "an op seed alone uses TensorFlow's default graph seed"
    g = tf.random.Generator.from_seed(11)
    assert np.array_equal(g.normal([2]).numpy(),
                          np.random.default_rng(11).standard_normal(2).astype(np.float32))
    tf.random.set_seed(3)
    shuffled = tf.random.shuffle(tf.constant([[1, 1], [2, 2], [3, 3]]) * 1)
    assert sorted(shuffled.numpy()[:, 0].tolist()) == [1, 2, 3]
    tf.random.set_seed(None)


@each_backend
def test_devices_are_the_backends():
    # GPU backends, best first: webgpu and webgl in the browser, wgpu natively
    gpus = [name for name in ("webgpu", "webgl", "wgpu") if name in tf.available_backends()]
    devices = tf.config.list_physical_devices()
    assert devices[0] == ("/physical_device:CPU:0", "CPU")
    assert [d.name for d in devices[1:]] == [f"/physical_device:GPU:{i}"
                                            for i in range(len(gpus))]
    assert tf.config.list_logical_devices("GPU") == [
        ("/device:GPU:%d" % i, "GPU") for i in range(len(gpus))]
    for i, name in enumerate(gpus):
        for spec in (f"/GPU:{i}", f"/device:GPU:{i}", f"gpu:{i}", name):
            with tf.device(spec):
                assert tf.get_backend() == name, (spec, tf.get_backend())
                y = tf.constant([1.0]) * 2.0
            assert y.backend == name and y.device.endswith(f"device:GPU:{i}")
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        assert tf.get_backend() == "numpy"
    with raises(ValueError, match="Unknown attribute 'foo'"):
        tf.device("foo")
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tf.device("/GPU:7"):  # soft placement, as TensorFlow's: the CPU
            assert tf.get_backend() == "numpy"
    assert "no device '/GPU:7'" in str(caught[0].message)


@each_backend
def test_function_print_and_asserts():
    calls = []

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def step(x):
        calls.append(1)
        return tf.reduce_sum(x, axis=1)

    assert step([[1.0, 2.0]]).numpy().tolist() == [3.0] and calls == [1]
    assert step.experimental_get_tracing_count() == 1  # traced once (TensorFlow: 1)
    with raises(TypeError, match="Binding inputs to tf.function failed"):
        step(tf.zeros([2, 3]))
    import io
    stream = io.StringIO()
    tf.print("loss:", tf.constant([[0.5, 1.0]]) * 2.0, output_stream=stream, end="")
    assert stream.getvalue() == "loss: [[1 2]]"
    x = tf.constant([1.0, 2.0]) * 1.0
    assert tf.debugging.check_numerics(x, "fine") is x
    with raises(tf.errors.InvalidArgumentError, match="boom : Tensor had NaN values"):
        tf.debugging.check_numerics(x * np.nan, "boom")
    with raises(tf.errors.InvalidArgumentError, match="Condition x < y did not hold"):
        tf.debugging.assert_less(x, 1.5)
