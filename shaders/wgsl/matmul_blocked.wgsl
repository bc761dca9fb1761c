// C = A B for any strides (transposed operands read in place, any M, N, K), for CPU
// adapters: each invocation accumulates ${R} rows by ${C} columns (4 apart) of C in
// registers, fully unrolled, from scalar loads. CPU adapters run neighbouring
// invocations as the lanes of SIMD registers and gather each load whose index varies
// at run time, so a block of R x C outputs costs R + C gathers per k for R C
// multiply-adds: blocks are big, and a private array indexed in a loop (memory,
// gathered too) is avoided. Rows and columns past the edge are clamped when loading
// and skipped when storing. Split-K (a driver's loop limit, wgpu.py): workgroup
// z = s * batches + b sums k in chunk s only, into partial product z.
@compute @workgroup_size(${WX}, ${WY})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
  let M = params[0]; let N = params[1]; let K = params[2];
  let a_rows = params[3]; let a_cols = params[4]; let b_rows = params[5]; let b_cols = params[6];
  ${chunk}
  ${batch}
  let a_base = ${a_off};
  let b_base = ${b_off};
  let c_base = i32(wid.z) * M * N;
  let m0 = i32(gid.y) * ${R};
  // 4 neighbouring lanes (one SIMD register) take interleaved columns, so each
  // gather of B and scatter of C touches one cache line, and share their rows
  let n0 = (i32(gid.x) / 4) * ${C4} + i32(gid.x) % 4;
  ${setup}
  for (var k = k0; k < k1; k = k + 1) {
    let ka = k * a_cols;
    let kb = k * b_rows;
    ${body}
  }
  ${store}
}
