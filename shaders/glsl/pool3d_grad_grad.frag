${head}

// max_pool3d's second-order gradient by TensorFlow 2.21's MaxPool3DGradGrad (ops/pool3d.py):
// each pooled output (y, input 1) takes g (input 2, the input's shape) at the first tap
// of its box inside the volume, in (depth, row, column) order, whose x (input 0) equals
// it; 0 where none does (a NaN).
uniform int uImage[5];   // N, D, H, W, C
uniform int uGrid[3];    // the pooled OD, OH, OW
uniform int uWin[3];
uniform int uStride[3];
uniform int uPad[3];

float grad_grad3d(int o) {
  int C = uImage[4];
  int c = o % C;
  int q = o / C;
  int ox = q % uGrid[2];
  q /= uGrid[2];
  int oy = q % uGrid[1];
  q /= uGrid[1];
  int oz = q % uGrid[0];
  int n = q / uGrid[0];
  float p = get1(o);
  bool found = f_isnan(p);
  float result = 0.0;
  for (int a = 0; a < uWin[0]; a++) {
    int z = oz * uStride[0] - uPad[0] + a;
    for (int b = 0; b < uWin[1]; b++) {
      int y = oy * uStride[1] - uPad[1] + b;
      for (int e = 0; e < uWin[2]; e++) {
        int x = ox * uStride[2] - uPad[2] + e;
        bool inside = z >= 0 && z < uImage[1] && y >= 0 && y < uImage[2] && x >= 0 &&
                      x < uImage[3];
        int i = (((n * uImage[1] + z) * uImage[2] + y) * uImage[3] + x) * C + c;
        if (!found && inside && get0(i) == p) {
          result = get2(i);
          found = true;
        }
      }
    }
  }
  return result;
}

void main() {
  int o = out_texel() << 2;
  outValue = vec4(grad_grad3d(o), grad_grad3d(o + 1), grad_grad3d(o + 2), grad_grad3d(o + 3));
}
