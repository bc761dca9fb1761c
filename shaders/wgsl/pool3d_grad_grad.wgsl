// max_pool3d's second-order gradient by TensorFlow 2.21's MaxPool3DGradGrad (ops/pool3d.py):
// each pooled output (y, in1) takes g (in2, the input's shape) at the first tap of its box
// inside the volume, in (depth, row, column) order, whose x (in0) equals it; 0 where none
// does (a NaN).
// params: total, N, D, H, W, C, OD, OH, OW, window (3), strides (3), pads before (3)
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let D = params[2]; let H = params[3]; let W = params[4]; let C = params[5];
  let OD = params[6]; let OH = params[7]; let OW = params[8];
  let c = i % C; let r1 = i / C; let ox = r1 % OW; let r2 = r1 / OW;
  let oy = r2 % OH; let r3 = r2 / OH; let oz = r3 % OD; let n = r3 / OD;
  let p = in1[i];
  var found = is_nan_f32(p);
  var result = 0.0;
  for (var a = 0; a < params[9]; a = a + 1) {
    let z = oz * params[12] - params[15] + a;
    for (var b = 0; b < params[10]; b = b + 1) {
      let y = oy * params[13] - params[16] + b;
      for (var e = 0; e < params[11]; e = e + 1) {
        let x = ox * params[14] - params[17] + e;
        if (found || z < 0 || z >= D || y < 0 || y >= H || x < 0 || x >= W) { continue; }
        let at = (((n * D + z) * H + y) * W + x) * C + c;
        if (in0[at] == p) {
          result = in2[at];
          found = true;
        }
      }
    }
  }
  out0[i] = result;
}
