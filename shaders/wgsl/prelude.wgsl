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

// The natural logarithm of a finite x > 0 to about 1 ulp (callers give the edges): x =
// m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(f), f = (m - 1) / (m + 1), by
// its series. WGSL's log() may be off by 2^-21 absolutely near 1 (Mesa's lavapipe is),
// which log1p, xlogy and the inverse hyperbolic functions cannot afford. Here, not in
// unary_ops.wgsl, because binary bodies (xlogy) are compiled without the unary ones.
fn log_f32(x: f32) -> f32 {
  let bits = bitcast<u32>(x);
  var e = i32((bits >> 23u) & 255u) - 127;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  if (m > 1.4142135) {
    m = m * 0.5;
    e = e + 1;
  }
  let fe = f32(e);
  return fe * 0.693145751953125 + (log_series_f32((m - 1.0) / (m + 1.0))
                                   + fe * 1.4286068202862268e-06);
}

// log((1 + f) / (1 - f)) = 2 atanh(f) for |f| <= 0.172, by its series.
fn log_series_f32(f: f32) -> f32 {
  let f2 = f * f;
  let s = f2 * (0.3333333333333333 + f2 * (0.2 + f2 * (0.14285714285714285
      + f2 * (0.1111111111111111 + f2 * (0.09090909090909091 + f2 * 0.07692307692307693)))));
  return 2.0 * f + 2.0 * f * s;
}
