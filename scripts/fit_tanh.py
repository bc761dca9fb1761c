#!/usr/bin/env python3
"""Fits the two polynomials of GLSL's `op_tanh` (shaders/glsl/unary_ops.glsl) and
checks the result, computed in float32 as the shader does, against float64 tanh.

Run by hand (numpy only): `.venv/bin/python scripts/fit_tanh.py`. It prints
  P(z): tanh(x) = x + x^3 P(x^2) on |x| < 0.625, relative error weighted so that
        the error it adds to tanh is minimal;
  E(r): 2^r on [0, 1), relative error (degree 5: two operations fewer than degree 6
        on [-1/2, 1/2] for 1.8 ulp instead of 1.6 in the whole formula);
the coefficients (lowest degree first), each fit's largest error, and the largest
error in ulp of the whole float32 formula over a million and a half values.

Each fit is a weighted minimax by Lawson's iteration (a least-squares fit whose
weights grow where the error is largest) on Chebyshev points.
"""

import numpy as np

CUT = 0.625


def minimax(deg, lo, hi, f, weight, points=4000, rounds=60):
    """Coefficients of the degree-`deg` polynomial nearest `f` on [lo, hi] in the
    largest `weight`-ed error, and that error."""
    z = lo + (hi - lo) * (np.cos(np.pi * (np.arange(points) + 0.5) / points) + 1) / 2
    y, wz = f(z), weight(z)
    vander = np.vander(z, deg + 1, increasing=True)
    w = np.ones(points)
    for _ in range(rounds):
        sw = np.sqrt(w) * wz
        c = np.linalg.lstsq(vander * sw[:, None], y * sw, rcond=None)[0]
        err = np.abs(vander @ c - y) * wz
        w = w * err / np.sum(w * err)
    return c, err.max()


def tanh_p(z):
    """(tanh(x) / x - 1) / x^2 for z = x^2, its Taylor series near 0."""
    x = np.sqrt(np.maximum(z, 1e-300))
    series = -1 / 3 + 2 / 15 * z - 17 / 315 * z ** 2 + 62 / 2835 * z ** 3
    return np.where(z < 1e-4, series, (np.tanh(x) / x - 1) / np.maximum(z, 1e-300))


def horner(coefficients, x):
    p = np.float32(coefficients[-1])
    for c in coefficients[-2::-1]:
        p = p * x + np.float32(c)
    return p


def tanh32(x, p_coef, e_coef):
    """The shader's op_tanh in float32 numpy."""
    f = np.float32
    a = np.abs(x)
    z = a * a
    small = a + a * (z * horner(p_coef, z))
    t = np.minimum(a, f(10)) * f(2 / np.log(2))
    n = np.floor(t)
    e = horner(e_coef, t - n) * np.ldexp(f(1), n.astype(np.int32)).astype(f)
    big = f(1) - f(2) / (e + f(1))
    # a NaN fails the test and takes `small`, a NaN too (the shader has no NaN test)
    return np.copysign(np.where(a >= f(CUT), big, small), x)


def main():
    p_coef, p_err = minimax(4, 0, CUT * CUT, tanh_p, lambda z: z)
    e_coef, e_err = minimax(5, 0, 1, lambda r: 2.0 ** r, lambda r: 2.0 ** -r)
    print("P(z) =", [float(c) for c in p_coef], f"error <= {p_err:.2e}")
    print("E(r) =", [float(c) for c in e_coef], f"error <= {e_err:.2e}")
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(size=1 << 19), rng.uniform(-12, 12, 1 << 19),
                        rng.uniform(CUT - 0.05, CUT + 0.05, 1 << 18),
                        np.exp(rng.uniform(-85, 3, 1 << 18))]).astype(np.float32)
    exact = np.tanh(x.astype(np.float64))
    with np.errstate(all="ignore"):
        got = tanh32(x, p_coef, e_coef).astype(np.float64)
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    err = np.abs(got - exact) / ulp
    print(f"float32 tanh: largest error {err.max():.2f} ulp at x = {x[err.argmax()]!r} "
          f"(numpy's float32 tanh: "
          f"{(np.abs(np.tanh(x).astype(np.float64) - exact) / ulp).max():.2f} ulp)")
    with np.errstate(invalid="ignore"):
        edges = tanh32(np.array([np.nan, -0.0, 0.0, -30.0, 30.0], np.float32), p_coef, e_coef)
    print("tanh of nan, -0, 0, -30, 30:", edges, "signs", np.signbit(edges))


if __name__ == "__main__":
    main()
