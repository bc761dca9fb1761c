${head}

// C[batch, i, j] = sum_k A[batch, i, k] B[batch, k, j], all flat row-major. Split-K
// writes uChunks partial products per batch instead, [batch, uChunks, M, N], chunk s
// summing k in [s * uKc, (s + 1) * uKc); a later pass adds them up.
uniform int uM;
uniform int uN;
uniform int uK;
uniform int uChunks;
uniform int uKc;
${batch_decls}

// Flat offsets of the A and B matrices of output batch `bi` (broadcast batches).
ivec2 batch_offsets(int bi) {
  ivec2 off = ivec2(0);
${batch_loop}
  return off;
}

// Element `o` of the output viewed as [batch, uChunks, rows, uN]: the A and B offsets
// of its batch, its row `i` and column `j`, and the k range [kr.x, kr.y) of its chunk.
void locate(int o, int rows, out ivec2 off, out int i, out int j, out ivec2 kr) {
  int per = rows * uN;
  int q = o / per;
  int rem = o - q * per;
  i = rem / uN;
  j = rem - i * uN;
${chunk}
  off = batch_offsets(bi);
}

${T4} fetchA(int t) { return ${T4}(texel0(t)); }
${T4} fetchB(int t) { return ${T4}(texel1(t)); }
// by float index (the blocked path: texture() is cheaper than texelFetch on SwiftShader)
${T4} fetchA(float t) { return ${T4}(texelf0(t)); }
${T4} fetchB(float t) { return ${T4}(texelf1(t)); }
${T} dot4(${T4} a, ${T4} b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

${body}
