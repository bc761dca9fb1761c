${head}

${window}

// conv2d for CO % 4 == 0 (same window walk as conv2d.frag): fragment f computes ${R}
// channel texels (four output channels each) of pixel f / uBlocks: texel
// r * uBlocks + blk, blk = f % uBlocks, into render target r, so each x value (or
// texel) read serves ${R} filter texels. With ${R} > 1 conv2d_unblock.frag puts the
// targets' texels in y's order; with one target this is y itself.
uniform int uBlocks;

// x texel xv (channels ci..ci+3) times channel texel t of filter rows ci..ci+3
vec4 rows4(vec4 xv, int t, int cb) {
  return xv.x * texel1(t) + xv.y * texel1(t + cb) + xv.z * texel1(t + 2 * cb)
      + xv.w * texel1(t + 3 * cb);
}

${epilogue}

void main() {
  int f = out_texel();
  int pix = f / uBlocks;
  int blk = f - pix * uBlocks;
  ivec4 p = nhwc(pix, uGrid[1], uGrid[2], 1);
  int cin = uImage[3];
  int cb = uGrid[3] >> 2;
  int iy0 = p.y * uStride[0] - uPad[0];
  int ix0 = p.z * uStride[1] - uPad[1];
  ivec2 ty = taps(iy0, uImage[1], uWin[0], uDil[0]);
  ivec2 tx = taps(ix0, uImage[2], uWin[1], uDil[1]);
  int xstep = uDil[1] * cin;
  int wstep = cin * cb;
${acc_decl}
  for (int ky = ty.x; ky < ty.y; ky++) {
    int xi = ((p.x * uImage[1] + iy0 + ky * uDil[0]) * uImage[2] + ix0 + tx.x * uDil[1]) * cin;
    int wt = (ky * uWin[1] + tx.x) * wstep + blk;
    for (int kx = tx.x; kx < tx.y; kx++) {
${inner}
      xi += xstep;
      wt += wstep;
    }
  }
${write}
}
