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
  ${tile}
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
