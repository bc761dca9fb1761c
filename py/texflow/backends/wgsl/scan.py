"""WGSL kernels of the cumulative ops: a blocked scan. x is viewed as [A, n, B] (the
scanned axis in the middle); each line (a, b) is cut into blocks of up to 512
elements. One dispatch scans every block in workgroup memory (log2 of the block size
steps) and writes each block's total; the totals, a [lines, blocks] array, are scanned
the same way (recursively), and one dispatch adds to each element the total of the
blocks before its own. A million elements take five dispatches. An exclusive scan adds
a dispatch that shifts the inclusive one by a position; a reversed scan reads and
writes its lines from the end.
"""

from ..base import kernel
from ..layout import axis_view
from .program import (GLOBAL_INDEX, STORAGE, Program, Step, global_index, grid,
                      grid_for, header)

BLOCK = 512
_programs = {}
_COMBINE = {"sum": "+", "prod": "*"}

# params: n, inner, blocks per line, reverse. An element's place in its line, in scan
# order (from the end when reversed), and its flat offset.
_FLAT = ("let pos = select(i, n - 1 - i, params[3] == 1);\n"
         "  let flat = (line / inner) * n * inner + pos * inner + line % inner;")

_LOCAL = """
var<workgroup> sh: array<{t}, 512>;

@compute @workgroup_size({w})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {{
  let n = params[0]; let inner = params[1]; let nb = params[2];
  let g = i32(wid.y * nwg.x + wid.x);
  let line = g / nb;
  let first = (g % nb) * {s};
  for (var e = i32(lid); e < {s}; e = e + {w}) {{
    let i = first + e;
    var v = {t}({identity});
    if (i < n) {{
      {flat}
      v = in0[flat];
    }}
    sh[e] = v;
  }}
  for (var d = 1; d < {s}; d = d * 2) {{
    workgroupBarrier();
    var got: array<{t}, {per}>;
    for (var m = 0; m < {per}; m = m + 1) {{
      let e = i32(lid) + m * {w};
      got[m] = sh[e];
      if (e >= d) {{ got[m] = sh[e - d] {op} sh[e]; }}
    }}
    workgroupBarrier();
    for (var m = 0; m < {per}; m = m + 1) {{ sh[i32(lid) + m * {w}] = got[m]; }}
  }}
  workgroupBarrier();
  for (var e = i32(lid); e < {s}; e = e + {w}) {{
    let i = first + e;
    if (i < n) {{
      {flat}
      out0[flat] = sh[e];
    }}
  }}
  if (lid == 0u) {{ out1[g] = sh[{s} - 1]; }}
}}
"""


def _local_program(t, op, identity, s):
    """Scans blocks of s elements (two per invocation) and writes their totals."""
    w = max(s // 2, 1)
    key = ("scan_local", t, op, s)
    if key not in _programs:
        source = header([t], [t, t]) + _LOCAL.format(
            t=t, w=w, s=s, per=max(s // w, 1), identity=identity, op=_COMBINE[op],
            flat=_FLAT.replace("\n", "\n      "))
        _programs[key] = Program(key, 1, 2, lambda: source)
    return _programs[key]


def _add_program(t, op, s):
    """Combines every element with the scanned total of the blocks before its own.
    params: n, inner, blocks per line, reverse, count."""
    key = ("scan_add", t, op, s)
    if key not in _programs:
        body = "\n  ".join([
            global_index("k"), "if (k >= params[4]) { return; }",
            "let n = params[0]; let inner = params[1]; let nb = params[2];",
            "let line = k / n; let i = k % n;", _FLAT.replace("\n", "\n  "),
            f"let blk = i / {s};",
            "if (blk == 0) { out0[flat] = in0[flat]; return; }",
            f"out0[flat] = in1[line * nb + blk - 1] {_COMBINE[op]} in0[flat];"])
        source = (header([t, t], [t]) +
                  f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n")
        _programs[key] = Program(key, 2, 1, lambda: source)
    return _programs[key]


def _shift_program(t, identity):
    """The exclusive scan from the inclusive one: the value one position back in scan
    order, the identity first. params as _add_program's."""
    key = ("scan_shift", t, identity)
    if key not in _programs:
        body = "\n  ".join([
            global_index("k"), "if (k >= params[4]) { return; }",
            "let n = params[0]; let inner = params[1];",
            "let line = k / n; let i = k % n;", _FLAT.replace("\n", "\n  "),
            "let step = select(inner, -inner, params[3] == 1);",
            f"out0[flat] = select({t}({identity}), in0[flat - step], i > 0);"])
        source = (header([t], [t]) +
                  f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n")
        _programs[key] = Program(key, 1, 1, lambda: source)
    return _programs[key]


def _scan_into(builder, src, dst, t, op, identity, lines, n, inner, reverse):
    """Adds the steps writing the inclusive scan of buffer `src` to buffer `dst`."""
    s = BLOCK
    while s // 2 >= n and s > 2:
        s //= 2
    nb = -(-n // s)
    count = lines * n
    meta = [n, inner, nb, int(reverse), count]
    partial = builder.temp(4 * count) if nb > 1 else dst
    totals = builder.temp(4 * lines * nb)
    builder.add(Step(_local_program(t, op, identity, s), meta, grid(lines * nb),
                     (src, partial, totals)))
    if nb > 1:
        scanned = builder.temp(4 * lines * nb)
        _scan_into(builder, totals, scanned, t, op, identity, lines, nb, 1, False)
        builder.add(Step(_add_program(t, op, s), meta, grid_for(count), (partial, scanned,
                                                                          dst)))


def _scan(k, x, axis, exclusive, reverse, op, identity):
    outer, n, inner = axis_view(x.shape, axis)
    lines = outer * inner
    t = STORAGE[k.out_dtype]
    target = k.temp(4 * x.size) if exclusive else k.out
    _scan_into(k, 0, target, t, op, identity, lines, n, inner, reverse)
    if exclusive:
        k.add(Step(_shift_program(t, identity), [n, inner, 1, int(reverse), x.size],
                   grid_for(x.size), (target, k.out)))
    return k.recipe(4 * x.size)


@kernel("cumsum", "wgsl")
def cumsum(k, *inputs, axis, exclusive, reverse):
    return _scan(k, inputs[0], axis, exclusive, reverse, "sum", "0")


@kernel("cumprod", "wgsl")
def cumprod(k, *inputs, axis, exclusive, reverse):
    return _scan(k, inputs[0], axis, exclusive, reverse, "prod", "1")
