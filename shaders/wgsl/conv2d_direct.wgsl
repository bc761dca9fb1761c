// conv2d without im2col, for few input channels (C % 4 != 0: im2col would copy
// scalars and the product's K would not be a multiple of 4) and OC % 4 == 0: an
// invocation computes ${R} neighbouring output pixels of one row at four output
// channels, each filter vec4 serving ${R} pixels. Taps in the padding add nothing
// (their rows are skipped, their columns read a clamped address times 0).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let CO4 = params[1]; let OWB = params[2]; let OH = params[3]; let OW = params[4];
  let H = params[5]; let W = params[6]; let C = params[7]; let KH = params[8];
  let KW = params[9]; let sh = params[10]; let sw = params[11]; let dh = params[12];
  let dw = params[13]; let pt = params[14]; let pl = params[15];
  let co = i % CO4; let r1 = i / CO4; let bx = r1 % OWB; let r2 = r1 / OWB;
  let oy = r2 % OH; let nb = r2 / OH;
  let ox0 = bx * ${R};
  ${acc_decl}
  for (var ky = 0; ky < KH; ky = ky + 1) {
    let y = oy * sh - pt + ky * dh;
    if (y < 0 || y >= H) { continue; }
    let row = (nb * H + y) * W;
    for (var kx = 0; kx < KW; kx = kx + 1) {
      let x0 = ox0 * sw - pl + kx * dw;
      ${columns}
      var t = (ky * KW + kx) * C * CO4 + co;
      for (var c = 0; c < C; c = c + 1) {
        let w = in1[t];
        ${accumulate}
        t = t + CO4;
      }
    }
  }
  ${store}
}
