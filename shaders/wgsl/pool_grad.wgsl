// Pooling gradients, per input pixel (n, y, x, c): the sum over the windows that
// cover it, window offsets in row-major order (numpy's order). ${what}
// The window loops' bounds: all of it, or past a driver's loop budget one range of its
// taps per dispatch, which takes up (`resume`) what the one before left in its outputs
// (backends/wgsl/program.py tap_parts).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let H = params[1]; let W = params[2]; let C = params[3]; let OH = params[4];
  let OW = params[5]; let KH = params[6]; let KW = params[7]; let sh = params[8];
  let sw = params[9]; let pt = params[10]; let pl = params[11];
  let c = i % C; let r1 = i / C; let x = r1 % W; let r2 = r1 / W;
  let y = r2 % H; let nb = r2 / H;
  var acc = 0.0;${resume}
  for (var ky = ${ky0}; ky < ${ky1}; ky = ky + 1) {
    let ty = y + pt - ky;
    if (ty < 0 || ty % sh != 0 || ty / sh >= OH) { continue; }
    let oy = ty / sh;
    for (var kx = ${kx0}; kx < ${kx1}; kx = kx + 1) {
      let tx = x + pl - kx;
      if (tx < 0 || tx % sw != 0 || tx / sw >= OW) { continue; }
      let ox = tx / sw;
      let o = ((nb * OH + oy) * OW + ox) * C + c;
      ${contribution}
    }
  }
  out0[i] = acc;
}
