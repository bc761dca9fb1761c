// C = A B: a (4 WY)x(4 WX) tile of C per workgroup, a 4x4 block per invocation,
// any strides. Rows and columns past the edge are clamped when loading (so no
// branches in the inner loop) and skipped when storing.
@compute @workgroup_size(${WX}, ${WY})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = params[0]; let N = params[1]; let K = params[2];
  let a_rows = params[3]; let a_cols = params[4]; let b_rows = params[5]; let b_cols = params[6];
  ${batch}
  let a_base = ${a_off};
  let b_base = ${b_off};
  let m0 = (i32(wid.y) * ${WY} + i32(lid.y)) * 4;
  let n0 = (i32(wid.x) * ${WX} + i32(lid.x)) * 4;
  var acc: array<vec4<${T}>, 4>;
  for (var k = 0; k < K; k = k + 1) {
    var bv: vec4<${T}>;
    for (var j = 0; j < 4; j = j + 1) {
      let ni = min(n0 + j, N - 1);
      bv[j] = ${load_b};
    }
    for (var i = 0; i < 4; i = i + 1) {
      let mi = min(m0 + i, M - 1);
      acc[i] = acc[i] + ${load_a} * bv;
    }
  }
  let c_base = i32(wid.z) * M * N;
  for (var i = 0; i < 4; i = i + 1) {
    for (var j = 0; j < 4; j = j + 1) {
      if (m0 + i < M && n0 + j < N) {
        let o = c_base + (m0 + i) * N + n0 + j;
        out0[o] = epilogue(acc[i][j], o);
      }
    }
  }
}
