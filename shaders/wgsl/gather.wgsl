// gather: output (a, j, b) = params (a, indices[j], b) of params viewed as [A, P, B];
// an index outside [0, P), which only the host can report (host-known indices were
// checked), gives ${bad}: NaN for floats, the lowest i32 for ints, never plausible data.
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  if (i >= params[0]) { return; }
  let J = params[1]; let B = params[2]; let P = params[3];
  let b = i % B; let aj = i / B;
  let k = in1[aj % J];
  let ok = k >= 0 && k < P;
  out0[i] = select(${bad}, in0[((aj / J) * P + select(0, k, ok)) * B + b], ok);
}
