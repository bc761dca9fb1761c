// out[j] = the sum over parts p of in[p * n + j], in order of p (n = params[0] vec4s or
// scalars), through `${store}` (split-K products' fused epilogues; else the identity).
@compute @workgroup_size(256)
fn main(${builtins}) {
  ${index}
  let n = params[0];
  if (i >= n) { return; }
  var acc = in0[i];
  for (var p = 1; p < params[1]; p = p + 1) {
    acc = acc + in0[p * n + i];
  }
  out0[i] = ${store}(acc, i);
}
