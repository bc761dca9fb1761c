// conv2d_backprop_filter without im2col, for few input channels (C % 4 != 0) and
// OC % 4 == 0: invocation (part p, tap ky kx, channel c, four output channels) adds
// x * dy over the window rows [p * PER, (p + 1) * PER) of the N * OH rows, its columns
// limited to those whose tap lies in the image; the parts' sums are added up after
// (sum_parts.wgsl). Each invocation loops over about as many pixels as its part holds,
// so a filter of a few hundred values still spreads over thousands of invocations.
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let CO4 = params[1]; let F = params[2]; let OH = params[3]; let OW = params[4];
  let H = params[5]; let W = params[6]; let C = params[7]; let KW = params[8];
  let sh = params[9]; let sw = params[10]; let dh = params[11]; let dw = params[12];
  let pt = params[13]; let pl = params[14]; let ROWS = params[15]; let PER = params[16];
  let co = i % CO4; let r1 = i / CO4; let f = r1 % F; let p = r1 / F;
  let c = f % C; let kk = f / C; let kx = kk % KW; let ky = kk / KW;
  // the columns ox whose tap ox * sw - pl + kx * dw lies in [0, W)
  let lo_at = pl - kx * dw;
  let hi_at = W - 1 + pl - kx * dw;
  let lo = select(0, (lo_at + sw - 1) / sw, lo_at > 0);
  let hi = select(0, min(OW, hi_at / sw + 1), hi_at >= 0);
  var acc = vec4<f32>();
  let end = min(ROWS, (p + 1) * PER);
  for (var r = p * PER; r < end; r = r + 1) {
    let nb = r / OH; let oy = r - nb * OH;
    let y = oy * sh - pt + ky * dh;
    if (y < 0 || y >= H) { continue; }
    var xi = ((nb * H + y) * W + lo * sw - lo_at) * C + c;
    var di = (r * OW + lo) * CO4 + co;
    for (var ox = lo; ox < hi; ox = ox + 1) {
      acc = acc + in0[xi] * in1[di];
      xi = xi + sw * C;
      di = di + CO4;
    }
  }
  out0[i] = acc;
}
