${head}

// unsorted_segment_sum: data viewed as [uRows, uInner], segment ids (input 1) [uRows].
// Output element (s, inner) adds the rows whose id is s in row order, as np.add.at
// does; a negative id matches no output (TensorFlow drops those rows). An id >= the
// number of segments, which TensorFlow rejects, cannot raise here (ids known on the
// host were checked): every output becomes ${bad} (NaN for floats, the lowest int32).
uniform int uRows;
uniform int uInner;
uniform int uSegments;

${V} pick(int o) {
  int inner = o % uInner;
  int s = o / uInner;
  ${V} acc = ${V}(0);
  int i = inner;
  for (int r = 0; r < uRows; r += 4) {
    ivec4 ids = texel1(r >> 2);
    // the last texel's spare lanes hold stale data from the texture pool
    int n = min(4, uRows - r);
    for (int c = 0; c < n; c++) {
      if (ids[c] == s) acc += ${fetch};
      if (ids[c] >= uSegments) return ${V}(${bad});
      i += uInner;
    }
  }
  return acc;
}

void main() {
  int o = out_texel() << 2;
  outValue = ${result};
}
