// unsorted_segment_sum's second pass where the ids were cut into P parts
// (segment_sum.wgsl): out[o] adds the parts' sums in order, ${bad} if any part saw
// an id past the segments (its flag after the P * n sums).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  let n = params[0]; let P = params[1];
  if (i >= n) { return; }
  var acc = in0[i];
  var bad = in0[P * n] != ${T}(0);
  for (var p = 1; p < P; p = p + 1) {
    acc = acc + in0[p * n + i];
    bad = bad || in0[P * n + p] != ${T}(0);
  }
  out0[i] = select(${store}, ${bad}, bad);
}
