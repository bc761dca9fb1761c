// unsorted_segment_sum: output (s, r) sums the rows j of data [N, R] whose id is s.
// Each output scans the ids in order: deterministic sums, in numpy's order,
// with no atomics (WGSL has none for floats). Negative ids are dropped (TensorFlow's
// rule); an id >= the S segments, which TensorFlow rejects and only the host can
// report, makes every output ${bad} (NaN for floats, the lowest i32). Where a
// driver limits an invocation's loop (wgpu.py), invocation i = p * n + o scans only
// part p of the ids, J of them: its sum goes to out0[i], part p's bad flag (written
// by its output 0) to out0[P * n + p], and segment_parts.wgsl adds the parts up.
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let R = params[1]; let N = params[2]; let S = params[3]; let n = params[6];
  let J = params[7];
  let o = i % n; let p = i / n;
  let r = o % R; let s = o / R;
  var acc = ${T}(0);
  var bad = false;
  let end = min(N, (p + 1) * J);
  for (var j = p * J; j < end; j = j + 1) {
    if (in1[j] == s) { acc = acc + in0[j * R + r]; }
    bad = bad || in1[j] >= S;
  }
  ${finish}
}
