#!/usr/bin/env python3
"""Fits the tanh approximations of the shader op bodies and checks each, computed in
float32 as the shader does, against float64 tanh.

Run by hand (numpy only): `.venv/bin/python scripts/fit_tanh.py [--all]`. It prints
  R(z) = P(z) / Q(z): GLSL's `op_tanh` (shaders/glsl/unary_ops.glsl), tanh(x) = x R(x^2)
        for |x| < 7.9 and +-1 above, P of degree 6 and Q of degree 3 with P(0) = Q(0)
        = 1 (so tiny x give x exactly); relative error of R;
  S(z): WGSL's `op_tanh` (shaders/wgsl/unary_ops.wgsl) below |x| = 0.625, tanh(x) = x +
        x^3 S(x^2) (above: 1 - 2 / (e^2|x| + 1) with the builtin exp), relative error
        weighted so that the error it adds to tanh is minimal;
the coefficients (lowest degree first; R's as the float32 values the shader spells),
each fit's largest error, and each float32 formula's largest error in ulp over a
million and a half values (numpy's float32 tanh on the same values for comparison).
`--all` also checks GLSL's formula on every float32 in [2^-20, 9.1] (about 200 million
values, a minute; below 2^-20 it gives x, which is tanh(x) rounded; above, 1).

S is a weighted minimax by Lawson's iteration (a least-squares fit whose weights grow
where the error is largest) on Chebyshev points; R the same on the linearised problem
P(z) - f(z) Q(z) = 0, divided by the previous round's f Q so that it measures R's
relative error (Loeb's iteration).
"""

import sys

import numpy as np

CUT = 0.625    # WGSL: the polynomial below, exp above
LIMIT = 7.9    # GLSL: tanh rounds to within 4.6 ulp of 1 from here on; the shader gives 1
F32 = np.float32


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


def rational_minimax(deg_p, deg_q, x_max, points=6000, rounds=80):
    """P, Q (P(0) = Q(0) = 1; float64, lowest degree first) of tanh(x) / x ~ P(x^2) /
    Q(x^2) on |x| <= x_max, nearest in the largest relative error, and that error."""
    x = x_max * (np.cos(np.pi * (np.arange(points) + 0.5) / points) + 1) / 2
    z = x * x
    f = tanh_over_x(z)
    u = z / (x_max * x_max)  # scaled to [0, 1] so that the columns are comparable
    up = u[:, None] ** np.arange(1, deg_p + 1)
    uq = u[:, None] ** np.arange(1, deg_q + 1)
    system = np.concatenate([up, -f[:, None] * uq], axis=1)
    w, q = np.ones(points), np.ones(points)
    for _ in range(rounds):
        sw = np.sqrt(w) / (f * q)
        c = np.linalg.lstsq(system * sw[:, None], (f - 1) * sw, rcond=None)[0]
        q = 1 + uq @ c[deg_p:]
        err = np.abs((1 + up @ c[:deg_p]) / q - f) / f
        w = w * err / np.sum(w * err)
    scale = (x_max * x_max) ** -np.arange(1.0, max(deg_p, deg_q) + 1)
    p = np.concatenate([[1], c[:deg_p] * scale[:deg_p]])
    q = np.concatenate([[1], c[deg_p:] * scale[:deg_q]])
    return p, q, err.max()


def tanh_over_x(z):
    """tanh(x) / x for z = x^2, its Taylor series near 0."""
    x = np.sqrt(z)
    with np.errstate(all="ignore"):
        ratio = np.tanh(x) / x
    return np.where(z < 1e-6, 1 - z / 3 + 2 / 15 * z ** 2 - 17 / 315 * z ** 3, ratio)


def tanh_s(z):
    """(tanh(x) / x - 1) / x^2 for z = x^2, its Taylor series near 0."""
    x = np.sqrt(np.maximum(z, 1e-300))
    series = -1 / 3 + 2 / 15 * z - 17 / 315 * z ** 2 + 62 / 2835 * z ** 3
    return np.where(z < 1e-4, series, (np.tanh(x) / x - 1) / np.maximum(z, 1e-300))


def horner(coefficients, x):
    p = F32(coefficients[-1])
    for c in coefficients[-2::-1]:
        p = p * x + F32(c)
    return p


def glsl_tanh32(x, p_coef, q_coef):
    """GLSL's op_tanh in float32 numpy: (|x| P(x^2)) / Q(x^2), 1 from 7.9 on (a NaN
    fails the shader's unsigned range test and takes the quotient, a NaN), x's sign."""
    a = np.abs(x)
    z = a * a
    r = (a * horner(p_coef, z)) / horner(q_coef, z)
    return np.copysign(np.where(a >= F32(LIMIT), F32(1), r), x)


def wgsl_tanh32(x, s_coef):
    """WGSL's op_tanh in float32 numpy."""
    a = np.abs(x)
    z = a * a
    small = a + a * (z * horner(s_coef, z))
    big = F32(1) - F32(2) / (np.exp(F32(2) * np.minimum(a, F32(10))) + F32(1))
    return np.copysign(np.where(a < F32(CUT), small, big), x)


def ulp_error(x, got):
    """|got - tanh(x)| in units in the last place of float32 tanh(x)."""
    exact = np.tanh(x.astype(np.float64))
    ulp = np.spacing(np.abs(exact).astype(F32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / ulp


def every_float(lo, hi, formula):
    """The largest ulp error of `formula` over every float32 in [lo, hi], and where."""
    worst, at = 0.0, None
    first, last = (int(np.array(v, F32).view(np.int32)) for v in (lo, hi))
    for start in range(first, last + 1, 1 << 22):
        x = np.arange(start, min(start + (1 << 22), last + 1), dtype=np.int32).view(F32)
        with np.errstate(all="ignore"):
            err = ulp_error(x, formula(x))
        if err.max() > worst:
            worst, at = err.max(), x[err.argmax()]
    return worst, at


def main(args):
    p_coef, q_coef, r_err = rational_minimax(6, 3, LIMIT)
    p_coef, q_coef = p_coef.astype(F32), q_coef.astype(F32)
    s_coef, s_err = minimax(4, 0, CUT * CUT, tanh_s, lambda z: z)
    print("P(z) =", [f"{c:.9g}" for c in p_coef])
    print("Q(z) =", [f"{c:.9g}" for c in q_coef], f"P/Q's relative error <= {r_err:.2e}")
    print("S(z) =", [float(c) for c in s_coef], f"error <= {s_err:.2e}")
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(size=1 << 19), rng.uniform(-12, 12, 1 << 19),
                        rng.uniform(CUT - 0.05, CUT + 0.05, 1 << 18),
                        np.exp(rng.uniform(-85, 3, 1 << 18))]).astype(F32)
    print(f"numpy's float32 tanh: largest error {ulp_error(x, np.tanh(x)).max():.2f} ulp")
    edges = np.array([np.nan, -0.0, 0.0, -30.0, 30.0, np.inf], F32)
    for name, formula in (("GLSL", lambda v: glsl_tanh32(v, p_coef, q_coef)),
                          ("WGSL", lambda v: wgsl_tanh32(v, s_coef))):
        with np.errstate(all="ignore"):
            err = ulp_error(x, formula(x))
            at_edges = formula(edges)
        print(f"{name} float32 tanh: largest error {err.max():.2f} ulp at x = "
              f"{x[err.argmax()]!r}; of nan, -0, 0, -30, 30, inf: {at_edges}, "
              f"signs {np.signbit(at_edges)}")
    if "--all" in args:
        worst, at = every_float(2.0 ** -20, 9.1,
                                lambda v: glsl_tanh32(v, p_coef, q_coef))
        print(f"GLSL float32 tanh on every float32 in [2^-20, 9.1]: largest error "
              f"{worst:.2f} ulp at x = {at!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
