// Any shapes: each lane walks its own row of A and column of B, one element at a
// time, with strides that absorb the transposes.
uniform int uSAi;
uniform int uSAk;
uniform int uSBk;
uniform int uSBj;

${T} lane(int o) {
  ivec2 off, kr;
  int i, j;
  locate(o, uM, off, i, j, kr);
  int ia = off.x + i * uSAi + kr.x * uSAk;
  int ib = off.y + j * uSBj + kr.x * uSBk;
  ${T} acc = ${T}(0);
  for (int k = kr.x; k < kr.y; k++) {
    acc += ${T}(get0(ia)) * ${T}(get1(ib));
    ia += uSAk;
    ib += uSBk;
  }
  return acc;
}

void main() {
  int o = out_texel() << 2;
  if (o >= uOutSize) return;
  outValue = epilogue(${T4}(lane(o), lane(o + 1), lane(o + 2), lane(o + 3)));
}
