// max_pool3d's gradient by TensorFlow 2.21's MaxPool3DGrad (ops/pool3d.py): each input
// position x (in0) gets the dy (in2) of every box covering it whose pooled value y (in1)
// is within 1e-5 of x (|x - y| < 1e-5: inf and NaN never), added in TensorFlow's order,
// the boxes' columns, rows and planes ascending (so taps descending).
// (params, geometry and at_output: backends/wgsl/pool3d.py)
// The window loops' bounds: all of it, or past a driver's loop budget one range of its
// taps per dispatch, which takes up (`resume`) what the one before left in its outputs
// (backends/wgsl/program.py tap_parts).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  ${geometry}
  let sd = params[12]; let sh = params[13]; let sw = params[14];
  let c = i % C; let r1 = i / C; let x = r1 % W; let r2 = r1 / W;
  let y = r2 % H; let r3 = r2 / H; let z = r3 % D; let n = r3 / D;
  let v = in0[i];
  var acc = 0.0;${resume}
  for (var e = ${e1}; e >= ${e0}; e = e - 1) {
    let tx = x + params[17] - e;
    if (tx < 0 || tx % sw != 0 || tx / sw >= OW) { continue; }
    for (var b = ${b1}; b >= ${b0}; b = b - 1) {
      let ty = y + params[16] - b;
      if (ty < 0 || ty % sh != 0 || ty / sh >= OH) { continue; }
      for (var a = ${a1}; a >= ${a0}; a = a - 1) {
        let tz = z + params[15] - a;
        if (tz < 0 || tz % sd != 0 || tz / sd >= OD) { continue; }
        let o = (((n * OD + tz / sd) * OH + ty / sh) * OW + tx / sw) * C + c;
        let p = in1[o];
        let hit = is_finite_f32(v) && is_finite_f32(p) && abs(v - p) < 1e-5;
        acc = acc + select(0.0, in2[o], hit);
      }
    }
  }
  out0[i] = acc;
}
