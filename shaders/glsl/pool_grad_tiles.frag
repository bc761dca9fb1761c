${head}

${window}

// max_pool_grad's second pass where the windows tile the image (strides equal to the
// ${KH} x ${KW} window, no top or left padding: Keras's default) and C % 4 == 0. Each
// image position lies in at most one window, so its fragment takes that window's dy
// texel (input 0) where the window's first-maximum tap (input 1, from the argmax pass
// of pool.frag) is its own, else 0; past the last window (VALID's cut-off rows and
// columns) it is 0. The window size is a constant: divisions by it are shifts. No
// branches: SwiftShader runs both sides of one (max_pool_grad's GPU-process CPU time,
// scripts/browser_cpu_time.py: 180 -> 166 ms per 3 launches, median of 5).
void main() {
  int t = out_texel();
  int cw = uImage[3] >> 2;
  int pix = t / cw;
  int row = pix / uImage[2];
  int x = pix - row * uImage[2];
  int n = row / uImage[1];
  int y = row - n * uImage[1];
  int oy = y / ${KH};
  int ox = x / ${KW};
  int k = (y - oy * ${KH}) * ${KW} + x - ox * ${KW};
  // past the last window: k = -1, which no argmax equals; gi stays in the grid
  k = int(oy < uGrid[1]) * int(ox < uGrid[2]) * (k + 1) - 1;
  int gi = ((n * uGrid[1] + min(oy, uGrid[1] - 1)) * uGrid[2] + min(ox, uGrid[2] - 1)) * cw
      + (t - pix * cw);
  outValue = mix(vec4(0.0), texel0(gi), equal(texel1(gi), ivec4(k)));
}
