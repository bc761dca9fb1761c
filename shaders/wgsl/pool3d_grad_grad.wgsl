// max_pool3d's second-order gradient by TensorFlow 2.21's MaxPool3DGradGrad (ops/pool3d.py):
// each pooled output (y, in1) takes g (in2, the input's shape) at the first tap of its box
// inside the volume, in (depth, row, column) order, whose x (in0) equals it; 0 where none
// does (a NaN).
// (params, geometry and at_output: backends/wgsl/pool3d.py)
// The window loops' bounds: all of it, or past a driver's loop budget one range of its
// taps per dispatch, which takes up (`resume`) what the one before left in its outputs
// (backends/wgsl/program.py tap_parts).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  ${geometry}
  ${at_output}
  let p = in1[i];
  var found = is_nan_f32(p);
  var result = 0.0;${resume}
  for (var a = ${a0}; a < ${a1}; a = a + 1) {
    let z = oz * params[12] - params[15] + a;
    for (var b = ${b0}; b < ${b1}; b = b + 1) {
      let y = oy * params[13] - params[16] + b;
      for (var e = ${e0}; e < ${e1}; e = e + 1) {
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
  out0[i] = result;${save}
}
