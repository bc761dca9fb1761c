// Float32 math written out instead of GLSL builtins, whose edges and accuracy vary by
// driver (SwiftShader: exp(NaN) = inf, log(-x) = log(x), log(0) = -88, tanh(20) = NaN,
// sin(1e6) far off). Plain + - * / are IEEE on every WebGL2 target.
// Each function is pulled into a program only when an op calls it. Edge cases are
// selected at the end rather than returned early: lanes of one SIMD group take both sides
// of a branch anyway, and the branch itself costs SwiftShader more than the arithmetic.

// 2**n for -252 <= n <= 254, as two normal factors so that both ends work.
float f_exp2i(float p, int n) {
  int n1 = n >> 1;  // floor(n / 2): a shift, where / is a division
  int n2 = n - n1;
  return p * intBitsToFloat((n1 + 127) << 23) * intBitsToFloat((n2 + 127) << 23);
}

// e ** (x + lo) to about 1 ulp, lo a small correction (pow's extra bits): x = k ln2 + r
// with ln2 in two parts (k * hi is exact), then a degree-8 Taylor polynomial on
// |r| <= 0.35. The correction enters before the scaling, so tiny results keep it.
float f_exp_lo(float x, float lo) {
  float c = clamp(x, -104.0, 89.0);
  float k = floor((c + lo) * 1.4426950408889634 + 0.5);
  float r = ((c - k * 0.693145751953125) - k * 1.4286068202862268e-06) + lo;
  float p = 1.0 + r * (1.0 + r * (0.5 + r * (0.16666666666666666 + r * (0.041666666666666664
      + r * (0.008333333333333333 + r * (0.001388888888888889 + r * (1.984126984126984e-4
      + r * 2.48015873015873e-5)))))));
  float e = f_exp2i(p, int(k));
  e = x > 89.0 ? f_inf() : e;
  e = x < -104.0 ? 0.0 : e;
  return f_isnan(x) ? x : e;
}

float f_exp(float x) { return f_exp_lo(x, 0.0); }

// e ** x - 1 without the cancellation near 0 (Taylor series for |x| < 0.3).
float f_expm1(float x) {
  float s = x * (1.0 + x * (0.5 + x * (0.16666666666666666 + x * (0.041666666666666664
      + x * (0.008333333333333333 + x * (0.001388888888888889 + x * (1.984126984126984e-4
      + x * 2.48015873015873e-5)))))));
  float e = f_exp(x) - 1.0;
  return abs(x) < 0.3 ? s : e;
}

// log(m 2**(e - bias)), m and e from `bits`: m in [sqrt(1/2), sqrt(2)), then
// log(m) = 2 atanh(f), f = (m - 1) / (m + 1), by its series (|f| <= 0.172).
float f_log_bits(int bits, int bias) {
  int e = ((bits >> 23) & 255) - bias;
  float m = intBitsToFloat((bits & 0x007fffff) | 0x3f800000);
  bool halve = m > 1.4142135;
  m = halve ? m * 0.5 : m;
  e += int(halve);
  float f = (m - 1.0) / (m + 1.0);
  float f2 = f * f;
  float s = f2 * (0.3333333333333333 + f2 * (0.2 + f2 * (0.14285714285714285
      + f2 * (0.1111111111111111 + f2 * (0.09090909090909091 + f2 * 0.07692307692307693)))));
  float fe = float(e);
  return fe * 0.693145751953125 + ((2.0 * f + 2.0 * f * s) + fe * 1.4286068202862268e-06);
}

// The natural logarithm, subnormal x as 0 (log1p, asinh and acosh never pass one); the
// sign on the bits: SwiftShader flushes a negative subnormal to -0.
float f_log(float x) {
  int bits = floatBitsToInt(x);
  float r = f_log_bits(bits, 127);
  r = (bits & 0x7f800000) == 0 ? -f_inf() : r;  // zero, or a subnormal
  r = f_isinf(x) ? x : r;
  return any(bvec2(f_isnan(x), floatBitsToUint(x) > 0x80000000u)) ? f_nan() : r;
}

// f_log for subnormal x too, read from its bits (its mantissa as a whole number, times
// 2**-149), where SwiftShader flushes x itself to 0; for log and xlogy (the extra
// selects cost log1p's launch 1.2x, had f_log made them).
float f_log_sub(float x) {
  int bits = floatBitsToInt(x);
  bool sub = (bits & 0x7f800000) == 0;
  float r = f_log_bits(sub ? floatBitsToInt(float(bits & 0x007fffff)) : bits, sub ? 276 : 127);
  r = (bits & 0x7fffffff) == 0 ? -f_inf() : r;
  r = f_isinf(x) ? x : r;
  return any(bvec2(f_isnan(x), floatBitsToUint(x) > 0x80000000u)) ? f_nan() : r;
}

// 32 x 32 -> 64-bit unsigned product as (high word, low word).
uvec2 f_umul64(uint a, uint b) {
  uint a0 = a & 0xffffu;
  uint a1 = a >> 16;
  uint b0 = b & 0xffffu;
  uint b1 = b >> 16;
  uint p01 = a0 * b1;
  uint p10 = a1 * b0;
  uint p00 = a0 * b0;
  uint mid = (p00 >> 16) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return uvec2(a1 * b1 + (p01 >> 16) + (p10 >> 16) + (mid >> 16),
               (mid << 16) | (p00 & 0xffffu));
}

// 32 bits of 2/pi starting at bit `pos` of the table below (bit 32 is the first
// fractional bit; the word before the point is zero).
uint f_two_over_pi_bits(int pos) {
  const uint T[9] = uint[9](0u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
                            0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u);
  int i = pos >> 5;
  int b = pos & 31;
  return b == 0 ? T[i] : (T[i] << uint(b)) | (T[i + 1] >> uint(32 - b));
}

// Payne-Hanek reduction of a large |x| (>= 2**13): |x| = m 2**e with m a 24-bit
// integer; only 96 bits of 2/pi from bit e - 1 on matter modulo 4, so
// m * those bits (a 120-bit product) gives the quadrant and ~60 fraction bits.
float f_reduce_large(float ax, out int q) {
  uint bits = floatBitsToUint(ax);
  uint m = (bits & 0x7fffffu) | 0x800000u;
  int e = int(bits >> 23) - 150;
  int pos = e + 30;
  uvec2 p0 = f_umul64(m, f_two_over_pi_bits(pos));
  uvec2 p1 = f_umul64(m, f_two_over_pi_bits(pos + 32));
  uvec2 p2 = f_umul64(m, f_two_over_pi_bits(pos + 64));
  uint r1 = p2.x + p1.y;
  uint r2 = p1.x + p0.y + (r1 < p2.x ? 1u : 0u);
  // the product is (.., r2, r1, ..) / 2**94: bits 31..30 of r2 are the quadrant, the
  // rest the fraction; from 1/2 on, 1 - it is taken in integers (in floats, the rounding
  // of the fraction cost tan(5.4e7) a relative 2e-3)
  q = int(r2 >> 30);
  uint hi = r2 & 0x3fffffffu;
  uint lo = r1;
  bool up = hi >= 0x20000000u;
  if (up) {
    lo = ~r1 + 1u;
    hi = (~hi & 0x3fffffffu) + (r1 == 0u ? 1u : 0u);
    q = (q + 1) & 3;
  }
  float f = float(hi) * 9.313225746154785e-10 + float(lo) * 2.168404344971009e-19;
  return (up ? -f : f) * 1.5707963267948966;
}

// x - k pi/2 for the nearest whole k, and q = k mod 4. Below 2**13, pi/2 in four parts
// (Cody-Waite; the first three products are exact, the fourth keeps tan accurate near
// its poles), above it Payne-Hanek.
float f_reduce_half_pi(float x, out int q) {
  float ax = abs(x);
  if (ax >= 8192.0) {
    float r = f_reduce_large(ax, q);
    if (x < 0.0) {
      r = -r;
      q = (4 - q) & 3;
    }
    return r;
  }
  float k = floor(x * 0.6366197723675814 + 0.5);
  float r = x - k * 1.5703125;
  r -= k * 4.837512969970703e-4;
  r -= k * 7.549533620476723e-8;
  r -= k * 2.5633440682570896e-12;
  q = int(k - 4.0 * floor(k * 0.25));
  return r;
}

// sin and cos on [-pi/4, pi/4] by Taylor polynomials (error below 1e-10).
float f_sin_kernel(float r) {
  float r2 = r * r;
  return r + r * r2 * (-0.16666666666666666 + r2 * (0.008333333333333333
      + r2 * (-1.984126984126984e-4 + r2 * (2.7557319223985893e-6
      + r2 * -2.505210838544172e-8))));
}

float f_cos_kernel(float r) {
  float r2 = r * r;
  return 1.0 - 0.5 * r2 + r2 * r2 * (0.041666666666666664 + r2 * (-0.001388888888888889
      + r2 * (2.48015873015873e-5 + r2 * (-2.755731922398589e-7
      + r2 * 2.08767569878681e-9))));
}

float f_sin(float x) {
  if (f_isnan(x) || f_isinf(x)) return f_nan();
  int q;
  float r = f_reduce_half_pi(x, q);
  float v = (q == 0 || q == 2) ? f_sin_kernel(r) : f_cos_kernel(r);
  return q >= 2 ? -v : v;
}

float f_cos(float x) {
  if (f_isnan(x) || f_isinf(x)) return f_nan();
  int q;
  float r = f_reduce_half_pi(x, q);
  float v = (q == 0 || q == 2) ? f_cos_kernel(r) : f_sin_kernel(r);
  return (q == 1 || q == 2) ? -v : v;
}

// |x| ** n for a whole n, 0 < n < 2**24, by squaring: a few ulp at most.
float f_pow_whole(float ax, float n) {
  float r = 1.0;
  float b = ax;
  for (int i = 0; i < 25 && n > 0.0; i++) {
    float half_n = floor(n * 0.5);
    if (n != 2.0 * half_n) r *= b;
    b *= b;
    n = half_n;
  }
  return r;
}

// Exact products a * b = p + e from 12-bit halves cut by masking the bits (Dekker's
// (c - (c - a)) split is what a compiler may fold to a), whose products are exact.
vec2 f_split(float a) {
  float hi = intBitsToFloat(floatBitsToInt(a) & -4096);
  return vec2(hi, a - hi);
}

vec2 f_two_prod(float a, float b) {
  float p = a * b;
  vec2 x = f_split(a);
  vec2 y = f_split(b);
  return vec2(p, ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y);
}

// log(x) for finite x > 0 as an unevaluated sum hi + lo (about 40 bits), for pow: f =
// u / v (u = m - 1 exact, v = m + 1) gets its residual ((u - 2f) - f u) / v, which
// needs no exact v; e ln2's high part (a multiple of 2**-16) takes the bits of 2f down
// to 2**-16, or for e = 0 its top 12 bits (cut by masking), so hi is an exact sum and
// lo below 2**-11 hi. No two-sum ((a + b) - a), which SwiftShader and Mesa may fold.
vec2 f_log2f(float x) {
  int bits = floatBitsToInt(x);
  bool sub = (bits & 0x7f800000) == 0;
  bits = sub ? floatBitsToInt(float(bits & 0x007fffff)) : bits;
  int e = ((bits >> 23) & 255) - (sub ? 276 : 127);
  float m = intBitsToFloat((bits & 0x007fffff) | 0x3f800000);
  bool halve = m > 1.4142135;
  m = halve ? m * 0.5 : m;
  e += int(halve);
  float u = m - 1.0;
  float v = m + 1.0;
  float f = u / v;
  vec2 fu = f_two_prod(f, u);
  float f_lo = (((u - 2.0 * f) - fu.x) - fu.y) / v;
  float f2 = f * f;
  float tail = 2.0 * f * f2 * (0.3333333333333333 + f2 * (0.2 + f2 * (0.14285714285714285
      + f2 * (0.1111111111111111 + f2 * (0.09090909090909091 + f2 * 0.07692307692307693)))));
  float fe = float(e);
  float t = 2.0 * f;
  int tb = floatBitsToInt(t);
  int cut = e == 0 ? 12 : max(134 - ((tb >> 23) & 255), 0);
  float t_hi = cut > 23 ? 0.0 : intBitsToFloat(tb & (-1 << min(cut, 31)));
  float hi = fe * 0.693145751953125 + t_hi;
  return vec2(hi, (t - t_hi) + ((2.0 * f_lo + tail) + fe * 1.4286068202862268e-06));
}

// C's powf for finite, non-zero x and finite y: the sign from an odd whole y,
// NaN for a negative base with a fractional exponent. Whole |y| <= 4 multiplies;
// otherwise exp(y log|x|) with y log|x| carried to about 40 bits.
float f_pow_finite(float x, float y, bool y_whole, bool y_odd) {
  float ax = abs(x);
  if (x < 0.0 && !y_whole) return f_nan();
  float r;
  float ay = abs(y);
  if (y_whole && ay <= 4.0) {
    r = f_pow_whole(ax, ay);
    if (y < 0.0) {
      // 1 / x**n, unless x**n over- or underflowed where (1 / x)**n does not
      r = (r == 0.0 || f_isinf(r)) ? f_pow_whole(1.0 / ax, ay) : 1.0 / r;
    }
  } else {
    vec2 l = f_log2f(ax);
    float z = y * l.x;
    if (abs(z) > 200.0) {
      r = z > 0.0 ? f_inf() : 0.0;
    } else {
      vec2 p = f_two_prod(y, l.x);
      r = f_exp_lo(p.x, p.y + y * l.y);
    }
  }
  return (x < 0.0 && y_odd) ? -r : r;
}
