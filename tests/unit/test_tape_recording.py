"""GradientTape.stop_recording(), reset() and watched_variables(), as TensorFlow 2.21's
(the same calls printed these results and errors there)."""

import numpy as np
import pytest

import texflow as tf


def test_stop_recording_leaves_the_block_out():
    x, c = tf.Variable([1.0, 2.0]), tf.constant([1.0, 1.0])
    for run in (lambda f: f(), lambda f: tf.function(f)()):
        def grads():
            with tf.GradientTape() as tape:
                tape.watch(c)
                with tape.stop_recording():
                    doubled = x * 2.0  # a constant for the tape
                total = tf.reduce_sum(x * doubled * c)
            return tape.gradient(total, [x, c])
        dx, dc = run(grads)
        np.testing.assert_array_equal(dx.numpy(), [2.0, 4.0])
        np.testing.assert_array_equal(dc.numpy(), [2.0, 8.0])


def test_stop_recording_errors():
    with pytest.raises(RuntimeError, match="Trying to stop recording a tape which is not"):
        with tf.GradientTape().stop_recording():
            pass
    with pytest.raises(ValueError, match="Tape is not recording."):
        with tf.GradientTape() as tape:
            with tape.stop_recording():
                with tape.stop_recording():
                    pass


def test_reset_and_watched_variables():
    x, w = tf.Variable([1.0, 2.0], name="x"), tf.Variable([3.0, 4.0], name="w")
    with tf.GradientTape(persistent=True) as tape:
        before = x * 2.0
        tape.reset()
        total = tf.reduce_sum(x * x) + tf.reduce_sum(w)
    np.testing.assert_array_equal(tape.gradient(total, x).numpy(), [2.0, 4.0])
    assert tape.gradient(before, x) is None  # recorded before the reset
    assert [v.name for v in tape.watched_variables()] == ["x", "w"]
