// Binary op bodies: `op_<name>_f32` / `op_<name>_i32` compute in the result
// dtype, `op_<name>` only in float32. Comparisons return bool; program.py
// stores bool as 0 / 1.

fn op_add_f32(a: f32, b: f32) -> f32 { return a + b; }
fn op_add_i32(a: i32, b: i32) -> i32 { return a + b; }  // wraps, as numpy int32

fn op_sub_f32(a: f32, b: f32) -> f32 { return a - b; }
fn op_sub_i32(a: i32, b: i32) -> i32 { return a - b; }

fn op_mul_f32(a: f32, b: f32) -> f32 { return a * b; }
fn op_mul_i32(a: i32, b: i32) -> i32 { return a * b; }

// WGSL leaves x / 0 undefined: give IEEE's signed infinity or NaN.
fn op_div(a: f32, b: f32) -> f32 {
  if (b == 0.0) {
    if (a == 0.0 || is_nan_f32(a)) { return nan_f32(); }
    return bitcast<f32>(((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u) | 0x7f800000u);
  }
  return a / b;
}

// NaN wins, as numpy's maximum and minimum.
fn op_maximum_f32(a: f32, b: f32) -> f32 {
  if (is_nan_f32(a)) { return a; }
  if (is_nan_f32(b)) { return b; }
  return select(b, a, a > b);
}
fn op_maximum_i32(a: i32, b: i32) -> i32 { return max(a, b); }

fn op_minimum_f32(a: f32, b: f32) -> f32 {
  if (is_nan_f32(a)) { return a; }
  if (is_nan_f32(b)) { return b; }
  return select(b, a, a < b);
}
fn op_minimum_i32(a: i32, b: i32) -> i32 { return min(a, b); }

// C99 pow (what numpy's float power follows): WGSL's pow() is undefined for a < 0 and
// for many special values, so they are handled here. Whole |b| <= 4 multiplies (at most
// 2 ulp); other exponents take e^(b log|a|) with log|a| and the product carried to about
// 40 bits (log_hi_lo_f32, two_prod_f32), where exp2(b * log2(a)) was 159 ulp off at
// 1.004^-30000 (lavapipe): the product's rounding alone costs |b log a| 2^-24.
fn op_pow_f32(a: f32, b: f32) -> f32 {
  if (b == 0.0 || a == 1.0) { return 1.0; }
  if (is_nan_f32(a) || is_nan_f32(b)) { return nan_f32(); }
  let ab = abs(a);
  let b_int = floor(b) == b;
  // every float >= 2^24 is an even integer
  let b_odd = b_int && abs(b) < 16777216.0 && (i32(abs(b)) & 1) == 1;
  if (is_inf_f32(b)) {
    if (ab == 1.0) { return 1.0; }
    return select(0.0, inf_f32(), (ab > 1.0) == (b > 0.0));
  }
  if (a == 0.0) {
    let r = select(0.0, inf_f32(), b < 0.0);
    return select(r, copysign_f32(r, a), b_odd);
  }
  if (is_inf_f32(a)) {
    let r = select(0.0, inf_f32(), b > 0.0);
    return select(r, copysign_f32(r, a), b_odd);
  }
  if (a < 0.0 && !b_int) { return nan_f32(); }
  var r: f32;
  if (b_int && abs(b) <= 4.0) {
    r = pow_whole_f32(ab, abs(b));
    if (b < 0.0) {
      // 1 / a^n, unless a^n over- or underflowed where (1 / a)^n does not
      r = select(1.0 / r, pow_whole_f32(1.0 / ab, abs(b)), r == 0.0 || is_inf_f32(r));
    }
  } else {
    let l = log_hi_lo_f32(ab);
    let p = two_prod_f32(b, l.x);
    r = exp_lo_f32(p.x, select(p.y + b * l.y, 0.0, abs(p.x) > 200.0));
  }
  return select(r, -r, a < 0.0 && b_odd);
}

// x^n for a whole 0 < n <= 4.
fn pow_whole_f32(x: f32, n: f32) -> f32 {
  let x2 = x * x;
  return select(select(x, x2, n == 2.0), select(x2 * x, x2 * x2, n == 4.0), n > 2.0);
}

// a * b exactly, as hi + lo: the halves of 12 bits each are cut by masking the bits (not
// Dekker's (c - (c - a)), which a compiler may fold to a), so their products are exact.
fn two_prod_f32(a: f32, b: f32) -> vec2<f32> {
  let p = a * b;
  let ah = bitcast<f32>(bitcast<u32>(a) & 0xfffff000u);
  let bh = bitcast<f32>(bitcast<u32>(b) & 0xfffff000u);
  let al = a - ah;
  let bl = b - bh;
  return vec2<f32>(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}

// log(x) of a finite x > 0 as hi + lo to about 40 bits, as log_f32 (prelude.wgsl) with
// the roundings kept: f = u / v (u = m - 1 exact, v = m + 1) gets its residual
// ((u - 2f) - f u) / v, which needs no exact v; e ln2's high part (a multiple of 2^-16)
// takes the bits of 2f down to 2^-16 (cut by masking), so hi is an exact sum. No
// two-sum ((a + b) - a), which Mesa and SwiftShader may fold.
fn log_hi_lo_f32(x: f32) -> vec2<f32> {
  let sub = (bitcast<u32>(x) & 0x7f800000u) == 0u;
  let bits = select(bitcast<u32>(x), bitcast<u32>(f32(bitcast<u32>(x) & 0x007fffffu)), sub);
  let m0 = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  let halve = m0 > 1.4142135;
  let m = select(m0, m0 * 0.5, halve);
  let fe = f32(i32((bits >> 23u) & 255u) - select(127, 276, sub) + select(0, 1, halve));
  let u = m - 1.0;
  let v = m + 1.0;
  let f = u / v;
  let fu = two_prod_f32(f, u);
  let f_lo = (((u - 2.0 * f) - fu.x) - fu.y) / v;
  let f2 = f * f;
  let tail = 2.0 * f * f2 * (0.3333333333333333 + f2 * (0.2 + f2 * (0.14285714285714285
      + f2 * (0.1111111111111111 + f2 * (0.09090909090909091 + f2 * 0.07692307692307693)))));
  let t = 2.0 * f;
  let tb = bitcast<u32>(t);
  // cut t's mantissa bits below 2^-16, or for e = 0 its low 12 bits (lo stays below
  // 2^-11 hi, so b lo's rounding is negligible)
  let cut = select(max(134 - i32((tb >> 23u) & 255u), 0), 12, fe == 0.0);
  let t_hi = select(bitcast<f32>(tb & (0xffffffffu << u32(min(cut, 31)))), 0.0, cut > 23);
  let hi = fe * 0.693145751953125 + t_hi;
  return vec2<f32>(hi, (t - t_hi) + ((2.0 * f_lo + tail) + fe * 1.4286068202862268e-06));
}

// Exponentiation by squaring, wrapping like numpy int32. A negative exponent
// gives 1 / a^|b| truncated: 0 unless |a| is 1.
fn op_pow_i32(a: i32, b: i32) -> i32 {
  if (b < 0) {
    if (a == 1) { return 1; }
    if (a == -1) { return select(1, -1, (b & 1) != 0); }
    return 0;
  }
  var r = 1;
  var base = a;
  var e = b;
  loop {
    if (e == 0) { break; }
    if ((e & 1) != 0) { r = r * base; }
    base = base * base;
    e = e >> 1u;
  }
  return r;
}

// Comparisons with NaN are false (not_equal: true), tested on the bits.
fn op_equal_f32(a: f32, b: f32) -> bool {
  return a == b && !is_nan_f32(a) && !is_nan_f32(b);
}
fn op_equal_i32(a: i32, b: i32) -> bool { return a == b; }

fn op_not_equal_f32(a: f32, b: f32) -> bool { return !op_equal_f32(a, b); }
fn op_not_equal_i32(a: i32, b: i32) -> bool { return a != b; }

fn op_less_f32(a: f32, b: f32) -> bool { return a < b && !is_nan_f32(a) && !is_nan_f32(b); }
fn op_less_i32(a: i32, b: i32) -> bool { return a < b; }

fn op_less_equal_f32(a: f32, b: f32) -> bool {
  return a <= b && !is_nan_f32(a) && !is_nan_f32(b);
}
fn op_less_equal_i32(a: i32, b: i32) -> bool { return a <= b; }

fn op_greater_f32(a: f32, b: f32) -> bool { return op_less_f32(b, a); }
fn op_greater_i32(a: i32, b: i32) -> bool { return a > b; }

fn op_greater_equal_f32(a: f32, b: f32) -> bool { return op_less_equal_f32(b, a); }
fn op_greater_equal_i32(a: i32, b: i32) -> bool { return a >= b; }

// floordiv and floormod, TensorFlow's: floor(a / b) for floats; for ints the quotient
// rounded toward -inf, and a remainder with the divisor's sign. A zero int divisor
// never gets here: the op raises first, as TensorFlow does.
fn op_floordiv_f32(a: f32, b: f32) -> f32 { return floor(op_div(a, b)); }
fn op_floordiv_i32(a: i32, b: i32) -> i32 {
  let q = a / b;  // truncated
  return select(q, q - 1, q * b != a && (a < 0) != (b < 0));
}

// C's fmod, exact: |a| minus |b| 2^k for falling k (each subtraction is exact, as
// |b| 2^k <= |a| < |b| 2^(k+1)), then the sign of a.
fn fmod_f32(a: f32, b: f32) -> f32 {
  if (is_nan_f32(a) || is_nan_f32(b) || is_inf_f32(a) || b == 0.0) { return nan_f32(); }
  if (is_inf_f32(b)) { return a; }
  var r = abs(a);
  let m = abs(b);
  let eb = i32((bitcast<u32>(m) >> 23u) & 255u);
  for (var i = 0; i < 300 && r >= m; i = i + 1) {
    let k = i32((bitcast<u32>(r) >> 23u) & 255u) - eb;
    let s = ldexp(ldexp(m, k / 2), k - k / 2);  // ldexp's e2 must stay <= 128
    r = r - select(s, 0.5 * s, s > r);
  }
  return copysign_f32(r, a);
}

fn op_floormod_f32(a: f32, b: f32) -> f32 {
  let r = fmod_f32(a, b);
  return select(r, r + b, r != 0.0 && (b < 0.0) != (r < 0.0));
}
fn op_floormod_i32(a: i32, b: i32) -> i32 {
  // the truncated remainder (the sign of a) from the quotient: `a % b` gave wrong
  // remainders for negative divisors on NVIDIA's Vulkan driver (7 % -2 read as 7)
  let r = a - (a / b) * b;
  return select(r, r + b, r != 0 && (r < 0) != (b < 0));
}

fn op_bitwise_and_i32(a: i32, b: i32) -> i32 { return a & b; }
fn op_bitwise_or_i32(a: i32, b: i32) -> i32 { return a | b; }
fn op_bitwise_xor_i32(a: i32, b: i32) -> i32 { return a ^ b; }

// atan2(y, x): atan of the smaller magnitude over the larger (q in [0, 1]), then pi/2
// minus it where |y| > |x|, pi minus it where x is negative (or -0), and y's sign; zeros
// and infinities as C's atan2. atan(q) is unary_ops.wgsl's atan_abs_f32 for q <= 1,
// repeated: binary bodies are compiled without the unary ones.
fn op_atan2(y: f32, x: f32) -> f32 {
  if (is_nan_f32(x) || is_nan_f32(y)) { return nan_f32(); }
  let ax = abs(x);
  let ay = abs(y);
  let swap = ay > ax;
  var q = select(op_div(ay, ax), op_div(ax, ay), swap);
  if (ax == ay) { q = select(1.0, 0.0, ax == 0.0); }
  let mid = q > 0.41421356237309503;
  let t = select(q, (q - 1.0) / (q + 1.0), mid);
  let z = t * t;
  let p = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
      - 3.33329491539e-1) * z * t + t;
  var a = select(p, 0.7853981852531433 + (p - 2.1855695000931215e-8), mid);
  a = select(a, (1.5707963705062866 - a) - 4.371139000186243e-8, swap);
  a = select(a, (3.1415927410125732 - a) - 8.742278000372485e-8,
             (bitcast<u32>(x) & 0x80000000u) != 0u);
  return copysign_f32(a, y);
}

// x itself where x is 0 (TensorFlow's keep -0), even for a NaN or zero y; log(y) is the
// prelude's log_sub_f32 (accurate near 1, and for subnormal y), with its edges given
// here, on the bits as op_log's.
fn op_xlogy(x: f32, y: f32) -> f32 {
  if (x == 0.0 && !is_nan_f32(x)) { return x; }
  let zero = (bitcast<u32>(y) & 0x7fffffffu) == 0u;
  var l = select(select(log_sub_f32(y), -inf_f32(), zero), y, is_inf_f32(y));
  l = select(l, nan_f32(), (bitcast<u32>(y) > 0x80000000u) | is_nan_f32(y));
  return x * l;
}

fn op_xdivy(x: f32, y: f32) -> f32 {
  if (x == 0.0 && !is_nan_f32(x)) { return x; }
  return op_div(x, y);
}

// 0 where y is 0, even for an infinite or NaN x.
fn op_multiply_no_nan(x: f32, y: f32) -> f32 {
  return select(x * y, 0.0, y == 0.0 && !is_nan_f32(y));
}
