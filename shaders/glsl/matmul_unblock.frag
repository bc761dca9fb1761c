${head}

// C's flat layout from the ${R} render targets of matmul_block.glsl, the layers of
// texture array 0: row i of batch bi is row i / ${R} of layer i % ${R}, in each of the
// uChunks partial products (split-K), which are added up here.
uniform int uM;
uniform int uN;
uniform int uMb;
uniform int uChunks;

${epilogue}

void main() {
  int o = out_texel() << 2;
  int mn = uM * uN;
  int bi = o / mn;
  int rem = o - bi * mn;
  int i = rem / uN;
  int j = rem - i * uN;
  int ib = i / ${R};
  int r = i - ib * ${R};
  int step = (uMb * uN) >> 2;
  int t = ((bi * uChunks * uMb + ib) * uN + j) >> 2;
  int end = t + uChunks * step;
  ${T4} v;
${fetch}
${store}
}
