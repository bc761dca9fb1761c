// K % 4 == 0 and N % 4 == 0, B given transposed ([N, K]): C[i, j + c] is the dot
// product of A's row i and B's row j + c, four k per texel.
void main() {
  ivec2 off, kr;
  int i, j;
  locate(out_texel() << 2, uM, off, i, j, kr);
  int ta = (off.x + i * uK + kr.x) >> 2;
  int kb = uK >> 2;
  int tb = (off.y + j * uK + kr.x) >> 2;
  int steps = (kr.y - kr.x) >> 2;
  ${T4} acc = ${T4}(0);
  for (int k = 0; k < steps; k++) {
    ${T4} a = fetchA(ta + k);
    acc += ${T4}(dot4(a, fetchB(tb + k)), dot4(a, fetchB(tb + kb + k)),
                 dot4(a, fetchB(tb + 2 * kb + k)), dot4(a, fetchB(tb + 3 * kb + k)));
  }
  outValue = epilogue(acc);
}
