${head}

${window}

// max_pool_grad for non-overlapping windows (strides equal to the window, no padding:
// Keras's default) and C % 4 == 0, in one pass: each image position lies in at most
// one window, so its fragment finds that window's first maximum per channel (the
// argmax rule of pool.frag) and takes dy's texel where the maximum is its own tap.
// Input 0 is x (the image), input 1 dy (the grid); the output is the image.
void main() {
  int o = out_texel() << 2;
  ivec4 p = image_index(o);
  int oy = p.y / uWin[0];
  int ox = p.z / uWin[1];
  vec4 g = vec4(0);
  if (oy < uGrid[1] && ox < uGrid[2]) {
    int iy0 = oy * uWin[0];
    int ix0 = ox * uWin[1];
    vec4 best = vec4(-f_inf());
    ivec4 at = ivec4(0);
    for (int ky = 0; ky < uWin[0]; ky++) {
      int i = ((p.x * uImage[1] + iy0 + ky) * uImage[2] + ix0) * uImage[3] + p.w;
      for (int kx = 0; kx < uWin[1]; kx++) {
        take(best, at, texel0(i >> 2), ky * uWin[1] + kx);
        i += uImage[3];
      }
    }
    int k = (p.y - iy0) * uWin[1] + p.z - ix0;
    int gi = ((p.x * uGrid[1] + oy) * uGrid[2] + ox) * uGrid[3] + p.w;
    g = mix(vec4(0.0), texel1(gi >> 2), equal(at, ivec4(k)));
  }
  outValue = g;
}
