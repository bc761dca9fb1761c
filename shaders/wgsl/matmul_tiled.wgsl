// C = A B for row-major A [M, K] and B [K, N] with K and N multiples of 4: the
// textbook tiling for GPUs. A 16x16 workgroup computes a 64x64 tile of C, each
// invocation a 4x4 block; 64x16 slices of A and 16x64 slices of B are staged
// in workgroup memory with vec4 loads. (On CPU adapters matmul.wgsl is used:
// barriers are expensive there.) Past the edges, rows and columns are clamped
// and k beyond K reads as zero on both sides (0 * garbage could be NaN).
var<workgroup> tile_a: array<vec4<${T}>, 256>;  // [k][m / 4]: 16 x 16 vec4
var<workgroup> tile_b: array<vec4<${T}>, 256>;  // [k][n / 4]: 16 x 16 vec4

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) lix: u32) {
  let M = params[0]; let N4 = params[1]; let K4 = params[2];
  ${batch}
  let a_base = ${a_off};
  let b_base = ${b_off};
  let c_base = i32(wid.z) * M * N4;
  let t = i32(lix);
  let tx = i32(lid.x);
  let ty = i32(lid.y);
  // what this invocation stages: A row (tile row t / 4, k quad t % 4), B k row t / 16
  let a_row = a_base + min(i32(wid.y) * 64 + t / 4, M - 1) * K4;
  let b_col = b_base + min(i32(wid.x) * 16 + t % 16, N4 - 1);
  var acc: array<vec4<${T}>, 4>;
  for (var k0 = 0; k0 < K4; k0 = k0 + 4) {
    let ka = k0 + t % 4;
    let va = select(vec4<${T}>(), ${load_a}, ka < K4);
    for (var j = 0; j < 4; j = j + 1) {
      tile_a[(4 * (t % 4) + j) * 16 + t / 16][(t / 4) % 4] = va[j];
    }
    let kb = 4 * k0 + t / 16;
    tile_b[t] = select(vec4<${T}>(), ${load_b}, kb < 4 * K4);
    workgroupBarrier();
    for (var k = 0; k < 16; k = k + 1) {
      let a = tile_a[k * 16 + ty];
      let b = tile_b[k * 16 + tx];
      acc[0] = acc[0] + a.x * b;
      acc[1] = acc[1] + a.y * b;
      acc[2] = acc[2] + a.z * b;
      acc[3] = acc[3] + a.w * b;
    }
    workgroupBarrier();
  }
  let c4 = i32(wid.x) * 16 + tx;
  for (var i = 0; i < 4; i = i + 1) {
    let r = i32(wid.y) * 64 + ty * 4 + i;
    if (r < M && c4 < N4) {
      let o = c_base + r * N4 + c4;
      out0[o] = epilogue4(acc[i], o);
    }
  }
}
