${head}

${functions}

// One pass of a scan along the middle axis of x viewed as [A, uN, uB] (Hillis-Steele):
// element i combines with element i - uStep (a negative step reads later elements: a
// reversed scan); the exclusive shift (uShift == 1) just takes element i - uStep, or
// the identity where there is none.
uniform int uN;
uniform int uB;
uniform int uStep;
uniform int uShift;

${T} lane(int o) {
  int j = (o / uB) % uN - uStep;
  bool inside = j >= 0 && j < uN;
  ${T} other = inside ? get0(o - uStep * uB) : ${T}(${identity});
  if (uShift == 1) return other;
  return inside ? red_${op}(other, get0(o)) : get0(o);
}

void main() {
  int o = out_texel() << 2;
  outValue = ${T4}(lane(o), lane(o + 1), lane(o + 2), lane(o + 3));
}
