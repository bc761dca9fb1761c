"""tf.linalg's decompositions and solvers (ops/solve.py, ops/decomp.py) on every backend:
batched values against numpy in float64, gradients against central differences of numpy
references, tf.function traces replayed with new values (and a singular matrix raising at
a replay), and empty matrices. TensorFlow's own numbers and errors: tests/tfdiff/
snippets_decomp.py; errors texflow adds: tests/unit/test_linalg_decomp_errors.py."""

import numpy as np

import texflow as tf
from harness import each_backend, raises

RNG_SEED = 7


def _general(rng, shape):
    n = shape[-1]
    return (rng.normal(size=shape) + 3 * np.eye(n)).astype(np.float32)


def _spd(rng, shape):
    a = rng.normal(size=shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(np.float32)


def _close(got, want, tol=2e-4):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


@each_backend
def test_solvers_match_numpy():
    rng = np.random.default_rng(RNG_SEED)
    a = _general(rng, (2, 3, 4, 4))
    b = rng.normal(size=(2, 3, 4, 2)).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    _close(tf.linalg.det(a), np.linalg.det(a64))
    sign, log_abs = tf.linalg.slogdet(a)
    _close(sign, np.linalg.slogdet(a64)[0])
    _close(log_abs, np.linalg.slogdet(a64)[1])
    _close(tf.linalg.inv(a), np.linalg.inv(a64))
    _close(tf.linalg.inv(a, adjoint=True), np.swapaxes(np.linalg.inv(a64), -1, -2))
    _close(tf.linalg.solve(a, b), np.linalg.solve(a64, b64))
    _close(tf.linalg.solve(a, b, adjoint=True), np.linalg.solve(np.swapaxes(a64, -1, -2), b64))
    lower = np.tril(a64)
    # batch dimensions broadcast: one [4, 4] matrix against every right-hand side
    _close(tf.linalg.triangular_solve(a[0, 0], b), np.linalg.solve(lower[0, 0], b64))
    _close(tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
           np.linalg.solve(np.swapaxes(np.triu(a64), -1, -2), b64))
    s = _spd(rng, (3, 4, 4))
    chol = np.linalg.cholesky(s.astype(np.float64))
    _close(tf.linalg.cholesky(s), chol)
    _close(tf.linalg.logdet(s), np.linalg.slogdet(s.astype(np.float64))[1])
    _close(tf.linalg.cholesky_solve(tf.constant(chol.astype(np.float32)), b[0, :3]),
           np.linalg.solve(s.astype(np.float64), b64[0, :3]))
    for shape in ((2, 5, 3), (2, 3, 5)):
        m = rng.normal(size=shape).astype(np.float32)
        rhs = rng.normal(size=shape[:-1] + (2,)).astype(np.float32)
        want = np.linalg.pinv(m.astype(np.float64)) @ rhs  # least squares, minimum norm
        _close(tf.linalg.lstsq(m, rhs), want, 1e-3)


@each_backend
def test_decompositions_match_numpy():
    rng = np.random.default_rng(RNG_SEED + 1)
    for shape in ((2, 4, 4), (3, 5, 3), (2, 3, 5)):
        x = rng.normal(size=shape).astype(np.float32)
        x64 = x.astype(np.float64)
        m, n = shape[-2:]
        for full in (False, True):
            q, r = tf.linalg.qr(x, full_matrices=full)
            want_q, want_r = np.linalg.qr(x64, mode="complete" if full else "reduced")
            _close(q, want_q)  # Householder reflections: LAPACK's and TensorFlow's signs
            _close(r, want_r)
            s, u, v = tf.linalg.svd(x, full_matrices=full)
            k = min(m, n)
            assert u.shape == shape[:-2] + (m, m if full else k)
            assert v.shape == shape[:-2] + (n, n if full else k)
            _close(s, np.linalg.svd(x64, compute_uv=False))
            u, v = u.numpy()[..., :k], v.numpy()[..., :k]
            _close(u * s.numpy()[..., None, :] @ np.swapaxes(v, -1, -2), x64)
        _close(tf.linalg.svd(x, compute_uv=False), np.linalg.svd(x64, compute_uv=False))
        _close(tf.linalg.pinv(x), np.linalg.pinv(x64), 1e-3)
    sym = rng.normal(size=(2, 4, 4)).astype(np.float32)
    e, v = tf.linalg.eigh(sym)
    want = np.linalg.eigvalsh(sym.astype(np.float64), UPLO="L")
    _close(e, want)
    _close(tf.linalg.eigvalsh(sym), want)
    lower = np.tril(sym) + np.swapaxes(np.tril(sym, -1), -1, -2)  # only its lower triangle
    _close(v.numpy() @ (e.numpy()[..., None] * np.swapaxes(v.numpy(), -1, -2)), lower)
    ranks = tf.linalg.matrix_rank(np.array([np.eye(3), np.diag([1.0, 1.0, 0.0]),
                                            np.ones((3, 3))], np.float32))
    assert ranks.dtype == tf.int32 and ranks.numpy().tolist() == [3, 2, 1]


def _numeric_grad(f, x, eps=1e-5):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def _sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


def _cases(rng):
    """(name, texflow function, numpy float64 reference, input): sign-free functions of
    singular vectors and eigenvectors."""
    b = rng.normal(size=(3, 2))
    b32 = b.astype(np.float32)
    return [
        ("det", tf.linalg.det, np.linalg.det, _general(rng, (2, 3, 3))),
        ("slogdet", lambda a: tf.linalg.slogdet(a)[1], lambda a: np.linalg.slogdet(a)[1],
         _general(rng, (3, 3))),
        ("inv", tf.linalg.inv, np.linalg.inv, _general(rng, (3, 3))),
        ("solve", lambda a: tf.linalg.solve(a, b32, adjoint=True),
         lambda a: np.linalg.solve(a.T, b), _general(rng, (3, 3))),
        ("triangular_solve", lambda a: tf.linalg.triangular_solve(a, b32),
         lambda a: np.linalg.solve(np.tril(a), b), _general(rng, (3, 3))),
        ("cholesky", lambda a: tf.linalg.cholesky(tf.linalg.matrix_transpose(a) + a),
         lambda a: np.linalg.cholesky(a.T + a), _spd(rng, (3, 3))),
        ("lstsq", lambda a: tf.linalg.lstsq(a, b32, l2_regularizer=0.1),
         lambda a: np.linalg.solve(a.T @ a + 0.1 * np.eye(2), a.T @ b),
         rng.normal(size=(3, 2)).astype(np.float32)),
        ("qr", lambda a: tf.concat([tf.reshape(t, [-1]) for t in tf.linalg.qr(a)], 0),
         lambda a: np.concatenate([t.reshape(-1) for t in np.linalg.qr(a)]),
         rng.normal(size=(2, 4)).astype(np.float32)),
        ("svd", lambda a: (lambda s, u, v: tf.concat([s, tf.reshape(u * u, [-1]),
                                                      tf.reshape(v * v, [-1])], 0))(
            *tf.linalg.svd(a)),
         lambda a: (lambda u, s, vh: np.concatenate([s, (u * u).reshape(-1),
                                                     (vh.T * vh.T).reshape(-1)]))(
            *np.linalg.svd(a, full_matrices=False)),
         rng.normal(size=(4, 3)).astype(np.float32)),
        ("eigh", lambda a: (lambda e, v: tf.concat([e, tf.reshape(v * v, [-1])], 0))(
            *tf.linalg.eigh(a)),
         lambda a: (lambda e, v: np.concatenate([e, (v * v).reshape(-1)]))(
            *np.linalg.eigh(a, UPLO="L")),
         rng.normal(size=(3, 3)).astype(np.float32)),
    ]


@each_backend
def test_gradients_match_central_differences():
    rng = np.random.default_rng(RNG_SEED + 2)
    for name, fn, ref, x in _cases(rng):
        weights = rng.normal(size=np.shape(ref(x.astype(np.float64))))
        variable = tf.Variable(x)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(fn(variable) * weights.astype(np.float32))
        got = tape.gradient(loss, variable).numpy()
        want = _numeric_grad(lambda v: float(np.sum(ref(v) * weights)), x.astype(np.float64))
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * np.abs(want).max(),
                                   err_msg=name)


@each_backend
def test_tf_function_replays_with_new_values():
    @tf.function
    def step(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            s = tf.linalg.svd(a, compute_uv=False)
            y = tf.reduce_sum(tf.linalg.solve(a, b)) + tf.reduce_sum(s) + tf.linalg.det(a)
        return y, tape.gradient(y, a)

    rng = np.random.default_rng(RNG_SEED + 3)
    for _ in range(3):
        a, b = _general(rng, (3, 3)), rng.normal(size=(3, 2)).astype(np.float32)
        a64 = a.astype(np.float64)
        y, g = step(tf.constant(a), tf.constant(b))
        x = np.linalg.solve(a64, b)
        u, _, vh = np.linalg.svd(a64)
        inv_t = np.linalg.inv(a64).T
        want = -inv_t @ np.ones((3, 2)) @ x.T + u @ vh + np.linalg.det(a64) * inv_t
        _close(y, x.sum() + np.linalg.svd(a64, compute_uv=False).sum() + np.linalg.det(a64))
        _close(g, want, 1e-3)
    with raises(tf.errors.InvalidArgumentError, match="not invertible"):
        step(tf.constant([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]]),
             tf.ones([3, 2]))


@each_backend
def test_edge_values_as_tensorflow():
    assert tf.linalg.det(tf.zeros([2, 0, 0])).numpy().tolist() == [1.0, 1.0]
    assert tf.linalg.inv(tf.zeros([2, 0, 0])).shape == (2, 0, 0)
    assert tf.linalg.logdet(tf.zeros([0, 0])).numpy() == 0.0
    assert tf.linalg.det([[1.0, 2.0], [2.0, 4.0]]).numpy() == 0.0
    sign, log_abs = tf.linalg.slogdet([[1.0, 2.0], [2.0, 4.0]])
    assert sign.numpy() == 0.0 and log_abs.numpy() == -np.inf
    # not positive definite: NaN on and below the diagonal (TensorFlow's CPU kernel)
    chol = tf.linalg.cholesky([[[1.0, 2.0], [2.0, 1.0]], [[4.0, 0.0], [0.0, 9.0]]]).numpy()
    assert np.isnan(chol[0]).tolist() == [[True, False], [True, True]] and chol[0, 0, 1] == 0
    np.testing.assert_array_equal(chol[1], [[2.0, 0.0], [0.0, 3.0]])
    got = tf.linalg.triangular_solve([[0.0, 0.0], [1.0, 1.0]], [[1.0], [1.0]]).numpy()
    assert got.reshape(-1).tolist() == [np.inf, -np.inf]
    s, u, v = tf.linalg.svd(tf.zeros([2, 0, 3]), full_matrices=True)
    assert (s.shape, u.shape, v.shape) == ((2, 0), (2, 0, 0), (2, 3, 3))
    with raises(tf.errors.InvalidArgumentError, match="Input is not invertible"):
        tf.linalg.inv([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
