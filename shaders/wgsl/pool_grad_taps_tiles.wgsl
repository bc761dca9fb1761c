// max_pool_grad_taps where the windows tile the image (pool_grad_tiles.wgsl's case): one
// invocation per tile (n, ty, tx) and ${T} of channels reads its window's tap (the image
// element max_pool_taps recorded) and dy once, and writes dy there and 0 at the tile's
// other in-image positions (all 0 in a tile past the last window).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  ${tile}
  let window = ty < OH && tx < OW;
  let o = ((nb * OH + min(ty, OH - 1)) * OW + min(tx, OW - 1)) * C + c;
  let tap = in0[o];
  let dy = select(${T}(), in1[o], window);
  for (var ky = 0; ky < ny; ky = ky + 1) {
    var t = ((nb * H + y0 + ky) * W + x0) * C + c;
    for (var kx = 0; kx < nx; kx = kx + 1) {
      out0[t] = select(${T}(), dy, tap == ${lanes});
      t = t + C;
    }
  }
}
