// out [M, K] = the transpose of in [K, M] (params: vec4s in all, M / 4, K / 4), both
// read and written as vec4s (M % 4 == 0, K % 4 == 0): one 4x4 block per invocation,
// regrouped in registers, so 4 loads and 4 stores where an element-wise copy makes
// 16 of each (a matmul's transposed operand, on CPU adapters).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0] / 4) { return; }
  let M4 = params[1]; let K4 = params[2];
  let i4 = i % M4; let k = 4 * (i / M4);
  let v0 = in0[k * M4 + i4];
  let v1 = in0[(k + 1) * M4 + i4];
  let v2 = in0[(k + 2) * M4 + i4];
  let v3 = in0[(k + 3) * M4 + i4];
  let o = 4 * i4 * K4 + k / 4;
  out0[o] = ${T}(v0.x, v1.x, v2.x, v3.x);
  out0[o + K4] = ${T}(v0.y, v1.y, v2.y, v3.y);
  out0[o + 2 * K4] = ${T}(v0.z, v1.z, v2.z, v3.z);
  out0[o + 3 * K4] = ${T}(v0.w, v1.w, v2.w, v3.w);
}
