${head}

// A bitonic sort of each row as (key, index) pairs in two int textures, rows padded to
// uP elements (a power of two >= 4). Keys are ints that order as the values do (floats
// by their bits, -0 as 0, NaN above +inf; bit-flipped when descending); padding has the
// largest key and an index >= uN, so it sorts last. Equal keys sort by index. A
// fragment holds one texel, four consecutive positions of a row: stages with distance 1
// or 2 swap lanes in place, longer ones read the partner texel t ^ (uJ / 4).
uniform int uN;
uniform int uP;
uniform int uK;
uniform int uJ;
uniform int uDesc;

int sort_key(float v) {
  if (f_isnan(v)) return 2147483647;
  int bits = v == 0.0 ? 0 : floatBitsToInt(v);
  return bits < 0 ? bits ^ 2147483647 : bits;
}
int sort_key(int v) { return v; }

// One compare-exchange stage (block k, distance j) on the lanes at positions p0..p0+3;
// kb, ib hold each lane's partner.
void stage(inout ivec4 ka, inout ivec4 ia, ivec4 kb, ivec4 ib, int p0, int k, int j) {
  ivec4 pos = ivec4(p0) + ivec4(0, 1, 2, 3);
  bvec4 take_first = equal(lessThan(pos, pos ^ ivec4(j)), equal(pos & ivec4(k), ivec4(0)));
  ivec4 b_first = ivec4(lessThan(kb, ka)) | (ivec4(equal(kb, ka)) & ivec4(lessThan(ib, ia)));
  ivec4 pick_b = -ivec4(equal(take_first, notEqual(b_first, ivec4(0))));  // all ones: b
  ka = (kb & pick_b) | (ka & ~pick_b);
  ia = (ib & pick_b) | (ia & ~pick_b);
}

void main() {
  int t = out_texel();
  int p0 = (t << 2) % uP;
${body}
  outValue0 = ka;
  outValue1 = ia;
}
