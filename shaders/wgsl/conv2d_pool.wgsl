// conv2d_pool for conv2d_direct.wgsl's convolutions: an invocation computes one pooling
// window's convolution pixels (${P}, at window rows cy0.., columns cx0..) at four output
// channels, each filter vec4 serving all of them and each pixel's sum in conv2d_direct's
// order (a pixel in a row of the padding adds nothing, as conv2d_direct skips that row;
// a pixel outside the convolution's image is computed at a clamped one and not pooled),
// passes them through the epilogue, then pools them as pool_taps.wgsl does: the
// convolution's image is never written. Launch parameters: pool_taps.wgsl's (C the
// output's channel words, H and W the convolution's size), then the convolution's.
${nan}

@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let OH = params[1]; let OW = params[2]; let CO4 = params[3]; let H = params[4];
  let W = params[5]; let psh = params[8]; let psw = params[9]; let ppt = params[10];
  let ppl = params[11];
  let IH = params[12]; let IW = params[13]; let C = params[14]; let KH = params[15];
  let KW = params[16]; let sh = params[17]; let sw = params[18]; let dh = params[19];
  let dw = params[20]; let pt = params[21]; let pl = params[22];
  let co = i % CO4; let r1 = i / CO4; let ox = r1 % OW; let r2 = r1 / OW;
  let oy = r2 % OH; let nb = r2 / OH;
  ${coords}
  ${acc_decl}
  for (var ky = 0; ky < KH; ky = ky + 1) {
    ${rows}
    for (var kx = 0; kx < KW; kx = kx + 1) {
      ${columns}
      var t = (ky * KW + kx) * C * CO4 + co;
      for (var c = 0; c < C; c = c + 1) {
        let w = in1[t];
        ${accumulate}
        t = t + CO4;
      }
    }
  }
  var acc = vec4<f32>(bitcast<f32>(0xff7fffffu));
  var best = acc;
  var at = vec4<i32>(-1);
  var first = vec4<bool>(true);
  ${pool}
  out0[i] = acc;
  out1[i] = at;
}
