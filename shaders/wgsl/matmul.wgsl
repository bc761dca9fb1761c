// C = A B for row-major A [M, K] and B [K, N] with K and N multiples of 4,
// read as vec4: each invocation accumulates a block of ${R} rows by ${CV} vec4
// columns in registers, straight from memory. On CPU adapters (SwiftShader,
// lavapipe) this beats workgroup-memory tiling several times over: barriers
// are expensive there and caches already serve the reuse. Rows and columns
// past the edge are clamped when loading and skipped when storing. Split-K:
// workgroup z = s * batches + b sums k in chunk s only, into partial product z.
@compute @workgroup_size(${WX}, ${WY})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = params[0]; let N4 = params[1]; let K4 = params[2];
  ${chunk}
  ${batch}
  let a_base = ${a_off};
  let b_base = ${b_off};
  let c_base = i32(wid.z) * M * N4;
  let r0 = (i32(wid.y) * ${WY} + i32(lid.y)) * ${R};
  let c0 = (i32(wid.x) * ${WX} + i32(lid.x)) * ${CV};
  ${setup}
  for (var k = k0; k < k1; k = k + 1) {
    ${body}
  }
  ${store}
}
