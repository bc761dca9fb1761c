"""WGSL kernels of the sorting primitives.

argsort is a bitonic sort of each row, padded to P (a power of two), on (key, index)
pairs: keys are ints that order as the values do (floats by their bits, -0 as 0, NaN
above +inf; bit-flipped when descending), padding has the largest key and an index
>= n. Stages whose partners lie within a block of B = min(P, 512) elements run in
workgroup memory, many per dispatch: one dispatch sorts every block (loading the keys),
then for each k > B one dispatch per distance j >= B (global memory) and one for the
distances below B. Rows of 1024 take 3 dispatches and a copy, rows of 16384 take 21.
permute_last_axis is a per-row gather.
"""

from ..base import kernel
from ..layout import axis_view, pow2_at_least
from .movement import copy_step
from .program import (GLOBAL_INDEX, STORAGE, Program, Step, global_index, grid,
                      grid_for, header)

BLOCK = 512
_programs = {}

_KEY = """
fn sort_key(v: {t}) -> i32 {{
  {body}
}}

// (k, i) of a before (k, i) of b: by key, then by index
fn before(ka: i32, ia: i32, kb: i32, ib: i32) -> bool {{
  return ka < kb || (ka == kb && ia < ib);
}}
"""
_KEY_BODY = {
    "f32": "if (is_nan_f32(v)) { return 2147483647; }\n"
           "  if (v == 0.0) { return 0; }\n"
           "  let bits = bitcast<i32>(v);\n"
           "  return select(bits, bits ^ 2147483647, bits < 0);",
    "i32": "return v;",
}
# params: n, p, block, k_first, k_last, descending
_LOCAL = """
var<workgroup> sk: array<i32, 512>;
var<workgroup> si: array<i32, 512>;

@compute @workgroup_size({w})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {{
  let n = params[0]; let p = params[1]; let block = params[2];
  let g = i32(wid.y * nwg.x + wid.x);
  let start = g * block;             // flat offset of the block in [rows, p]
  let row = start / p;
  let row_start = start - row * p;   // the block's first position in its row
  for (var e = i32(lid); e < block; e = e + {w}) {{
{load}
  }}
  workgroupBarrier();
  for (var k = params[3]; k <= params[4]; k = k * 2) {{
    for (var j = min(k, block) / 2; j > 0; j = j / 2) {{
      for (var q = i32(lid); q < block / 2; q = q + {w}) {{
        let a = (q / j) * 2 * j + q % j;
        let b = a + j;
        let up = ((row_start + a) & k) == 0;
        if (before(sk[b], si[b], sk[a], si[a]) == up) {{
          let tk = sk[a]; sk[a] = sk[b]; sk[b] = tk;
          let ti = si[a]; si[a] = si[b]; si[b] = ti;
        }}
      }}
      workgroupBarrier();
    }}
  }}
  for (var e = i32(lid); e < block; e = e + {w}) {{
    out0[start + e] = sk[e];
    out1[start + e] = si[e];
  }}
}}
"""
_LOAD_FIRST = """    let pos = row_start + e;
    var key = 2147483647;
    if (pos < n) {
      key = sort_key(in0[row * n + pos]);
      if (params[5] == 1) { key = ~key; }
    }
    sk[e] = key;
    si[e] = pos;"""
_LOAD_LATER = "    sk[e] = in0[start + e];\n    si[e] = in1[start + e];"


def _local_program(t, first, w):
    key = ("argsort_local", t, first, w)
    if key not in _programs:
        in_types = [t] if first else ["i32", "i32"]
        source = (header(in_types, ["i32", "i32"], _KEY.format(t=t, body=_KEY_BODY[t])) +
                  _LOCAL.format(w=w, load=_LOAD_FIRST if first else _LOAD_LATER))
        _programs[key] = Program(key, len(in_types), 2, lambda: source)
    return _programs[key]


def _global_program():
    """One stage (k, j) over global memory, an invocation per pair. params: pairs, p, k, j."""
    key = ("argsort_global",)
    if key not in _programs:
        body = "\n  ".join([
            global_index("q"), "if (q >= params[0]) { return; }",
            "let p = params[1]; let k = params[2]; let j = params[3];",
            "let half = p / 2; let row = q / half; let r = q % half;",
            "let a = (r / j) * 2 * j + r % j; let b = a + j;",
            "let fa = row * p + a; let fb = row * p + b;",
            "let swap = before(in0[fb], in1[fb], in0[fa], in1[fa]) == ((a & k) == 0);",
            "out0[fa] = select(in0[fa], in0[fb], swap);",
            "out1[fa] = select(in1[fa], in1[fb], swap);",
            "out0[fb] = select(in0[fb], in0[fa], swap);",
            "out1[fb] = select(in1[fb], in1[fa], swap);"])
        source = (header(["i32", "i32"], ["i32", "i32"], _KEY.format(t="i32", body="return v;"))
                  + f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n")
        _programs[key] = Program(key, 2, 2, lambda: source)
    return _programs[key]


@kernel("argsort", "wgsl")
def argsort(k, *inputs, descending):
    x = inputs[0]
    rows, n, _ = axis_view(x.shape, -1)
    p = pow2_at_least(n, 2)
    block = min(p, BLOCK)
    w = block // 2
    meta = [n, p, block, 2, block, int(descending)]
    # table: x, output, then key and index buffers of two generations
    temps = [k.temp(4 * rows * p) for _ in range(4)]
    pairs = [tuple(temps[:2]), tuple(temps[2:])]
    groups = grid(rows * p // block)
    k.add(Step(_local_program(STORAGE[x.dtype], True, w), meta, groups, (0,) + pairs[0]))
    gen = 0
    stage = 2 * block
    while stage <= p:
        j = stage // 2
        while j >= block:
            k.add(Step(_global_program(), [rows * p // 2, p, stage, j],
                       grid_for(rows * p // 2), pairs[gen] + pairs[1 - gen]))
            gen = 1 - gen
            j //= 2
        k.add(Step(_local_program("i32", False, w),
                   [n, p, block, stage, stage, int(descending)], groups,
                   pairs[gen] + pairs[1 - gen]))
        gen = 1 - gen
        stage *= 2
    # the first n positions of each row
    k.add(copy_step(pairs[gen][1], k.out, "int32", (rows, n), (p, 1)))
    return k.recipe(4 * x.size)


@kernel("permute_last_axis", "wgsl")
def permute_last_axis(k, *inputs):
    x = inputs[0]
    t = STORAGE[k.out_dtype]
    key = ("permute", t)
    if key not in _programs:
        body = "\n  ".join([global_index(), "if (i >= params[0]) { return; }",
                            "let n = params[1];", "out0[i] = in0[i - i % n + in1[i]];"])
        source = (header([t, "i32"], [t]) +
                  f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n")
        _programs[key] = Program(key, 2, 1, lambda: source)
    k.add(Step(_programs[key], [x.size, x.shape[-1]], grid_for(x.size), (0, 1, k.out)))
    return k.recipe(4 * x.size)
