// max_pool_grad for windows that tile the image (strides equal to the window, no top or
// left padding: Keras's default): each image position lies in at most one window, so
// one invocation per tile (n, ty, tx) and ${width} of channels finds its window's first
// maximum (pool.wgsl's argmax rule, TensorFlow's: the first tap, then a strictly greater
// value; a NaN first stays) and writes dy there and 0 at the tile's other in-image taps; a tile
// past the last window (VALID's cut-off rows and columns) is all 0. Every input and
// output element is read or written once, with no index arithmetic per tap.
${nan}

@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let C = params[1]; let TW = params[2]; let TH = params[3]; let H = params[4];
  let W = params[5]; let KH = params[6]; let KW = params[7]; let OH = params[8];
  let OW = params[9];
  let c = i % C; let r1 = i / C; let tx = r1 % TW; let r2 = r1 / TW;
  let ty = r2 % TH; let nb = r2 / TH;
  let y0 = ty * KH; let x0 = tx * KW;
  let ny = min(KH, H - y0); let nx = min(KW, W - x0);
  let first = ((nb * H + y0) * W + x0) * C + c;
  let window = ty < OH && tx < OW;
  var best = in0[first];
  var at = ${I}(0);
  if (window) {
    var k = 0;
    for (var ky = 0; ky < ny; ky = ky + 1) {
      var t = first + ky * W * C;
      for (var kx = 0; kx < nx; kx = kx + 1) {
        let v = in0[t];
        let moves = !nan(best) & !nan(v) & (v > best);
        best = select(best, v, moves);
        at = select(at, ${I}(k), moves);
        k = k + 1;
        t = t + C;
      }
    }
  }
  let dy = select(${T}(), in1[((nb * OH + min(ty, OH - 1)) * OW + min(tx, OW - 1)) * C + c],
                  window);
  var k = 0;
  for (var ky = 0; ky < ny; ky = ky + 1) {
    var t = first + ky * W * C;
    for (var kx = 0; kx < nx; kx = kx + 1) {
      out0[t] = select(${T}(), dy, at == ${I}(k));
      k = k + 1;
      t = t + C;
    }
  }
}
