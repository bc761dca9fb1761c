"""Every op's gradient against finite differences, on every backend.

For each row of tests/grad_cases.py the loss is sum(f(inputs) * r) with a
fixed random r; the tape's gradient for each input is compared with the
central difference of the loss along random directions, computed with the
same backend's forward ops (as jax.test_util.check_grads does).
"""

import numpy as np

import texflow as tf
from grad_cases import GRAD_CASES, make_inputs
from harness import each_backend
from op_cases import rng_for

EPS = 1e-2


def _loss(fn, arrays, r):
    with tf.scope():
        return float(np.sum(fn(tf, *[tf.array(a) for a in arrays]).numpy().astype(np.float64)
                            * r))


@each_backend(case=sorted(GRAD_CASES))
def test_gradient_matches_finite_differences(case):
    fn, shapes, domain = GRAD_CASES[case]
    rng = rng_for("grad", case)
    xs = make_inputs(shapes, domain, rng)
    with tf.scope():
        out_shape = fn(tf, *[tf.array(x) for x in xs]).shape
    r = rng.normal(size=out_shape)
    with tf.scope():
        arrays = [tf.array(x) for x in xs]
        with tf.GradientTape() as tape:
            for a in arrays:
                tape.watch(a)
            loss = tf.sum(tf.mul(fn(tf, *arrays), tf.array(r.astype(np.float32))))
        grads = [g.numpy() if g is not None else None for g in tape.gradient(loss, arrays)]
    for i, (x, g) in enumerate(zip(xs, grads)):
        assert g is not None, f"{case}: no gradient for input {i}"
        assert g.shape == x.shape, f"{case}: gradient {i} has shape {g.shape}, not {x.shape}"
        for trial in range(2):
            v = rng.normal(size=x.shape).astype(np.float32)
            if domain in ("away", "distinct", "positive"):
                v *= 0.5  # stay inside the domain
            plus = [a + EPS * v if k == i else a for k, a in enumerate(xs)]
            minus = [a - EPS * v if k == i else a for k, a in enumerate(xs)]
            numeric = (_loss(fn, plus, r) - _loss(fn, minus, r)) / (2 * EPS)
            analytic = float(np.sum(g.astype(np.float64) * v))
            tol = 2e-2 * max(1.0, abs(numeric), abs(analytic))
            assert abs(numeric - analytic) <= tol, (
                f"{case}: input {i} direction {trial}: tape gives {analytic:.6g}, "
                f"finite differences {numeric:.6g}")


@each_backend
def test_tape_semantics():
    w = tf.Variable([2.0, 3.0], name="w")
    frozen = tf.Variable([1.0, 1.0], trainable=False, name="frozen")
    x = tf.array([1.0, -1.0])
    with tf.GradientTape() as tape:
        loss = tf.sum(w * w * frozen + x)
    gw, gf, gx = tape.gradient(loss, [w, frozen, x])
    assert gw.tolist() == [4.0, 6.0]
    assert gf is None and gx is None, "unwatched sources give None"
    try:
        tape.gradient(loss, [w])
        raise AssertionError("a second gradient call on a non-persistent tape must raise")
    except RuntimeError as e:  # TensorFlow's class (and a TexflowError)
        assert isinstance(e, tf.TexflowError) and "one set of gradients" in str(e)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.exp(x)
        z = tf.sum(y * 2.0)
    assert np.allclose(tape.gradient(z, x).numpy(), 2 * np.exp([1.0, -1.0]), rtol=1e-5)
    assert np.allclose(tape.gradient(y, x, output_gradients=tf.ones([2])).numpy(),
                       np.exp([1.0, -1.0]), rtol=1e-5)
    unrelated = tf.Variable([5.0])
    assert tape.gradient(z, unrelated) is None
    # a non-scalar target without output_gradients: the gradient of its sum, as TF's
    assert np.allclose(tape.gradient(y, x).numpy(), np.exp([1.0, -1.0]), rtol=1e-5)
    try:
        tape.gradient(y, x, output_gradients=tf.ones([3]))
        raise AssertionError("output_gradients of another shape than the target must raise")
    except tf.ShapeError as e:
        assert "[3]" in str(e) and "[2]" in str(e)
    tape.release()
