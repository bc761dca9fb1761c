"""tf.truncatediv / truncatemod, tf.math.bincount and tf.histogram_fixed_width(_bins)
(py/texflow/ops/counting.py) on every backend against numpy: C's truncating division and
fmod (exact, signs of zero too), np.bincount, and histograms binned as TensorFlow's kernel
does in double precision (tests/tfdiff/snippets_counting.py has TensorFlow's own results
and errors)."""

import numpy as np

import texflow as tf
from harness import each_backend, raises


@each_backend
def test_truncating_division_matches_c():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(500) * 10 ** rng.uniform(-3, 6, 500)).astype(np.float32)
    y = (rng.standard_normal(500) * 10 ** rng.uniform(-3, 3, 500)).astype(np.float32)
    x[:4], y[:4] = [-0.0, 4.0, -4.0, 1.0], [3.0, -2.0, 2.0, np.inf]
    got = tf.truncatemod(tf.constant(x), tf.constant(y)).numpy()
    want = np.fmod(x, y)
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))
    ratio = tf.truncatediv(tf.constant(x[4:]), tf.constant(y[4:])).numpy()
    np.testing.assert_allclose(ratio, np.trunc(x[4:] / y[4:]), rtol=1e-6)
    xi = rng.integers(-1000, 1000, 500).astype(np.int32)
    yi = (rng.integers(1, 50, 500) * rng.choice([-1, 1], 500)).astype(np.int32)
    assert tf.truncatediv(tf.constant(xi), tf.constant(yi)).numpy().tolist() == \
        (np.sign(xi) * np.sign(yi) * (np.abs(xi) // np.abs(yi))).tolist()
    assert tf.truncatemod(tf.constant(xi), tf.constant(yi)).numpy().tolist() == \
        np.fmod(xi, yi).tolist()
    with raises(tf.errors.InternalError, match="only integer div and mod"):
        tf.truncatediv(tf.constant([1, 2]), tf.constant([1, 0]))


@each_backend
def test_bincount_matches_numpy():
    rng = np.random.default_rng(4)
    for seed in range(6):
        values = rng.integers(0, 9, (3, int(rng.integers(0, 7)))).astype(np.int32)
        weights = rng.standard_normal(values.shape).astype(np.float32)
        flat = values.reshape(-1)
        got = tf.math.bincount(tf.constant(values), weights=tf.constant(weights),
                               minlength=4).numpy()
        np.testing.assert_allclose(got, np.bincount(flat, weights.reshape(-1), 4), rtol=1e-5,
                                   atol=1e-6)
        got = tf.math.bincount(values, maxlength=5, axis=-1).numpy()
        size = min(max(int(flat.max(initial=-1)) + 1, 0), 5)
        want = [np.bincount(row[row < 5], minlength=size) for row in values]
        assert got.tolist() == [w.tolist() for w in want], (seed, values)
        got = tf.math.bincount(values, minlength=12, maxlength=12, binary_output=True)
        assert got.numpy().tolist() == (np.bincount(flat, minlength=12) > 0).astype(
            int).tolist()
    with raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
        tf.math.bincount(tf.constant([1, -1]))


def _bins(values, lo, hi, n):
    """TensorFlow's HistogramFixedWidth: (max(x, lo) - lo) in float32, then in double
    divided by (hi - lo) / n, truncated and clipped to n - 1."""
    shifted = (np.maximum(values, np.float32(lo)) - np.float32(lo)).astype(np.float64)
    step = float(np.float32(hi) - np.float32(lo)) / n
    return np.minimum(shifted / step, n - 1).astype(np.intp)  # bincount: intp in wasm32


@each_backend
def test_histograms_bin_as_tensorflow():
    rng = np.random.default_rng(5)
    values = np.round(rng.uniform(-1, 11, 3000), 2).astype(np.float32)
    values[:3] = [np.inf, -np.inf, 0.7]
    for lo, hi, n in [(0.0, 10.0, 100), (0.0, 1.0, 10), (-0.3, 7.7, 37), (0.1, 0.7, 7)]:
        got = tf.histogram_fixed_width(tf.constant(values), [lo, hi], nbins=n).numpy()
        assert got.tolist() == np.bincount(_bins(values, lo, hi, n), minlength=n).tolist()
    ints = rng.integers(-5, 120, 500).astype(np.int32)
    got = tf.histogram_fixed_width(tf.constant(ints), [0, 100], nbins=7).numpy()
    assert got.tolist() == np.bincount(_bins(ints, 0, 100, 7), minlength=7).tolist()
    middle = np.array([-1.0, 0.3, 1.7, 2.5, 9.0, np.nan], np.float32)
    got = tf.histogram_fixed_width_bins(tf.constant(middle), [0.0, 2.0], nbins=4).numpy()
    assert got.tolist() == [0, 0, 3, 3, 3, np.iinfo(np.int32).min]
    with raises(tf.errors.InvalidArgumentError, match="must not contain NaN"):
        tf.histogram_fixed_width(tf.constant(middle), [0.0, 2.0], nbins=4)
