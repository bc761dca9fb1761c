// Unary op bodies: `op_<name>` (float32 in and out) or `op_<name>_f32` and
// `op_<name>_i32` for ops that keep the input dtype. program.py adds the
// indexing around them.

fn op_neg_f32(x: f32) -> f32 { return -x; }
fn op_neg_i32(x: i32) -> i32 { return -x; }  // wraps at INT32_MIN, as numpy

fn op_abs_f32(x: f32) -> f32 { return abs(x); }
fn op_abs_i32(x: i32) -> i32 { return abs(x); }

fn op_square_f32(x: f32) -> f32 { return x * x; }
fn op_square_i32(x: i32) -> i32 { return x * x; }

fn op_sign_f32(x: f32) -> f32 {
  if (is_nan_f32(x)) { return x; }
  return select(select(0.0, -1.0, x < 0.0), 1.0, x > 0.0);
}
fn op_sign_i32(x: i32) -> i32 { return select(select(0, -1, x < 0), 1, x > 0); }

// max() need not propagate NaN, and NVIDIA's Vulkan compiler turns the comparison
// below into a max that drops it (relu(NaN) read 0): NaN is chosen by its bits.
fn op_relu_f32(x: f32) -> f32 { return select(select(x, 0.0, x < 0.0), x, is_nan_f32(x)); }
fn op_relu_i32(x: i32) -> i32 { return max(x, 0); }

fn op_floor_f32(x: f32) -> f32 { return floor(x); }
fn op_floor_i32(x: i32) -> i32 { return x; }

fn op_ceil_f32(x: f32) -> f32 { return ceil(x); }
fn op_ceil_i32(x: i32) -> i32 { return x; }

// The prelude's exp_f32 (about 1 ulp, branch-free): 0 below -104, inf above 88.72.
fn op_exp(x: f32) -> f32 { return exp_f32(x); }

// The prelude's log_sub_f32 with the edges as numpy's, tested on the bits (SwiftShader
// flushes subnormals to 0, so x < 0 would miss a negative one): NaN below 0, -inf at +-0,
// inf at inf. The edges are select()s, not if/return, and bool | (every operand
// evaluated), not ||: branches cost SwiftShader about a copy launch's time.
fn op_log(x: f32) -> f32 {
  let zero = (bitcast<u32>(x) & 0x7fffffffu) == 0u;
  let r = select(select(log_sub_f32(x), -inf_f32(), zero), x, is_inf_f32(x));
  return select(r, nan_f32(), (bitcast<u32>(x) > 0x80000000u) | is_nan_f32(x));
}

// +-0 gives itself, as IEEE sqrt; a negative x (subnormal ones included) gives NaN. The
// edges on the bits: SwiftShader flushes a subnormal to 0, so x == 0 holds for one.
fn op_sqrt(x: f32) -> f32 {
  let zero = (bitcast<u32>(x) & 0x7fffffffu) == 0u;
  let r = select(sqrt(x), nan_f32(), (bitcast<u32>(x) > 0x80000000u) | is_nan_f32(x));
  return select(r, x, zero | (bitcast<u32>(x) == 0x7f800000u));
}

fn op_rsqrt(x: f32) -> f32 {
  let zero = (bitcast<u32>(x) & 0x7fffffffu) == 0u;
  let r = select(1.0 / sqrt(x), 0.0, bitcast<u32>(x) == 0x7f800000u);
  return select(select(r, copysign_f32(inf_f32(), x), zero), nan_f32(),
                (bitcast<u32>(x) > 0x80000000u) | is_nan_f32(x));
}

// e^x - 1 to about 1 ulp, branch-free: x = k ln2 + r as in exp_f32, q = e^r - 1 by its
// Taylor series (no cancellation near 0: k = 0 there and q is the result), then
// 2^k q + (2^k - 1), exact but for the last rounding while 2^k is finite; k = 128
// (x from 88.4 on) takes (1 + q) 2^k, whose - 1 no longer shows. -1 from -104 down;
// x itself at +-0 (keeping -0) and NaN.
fn expm1_f32(x: f32) -> f32 {
  let c = clamp(x, -104.0, 89.0);
  let k = floor(c * 1.4426950408889634 + 0.5);
  let r = (c - k * 0.693145751953125) - k * 1.4286068202862268e-06;
  let q = r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0
      + r * (1.0 / 720.0 + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))))));
  let k1 = i32(k) >> 1u;
  let s1 = bitcast<f32>(u32(k1 + 127) << 23u);
  let s2 = bitcast<f32>(u32(i32(k) - k1 + 127) << 23u);
  let t = s1 * s2;
  let e = select(t * q + (t - 1.0), ((1.0 + q) * s1) * s2, k > 127.0);
  return select(select(e, -1.0, x < -104.0), x, is_nan_f32(x) | (x == 0.0));
}

// tanh, branch-free as GLSL's (shaders/glsl/unary_ops.glsl), with a polynomial S below
// 0.625 (scripts/fit_tanh.py) and exp above (1 - 2 / (e^2|x| + 1), |x| capped at 10
// where tanh is 1 in float32); tanh(-0) = -0. The builtin exp, not exp_f32: its error
// (16 ulp at 44.7 on lavapipe) shrinks here by about 2 / (e^2|x| + 1), to 2.2 ulp of tanh
// at worst (1.9 on SwiftShader), and exp_f32 made the launch 1.6x as costly on
// SwiftShader (GPU-process CPU, 2026-11-24) and the fused 8-op chain's 1.6x too.
fn op_tanh(x: f32) -> f32 {
  let a = abs(x);
  let z = a * a;
  let p = (((-0.00571703656148512 * z + 0.02065057900387043) * z - 0.05374349526142337)
      * z + 0.13331491248514818) * z - 0.3333328392359073;
  let big = 1.0 - 2.0 / (exp(2.0 * min(a, 10.0)) + 1.0);
  let m = select(big, a + a * (z * p), a < 0.625);
  return select(copysign_f32(m, x), x, is_nan_f32(x));
}

// exp of -|x| only, so no overflow for large |x|; branch-free.
fn op_sigmoid(x: f32) -> f32 {
  let z = exp_f32(-abs(x));
  return select(select(z, 1.0, x >= 0.0) / (1.0 + z), x, is_nan_f32(x));
}

fn op_elu(x: f32) -> f32 { return select(expm1_f32(x), x, x > 0.0); }

fn op_sin(x: f32) -> f32 {
  if (!is_finite_f32(x)) { return nan_f32(); }
  return sin_f32(x);
}

fn op_cos(x: f32) -> f32 {
  if (!is_finite_f32(x)) { return nan_f32(); }
  return cos_f32(x);
}

fn op_is_nan(x: f32) -> bool { return is_nan_f32(x); }
fn op_is_finite(x: f32) -> bool { return is_finite_f32(x); }
fn op_logical_not(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0u; }

// sin and cos with Cody-Waite reduction by pi/4 (pi/4 split in four parts, the first
// three so y * part is exact: tan near its poles needs the fourth) and minimax polynomials on [-pi/4, pi/4]: the builtins
// only promise an absolute error of 2^-11 on [-pi, pi].
fn sin_poly(r: f32, z: f32) -> f32 {
  return ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
}

fn cos_poly(z: f32) -> f32 {
  return ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) *
         z * z - 0.5 * z + 1.0;
}

// The full 64-bit product a * b as (high, low) words, from 16-bit halves.
fn mul_wide_u32(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p01 = a0 * b1; let p10 = a1 * b0;
  let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>(a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u),
                   ((a0 * b0) & 0xffffu) | (mid << 16u));
}

// Payne-Hanek reduction for large |x| (where y * pi/4 is no longer exact): the
// 24-bit mantissa times a 96-bit window of 2/pi's binary digits gives x * 2/pi
// modulo 4 with about 70 bits of fraction.
fn octant_large_f32(ax: f32) -> vec2<f32> {
  // 32 zero bits, then the first 224 bits of 2/pi.
  var t = array<u32, 8>(0u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
                        0x3c439041u, 0xfe5163abu);
  let bits = bitcast<u32>(ax);
  let m = (bits & 0x7fffffu) | 0x800000u;
  let s = (bits >> 23u) - 120u;  // biased exponent - 150 + 30: first window bit
  let w = s / 32u;
  let sh = s % 32u;
  var win: array<u32, 3>;
  for (var k = 0u; k < 3u; k = k + 1u) {
    let next = select(t[w + k + 1u] >> (32u - sh), 0u, sh == 0u);
    win[k] = (t[w + k] << sh) | next;
  }
  let p2 = mul_wide_u32(m, win[2]);
  let p1 = mul_wide_u32(m, win[1]);
  let r1 = p1.y + p2.x;
  let r0 = win[0] * m + p1.x + select(0u, 1u, r1 < p1.y);
  // r0's top two bits are the quadrant; the rest, then r1, the fraction: from 1/2 on,
  // 1 - it is taken in integers (in floats, the rounding of f cost tan(5.4e7) 2e-3).
  var q = r0 >> 30u;
  var hi = r0 & 0x3fffffffu;
  var lo = r1;
  let up = hi >= 0x20000000u;
  if (up) {
    lo = ~r1 + 1u;
    hi = (~hi & 0x3fffffffu) + select(0u, 1u, r1 == 0u);
    q = q + 1u;
  }
  let f = f32(hi) * 9.313225746154785e-10 + f32(lo) * 2.168404344971009e-19;
  return vec2<f32>(f32(2u * (q & 3u)), select(f, -f, up) * 1.5707963267948966);
}

// The octant of |x| rounded up to even, and the reduced argument: y times the parts of
// pi/4 is exact while y < 2^13 (the second part has 11 bits), so up to 6000.
fn octant_f32(ax: f32) -> vec2<f32> {
  if (ax > 6000.0) { return octant_large_f32(ax); }
  let q = floor(ax * 1.27323954473516);
  let y = q + (q - 2.0 * floor(q * 0.5));
  let r = (((ax - y * 0.78515625) - y * 2.4187564849853515625e-4) - y * 3.7747668102383614e-8)
      - y * 1.2816720341285448e-12;
  return vec2<f32>(y - 8.0 * floor(y * 0.125), r);
}

fn sin_f32(x: f32) -> f32 {
  let o = octant_f32(abs(x));
  var j = u32(o.x);
  var s = select(1.0, -1.0, bitcast<u32>(x) >= 0x80000000u);  // sin(-0) = -0
  if (j > 3u) { s = -s; j = j - 4u; }
  let z = o.y * o.y;
  return s * select(sin_poly(o.y, z), cos_poly(z), j == 2u);
}

fn cos_f32(x: f32) -> f32 {
  let o = octant_f32(abs(x));
  var j = u32(o.x);
  var s = 1.0;
  if (j > 3u) { s = -s; j = j - 4u; }
  if (j > 1u) { s = -s; }
  let z = o.y * o.y;
  return s * select(cos_poly(z), sin_poly(o.y, z), j == 2u);
}

// log(1 + x) = 2 atanh(f), f = x / (2 + x), by log_f32's series (prelude.wgsl) where
// |f| <= 0.172 (1 + x in [sqrt(1/2), sqrt(2)]): no cancellation to guard. The former
// log(u) x / (u - 1) with u = 1 + x needed u - 1 exact, and lavapipe folds (1 + x) - 1
// to x (log1p(6e-8) read 1.2e-7). Outside that range 1 + x rounds harmlessly, or not at
// all, and log_f32 is accurate where the builtin log is not promised to be.
fn op_log1p(x: f32) -> f32 {
  if (is_nan_f32(x) || x < -1.0) { return nan_f32(); }
  // x itself below 2^-25 (within a quarter ulp), where x / 2 could be a flushed denormal
  if (is_inf_f32(x) || abs(x) < 2.9802322e-8) { return x; }
  if (x > -0.29289321881345254 && x < 0.41421356237309503) {
    let f = x / (2.0 + x);
    return log_series_f32(f);
  }
  if (x == -1.0) { return -inf_f32(); }
  return log_f32(1.0 + x);
}

fn op_expm1(x: f32) -> f32 { return expm1_f32(x); }

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0. exp_f32, not the
// builtin, whose error reached 57 ulp at -75 (SwiftShader).
fn op_softplus(x: f32) -> f32 {
  if (is_nan_f32(x)) { return x; }
  let z = op_log1p(exp_f32(-abs(x)));
  return select(z, x + z, x > 0.0);
}

// x / (|x| + 1); infinities give NaN (inf / inf), as TensorFlow's.
fn op_softsign(x: f32) -> f32 {
  if (is_nan_f32(x) || is_inf_f32(x)) { return nan_f32(); }
  return x / (abs(x) + 1.0);
}

fn op_relu6_f32(x: f32) -> f32 {
  if (is_nan_f32(x)) { return x; }
  return select(select(x, 6.0, x > 6.0), 0.0, x < 0.0);
}
fn op_relu6_i32(x: i32) -> i32 { return clamp(x, 0, 6); }

// erf: its Taylor series for |x| < 1 (12 terms), 1 - erfc by erfc's continued
// fraction (40 levels) up to 4, where erf rounds to 1 in float32.
fn op_erf(x: f32) -> f32 {
  if (is_nan_f32(x)) { return x; }
  let a = abs(x);
  if (a < 1.0) {
    let z = x * x;
    var p = -1.0 / 918086400.0;  // (-1)^k / (k! (2k + 1)), k = 11 down to 0
    p = p * z + 1.0 / 76204800.0; p = p * z - 1.0 / 6894720.0; p = p * z + 1.0 / 685440.0;
    p = p * z - 1.0 / 75600.0; p = p * z + 1.0 / 9360.0; p = p * z - 1.0 / 1320.0;
    p = p * z + 1.0 / 216.0; p = p * z - 1.0 / 42.0; p = p * z + 0.1;
    p = p * z - 1.0 / 3.0; p = p * z + 1.0;
    return 1.1283791670955126 * x * p;
  }
  var r = 1.0;
  if (a < 4.0) {
    var t = 0.0;
    for (var k = 40; k >= 1; k = k - 1) { t = 0.5 * f32(k) / (a + t); }
    r = 1.0 - exp_f32(-a * a) * 0.5641895835477563 / (a + t);
  }
  return copysign_f32(r, x);
}

fn op_invert_i32(x: i32) -> i32 { return ~x; }

// erfc: 1 - erf(x) below 1 (no cancellation there: erfc >= 0.15), erfc's continued
// fraction above, with exp(-x^2) as exp(-h^2) exp(-(x - h)(x + h)) for h = x cut to
// 12 bits (h^2 is exact), so the rounding of x^2 does not cost relative accuracy.
fn op_erfc(x: f32) -> f32 {
  if (is_nan_f32(x)) { return x; }
  if (x < 1.0) { return 1.0 - op_erf(x); }
  if (x > 10.0) { return 0.0; }
  var t = 0.0;
  for (var k = 40; k >= 1; k = k - 1) { t = 0.5 * f32(k) / (x + t); }
  let h = bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
  let e = exp_f32(-h * h) * exp_f32(-(x - h) * (x + h));
  return e * 0.5641895835477563 / (x + t);
}

// -- trigonometric and hyperbolic functions: float32 to a few ulp on every input, with
// the edges (NaN, infinities, signed zeros, out-of-domain inputs) given explicitly. As
// GLSL's (shaders/glsl/unary_ops.glsl), on the reductions and polynomials above.

// tan: sin(r) / cos(r) of |x| reduced by pi/4 (octant_f32), -cos(r) / sin(r) in odd
// quadrants; x's sign.
fn op_tan(x: f32) -> f32 {
  if (!is_finite_f32(x)) { return nan_f32(); }
  let o = octant_f32(abs(x));
  let z = o.y * o.y;
  let s = sin_poly(o.y, z);
  let c = cos_poly(z);
  let t = select(s / c, -c / s, (u32(o.x) & 2u) != 0u);
  return select(select(t, -t, x < 0.0), x, x == 0.0);
}

// sinh: its Taylor series below 1, (e^a - e^-a) / 2 up to 88, e^(a/2) e^(a/2) / 2 above
// (overflowing only where sinh does); x's sign.
fn op_sinh(x: f32) -> f32 {
  if (is_nan_f32(x) || x == 0.0) { return x; }
  let a = abs(x);
  var r: f32;
  if (a < 1.0) {
    let z = a * a;
    r = a + a * z * (0.16666666666666666 + z * (0.008333333333333333
        + z * (1.984126984126984e-4 + z * (2.7557319223985893e-6
        + z * (2.505210838544172e-8 + z * 1.6059043836821613e-10)))));
  } else if (a < 88.0) {
    let e = exp_f32(a);
    r = 0.5 * e - 0.5 / e;
  } else {
    let h = exp_f32(0.5 * a);
    r = (0.5 * h) * h;
  }
  return copysign_f32(r, x);
}

// cosh: (e^a + e^-a) / 2, and e^(a/2) e^(a/2) / 2 from 88 on.
fn op_cosh(x: f32) -> f32 {
  if (is_nan_f32(x)) { return x; }
  let a = abs(x);
  if (a < 88.0) {
    let e = exp_f32(a);
    return 0.5 * e + 0.5 / e;
  }
  let h = exp_f32(0.5 * a);
  return (0.5 * h) * h;
}

// asin of s in [0, 0.5], z = s * s: s + s z P(z) (Cephes' asinf coefficients).
fn asin_poly_f32(s: f32, z: f32) -> f32 {
  let p = (((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z
      + 7.4953002686e-2) * z + 1.6666752422e-1;
  return s + s * z * p;
}

// asin(a) = pi/2 - 2 asin(sqrt((1 - a) / 2)) above 0.5 (1 - a is exact there), pi/2 in
// two parts; NaN outside [-1, 1].
fn op_asin(x: f32) -> f32 {
  let a = abs(x);
  if (is_nan_f32(x) || a > 1.0) { return nan_f32(); }
  if (x == 0.0) { return x; }
  if (a <= 0.5) { return copysign_f32(asin_poly_f32(a, a * a), x); }
  let z = 0.5 * (1.0 - a);
  let p = asin_poly_f32(sqrt(z), z);
  return copysign_f32((1.5707963705062866 - 2.0 * p) - 4.371139000186243e-8, x);
}

// acos: 2 asin(sqrt((1 - x) / 2)) above 0.5, pi minus that below -0.5, pi/2 - asin(x)
// between (pi and pi/2 in two parts).
fn op_acos(x: f32) -> f32 {
  let a = abs(x);
  if (is_nan_f32(x) || a > 1.0) { return nan_f32(); }
  if (a <= 0.5) {
    return (1.5707963705062866 - copysign_f32(asin_poly_f32(a, a * a), x))
        - 4.371139000186243e-8;
  }
  let z = 0.5 * (1.0 - a);
  let p = asin_poly_f32(sqrt(z), z);
  return select((3.1415927410125732 - 2.0 * p) - 8.742278000372485e-8, 2.0 * p, x > 0.0);
}

// atan of a >= 0: t + t z P(z), z = t * t (Cephes' atanf coefficients) for t = a up to
// tan(pi/8), t = (a - 1) / (a + 1) plus pi/4 up to tan(3pi/8), t = -1 / a plus pi/2
// above (pi/4 and pi/2 in two parts); a = inf gives pi/2.
fn atan_abs_f32(a: f32) -> f32 {
  let far = a > 2.414213562373095;
  let mid = a > 0.41421356237309503;
  let t = select(select(a, (a - 1.0) / (a + 1.0), mid), -1.0 / a, far);
  let z = t * t;
  let p = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
      - 3.33329491539e-1) * z * t + t;
  let base = select(0.7853981852531433, 1.5707963705062866, far);
  let lo = select(-2.1855695000931215e-8, -4.371139000186243e-8, far);
  return select(p, base + (p + lo), mid);
}

fn op_atan(x: f32) -> f32 {
  if (is_nan_f32(x) || x == 0.0) { return x; }
  return copysign_f32(atan_abs_f32(abs(x)), x);
}

// asinh(a): log1p(a + a^2 / (1 + sqrt(1 + a^2))) below 2 (exact near 0),
// log(2a + 1 / (sqrt(a^2 + 1) + a)) up to 2^12, log(a) + log(2) above, where a^2 + 1
// rounds to a^2 (and later overflows).
fn op_asinh(x: f32) -> f32 {
  if (!is_finite_f32(x) || x == 0.0) { return x; }
  let a = abs(x);
  var r: f32;
  if (a < 2.0) {
    let z = a * a;
    r = op_log1p(a + z / (1.0 + sqrt(z + 1.0)));
  } else if (a < 4096.0) {
    r = log_f32(2.0 * a + 1.0 / (sqrt(a * a + 1.0) + a));
  } else {
    r = log_f32(a) + 0.6931471805599453;
  }
  return copysign_f32(r, x);
}

// acosh: log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact) below 2,
// log(2x - 1 / (x + sqrt(x^2 - 1))) up to 2^12, log(x) + log(2) above; NaN below 1.
fn op_acosh(x: f32) -> f32 {
  if (is_nan_f32(x) || x < 1.0) { return nan_f32(); }
  if (is_inf_f32(x)) { return x; }
  if (x < 2.0) {
    let t = x - 1.0;
    return op_log1p(t + sqrt(2.0 * t + t * t));
  }
  if (x < 4096.0) { return log_f32(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0))); }
  return log_f32(x) + 0.6931471805599453;
}

// atanh(a) = log1p(2a + 2a^2 / (1 - a)) / 2 below 0.5, log1p(2a / (1 - a)) / 2 above
// (1 - a is exact there); +-inf at +-1, NaN beyond.
fn op_atanh(x: f32) -> f32 {
  let a = abs(x);
  if (is_nan_f32(x) || a > 1.0) { return nan_f32(); }
  if (a == 1.0) { return copysign_f32(inf_f32(), x); }
  let t = a + a;
  let d = 1.0 - a;
  let r = 0.5 * op_log1p(select(t / d, t + t * a / d, a < 0.5));
  return copysign_f32(r, x);
}

fn op_log_sigmoid(x: f32) -> f32 { return -op_softplus(-x); }

fn op_reciprocal_no_nan(x: f32) -> f32 {
  if (x == 0.0) { return 0.0; }
  return 1.0 / x;
}

// WGSL's round() takes halves to even; -0.4 gives -0, as C's rint.
fn op_rint(x: f32) -> f32 {
  if (!is_finite_f32(x)) { return x; }
  return copysign_f32(round(x), x);
}
