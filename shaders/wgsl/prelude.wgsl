// Helpers every texflow WGSL program gets.
//
// NaN and infinity are tested on the bits: WGSL does not promise IEEE behaviour
// for comparisons with NaN and compilers may fold `x != x` away. Non-finite
// constants are made from runtime values, because a const-expression that
// evaluates to inf or NaN is a shader-creation error.

fn is_nan_f32(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn is_inf_f32(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

fn is_finite_f32(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u;
}

fn nan_f32() -> f32 {
  var bits = 0x7fc00000u;
  return bitcast<f32>(bits);
}

fn inf_f32() -> f32 {
  var bits = 0x7f800000u;
  return bitcast<f32>(bits);
}

// `magnitude` with the sign bit of `sign_of`.
fn copysign_f32(magnitude: f32, sign_of: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(magnitude) & 0x7fffffffu) |
                      (bitcast<u32>(sign_of) & 0x80000000u));
}

// float -> int32 truncates toward zero; NaN, infinities and values out of range
// give INT32_MIN, as numpy's conversion does on x86.
fn f32_to_i32(x: f32) -> i32 {
  if (abs(x) < 2147483648.0) {
    return i32(x);
  }
  return i32(-2147483647 - 1);
}

// The natural logarithm of a finite, normal x > 0 to about 1 ulp (callers give the
// edges): x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(f), f = (m - 1) /
// (m + 1), by its series. WGSL's log() may be off by 2^-21 absolutely near 1 (Mesa's
// lavapipe is), which log1p, xlogy and the inverse hyperbolic functions cannot afford.
// Branch-free. Here, not in unary_ops.wgsl, because binary bodies (xlogy) are compiled
// without the unary ones.
fn log_f32(x: f32) -> f32 {
  return log_bits_f32(bitcast<u32>(x), 127);
}

// log_f32 for subnormal x too, read from its bits (its mantissa as a whole number, times
// 2^-149): SwiftShader flushes it to 0 in arithmetic. For log and xlogy only: the other
// callers never pass one, and in GLSL's log the same selects made log1p's launch 1.2x
// as costly on SwiftShader.
fn log_sub_f32(x: f32) -> f32 {
  let sub = (bitcast<u32>(x) & 0x7f800000u) == 0u;
  return log_bits_f32(select(bitcast<u32>(x), bitcast<u32>(f32(bitcast<u32>(x) & 0x007fffffu)),
                             sub), select(127, 276, sub));
}

// log(m 2^(e - bias)), m and e from `bits`.
fn log_bits_f32(bits: u32, bias: i32) -> f32 {
  let m0 = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  let halve = m0 > 1.4142135;
  let m = select(m0, m0 * 0.5, halve);
  let fe = f32(i32((bits >> 23u) & 255u) - bias + select(0, 1, halve));
  return fe * 0.693145751953125 + (log_series_f32((m - 1.0) / (m + 1.0))
                                   + fe * 1.4286068202862268e-06);
}

// e^x to about 1 ulp (the builtin exp is 62 ulp off at -85.3 on lavapipe and SwiftShader,
// 16 at 44.7): x = k ln2 + r with ln2 in two parts (k * hi is exact), a degree-8 Taylor
// polynomial on |r| <= 0.35, and 2^k as two normal factors (0 below -104, inf above 89).
// Branch-free. Here, not in unary_ops.wgsl, because pow needs it too.
fn exp_f32(x: f32) -> f32 {
  return exp_lo_f32(x, 0.0);
}

// e^(x + lo), lo a correction entering before the scaling (pow's extra bits; it may
// reach 0.5, so k is x + lo's).
fn exp_lo_f32(x: f32, lo: f32) -> f32 {
  let c = clamp(x, -104.0, 89.0);
  let k = floor((c + lo) * 1.4426950408889634 + 0.5);
  let r = ((c - k * 0.693145751953125) - k * 1.4286068202862268e-06) + lo;
  let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0
      + r * (1.0 / 720.0 + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))))));
  let k1 = i32(k) >> 1u;
  let k2 = i32(k) - k1;
  let e = p * bitcast<f32>(u32(k1 + 127) << 23u) * bitcast<f32>(u32(k2 + 127) << 23u);
  return select(select(e, 0.0, x < -104.0), x, is_nan_f32(x));
}

// log((1 + f) / (1 - f)) = 2 atanh(f) for |f| <= 0.172, by its series.
fn log_series_f32(f: f32) -> f32 {
  let f2 = f * f;
  let s = f2 * (0.3333333333333333 + f2 * (0.2 + f2 * (0.14285714285714285
      + f2 * (0.1111111111111111 + f2 * (0.09090909090909091 + f2 * 0.07692307692307693)))));
  return 2.0 * f + 2.0 * f * s;
}
