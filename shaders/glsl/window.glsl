// Window geometry of conv2d and pooling (glsl/conv.py). The image is [N, H, W, C] =
// uImage, the grid of windows [N, OH, OW, C'] = uGrid; window (oy, ox) covers image
// row oy * uStride[0] - uPad[0] + ky * uDil[0] at tap ky < uWin[0], likewise columns.
uniform int uImage[4];
uniform int uGrid[4];
uniform int uWin[2];
uniform int uStride[2];
uniform int uDil[2];
uniform int uPad[2];

// (n, y, x, c) of flat element o of an NHWC array with dims (H, W, C)
ivec4 nhwc(int o, int h, int w, int c) {
  int q = o / c;
  int x = q % w;
  q /= w;
  return ivec4(q / h, q % h, x, o - (q * w + x) * c);
}

ivec4 grid_index(int o) { return nhwc(o, uGrid[1], uGrid[2], uGrid[3]); }
ivec4 image_index(int o) { return nhwc(o, uImage[1], uImage[2], uImage[3]); }

// The taps t < k whose position start + t * d lies inside [0, size), as [first, end):
// loops then need no per-tap bounds test.
ivec2 taps(int start, int size, int k, int d) {
  int first = start < 0 ? (d - 1 - start) / d : 0;
  int end = start < size ? min(k, (size - start + d - 1) / d) : 0;
  return ivec2(first, max(first, end));
}

// argmax's rule, TensorFlow's MaxPoolGrad's: the first in-image tap (`at` starts there),
// then only a strictly greater value; a NaN never moves it, and one at the first tap
// stays (nothing is greater)
void take(inout float best, inout int at, float v, int k) {
  if (f_isnan(best)) return;
  if (k == at ? true : !f_isnan(v) && v > best) {
    best = v;
    at = k;
  }
}
bvec4 nan4(vec4 x) { return greaterThan(floatBitsToInt(x) & 0x7fffffff, ivec4(0x7f800000)); }
void take(inout vec4 best, inout ivec4 at, vec4 v, int k) {
  // the rule lane by lane, without a loop (SwiftShader runs a vector op as one)
  ivec4 first = ivec4(equal(at, ivec4(k)));
  ivec4 greater = (1 - ivec4(nan4(v))) * ivec4(greaterThan(v, best));
  ivec4 moves = (1 - ivec4(nan4(best))) * max(first, greater);
  best = mix(best, v, bvec4(moves));
  at += moves * (k - at);
}
// TensorFlow's max_pool: a value is taken only when greater, so NaN never is (the
// window starts at float32's lowest: one of -inf and NaN only gives the lowest).
float pool_max(float a, float b) { return !f_isnan(b) && b > a ? b : a; }
// lane by lane without branches (SwiftShader runs a vector op as one)
vec4 pool_max(vec4 a, vec4 b) {
  ivec4 moves = (1 - ivec4(nan4(b))) * ivec4(greaterThan(b, a));
  return mix(a, b, bvec4(moves));
}
