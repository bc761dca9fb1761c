${head}

${window}

${epilogue}

// conv2d_pool for one input channel and CO % 4 == 0 where the pooling windows tile the
// convolution's image (Keras's Conv2D then MaxPooling2D): fragment f computes channel
// texel c of the ${PKH} x ${PKW} convolution pixels of pooled pixel f / (CO / 4), each
// summed over the filter's taps in conv2d_px_block.frag's order (rows, then columns),
// through the epilogue (bias, activation), then pools them as pool.frag's "taps" does:
// the pooled texel into target 0, the first-maximum taps into target 1. The image is
// never written. Each filter texel is read once for the fragment's pixels, each x row
// once for the pixels and taps that read it (x values at constant offsets of the row).
uniform int uPooled[4];  // the pooled grid [N, POH, POW, CO]
uniform int uXLast;      // x's last texel

void main() {
  int f = out_texel();
  int cb = uGrid[3] >> 2;
  int q = f / cb;
  int c = f - q * cb;
  int px = q % uPooled[2];
  q /= uPooled[2];
  int py = q % uPooled[1];
  int n = q / uPooled[1];
  int h = uImage[1];
  int w = uImage[2];
  int y0 = py * ${PKH};
  int x0 = px * ${PKW};
  int iy0 = y0 * uStride[0] - uPad[0];
  int ix0 = x0 * uStride[1] - uPad[1];
${load_w}
${load_x}
${accumulate}
  vec4 pooled = vec4(-intBitsToFloat(0x7f7fffff));  // float32's lowest
  vec4 best = vec4(0);
  ivec4 at = ivec4(0);
${pool}
  outValue0 = pooled;
  outValue1 = at;
}
