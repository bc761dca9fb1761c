// tf.nn.max_pool3d by TensorFlow 2.21's CPU kernel (ops/pool3d.py): each box's taps in
// (depth, row, column) order from -inf, a tap in the padding counting as float32's
// lowest. An output in one of Eigen's packets (8 consecutive elements from a multiple of
// 8, all channels of one position, all in the array) takes a tap only when greater (NaN
// never); any other takes a tap unless it is less (a NaN, then the tap after it).
// (params, geometry and at_output: backends/wgsl/pool3d.py)
// The window loops' bounds: all of it, or past a driver's loop budget one range of its
// taps per dispatch, which takes up (`resume`) what the one before left in its outputs
// (backends/wgsl/program.py tap_parts).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  let total = params[0];
  if (i >= total) { return; }
  ${geometry}
  ${at_output}
  let start = (i / 8) * 8;
  let packet = start + 8 <= total && start % C + 8 <= C;
  let lowest = bitcast<f32>(0xff7fffffu);
  var acc = -inf_f32();${resume}
  for (var a = ${a0}; a < ${a1}; a = a + 1) {
    let z = oz * params[12] - params[15] + a;
    for (var b = ${b0}; b < ${b1}; b = b + 1) {
      let y = oy * params[13] - params[16] + b;
      for (var e = ${e0}; e < ${e1}; e = e + 1) {
        let x = ox * params[14] - params[17] + e;
        var t = lowest;
        if (z >= 0 && z < D && y >= 0 && y < H && x >= 0 && x < W) {
          t = in0[(((n * D + z) * H + y) * W + x) * C + c];
        }
        let nan_t = is_nan_f32(t);
        var take: bool;
        if (packet) {
          take = !nan_t && t > acc;
        } else {
          take = nan_t || is_nan_f32(acc) || t >= acc;
        }
        if (take) { acc = t; }
      }
    }
  }
  out0[i] = acc;
}
