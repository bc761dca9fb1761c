// Unary op bodies: `op_<name>` for each op, overloaded on float and int where the op
// keeps its input's dtype. The program generator converts inputs and results.

float op_neg(float x) { return -x; }
int op_neg(int x) { return -x; }

float op_abs(float x) { return intBitsToFloat(floatBitsToInt(x) & 0x7fffffff); }
int op_abs(int x) { return x < 0 ? -x : x; }

float op_square(float x) { return x * x; }
int op_square(int x) { return x * x; }

float op_sign(float x) {
  if (f_isnan(x)) return x;
  return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0);
}
int op_sign(int x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

// any(), not ||: || branches (binary_ops.glsl, op_maximum).
float op_relu(float x) {
  bool keep = any(bvec2(x > 0.0, f_isnan(x)));
  return keep ? x : 0.0;
}
int op_relu(int x) { return x > 0 ? x : 0; }

float op_floor(float x) { return floor(x); }
int op_floor(int x) { return x; }

float op_ceil(float x) { return ceil(x); }
int op_ceil(int x) { return x; }

float op_exp(float x) { return f_exp(x); }

float op_log(float x) { return f_log_sub(x); }

// negative x on the bits: SwiftShader flushes a negative subnormal to -0
float op_sqrt(float x) {
  bool bad = any(bvec2(f_isnan(x), floatBitsToUint(x) > 0x80000000u));
  float r = sqrt(x);
  return bad ? f_nan() : r;
}

float op_rsqrt(float x) {
  bool bad = any(bvec2(f_isnan(x), floatBitsToUint(x) > 0x80000000u));
  float r = 1.0 / sqrt(x);
  return bad ? f_nan() : r;
}

// tanh, branch-free (lanes of one SIMD group take both sides of a branch anyway):
// |x| P(x^2) / Q(x^2), P of degree 6 and Q of degree 3 fitted for |x| < 7.9 (the form of
// Eigen's and so TensorFlow's CPU tanh; our own fit: scripts/fit_tanh.py), and 1 from
// |x| = 7.9 on, where tanh is within 4.6 ulp of 1 and P(x^2) would overflow further up.
// P(0) = Q(0) = 1, so tiny x give x. Which side: |x|'s bits in [7.9, inf] (one unsigned
// compare: smaller ones wrap around, NaNs lie above), so a NaN takes the quotient, which
// gives NaN, and no NaN test is needed. Within 5.7 ulp of tanh on every float32
// (TensorFlow 2.21's CPU tanh: 6.1; numpy's: 1.4); the sign is x's, so tanh(-0) = -0.
float op_tanh(float x) {
  int bits = floatBitsToInt(x);
  int abits = bits & 0x7fffffff;
  float a = intBitsToFloat(abits);
  float z = a * a;
  float p = (((((-1.20113283e-13 * z + 6.51403792e-11) * z - 2.25868284e-08) * z
      + 1.17042064e-05) * z + 0.00315503776) * z + 0.131293744) * z + 1.0;
  float q = ((0.000262136222 * z + 0.0246974155) * z + 0.464627057) * z + 1.0;
  float r = a * p / q;
  bool above = uint(abits - 0x40fccccd) <= 0x3e833333u;  // 7.9 <= |x| <= inf
  float m = above ? 1.0 : r;
  return intBitsToFloat(floatBitsToInt(m) | (bits & (-2147483647 - 1)));
}

// exp of a non-positive number only, so large |x| cannot overflow.
float op_sigmoid(float x) {
  float z = f_exp(-abs(x));
  float s = (x >= 0.0 ? 1.0 : z) / (1.0 + z);
  return f_isnan(x) ? x : s;
}

float op_elu(float x) {
  float e = f_expm1(x);
  return x > 0.0 ? x : e;
}

float op_sin(float x) {
  float r = f_sin(x);
  return x == 0.0 ? x : r;  // sin(-0) = -0
}

float op_cos(float x) { return f_cos(x); }

bool op_is_nan(float x) { return f_isnan(x); }
bool op_is_nan(int x) { return false; }

bool op_is_finite(float x) { return (floatBitsToInt(x) & 0x7f800000) != 0x7f800000; }
bool op_is_finite(int x) { return true; }

bool op_logical_not(float x) { return !truthy(x); }
bool op_logical_not(int x) { return x == 0; }

// cast: float -> int truncates toward zero; NaN and out-of-range values give
// INT_MIN, as numpy's conversion does on x86.
int op_cast_int(float x) {
  if (f_isnan(x) || x >= 2147483648.0 || x < -2147483648.0) return -2147483647 - 1;
  return int(x);
}
int op_cast_int(int x) { return x; }
float op_cast_float(float x) { return x; }
float op_cast_float(int x) { return float(x); }
bool op_cast_bool(float x) { return truthy(x); }
bool op_cast_bool(int x) { return x != 0; }

// log(1 + x) = 2 atanh(f), f = x / (2 + x), by f_log's series where |f| <= 0.172 (1 + x
// in [sqrt(1/2), sqrt(2)]): no cancellation to guard. The former log(u) x / (u - 1) with
// u = 1 + x needed u - 1 exact, and SwiftShader folds (1 + x) - 1 to x (log1p(6e-8) read
// 1.2e-7). Outside that range 1 + x rounds harmlessly, or not at all.
float op_log1p(float x) {
  float f = x / (2.0 + x);
  float f2 = f * f;
  float s = f2 * (0.3333333333333333 + f2 * (0.2 + f2 * (0.14285714285714285
      + f2 * (0.1111111111111111 + f2 * (0.09090909090909091 + f2 * 0.07692307692307693)))));
  bool near = all(bvec2(x > -0.29289321881345254, x < 0.41421356237309503));
  float r = near ? 2.0 * f + 2.0 * f * s : f_log(1.0 + x);
  r = abs(x) < 2.9802322e-8 ? x : r;  // x / 2 could be a denormal, flushed to 0
  return any(bvec2(f_isnan(x), x < -1.0)) ? f_nan() : r;
}

float op_expm1(float x) {
  float e = f_expm1(x);
  e = x < -104.0 ? -1.0 : e;
  return f_isnan(x) ? x : e;
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for x > 0.
float op_softplus(float x) {
  float z = op_log1p(f_exp(-abs(x)));
  z = x > 0.0 ? x + z : z;
  return f_isnan(x) ? x : z;
}

// x / (|x| + 1), scaled as op_div is where 1 / (|x| + 1) would be a flushed denormal;
// infinities give NaN (inf / inf), as TensorFlow's.
float op_softsign(float x) {
  if (f_isnan(x) || f_isinf(x)) return f_nan();
  float b = abs(x) + 1.0;
  if (b > 8.5e37) return (x * 0.0625) / (b * 0.0625);
  return x / b;
}

float op_relu6(float x) { return f_isnan(x) ? x : (x < 0.0 ? 0.0 : (x > 6.0 ? 6.0 : x)); }
int op_relu6(int x) { return x < 0 ? 0 : (x > 6 ? 6 : x); }

// erf: its Taylor series for |x| < 1 (12 terms), 1 - erfc by erfc's continued
// fraction (40 levels) up to 4, where erf rounds to 1 in float32.
float op_erf(float x) {
  if (f_isnan(x)) return x;
  float a = abs(x);
  float r;
  if (a < 1.0) {
    float z = x * x;
    float p = -1.0 / 918086400.0;  // (-1)^k / (k! (2k + 1)), k = 11 down to 0
    p = p * z + 1.0 / 76204800.0; p = p * z - 1.0 / 6894720.0; p = p * z + 1.0 / 685440.0;
    p = p * z - 1.0 / 75600.0; p = p * z + 1.0 / 9360.0; p = p * z - 1.0 / 1320.0;
    p = p * z + 1.0 / 216.0; p = p * z - 1.0 / 42.0; p = p * z + 0.1;
    p = p * z - 1.0 / 3.0; p = p * z + 1.0;
    return 1.1283791670955126 * x * p;
  }
  if (a >= 4.0) {
    r = 1.0;
  } else {
    float t = 0.0;
    for (int k = 40; k >= 1; k--) t = 0.5 * float(k) / (a + t);
    r = 1.0 - f_exp(-a * a) * 0.5641895835477563 / (a + t);
  }
  return x < 0.0 ? -r : r;
}

int op_invert(int x) { return ~x; }

// erfc: 1 - erf(x) below 1 (no cancellation there: erfc >= 0.15), erfc's continued
// fraction above, with exp(-x^2) as exp(-h^2) exp(-(x - h)(x + h)) for h = x cut to
// 12 bits (h^2 is exact), so the rounding of x^2 does not cost relative accuracy.
float op_erfc(float x) {
  if (f_isnan(x)) return x;
  if (x < 1.0) return 1.0 - op_erf(x);
  if (x > 10.0) return 0.0;
  float t = 0.0;
  for (int k = 40; k >= 1; k--) t = 0.5 * float(k) / (x + t);
  float h = intBitsToFloat(floatBitsToInt(x) & -4096);
  float e = f_exp(-h * h) * f_exp(-(x - h) * (x + h));
  return e * 0.5641895835477563 / (x + t);
}

// -- trigonometric and hyperbolic functions: float32 to a few ulp on every input; the
// edges (NaN, infinities, signed zeros, out-of-domain inputs) selected explicitly.

// |m| with the sign bit of s.
float f_with_sign(float m, float s) {
  int sign = floatBitsToInt(s) & (-2147483647 - 1);
  return intBitsToFloat((floatBitsToInt(m) & 0x7fffffff) | sign);
}

// tan: r = x - k pi/2 (math.glsl's reduction, Payne-Hanek for large |x|), then
// sin(r) / cos(r), or -cos(r) / sin(r) for odd k.
float op_tan(float x) {
  int q;
  float r = f_reduce_half_pi(x, q);
  float s = f_sin_kernel(r);
  float c = f_cos_kernel(r);
  float t = (q & 1) == 1 ? -c / s : s / c;
  t = x == 0.0 ? x : t;
  return any(bvec2(f_isnan(x), f_isinf(x))) ? f_nan() : t;
}

// sinh: its Taylor series below 1, (e^a - e^-a) / 2 up to 88, and e^(a/2) e^(a/2) / 2
// above, so it overflows to inf only where sinh does (a = |x|; x's sign).
float op_sinh(float x) {
  float a = abs(x);
  float z = a * a;
  float p = a + a * z * (0.16666666666666666 + z * (0.008333333333333333
      + z * (1.984126984126984e-4 + z * (2.7557319223985893e-6
      + z * (2.505210838544172e-8 + z * 1.6059043836821613e-10)))));
  float e = f_exp(min(a, 88.0));
  float h = f_exp(0.5 * a);
  float r = a < 1.0 ? p : (a < 88.0 ? 0.5 * e - 0.5 / e : (0.5 * h) * h);
  return any(bvec2(f_isnan(x), x == 0.0)) ? x : f_with_sign(r, x);
}

// cosh: (e^a + e^-a) / 2 (no cancellation), e^(a/2) e^(a/2) / 2 from 88 on.
float op_cosh(float x) {
  float a = abs(x);
  float e = f_exp(min(a, 88.0));
  float h = f_exp(0.5 * a);
  float r = a < 88.0 ? 0.5 * e + 0.5 / e : (0.5 * h) * h;
  return f_isnan(x) ? x : r;
}

// asin of s in [0, 0.5], z = s * s: s + s z P(z) (Cephes' asinf coefficients).
float f_asin_poly(float s, float z) {
  float p = (((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z
      + 7.4953002686e-2) * z + 1.6666752422e-1;
  return s + s * z * p;
}

// asin(a) = pi/2 - 2 asin(sqrt((1 - a) / 2)) above 0.5 (1 - a is exact there), with pi/2
// in two parts (1.5707964 + -4.371139e-8); NaN outside [-1, 1].
float op_asin(float x) {
  float a = abs(x);
  bool big = a > 0.5;
  float z = big ? 0.5 * (1.0 - a) : a * a;
  float p = f_asin_poly(big ? sqrt(z) : a, z);
  float r = big ? (1.5707963705062866 - 2.0 * p) - 4.371139000186243e-8 : p;
  r = x == 0.0 ? x : f_with_sign(r, x);
  return any(bvec2(f_isnan(x), a > 1.0)) ? f_nan() : r;
}

// acos: 2 asin(sqrt((1 - x) / 2)) above 0.5, pi - that below -0.5, pi/2 - asin(x) between
// (pi and pi/2 in two parts).
float op_acos(float x) {
  float a = abs(x);
  bool big = a > 0.5;
  float z = big ? 0.5 * (1.0 - a) : a * a;
  float p = f_asin_poly(big ? sqrt(z) : a, z);
  float mid = (1.5707963705062866 - f_with_sign(p, x)) - 4.371139000186243e-8;
  float r = x > 0.0 ? 2.0 * p : (3.1415927410125732 - 2.0 * p) - 8.742278000372485e-8;
  r = big ? r : mid;
  return any(bvec2(f_isnan(x), a > 1.0)) ? f_nan() : r;
}

// atan of a >= 0: t + t z P(z), z = t * t (Cephes' atanf coefficients) for t = a up to
// tan(pi/8), t = (a - 1) / (a + 1) plus pi/4 up to tan(3pi/8), t = -1 / a plus pi/2 above
// (pi/4 and pi/2 in two parts); a = inf gives pi/2.
float f_atan_abs(float a) {
  bool far = a > 2.414213562373095;
  bool mid = a > 0.41421356237309503;
  float t = far ? -1.0 / a : (mid ? (a - 1.0) / (a + 1.0) : a);
  float z = t * t;
  float p = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
      - 3.33329491539e-1) * z * t + t;
  float base = far ? 1.5707963705062866 : 0.7853981852531433;
  float lo = far ? -4.371139000186243e-8 : -2.1855695000931215e-8;
  return (far || mid) ? base + (p + lo) : p;
}

float op_atan(float x) {
  float r = f_atan_abs(abs(x));
  return any(bvec2(f_isnan(x), x == 0.0)) ? x : f_with_sign(r, x);
}

// asinh(a): log1p(a + a^2 / (1 + sqrt(1 + a^2))) below 2 (exact near 0),
// log(2a + 1 / (sqrt(a^2 + 1) + a)) up to 2^12, log(a) + log(2) above, where a^2 + 1
// rounds to a^2 (and later overflows).
float op_asinh(float x) {
  float a = abs(x);
  float z = a * a;
  float q = sqrt(z + 1.0);
  float small = op_log1p(a + z / (1.0 + q));
  float mid = f_log(2.0 * a + 1.0 / (q + a));
  float big = f_log(a) + 0.6931471805599453;
  float r = a < 2.0 ? small : (a < 4096.0 ? mid : big);
  return any(bvec2(f_isnan(x), x == 0.0)) ? x : f_with_sign(r, x);
}

// acosh: log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact) below 2,
// log(2x - 1 / (x + sqrt(x^2 - 1))) up to 2^12, log(x) + log(2) above; NaN below 1.
float op_acosh(float x) {
  float t = x - 1.0;
  float small = op_log1p(t + sqrt(2.0 * t + t * t));
  float mid = f_log(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
  float big = f_log(x) + 0.6931471805599453;
  float r = x < 2.0 ? small : (x < 4096.0 ? mid : big);
  return any(bvec2(f_isnan(x), x < 1.0)) ? f_nan() : r;
}

// atanh(a) = log1p(2a + 2a^2 / (1 - a)) / 2 below 0.5, log1p(2a / (1 - a)) / 2 above
// (1 - a is exact there); +-inf at +-1, NaN beyond.
float op_atanh(float x) {
  float a = abs(x);
  float d = 1.0 - a;
  float t = a + a;
  float r = 0.5 * op_log1p(a < 0.5 ? t + t * a / d : t / d);
  r = f_with_sign(a == 1.0 ? f_inf() : r, x);
  return any(bvec2(f_isnan(x), a > 1.0)) ? f_nan() : r;
}

float op_log_sigmoid(float x) { return -op_softplus(-x); }

float op_reciprocal_no_nan(float x) { return x == 0.0 ? 0.0 : 1.0 / x; }

// Halves to even; -0.4 gives -0, as C's rint.
float op_rint(float x) {
  float r = f_with_sign(roundEven(x), x);
  return any(bvec2(f_isnan(x), f_isinf(x))) ? x : r;
}
