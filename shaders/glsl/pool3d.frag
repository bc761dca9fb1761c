${head}

// tf.nn.max_pool3d by TensorFlow 2.21's CPU kernel (ops/pool3d.py): each box's taps in
// (depth, row, column) order from -inf, a tap in the padding counting as float32's
// lowest. An output in one of Eigen's packets (8 consecutive elements from a multiple
// of 8, all channels of one position, all in the array) takes a tap only when greater
// (NaN never); any other takes a tap unless it is less (a NaN, then the tap after it).
uniform int uImage[5];   // N, D, H, W, C
uniform int uGrid[3];    // the output's OD, OH, OW
uniform int uWin[3];
uniform int uStride[3];
uniform int uPad[3];     // padding before, per axis

float pool3d(int o) {
  int C = uImage[4];
  int q = o / C;
  int ox = q % uGrid[2];
  q /= uGrid[2];
  int oy = q % uGrid[1];
  q /= uGrid[1];
  int oz = q % uGrid[0];
  int n = q / uGrid[0];
  int start = (o >> 3) << 3;
  bool packet = start + 8 <= uOutSize && start % C + 8 <= C;
  float lowest = intBitsToFloat(-8388609);  // 0xff7fffff
  float acc = -f_inf();
  for (int a = 0; a < uWin[0]; a++) {
    int z = oz * uStride[0] - uPad[0] + a;
    for (int b = 0; b < uWin[1]; b++) {
      int y = oy * uStride[1] - uPad[1] + b;
      for (int e = 0; e < uWin[2]; e++) {
        int x = ox * uStride[2] - uPad[2] + e;
        bool inside = z >= 0 && z < uImage[1] && y >= 0 && y < uImage[2] && x >= 0 &&
                      x < uImage[3];
        float t = inside ? get0((((n * uImage[1] + z) * uImage[2] + y) * uImage[3] + x) * C +
                                o % C) : lowest;
        // NaN tested by its bits: comparisons with NaN are not to be trusted everywhere
        bool nan_t = f_isnan(t);
        bool nan_acc = f_isnan(acc);
        bool take = packet ? !nan_t && t > acc : nan_t || nan_acc || t >= acc;
        acc = take ? t : acc;
      }
    }
  }
  return acc;
}

void main() {
  int o = out_texel() << 2;
  outValue = vec4(pool3d(o), pool3d(o + 1), pool3d(o + 2), pool3d(o + 3));
}
