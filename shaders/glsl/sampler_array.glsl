
// Input ${i}: a texture array; flat texel t of layer l lives at (t & (width - 1),
// t >> uShift${i}, l). One fetch whatever the layer, where choosing among separate
// textures costs a branch per texture (scripts/webgl_fetch_cost.py).
uniform highp ${S} uT${i};
uniform int uShift${i};
${T4} texel${i}(int t, int layer) {
  return texelFetch(uT${i}, ivec3(t & ((1 << uShift${i}) - 1), t >> uShift${i}, layer), 0);
}
