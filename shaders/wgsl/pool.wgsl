// Pooling over NHWC windows; positions in the padding are skipped. ${what}
// (C counts the channel words: vec4s where the program reads four channels at once.)
${nan}

// The window loops' bounds: all of it, or past a driver's loop budget one range of its
// taps per dispatch, which takes up (`resume`) what the one before left in its outputs
// (backends/wgsl/program.py tap_parts).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let OH = params[1]; let OW = params[2]; let C = params[3]; let H = params[4];
  let W = params[5]; let KH = params[6]; let KW = params[7];
  let c = i % C; let r1 = i / C; let ox = r1 % OW; let r2 = r1 / OW;
  let oy = r2 % OH; let nb = r2 / OH;
  var acc = ${init};
  var best = -1;
  var count = 0;${resume}
  for (var ky = ${ky0}; ky < ${ky1}; ky = ky + 1) {
    let y = oy * params[8] - params[10] + ky;
    if (y < 0 || y >= H) { continue; }
    for (var kx = ${kx0}; kx < ${kx1}; kx = kx + 1) {
      let x = ox * params[9] - params[11] + kx;
      if (x < 0 || x >= W) { continue; }
      let at = ((nb * H + y) * W + x) * C + c;
      let v = in0[at];
      ${update}
      count = count + 1;
    }
  }
  out0[i] = ${result};
}
