${head}

// max_pool3d's gradient by TensorFlow 2.21's MaxPool3DGrad (ops/pool3d.py): each input
// position x (input 0) gets the dy (input 2) of every box covering it whose pooled value
// y (input 1) is within 1e-5 of x (|x - y| < 1e-5: inf and NaN never), added in
// TensorFlow's order, the boxes' columns, rows and planes ascending (so taps descending).
uniform int uImage[5];   // N, D, H, W, C
uniform int uGrid[3];    // the pooled OD, OH, OW
uniform int uWin[3];
uniform int uStride[3];
uniform int uPad[3];

bool finite(float v) { return (floatBitsToInt(v) & 0x7fffffff) < 0x7f800000; }

float grad3d(int i) {
  int C = uImage[4];
  int c = i % C;
  int q = i / C;
  int x = q % uImage[3];
  q /= uImage[3];
  int y = q % uImage[2];
  q /= uImage[2];
  int z = q % uImage[1];
  int n = q / uImage[1];
  float v = get0(i);
  float acc = 0.0;
  for (int e = uWin[2] - 1; e >= 0; e--) {
    int tx = x + uPad[2] - e;
    if (tx < 0 || tx % uStride[2] != 0 || tx / uStride[2] >= uGrid[2]) continue;
    for (int b = uWin[1] - 1; b >= 0; b--) {
      int ty = y + uPad[1] - b;
      if (ty < 0 || ty % uStride[1] != 0 || ty / uStride[1] >= uGrid[1]) continue;
      for (int a = uWin[0] - 1; a >= 0; a--) {
        int tz = z + uPad[0] - a;
        if (tz < 0 || tz % uStride[0] != 0 || tz / uStride[0] >= uGrid[0]) continue;
        int o = (((n * uGrid[0] + tz / uStride[0]) * uGrid[1] + ty / uStride[1]) * uGrid[2] +
                 tx / uStride[2]) * C + c;
        float p = get1(o);
        bool hit = finite(v) && finite(p) && abs(v - p) < 1e-5;
        acc += hit ? get2(o) : 0.0;
      }
    }
  }
  return acc;
}

void main() {
  int o = out_texel() << 2;
  outValue = vec4(grad3d(o), grad3d(o + 1), grad3d(o + 2), grad3d(o + 3));
}
