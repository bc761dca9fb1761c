// max_pool and each window's first maximum in one pass (a compiled step's max_pool_taps
// and conv2d_pool: autodiff/trace_rewrite.py), per window and ${T} of channels (C counts
// the words): the pooled value by max_pool's rule (pool.wgsl: float32's lowest, then
// only a greater value, NaN never) and the index of the image element MaxPoolGrad's rule
// picks (the first in-image tap, then a strictly greater value; a NaN first stays), as
// max_pool_grad_taps reads it.
${nan}

// The window loops' bounds: all of it, or past a driver's loop budget one range of its
// taps per dispatch, which takes up (`resume`) what the one before left in its outputs
// (backends/wgsl/program.py tap_parts).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let OH = params[1]; let OW = params[2]; let C = params[3]; let H = params[4];
  let W = params[5]; let KH = params[6]; let KW = params[7]; let sh = params[8];
  let sw = params[9]; let pt = params[10]; let pl = params[11];
  let c = i % C; let r1 = i / C; let ox = r1 % OW; let r2 = r1 / OW;
  let oy = r2 % OH; let nb = r2 / OH;
  var acc = ${T}(bitcast<f32>(0xff7fffffu));
  var best = acc;
  var at = ${I}(-1);
  var first = ${B}(true);${resume}
  for (var ky = ${ky0}; ky < ${ky1}; ky = ky + 1) {
    let y = oy * sh - pt + ky;
    if (y < 0 || y >= H) { continue; }
    for (var kx = ${kx0}; kx < ${kx1}; kx = kx + 1) {
      let x = ox * sw - pl + kx;
      if (x < 0 || x >= W) { continue; }
      let p = ((nb * H + y) * W + x) * C + c;
      let v = in0[p];
      ${fold}
    }
  }
  out0[i] = acc;
  out1[i] = at;
}
