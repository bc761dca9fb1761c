${head}

${window}

// conv2d with one input channel and CO % 4 == 0 (a first layer on grayscale images):
// fragment f computes channel texel c (four output channels) of ${P} neighbouring
// pixels of one output row, pixel p into render target p. Each filter texel read
// serves ${P} pixels, and the row's x values are read once for all of them (the
// one-pixel blocked form, conv2d_block.frag, reads a filter texel per pixel and tap:
// nine taps x eight filter texels per pixel for a 3x3, 32-channel filter). Taps in
// the padding add nothing, as there. conv2d_px_unblock.frag puts the texels in y's
// order.
uniform int uGroups;   // pixel groups per output row: ceil(OW / ${P})
uniform int uXLast;    // x's last texel

void main() {
  int f = out_texel();
  int cb = uGrid[3] >> 2;
  int q = f / cb;
  int c = f - q * cb;
  int row = q / uGroups;
  int g = q - row * uGroups;
  int n = row / uGrid[1];
  int iy0 = (row - n * uGrid[1]) * uStride[0] - uPad[0];
  int ix0 = g * ${P} * ${SX} - uPad[1];
  int h = uImage[1];
  int w = uImage[2];
${acc_decl}
  for (int ky = 0; ky < uWin[0]; ky++) {
    int iy = iy0 + ky * uDil[0];
    bool row_in = all(bvec2(iy >= 0, iy < h));
    int base = (n * h + clamp(iy, 0, h - 1)) * w;
${load_x}
    int wt = ky * ${KW} * cb + c;
${accumulate}
  }
${write}
}
