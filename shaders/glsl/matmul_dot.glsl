// K % 4 == 0 (N any), A as [M, K] and B as [N, K] (transposed): each lane is the dot
// product of two rows, four k per texel.
${T} lane(int o) {
  ivec2 off, kr;
  int i, j;
  locate(o, uM, off, i, j, kr);
  int ta = (off.x + i * uK + kr.x) >> 2;
  int tb = (off.y + j * uK + kr.x) >> 2;
  ${T} acc = ${T}(0);
  for (int k = kr.x; k < kr.y; k += 4) {
    acc += dot4(fetchA(ta), fetchB(tb));
    ta += 1;
    tb += 1;
  }
  return acc;
}

void main() {
  int o = out_texel() << 2;
  outValue = epilogue(${T4}(lane(o), lane(o + 1), lane(o + 2), lane(o + 3)));
}
