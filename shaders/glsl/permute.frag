${head}

// permute_last_axis: out[row, j] = x[row, perm[row, j]] for rows of length uN.
uniform int uN;

${T} lane(int o) {
  return get0(o - o % uN + get1(o));
}

void main() {
  int o = out_texel() << 2;
  outValue = ${T4}(lane(o), lane(o + 1), lane(o + 2), lane(o + 3));
}
