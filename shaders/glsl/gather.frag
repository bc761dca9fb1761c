${head}

// gather: params viewed as [outer, uN, uInner], indices (input 1) flat [uM], the
// output [outer, uM, uInner]. An index outside [0, uN) cannot raise here (indices known
// on the host were checked before the launch): it gives ${bad} (NaN for floats, the
// lowest int32 for ints), never a plausible value.
uniform int uN;
uniform int uM;
uniform int uInner;

${V} pick(int o) {
  int inner = o % uInner;
  int q = o / uInner;
  int j = q % uM;
  int outer = q / uM;
  int index = get1(j);
  if (index < 0 || index >= uN) return ${V}(${bad});
  int i = (outer * uN + index) * uInner + inner;
  return ${fetch};
}

void main() {
  int o = out_texel() << 2;
  outValue = ${result};
}
