// K % 4 == 0 and N % 4 == 0: the fragment's four outputs are C[i, j..j+3]. Per four
// k: one texel of A's row, the texels of B's rows k..k+3 at columns j..j+3.
void main() {
  ivec2 off, kr;
  int i, j;
  locate(out_texel() << 2, uM, off, i, j, kr);
  int ta = (off.x + i * uK + kr.x) >> 2;
  int nb = uN >> 2;
  int tb = (off.y + kr.x * uN + j) >> 2;
  ${T4} acc = ${T4}(0);
  for (int k = kr.x; k < kr.y; k += 4) {
    ${T4} a = fetchA(ta);
    ${T4} b0 = fetchB(tb);
    ${T4} b1 = fetchB(tb + nb);
    ${T4} b2 = fetchB(tb + 2 * nb);
    ${T4} b3 = fetchB(tb + 3 * nb);
    acc += a.x * b0 + a.y * b1 + a.z * b2 + a.w * b3;
    ta += 1;
    tb += 4 * nb;
  }
  outValue = epilogue(acc);
}
