"""Float32 accuracy of the transcendental ops on every backend: within a few ulp of
float64 numpy over sweeps of every exponent, and numpy's NaN, infinities, signed zeros
and subnormal handling. GPU builtins (WGSL's exp, log, pow; GLSL's too) are far from
that, so the shader bodies compute these themselves."""

import math

import numpy as np

import oracle
import texflow as tf
from harness import each_backend
from op_cases import BINARY, rng_for


def _op(name):
    """The public function of op `name`: tf.<name>, else under tf.math or tf.nn."""
    for space in (tf, tf.math, tf.nn):
        if hasattr(space, name):
            return getattr(space, name)
    raise AttributeError(f"no public function for op {name!r}")


def _run(fn, *args):
    with tf.scope():
        return fn(*args).numpy()


@each_backend
def test_tanh_errs_no_more_than_tensorflows_own():
    # GLSL's rational tanh trades accuracy for speed within TensorFlow 2.21's CPU tanh's
    # error: 6.14 ulp on every float32 in [2^-20, 9.1] (scripts/fit_tanh.py; GLSL 5.72 at
    # 6.0686445, its worst, included here; numpy's 1.37)
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-9.5, 9.5, 1 << 16), np.exp(rng.uniform(-15, 2.3, 1 << 16)),
                        [6.0686445, -6.0686445, 7.9, 0.625]]).astype(np.float32)
    got = tf.tanh(tf.array(x)).numpy().astype(np.float64)
    exact = np.tanh(x.astype(np.float64))
    err = np.abs(got - exact) / np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert err.max() <= 6.14, f"{err.max():.2f} ulp at x = {x[err.argmax()]!r}"


_ULP_REFERENCES = {
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "asinh": np.arcsinh, "acosh": oracle.acosh, "atanh": np.arctanh,
    "log_sigmoid": lambda x: -np.logaddexp(0.0, -x), "log1p": np.log1p,
    "softplus": lambda x: np.logaddexp(0.0, x), "sin": np.sin, "cos": np.cos,
    "atan2": np.arctan2, "xlogy": lambda x, y: np.where(x == 0, x, x * np.log(y)),
    "exp": np.exp, "log": np.log, "expm1": np.expm1, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)), "erf": np.vectorize(math.erf),
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "pow": np.power}


def _ulp_sweep(name, rng, n=1 << 14):
    """Float32 inputs for `name`: random bit patterns (every exponent), its domain densely,
    and values near 1 and near 0; subnormal inputs left out (GPUs flush them)."""
    lo, hi = {"asin": (-1, 1), "acos": (-1, 1), "atanh": (-1, 1), "acosh": (1, 30),
              "sinh": (-90, 90), "cosh": (-90, 90), "exp": (-104, 89), "expm1": (-104, 89),
              "sigmoid": (-90, 90), "erf": (-5, 5), "pow": (-40, 40)}.get(name, (-10, 10))
    near = np.exp(rng.uniform(-17, 0, n))
    with np.errstate(invalid="ignore"):
        x = np.concatenate([rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
                            .view(np.float32), rng.uniform(lo, hi, n), 1 - near, near - 1,
                            1 + near, np.exp(rng.uniform(-40, 4, n)), [4.712389, 1.5707964]])
        x = x.astype(np.float32)
    return x[np.isfinite(x) & ((np.abs(x) >= 2.0 ** -126) | (x == 0))]


def _ulp_error(op, args):
    """(float32 results, the float64 reference, its float32 rounding) of `op` on `args`;
    NaN and infinities checked to be exactly where the rounded reference has them."""
    with np.errstate(all="ignore"):
        exact = _ULP_REFERENCES[op](*[a.astype(np.float64) for a in args])
        rounded = exact.astype(np.float32)
    got = _run(_op(op), *[tf.array(a) for a in args]).astype(np.float64)
    special = ~np.isfinite(rounded)
    assert np.array_equal(np.isnan(got), np.isnan(rounded)), f"{op}: NaN where numpy has none"
    assert (got[special & ~np.isnan(rounded)] == rounded[special & ~np.isnan(rounded)]).all()
    return got, exact, rounded


def _ulps(got, exact, rounded):
    """|got - exact| in units of the last place of `rounded` (normal float32 values)."""
    return np.abs(got - exact) / 2.0 ** (np.frexp(rounded.astype(np.float64))[1] - 24)


@each_backend(op=sorted(_ULP_REFERENCES))
def test_math_within_a_few_ulp(op):
    # float32 kernels against float64 numpy on a wide sweep: every backend within 4.5 ulp
    # (measured, 2026-11-24: tan 4.3 on wgpu; TensorFlow 2.21's CPU: asin 4.3, atan 4.1,
    # log_sigmoid 6.8; WGSL's builtins were far off: exp 62 ulp at -85.3, log 6e6 near 1,
    # pow 159, elu 7.8); NaN and infinities exactly where float64 rounds to them
    rng = rng_for("ulp", op)
    x = _ulp_sweep(op, rng)
    args = [x, rng.permutation(_ulp_sweep(op, rng))[:x.size]] if op in BINARY else [x]
    args = [a[:min(v.size for v in args)] for a in args]
    got, exact, rounded = _ulp_error(op, args)
    ok = np.isfinite(rounded) & (np.abs(exact) >= 2.0 ** -126)  # subnormal results: flushed
    err = _ulps(got[ok], exact[ok], rounded[ok])
    worst = int(np.argmax(err))
    assert err[worst] <= 4.5, f"{op}: {err[worst]:.2f} ulp at {[a[ok][worst] for a in args]}"


@each_backend(op=sorted(set(_ULP_REFERENCES) - set(BINARY)))
def test_math_edges_as_numpy(op):
    # NaN, infinities, signed zeros, the largest floats and subnormal inputs: NaN,
    # infinities and zeros (with their sign) exactly as numpy's float32 results, the rest
    # within 4.5 ulp (subnormal results aside: GPUs flush them). A subnormal input is
    # read from its bits by log (SwiftShader flushes it to 0 in arithmetic: log read
    # -inf for 1e-40 and for -1e-40); sqrt and rsqrt of a positive one are left out
    # (scaling it would cost every sqrt), their negative ones give NaN
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3.4028235e38, -3.4028235e38,
                  1.1754944e-38, -1.1754944e-38, 1e-45, -1e-45, 1e-40, -1e-40, 88.72,
                  88.73, -103.5, -104.5, 1.0, -1.0], np.float32)
    if op in ("sqrt", "rsqrt"):
        x = x[~((x > 0) & (x < 2.0 ** -126))]
    got, exact, rounded = _ulp_error(op, [x])
    zero = rounded == 0
    assert (got[zero] == 0).all() and (np.signbit(got[zero]) == np.signbit(rounded[zero])).all(), \
        f"{op}: {got[zero]} where numpy has {rounded[zero]} at {x[zero]}"
    ok = np.isfinite(rounded) & (np.abs(exact) >= 2.0 ** -126)
    err = _ulps(got[ok], exact[ok], rounded[ok])
    assert (err <= 4.5).all(), f"{op}: {err.max():.2f} ulp at {x[ok][np.argmax(err)]}"


@each_backend
def test_erfc_tail_within_a_few_ulp():
    # erfc's continued fraction times exp(-x^2) from 1 to 10 (the builtin exp made it 69
    # ulp at 8.97); below 1 it is 1 - erf(x), within 11 ulp near 1 where erfc is 0.16
    x = np.random.default_rng(7).uniform(1, 10, 1 << 15).astype(np.float32)
    exact = np.vectorize(math.erfc)(x.astype(np.float64))
    got = tf.math.erfc(tf.array(x)).numpy().astype(np.float64)
    ok = exact >= 2.0 ** -126
    err = np.abs(got - exact)[ok] / np.spacing(exact[ok].astype(np.float32)).astype(np.float64)
    assert err.max() <= 4.5, f"{err.max():.2f} ulp at x = {x[ok][np.argmax(err)]!r}"
