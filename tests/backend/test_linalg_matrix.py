"""tf.linalg's matrix helpers (ops/matrix.py) on every backend against numpy: diagonals
k above and below the main one, wide and tall matrices, batches, +0 off the diagonal,
and gradients eagerly and through tf.function (errors: tests/unit/test_linalg_errors.py)."""

import numpy as np

import texflow as tf
from harness import each_backend


def _diag(v, k, rows, cols):
    out = np.zeros(v.shape[:-1] + (rows, cols), v.dtype)
    for i in range(v.shape[-1]):
        r, c = (i, i + k) if k >= 0 else (i - k, i)
        out[..., r, c] = v[..., i]
    return out


@each_backend
def test_matrix_helpers_match_numpy():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 3, 5)).astype(np.float32)
    v = rng.normal(size=(2, 4)).astype(np.float32)
    x = tf.constant(a)
    for k in (0, 1, 3, -1, -2):
        want = np.diagonal(a, offset=k, axis1=-2, axis2=-1)
        np.testing.assert_array_equal(tf.linalg.diag_part(x, k=k).numpy(), want)
        replaced = a.copy()
        rows, cols = np.nonzero(np.eye(3, 5, k))
        replaced[..., rows, cols] = want + 1.0
        np.testing.assert_array_equal(
            tf.linalg.set_diag(x, tf.constant(want + 1.0), k=k).numpy(), replaced)
    for k in (0, 2, -1):
        got = tf.linalg.diag(tf.constant(v), k=k).numpy()
        np.testing.assert_array_equal(got, _diag(v, k, 4 + abs(k), 4 + abs(k)))
        assert not np.signbit(got[got == 0]).any()  # +0 off the diagonal, as TensorFlow
    np.testing.assert_array_equal(tf.linalg.diag(tf.constant(v[0]), num_rows=6,
                                                 num_cols=4).numpy(), _diag(v[0], 0, 6, 4))
    np.testing.assert_allclose(tf.linalg.trace(x).numpy(),
                               np.trace(a, axis1=-2, axis2=-1), rtol=1e-6)
    for lower, upper in ((0, 0), (1, 0), (-1, 1), (2, -1)):
        i, j = np.arange(3)[:, None], np.arange(5)[None, :]
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        got = tf.linalg.band_part(x, lower, upper).numpy()
        np.testing.assert_array_equal(got, np.where(keep, a, 0.0))
        assert not np.signbit(got[~np.broadcast_to(keep, got.shape)]).any()
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(x).numpy(),
                                  np.swapaxes(a, -1, -2))
    np.testing.assert_allclose(tf.linalg.matvec(x, tf.constant(a[:, 0, :])).numpy(),
                               np.einsum("bij,bj->bi", a, a[:, 0, :]), rtol=1e-5)
    np.testing.assert_array_equal(tf.linalg.tensor_diag(tf.constant(v)).numpy(),
                                  np.diag(v.reshape(-1)).reshape(2, 4, 2, 4))


@each_backend
def test_matrix_helper_gradients_eager_and_traced():
    rng = np.random.default_rng(4)
    s = rng.normal(size=(3, 3)).astype(np.float32)
    w = tf.Variable(s)

    def grad():
        with tf.GradientTape() as tape:
            doubled = tf.linalg.set_diag(w, tf.linalg.diag_part(w) * 2.0)
            y = tf.linalg.trace(doubled) + tf.reduce_sum(tf.linalg.band_part(w, 0, 1) * 3.0)
        return tape.gradient(y, w)
    # d/dw: the diagonal counts 2 (trace of the doubled diagonal) + 3 (in the band); the
    # first superdiagonal 3; everything else 0
    want = np.eye(3) * 2.0 + np.triu(np.ones((3, 3))) * 3.0 - np.triu(np.ones((3, 3)), 2) * 3
    for run in (grad, tf.function(grad)):
        for _ in range(2):
            np.testing.assert_allclose(run().numpy(), want)

