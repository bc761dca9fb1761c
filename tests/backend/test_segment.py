"""tf.math's segment reductions (py/texflow/ops/segment.py) on every backend against a numpy
oracle that folds each segment's rows in order as TensorFlow's CPU kernels do: random
shapes, sorted and unsorted ids (negative ones dropped), NaNs, float32 and int32, ids read
on the host and ids a tf.function trace cannot read (sorted on the device), and gradients
against finite differences (tests/tfdiff/snippets_segment.py has TensorFlow's own results,
errors and tie-sharing gradients)."""

import numpy as np

import texflow as tf
from harness import each_backend

_F32, _I32 = np.finfo(np.float32), np.iinfo(np.int32)


def _fold(kind, values):
    """TensorFlow's CPU fold of one segment's values (in row order), per element."""
    if kind == "prod":
        with np.errstate(invalid="ignore"):  # inf * 0
            return np.prod(values, axis=0)
    acc = values[0].copy()
    for v in values[1:]:  # acc = acc if acc > x else x (max), NaN never compares true
        keep = acc > v if kind == "max" else acc < v
        acc = np.where(keep, acc, v)
    return acc


def _oracle(kind, data, ids, count, unsorted):
    """[count, ...] reductions of `data` rows by `ids` (negative ids dropped)."""
    limits = _F32 if data.dtype == np.float32 else _I32
    empty = {"max": limits.min if unsorted else 0, "min": limits.max if unsorted else 0,
             "prod": 1,
             "sum": 0, "mean": 0}[kind]
    out = np.full((count,) + data.shape[1:], empty, data.dtype)
    for s in range(count):
        rows = data[ids == s]
        if not len(rows):
            continue
        if kind in ("sum", "mean"):
            total = rows.sum(axis=0)
            size = len(rows) if kind == "mean" else 1
            out[s] = total / size if data.dtype == np.float32 else np.trunc(total / size)
        elif unsorted and kind in ("max", "min"):  # the fold starts at the lowest number
            out[s] = _fold(kind, np.concatenate([np.full((1,) + rows.shape[1:], empty,
                                                         data.dtype), rows]))
        else:
            out[s] = _fold(kind, rows)
    return out


def _case(seed, dtype, ordered):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 13))
    inner = tuple(int(d) for d in rng.integers(1, 4, size=rng.integers(0, 3)))
    count = int(rng.integers(1, 6))
    ids = rng.integers(0 if ordered else -1, count, n)
    ids = np.sort(ids) if ordered else ids
    if dtype == "float32":
        data = rng.integers(-4, 5, (n,) + inner).astype(np.float32) / 2
        data[rng.random(data.shape) < 0.15] = np.nan
        data[rng.random(data.shape) < 0.05] = -np.inf
    else:
        data = rng.integers(-5, 6, (n,) + inner).astype(np.int32)
    return data, ids.astype(np.int32), count


def _same(got, want, what):
    got = got.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got, want)
    np.testing.assert_allclose(got, want, rtol=1e-5, equal_nan=True, err_msg=str(what))


@each_backend
def test_sorted_segments_match_the_fold():
    for seed in range(16):
        for dtype in ("float32", "int32"):
            data, ids, _ = _case(seed, dtype, True)
            count = int(ids[-1]) + 1 if ids.size else 0
            for kind in ("sum", "max", "min", "prod", "mean"):
                got = getattr(tf.math, f"segment_{kind}")(tf.constant(data), ids)
                _same(got, _oracle(kind, data, ids, count, False), (seed, dtype, kind, ids))


@each_backend
def test_unsorted_segments_match_the_fold():
    for seed in range(16):
        for dtype in ("float32", "int32"):
            data, ids, count = _case(seed, dtype, False)
            for kind in ("max", "min", "prod"):
                got = getattr(tf.math, f"unsorted_segment_{kind}")(tf.constant(data), ids,
                                                                   count)
                _same(got, _oracle(kind, data, ids, count, True), (seed, dtype, kind, ids))
            sums = _oracle("sum", data.astype(np.float32), ids, count, True)
            sizes = np.maximum(np.bincount(ids[ids >= 0], minlength=count), 1)
            sizes = sizes.reshape((count,) + (1,) * (data.ndim - 1)).astype(np.float32)
            got = tf.math.unsorted_segment_mean(tf.constant(data), ids, count)
            _same(got, sums / sizes, (seed, dtype, "mean"))
            if dtype == "float32":
                got = tf.math.unsorted_segment_sqrt_n(tf.constant(data), ids, count)
                _same(got, sums / np.sqrt(sizes), (seed, "sqrt_n"))


@each_backend
def test_unsorted_segments_with_ids_only_the_device_knows():
    @tf.function
    def reduce(x, ids):  # ids an argument: sorted by argsort on the device
        return [getattr(tf.math, f"unsorted_segment_{k}")(x, ids, 4)
                for k in ("max", "min", "prod", "mean")]

    for seed in range(4):
        data, ids, _ = _case(100 + seed, "float32", False)
        ids = np.minimum(ids, 3)
        for kind, got in zip(("max", "min", "prod"), reduce(tf.constant(data), ids)):
            _same(got, _oracle(kind, data, ids, 4, True), (seed, kind, ids))
    matrix = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    got = tf.math.unsorted_segment_max(tf.constant(matrix), tf.constant([[1, 0], [1, 1],
                                                                         [-1, 0]]), 2)
    assert got.numpy().tolist() == [6.0, 4.0]  # ids shaped as data's first two axes


@each_backend
def test_segment_gradients_match_finite_differences():
    rng = np.random.default_rng(7)
    x0 = rng.permutation(np.arange(1, 13)).astype(np.float32).reshape(6, 2) / 4  # no ties
    weights = tf.constant(rng.standard_normal((3, 2)).astype(np.float32))
    ops = {"segment_max": lambda v: tf.math.segment_max(v, [0, 0, 1, 1, 1, 2]),
           "segment_prod": lambda v: tf.math.segment_prod(v, [0, 0, 1, 1, 1, 2]),
           "unsorted_segment_min": lambda v: tf.math.unsorted_segment_min(
               v, [2, 0, -1, 2, 0, 1], 3),
           "unsorted_segment_prod": lambda v: tf.math.unsorted_segment_prod(
               v, [2, 0, -1, 2, 0, 1], 3),
           "unsorted_segment_sqrt_n": lambda v: tf.math.unsorted_segment_sqrt_n(
               v, [2, 0, -1, 2, 0, 1], 3),
           "segment_mean": lambda v: tf.math.segment_mean(v, [0, 0, 1, 1, 1, 2])}
    for name, fn in ops.items():
        x = tf.Variable(x0)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(fn(x) * weights)
        got = tape.gradient(y, x).numpy()
        want = np.zeros_like(x0)
        for i in np.ndindex(*x0.shape):
            for sign in (1, -1):
                moved = x0.copy()
                moved[i] += sign * 1e-2
                want[i] += sign * float(tf.reduce_sum(fn(tf.constant(moved)) * weights)) / 2e-2
        np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2, err_msg=name)
