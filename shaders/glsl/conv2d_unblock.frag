${head}

// The blocked passes (conv2d_block.frag, conv2d_backprop_filter_block.frag) leave
// channel texel c = r * uBlocks + blk of row k (a pixel of y, a filter row of dw) in
// render target r at texel k * uBlocks + blk: neighbouring fragments here (channel
// texels c, c + 1) then mostly read the same target, so a 2x2 quad does not run
// every branch. This pass writes the rows in order, adding up dw's uParts partial
// sums, uPartStep texels apart.
uniform int uCb;
uniform int uBlocks;
uniform int uParts;
uniform int uPartStep;

${epilogue}

void main() {
  int t = out_texel();
  int k = t / uCb;
  int c = t - k * uCb;
  int r = c / uBlocks;
  int i = k * uBlocks + c - r * uBlocks;
  vec4 acc = vec4(0);
${select}
  outValue = epilogue(acc);
}
