${head}

// One pass of a scan, a texel (four consecutive elements) per fragment, when the scanned
// axis keeps a texel's lanes together: either each lane is its own column and the lanes
// share their position on the axis (inner size a multiple of 4: "columns"), or the axis
// is the innermost, of a length that is a multiple of 4, and the lanes are four
// consecutive positions ("rows"). The axis has uLen positions of uStride texels each;
// uStep is the signed distance of the combined position (negative: a reversed scan).
//   local   (rows) the scan within each texel
//   combine ${T4} plus the running total of the texel uStep positions away: the whole
//           texel (columns) or its last (first, reversed) lane (rows, after `local`)
//   shift   the exclusive scan from the inclusive one: each element takes the value one
//           position back (identity at the start)
uniform int uLen;
uniform int uStride;
uniform int uStep;

${T} comb(${T} a, ${T} b) { return a ${sym} b; }
${T4} comb4(${T4} a, ${T4} b) { return a ${sym} b; }

void main() {
  int t = out_texel();
  int q = (t / uStride) % uLen - uStep;
  bool inside = q >= 0 && q < uLen;
  ${T4} cur = texel0(t);
  ${T4} id = ${T4}(${identity});
${body}
}
