
// Input ${i}: flat texel t lives at (t & (width - 1), t >> uShift${i}).
uniform highp ${S} uT${i};
uniform int uShift${i};
${T4} texel${i}(int t) {
  return texelFetch(uT${i}, ivec2(t & ((1 << uShift${i}) - 1), t >> uShift${i}), 0);
}
${T} get${i}(int i) { return texel${i}(i >> 2)[i & 3]; }
// The same texel by a float index (exact below 2^24 texels) through texture() at its
// centre: on SwiftShader a nearest-filtered texture() costs about two thirds of a
// texelFetch (scripts/webgl_fetch_cost.py). uGeo${i}: 1 / width, 1 / height, width.
uniform float uGeo${i}[3];
${T4} texelf${i}(float t) {
  float y = floor(t * uGeo${i}[0]);
  return texture(uT${i}, (vec2(t - y * uGeo${i}[2], y) + 0.5) * vec2(uGeo${i}[0], uGeo${i}[1]));
}
