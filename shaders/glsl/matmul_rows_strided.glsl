// N % 4 == 0, any K and A in any order (uSAi, uSAk: its strides): the fragment's four
// outputs are C[i, j..j+3]. Per k: one element of A, shared by the four lanes, and the
// texel of B's row k at columns j..j+3. Where K % 4 != 0 or A is given transposed,
// this saves the transpose pass the four-k paths need, and fetches a quarter of what
// the general path's lanes each fetch.
uniform int uSAi;
uniform int uSAk;

void main() {
  ivec2 off, kr;
  int i, j;
  locate(out_texel() << 2, uM, off, i, j, kr);
  int ia = off.x + i * uSAi + kr.x * uSAk;
  int nb = uN >> 2;
  int tb = (off.y + kr.x * uN + j) >> 2;
  ${T4} acc = ${T4}(0);
  for (int k = kr.x; k < kr.y; k++) {
    acc += ${T}(get0(ia)) * fetchB(tb);
    ia += uSAk;
    tb += nb;
  }
  outValue = epilogue(acc);
}
