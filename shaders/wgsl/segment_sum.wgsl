// unsorted_segment_sum: output (s, r) sums the rows j of data [N, R] whose id is s.
// Each output scans every id in order: deterministic sums, in numpy's order,
// with no atomics (WGSL has none for floats). Negative ids are dropped (TensorFlow's
// rule); an id >= the S segments, which TensorFlow rejects and only the host can
// report, makes every output ${bad} (NaN for floats, the lowest i32).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let R = params[1]; let N = params[2]; let S = params[3];
  let r = i % R; let s = i / R;
  var acc = ${T}(0);
  var bad = false;
  for (var j = 0; j < N; j = j + 1) {
    if (in1[j] == s) { acc = acc + in0[j * R + r]; }
    bad = bad || in1[j] >= S;
  }
  out0[i] = select(${store}, ${bad}, bad);
}
