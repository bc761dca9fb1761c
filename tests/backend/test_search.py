"""tf.unique(_with_counts), tf.searchsorted, tf.unravel_index and tf.reverse_sequence on
every backend against numpy oracles: random shapes, eager and inside tf.function, values
computed on the device (tests/tfdiff/snippets_search.py has TensorFlow's own results and
errors)."""

import numpy as np

import texflow as tf
from harness import each_backend, raises


def _device(values, dtype):  # computed on the device: no host copy
    return tf.cast(tf.constant(np.asarray(values, np.float32)) * 1.0, dtype)


def _unique_oracle(values):
    firsts, idx = [], []
    for v in values.tolist():
        for k, u in enumerate(firsts):
            if u == v:
                idx.append(k)
                break
        else:
            idx.append(len(firsts))
            firsts.append(v)
    return firsts, idx


@each_backend
def test_unique_matches_first_occurrence_oracle():
    rng = np.random.default_rng(7)
    for n in (1, 5, 40):
        x = rng.integers(-3, 4, n).astype(np.float32)
        for arg in (tf.constant(x), _device(x, "float32"), _device(x, "int32")):
            y, idx, count = tf.unique_with_counts(arg)
            firsts, expected = _unique_oracle(x)
            assert y.numpy().tolist() == firsts and idx.numpy().tolist() == expected
            assert count.numpy().tolist() == np.bincount(expected).tolist()
            assert y.dtype == arg.dtype and idx.dtype == count.dtype == tf.int32


@each_backend
def test_searchsorted_matches_numpy():
    rng = np.random.default_rng(3)
    for rows, n, m in ((1, 1, 3), (3, 7, 5), (2, 64, 33), (1, 300, 4)):
        seq = np.sort(rng.integers(-20, 20, (rows, n)), axis=-1).astype(np.float32)
        vals = rng.integers(-22, 22, (rows, m)).astype(np.float32)
        for side in ("left", "right"):
            expected = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
            got = tf.searchsorted(_device(seq, "float32"), tf.constant(vals), side=side)
            assert got.numpy().tolist() == expected.tolist(), (rows, n, m, side)

    @tf.function
    def traced(s, v):
        return tf.searchsorted(s, v, side="right") * 2
    seq = np.sort(rng.integers(0, 9, (2, 6)), axis=-1).astype(np.int32)
    for k in range(2):
        vals = rng.integers(0, 9, (2, 3)).astype(np.int32) + k
        expected = np.stack([np.searchsorted(s, v, side="right") for s, v in zip(seq, vals)])
        assert traced(tf.constant(seq), tf.constant(vals)).numpy().tolist() == \
            (expected * 2).tolist()


@each_backend
def test_unravel_index_matches_numpy():
    dims = [3, 1, 4, 2]
    flat = np.array([0, 5, 23, 17, 8], np.int32)
    expected = np.stack(np.unravel_index(flat, dims))
    for arg in (tf.constant(flat), _device(flat, "int32")):
        assert tf.unravel_index(arg, dims).numpy().tolist() == expected.tolist()
    with raises(tf.errors.InvalidArgumentError, match="out of bound"):
        tf.unravel_index([24], dims)


def _reverse_oracle(x, lengths, seq, batch):
    out = x.copy()
    for b, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[batch] = b
        src[seq] = slice(0, n)
        dst = list(src)
        out[tuple(dst)] = np.flip(x[tuple(src)], axis=seq - (batch < seq))
    return out


@each_backend
def test_reverse_sequence_matches_oracle_and_its_gradient_is_itself():
    rng = np.random.default_rng(5)
    for shape, seq, batch in (((2, 5), 1, 0), ((4, 3, 2), 0, 1), ((2, 3, 4, 2), 2, 1),
                              ((3, 2, 5), 2, 0)):
        x = rng.standard_normal(shape).astype(np.float32)
        lengths = rng.integers(0, shape[seq] + 1, shape[batch])
        expected = _reverse_oracle(x, lengths, seq, batch)
        t = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.reverse_sequence(t, lengths.astype(np.int32), seq_axis=seq, batch_axis=batch)
            loss = tf.reduce_sum(y * tf.constant(expected))
        np.testing.assert_array_equal(y.numpy(), expected)
        np.testing.assert_array_equal(tape.gradient(loss, t).numpy(),
                                      _reverse_oracle(expected, lengths, seq, batch))


@each_backend
def test_value_dependent_shapes_inside_tf_function():
    @tf.function
    def by_argument(x):
        return tf.unique(x).y

    @tf.function
    def folded():
        return tf.unique(tf.constant([4, 4, 1])).y + 1
    with raises(tf.errors.OperatorNotAllowedInGraphError, match="tf.unique"):
        by_argument(tf.constant([1, 2, 1]))
    assert folded().numpy().tolist() == [5, 2]

    @tf.function
    def reversed_rows(x, lengths):
        return tf.reverse_sequence(x, lengths, seq_axis=1)
    x = tf.reshape(tf.range(6), [2, 3])
    assert reversed_rows(x, tf.constant([2, 3])).numpy().tolist() == [[1, 0, 2], [5, 4, 3]]
    assert reversed_rows(x, tf.constant([0, 1])).numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    with raises(tf.errors.InvalidArgumentError, match="seq_lens"):  # the replay checks
        reversed_rows(x, tf.constant([4, 1]))
