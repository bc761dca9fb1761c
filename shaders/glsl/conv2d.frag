${head}

${window}

// conv2d: y[n, oy, ox, co] = sum over (ky, kx, ci) of x[n, iy, ix, ci] w[ky, kx, ci, co]
// with (iy, ix) the tap's image position; taps in the padding add nothing. Input 0 is
// x (the image), input 1 the HWIO filter, the output the grid. This is the form for
// any CO, lane by lane; conv2d_block.frag is the one for CO % 4 == 0.
float conv(int o) {
  ivec4 p = grid_index(o);
  int cin = uImage[3];
  int cout = uGrid[3];
  int iy0 = p.y * uStride[0] - uPad[0];
  int ix0 = p.z * uStride[1] - uPad[1];
  ivec2 ty = taps(iy0, uImage[1], uWin[0], uDil[0]);
  ivec2 tx = taps(ix0, uImage[2], uWin[1], uDil[1]);
  float acc = 0.0;
  for (int ky = ty.x; ky < ty.y; ky++) {
    int xi = ((p.x * uImage[1] + iy0 + ky * uDil[0]) * uImage[2] + ix0 + tx.x * uDil[1]) * cin;
    int wi = (ky * uWin[1] + tx.x) * cin * cout + p.w;
    for (int kx = tx.x; kx < tx.y; kx++) {
      for (int c = 0; c < cin; c++) {
        acc += get0(xi + c) * get1(wi + c * cout);
      }
      xi += uDil[1] * cin;
      wi += cin * cout;
    }
  }
  return acc;
}

${epilogue}

void main() {
  int o = out_texel() << 2;
  outValue = epilogue(vec4(conv(o), conv(o + 1), conv(o + 2), conv(o + 3)));
}
