// Binary op bodies: `op_<name>(a, b)`, overloaded on float and int. Inputs arrive
// already converted to the op's compute type (see glsl/elementwise.py).

float op_add(float a, float b) { return a + b; }
int op_add(int a, int b) { return a + b; }

float op_sub(float a, float b) { return a - b; }
int op_sub(int a, int b) { return a - b; }

float op_mul(float a, float b) { return a * b; }
int op_mul(int a, int b) { return a * b; }

// Scaled when |b| is huge: a GPU may divide as a * (1 / b), and 1 / b would be a
// denormal, flushed to zero.
float op_div(float a, float b) {
  float s = all(bvec2(abs(b) > 8.5e37, !f_isinf(b))) ? 0.0625 : 1.0;
  return (a * s) / (b * s);
}

// C's powf: pow(x, 0) = pow(1, y) = 1 even for NaN; signed zeros and infinities as C.
float op_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (f_isnan(x) || f_isnan(y)) return f_nan();
  float ax = abs(x);
  if (f_isinf(y)) {
    if (ax == 1.0) return 1.0;
    return ((ax > 1.0) == (y > 0.0)) ? f_inf() : 0.0;
  }
  float ay = abs(y);
  bool whole = floor(y) == y;
  bool odd = whole && ay < 16777216.0 && ay - 2.0 * floor(ay * 0.5) == 1.0;
  if (x == 0.0) {
    if (y < 0.0) return (odd && f_signbit(x)) ? -f_inf() : f_inf();
    return odd ? x : 0.0;
  }
  if (f_isinf(x)) {
    if (x > 0.0) return y > 0.0 ? x : 0.0;
    if (y > 0.0) return odd ? x : f_inf();
    return odd ? f_neg_zero() : 0.0;
  }
  return f_pow_finite(x, y, whole, odd);
}

// Integer power by squaring (wrapping like numpy); a negative exponent truncates
// 1 / a ** |b|, which is 0 unless |a| is 1.
int op_pow(int a, int b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) != 0 ? -1 : 1) : 0);
  int r = 1;
  for (int i = 0; i < 32 && b > 0; i++) {
    if ((b & 1) != 0) r *= a;
    a *= a;
    b >>= 1;
  }
  return r;
}

// NaN wins, as in numpy. Conditions are combined with any()/all(), which evaluate every
// operand: || and && branch (short-circuit), which costs SwiftShader a third of a launch.
float op_maximum(float a, float b) {
  bool take_b = any(bvec2(f_isnan(b), b > a));
  return f_isnan(a) ? a : (take_b ? b : a);
}
int op_maximum(int a, int b) { return max(a, b); }

float op_minimum(float a, float b) {
  bool take_b = any(bvec2(f_isnan(b), b < a));
  return f_isnan(a) ? a : (take_b ? b : a);
}
int op_minimum(int a, int b) { return min(a, b); }

// Comparisons with NaN are false, except not_equal.
bool op_equal(float a, float b) { return all(bvec3(!f_isnan(a), !f_isnan(b), a == b)); }
bool op_equal(int a, int b) { return a == b; }

bool op_not_equal(float a, float b) { return any(bvec3(f_isnan(a), f_isnan(b), a != b)); }
bool op_not_equal(int a, int b) { return a != b; }

bool op_less(float a, float b) { return all(bvec3(!f_isnan(a), !f_isnan(b), a < b)); }
bool op_less(int a, int b) { return a < b; }

bool op_less_equal(float a, float b) { return all(bvec3(!f_isnan(a), !f_isnan(b), a <= b)); }
bool op_less_equal(int a, int b) { return a <= b; }

bool op_greater(float a, float b) { return all(bvec3(!f_isnan(a), !f_isnan(b), a > b)); }
bool op_greater(int a, int b) { return a > b; }

bool op_greater_equal(float a, float b) { return all(bvec3(!f_isnan(a), !f_isnan(b), a >= b)); }
bool op_greater_equal(int a, int b) { return a >= b; }

// floordiv and floormod, TensorFlow's: floor(a / b) for floats; for ints the quotient
// rounded toward -inf, and a remainder with the divisor's sign. GLSL ES leaves / and %
// of negative ints unspecified, so magnitudes are divided. A zero int divisor never
// gets here: the op raises first, as TensorFlow does.
float op_floordiv(float a, float b) { return floor(op_div(a, b)); }
int op_floordiv(int a, int b) {
  bool neg = (a < 0) != (b < 0);
  uint ua = uint(a < 0 ? -a : a);
  uint ub = uint(b < 0 ? -b : b);
  uint q = ua / ub;
  int iq = neg ? -int(q) : int(q);
  return (neg && q * ub != ua) ? iq - 1 : iq;
}

// C's fmod, exact: |a| minus |b| 2^k for falling k (each subtraction is exact, as
// |b| 2^k <= |a| < |b| 2^(k+1)), then the sign of a.
float f_fmod(float a, float b) {
  if (f_isnan(a) || f_isnan(b) || f_isinf(a) || b == 0.0) return f_nan();
  if (f_isinf(b)) return a;
  float r = abs(a);
  float m = abs(b);
  int eb = (floatBitsToInt(m) >> 23) & 255;
  for (int i = 0; i < 300 && r >= m; i++) {
    int k = ((floatBitsToInt(r) >> 23) & 255) - eb;
    float s = f_exp2i(m, k);
    r -= s > r ? 0.5 * s : s;
  }
  return a < 0.0 ? -r : r;
}

float op_floormod(float a, float b) {
  float r = f_fmod(a, b);
  return (r != 0.0 && (b < 0.0) != (r < 0.0)) ? r + b : r;
}
int op_floormod(int a, int b) {
  uint ua = uint(a < 0 ? -a : a);
  uint ub = uint(b < 0 ? -b : b);
  uint ur = ua % ub;
  int r = a < 0 ? -int(ur) : int(ur);
  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}

int op_bitwise_and(int a, int b) { return a & b; }
int op_bitwise_or(int a, int b) { return a | b; }
int op_bitwise_xor(int a, int b) { return a ^ b; }

// atan2(y, x): atan of the smaller magnitude over the larger (in [0, 1]), then pi/2 minus
// it where |y| > |x|, pi minus it where x is negative (or -0), and y's sign; zeros and
// infinities as C's atan2 (atan2(+-0, -0) = +-pi, atan2(inf, inf) = pi/4).
float op_atan2(float y, float x) {
  float ax = abs(x);
  float ay = abs(y);
  bool swap = ay > ax;
  float q = swap ? op_div(ax, ay) : op_div(ay, ax);
  q = ax == ay ? (ax == 0.0 ? 0.0 : 1.0) : q;
  float a = f_atan_abs(q);
  a = swap ? (1.5707963705062866 - a) - 4.371139000186243e-8 : a;
  a = f_signbit(x) ? (3.1415927410125732 - a) - 8.742278000372485e-8 : a;
  return any(bvec2(f_isnan(x), f_isnan(y))) ? f_nan() : f_with_sign(a, y);
}

// x itself where x is 0 (TensorFlow's keep -0), even for a NaN or zero y.
float op_xlogy(float x, float y) { return x == 0.0 ? x : x * f_log_sub(y); }

float op_xdivy(float x, float y) { return x == 0.0 ? x : op_div(x, y); }

// 0 where y is 0, even for an infinite or NaN x.
float op_multiply_no_nan(float x, float y) { return y == 0.0 ? 0.0 : x * y; }
