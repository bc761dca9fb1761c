${head}

${window}

// max_pool, avg_pool, and max_pool_grad's first pass (the tap ky * KW + kx of each
// window's first maximum by TensorFlow's rule, window.glsl `take`), or both at once
// (max_pool_taps: the pooled values, the taps into a second render target):
// reductions over the window's image positions only. Input 0 is x (the image); the output is the grid.
// pool(o) is one output element, or (V = vec4, C % 4 == 0) four channels of a pixel.
${R} pool(int o${params}) {
  ivec4 p = grid_index(o);
  int iy0 = p.y * uStride[0] - uPad[0];
  int ix0 = p.z * uStride[1] - uPad[1];
  ivec2 ty = taps(iy0, uImage[1], ${KH}, 1);
  ivec2 tx = taps(ix0, uImage[2], ${KW}, 1);
${init}
  for (int ky = ty.x; ky < ty.y; ky++) {
    int i = ((p.x * uImage[1] + iy0 + ky) * uImage[2] + ix0 + tx.x) * uImage[3] + p.w;
    for (int kx = tx.x; kx < tx.y; kx++) {
      ${V} v = ${fetch};
${update}
      i += uImage[3];
    }
  }
${finish}
}

void main() {
  int o = out_texel() << 2;
${main}
}
