"""WGSL kernels of the sorting primitives: the bitonic passes of glsl/sort.py, one
dispatch each, and permute_last_axis, a per-row gather."""

from ..base import kernel
from ..glsl.sort import bitonic_passes
from .program import GLOBAL_INDEX, STORAGE, Program, Recipe, Step, global_index, grid_for, header

_programs = {}

# -1, 0 or 1 as a is before, tied with or after b; NaN is the largest value.
_ORDER = {
    "f32": """fn order(a: f32, b: f32) -> i32 {
  let na = is_nan_f32(a);
  let nb = is_nan_f32(b);
  if (na || nb) { return select(select(-1, 1, na), 0, na == nb); }
  return select(select(0, 1, a > b), -1, a < b);
}
""",
    "i32": """fn order(a: i32, b: i32) -> i32 { return select(select(0, 1, a > b), -1, a < b); }
""",
}


def _main(lines):
    body = "\n  ".join([global_index(), "if (i >= params[0]) { return; }"] + lines)
    return f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n"


def _sort_program(t, first):
    """A bitonic pass over rows of x [rows, n] padded to p (see glsl sort.frag). params:
    total, n, p, out_n, k, j, descending."""
    key = ("argsort", t, first)
    if key not in _programs:
        index = "{pos}" if first else "in1[row * p + {pos}]"
        helpers = _ORDER[t] + """
fn before(row: i32, a: i32, b: i32) -> bool {
  let n = params[1];
  if (a >= n || b >= n) { return a < b; }
  var c = order(in0[row * n + a], in0[row * n + b]);
  if (params[6] == 1) { c = -c; }
  return c < 0 || (c == 0 && a < b);
}
"""
        lines = ["let p = params[2]; let out_n = params[3]; let k = params[4];",
                 "let row = i / out_n; let pos = i - row * out_n; let other = pos ^ params[5];",
                 f"let a = {index.format(pos='pos')};",
                 f"let b = {index.format(pos='other')};",
                 "let take_first = (pos < other) == ((pos & k) == 0);",
                 "out0[i] = select(a, b, take_first == before(row, b, a));"]
        in_types = [t] if first else [t, "i32"]
        source = header(in_types, ["i32"], "\n" + helpers) + _main(lines)
        _programs[key] = Program(key, len(in_types), 1, lambda: source)
    return _programs[key]


@kernel("argsort", "wgsl")
def argsort(be, inputs, out_shape, out_dtype, descending):
    x = inputs[0]
    n = x.shape[-1]
    rows = x.size // n
    p, passes = bitonic_passes(n)
    temps = [4 * rows * p] * min(len(passes) - 1, 2)
    t = STORAGE[x.dtype]
    steps, src = [], None
    for step, (k, j) in enumerate(passes):
        left = len(passes) - 1 - step
        dst = 1 if left == 0 else 2 + left % len(temps)  # table: x, output, temporaries
        out_n = n if left == 0 else p
        total = rows * out_n
        refs = (0, dst) if src is None else (0, src, dst)
        steps.append(Step(_sort_program(t, src is None),
                          [total, n, p, out_n, k, j, int(descending)], grid_for(total), refs))
        src = dst
    return Recipe(steps, 4 * x.size, temps)


@kernel("permute_last_axis", "wgsl")
def permute_last_axis(be, inputs, out_shape, out_dtype):
    x = inputs[0]
    t = STORAGE[out_dtype]
    key = ("permute", t)
    if key not in _programs:
        source = header([t, "i32"], [t]) + _main(
            ["let n = params[1];", "out0[i] = in0[i - i % n + in1[i]];"])
        _programs[key] = Program(key, 2, 1, lambda: source)
    return Recipe([Step(_programs[key], [x.size, x.shape[-1]], grid_for(x.size), (0, 1, 2))],
                  4 * x.size)
