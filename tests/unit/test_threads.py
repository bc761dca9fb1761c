"""Scopes and tapes belong to a thread: a prefetch thread running texflow ops in a
dataset's map is neither tracked by the main thread's scope nor recorded by its tape;
threads may run ops at once on every native backend."""

import threading

import numpy as np
import pytest

import texflow as tf


def test_ops_in_another_thread_are_not_tracked_or_recorded():
    w = tf.Variable([1.0, 2.0])
    made = {}

    def worker():
        made["y"] = tf.exp(tf.array([1.0]))  # no scope in this thread: not tracked

    with tf.scope():
        with tf.GradientTape() as tape:
            t = threading.Thread(target=worker)
            t.start()
            t.join()
            loss = tf.sum(w * w)
        assert tape.gradient(loss, w).tolist() == [2.0, 4.0]
        assert len(tape._entries) == 0, "the tape released its records"
    assert not made["y"].is_disposed, "the main thread's scope freed another thread's array"


def test_prefetched_map_with_texflow_ops_inside_a_scope():
    x = np.arange(64, dtype=np.uint8).reshape(16, 2, 2)

    def scale(image):
        return tf.cast(image, tf.float32) / 255.0

    ds = tf.data.Dataset.from_tensor_slices(x).map(scale, num_parallel_calls=2).batch(4)
    total = 0.0
    for batch in ds.prefetch(2):
        with tf.scope():
            total += float(tf.sum(tf.array(batch)))
    assert abs(total - x.sum() / 255.0) < 1e-3


@pytest.mark.parametrize("backend", ["numpy", "wgpu"])
def test_threads_running_ops_at_once_on_a_native_backend(backend):
    # wgpu records every thread's launches into one shared compute pass: without the
    # backend's lock two threads ended and reused it under each other (seen as
    # GPUValidationError in two coordinator workers of one process).
    if backend not in tf.available_backends():
        pytest.skip(f"{backend} is not available here")
    previous = tf.get_backend()
    tf.set_backend(backend)
    results, errors = {}, []

    def worker(k):
        try:
            got = []
            for i in range(100):
                with tf.scope():
                    got.append(float(tf.sum(tf.array([[1.0, 2.0]]) * (k + i))))
            results[k] = got
        except Exception as e:  # reported below with the others
            errors.append(e)

    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        tf.set_backend(previous)
    assert not errors, errors
    assert results == {k: [3.0 * (k + i) for i in range(100)] for k in range(3)}
