// im2col for conv2d: row p = (n, oy, ox) of the patch matrix holds, for each window
// offset (ky, kx), the C channels of the input pixel it covers (0 in the padding).
// One invocation copies one pixel's channels, ${width} at a time, so the index
// arithmetic (slow integer division on CPU adapters) is done once per pixel; where a
// driver limits an invocation's loop (wgpu.py), Q invocations a pixel, CC channels each.
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let C = params[1]; let KK = params[2]; let KW = params[3]; let OH = params[4];
  let OW = params[5]; let H = params[6]; let W = params[7];
  ${part}
  let p = pk / KK; let kk = pk % KK;
  let ox = p % OW; let po = p / OW;
  let y = (po % OH) * params[8] - params[12] + (kk / KW) * params[10];
  let x = ox * params[9] - params[13] + (kk % KW) * params[11];
  let ok = y >= 0 && y < H && x >= 0 && x < W;
  let src = select(0, (((po / OH) * H + y) * W + x) * C, ok);
  let dst = pk * C;
  for (var c = ${c0}; c < ${c1}; c = c + 1) {
    out0[dst + c] = select(${T}(), in0[src + c], ok);
  }
}
