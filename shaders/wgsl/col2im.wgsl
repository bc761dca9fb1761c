// conv2d_backprop_input's second half: input pixel (n, y, x) sums, for ${width}
// channels at a time, the patch-matrix entries of every output position whose
// window covered it, window offsets in row-major order (numpy's order).
// The window loops' bounds: all of it, or past a driver's loop budget one range of its
// taps per dispatch, which takes up (`resume`) what the one before left in its outputs
// (backends/wgsl/program.py tap_parts).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let H = params[1]; let W = params[2]; let C = params[3]; let OH = params[4];
  let OW = params[5]; let KH = params[6]; let KW = params[7]; let sh = params[8];
  let sw = params[9]; let dh = params[10]; let dw = params[11]; let K = params[14];
  let c = i % C; let r1 = i / C; let x = r1 % W; let r2 = r1 / W;
  let y = r2 % H; let nb = r2 / H;
  var acc = ${T}();${resume}
  for (var ky = ${ky0}; ky < ${ky1}; ky = ky + 1) {
    let ty = y + params[12] - ky * dh;
    if (ty < 0 || ty % sh != 0 || ty / sh >= OH) { continue; }
    for (var kx = ${kx0}; kx < ${kx1}; kx = kx + 1) {
      let tx = x + params[13] - kx * dw;
      if (tx < 0 || tx % sw != 0 || tx / sw >= OW) { continue; }
      acc = acc + in0[((nb * OH + ty / sh) * OW + tx / sw) * K + (ky * KW + kx) * C + c];
    }
  }
  out0[i] = acc;
}
