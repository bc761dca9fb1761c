${head}

// y in order from conv2d_px_block.frag's ${P} render targets: channel texel c of pixel
// (row, ox) is texel (row * uGroups + ox / ${P}) * CO / 4 + c of target ox % ${P}.
// Neighbouring fragments (channel texels c, c + 1 of one pixel) read the same target.
uniform int uGrid[4];
uniform int uGroups;

${epilogue}

void main() {
  int t = out_texel();
  int cb = uGrid[3] >> 2;
  int pix = t / cb;
  int c = t - pix * cb;
  int row = pix / uGrid[2];
  int ox = pix - row * uGrid[2];
  int g = ox / ${P};
  int p = ox - g * ${P};
  int i = (row * uGroups + g) * cb + c;
  vec4 acc;
${select}
  outValue = epilogue(acc);
}
