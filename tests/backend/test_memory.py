"""Memory accounting and residency: counts return to their start, pools stay
bounded, results stay on the device between ops, host data uploads lazily."""

import numpy as np

import texflow as tf
import harness
from harness import each_backend


def _counts():
    m = harness.memory()
    return m["num_arrays"], m["num_bytes"], m["num_gpu_objects"]


@each_backend
def test_ten_thousand_scoped_ops_return_counts_to_the_start():
    x = tf.array(np.arange(64, dtype=np.float32))
    tf.exp(x).dispose()  # upload x once before measuring
    start = _counts()
    for i in range(2500):
        with tf.scope():
            y = tf.add(x, float(i))
            z = tf.mul(y, y)
            w = tf.sub(z, x)
            tf.sum(w)
    assert _counts() == start, f"{_counts()} != {start}"
    x.dispose()


@each_backend
def test_the_storage_pool_is_bounded_under_varying_shapes():
    m = harness.memory()
    start = m["num_gpu_objects"]
    for n in range(1, 400):
        with tf.scope():
            a = tf.track(tf.ones([n, 37]))  # made directly: tracked by hand
            tf.exp(tf.add(a, 1.0))
    m = tf.memory()
    assert m["num_gpu_objects"] == start
    if tf.get_backend() != "numpy":
        limit = m["pool_limit_bytes"]
        assert 0 < m["pooled_bytes"] <= limit, m


@each_backend
def test_results_stay_on_the_device_between_chained_ops():
    x = tf.array(np.linspace(-2, 2, 1000, dtype=np.float32))
    assert x.backend is None, "host data is not uploaded before an op needs it"
    y = tf.exp(tf.mul(tf.add(x, 1.0), 0.5))
    backend = tf.get_backend()
    assert x.backend == backend, "the first op uploaded x"
    for a in (y,):
        assert a.backend == backend
        if backend != "numpy":
            assert a._storage.values is None, "an intermediate was downloaded"
    np.testing.assert_allclose(y.numpy(), np.exp((x.numpy() + 1) * 0.5), rtol=2e-5)
    assert y._storage.values is not None, "reading downloads (and caches) a host copy"


@each_backend
async def test_await_data_reads_without_blocking():
    x = tf.mul(tf.array([1.0, 2.0, 3.0]), 2.0)
    values = await x.data()
    assert values.tolist() == [2.0, 4.0, 6.0]
    assert x.get_values().tolist() == [2.0, 4.0, 6.0]
    assert x.numpy().shape == (3,) and np.asarray(x).tolist() == [2.0, 4.0, 6.0]
    assert tf.reshape(x, [3, 1]).get(2, 0) == 6.0


@each_backend
async def test_data_gives_arrays_of_the_callers_own():
    # a download data() hands over uncopied must be nobody else's: writing it changes no
    # later read, before or after a host copy is kept (bool is downloaded as int)
    for x, expected, other in ((tf.mul(tf.array([1.0, 2.0, 3.0]), 2.0), [2.0, 4.0, 6.0], -7.0),
                               (tf.greater(tf.array([1.0, -2.0, 3.0]), 0.0),
                                [True, False, True], None)):
        first, second = await x.data(), await x.data()
        assert first.tolist() == second.tolist() == expected
        first[:], second[:] = (other, other) if other is not None else (False, False)
        assert (await x.data()).tolist() == expected
        assert x.numpy().tolist() == expected  # keeps a host copy
        kept = await x.data()
        kept[:] = other if other is not None else False
        assert (await x.data()).tolist() == x.numpy().tolist() == expected


@each_backend
def test_data_moves_between_backends():
    x = tf.exp(tf.array([0.0, 1.0]))
    cpu = tf.NDArrayMathCPU()
    y = cpu.add(x, 1.0)
    z = tf.mul(y, 2.0)  # back on the active backend
    np.testing.assert_allclose(z.get_values(), (np.exp([0.0, 1.0]) + 1) * 2, rtol=1e-6)


@each_backend
def test_a_repeated_op_signature_uploads_counts_and_tracks_as_its_first_run():
    """After a signature's first run on a device the engine launches it through the
    launcher it kept (engine/run.py): later runs must still upload host inputs, count
    one launch, be tracked by the scope, and survive the backend forgetting its plans."""
    from texflow.engine import context

    backend = context.current()
    one = tf.array(np.ones(3, np.float32))
    for k in range(5):
        if k == 3 and hasattr(backend, "clear_plans"):  # launchers made before are stale
            backend.clear_plans()
        x = tf.array(np.full(3, k, np.float32))
        launches = tf.memory()["num_launches"]
        with tf.scope() as s:
            y = tf.add(x, one)
            assert tf.memory()["num_launches"] - launches == 1, k
            assert x.backend == tf.get_backend(), "the op uploaded its host input"
            assert any(t is y for t in s.tracked), "the scope tracks the output"
            np.testing.assert_array_equal(y.numpy(), np.full(3, k + 1, np.float32))
        assert y.is_disposed
        x.dispose()
    one.dispose()


@each_backend
def test_get_memory_info_counts_the_device_tensors_now_and_at_most():
    # the device the active backend is (the numpy backend is the CPU), as TensorFlow names it
    device = tf.constant(0.0).device if tf.get_backend() == "numpy" else \
        (tf.zeros([1]) + 1.0).device
    info = tf.config.experimental.get_memory_info
    tf.config.experimental.reset_memory_stats(device)
    start = info(device)
    assert start["peak"] == start["current"] >= 0
    x = tf.zeros([1000]) + 1.0
    y = x * 2.0
    grown = info(device)
    assert grown["current"] - start["current"] >= 8000  # x and y, 4000 bytes each
    x.dispose()
    y.dispose()
    after = info(device)
    assert after["current"] <= grown["current"] - 8000
    assert after["peak"] == grown["peak"] >= grown["current"]
    tf.config.experimental.reset_memory_stats(device)
    assert info(device)["peak"] == info(device)["current"] == after["current"]
    assert tf.config.experimental.get_memory_usage(device) == after["current"]
