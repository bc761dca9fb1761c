"""WGSL kernels of the cumulative ops: the same passes as the GLSL kernels (see
glsl/scan.py), one dispatch each, alternating between two temporary buffers."""

from ..base import kernel
from ..glsl.scan import scan_passes
from .program import GLOBAL_INDEX, STORAGE, Program, Recipe, Step, global_index, grid_for, header

_programs = {}
_COMBINE = {"sum": "other + v", "prod": "other * v"}


def _program(op, t, identity):
    key = ("scan", op, t)
    if key not in _programs:
        lines = [global_index(), "if (i >= params[0]) { return; }",
                 "let n = params[1]; let inner = params[2]; let step = params[3];",
                 "let j = (i / inner) % n - step;",
                 "let inside = j >= 0 && j < n;",
                 f"var other = {t}({identity});",
                 "if (inside) { other = in0[i - step * inner]; }",
                 "let v = in0[i];",
                 f"out0[i] = select(select(v, {_COMBINE[op]}, inside), other, params[4] == 1);"]
        body = "\n  ".join(lines)
        source = (header([t], [t]) +
                  f"\n@compute @workgroup_size(256)\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n")
        _programs[key] = Program(key, 1, 1, lambda: source)
    return _programs[key]


def _scan(inputs, out_dtype, axis, exclusive, reverse, op, identity):
    x = inputs[0]
    inner = 1
    for d in x.shape[axis + 1:]:
        inner *= d
    n = x.shape[axis]
    program = _program(op, STORAGE[out_dtype], identity)
    passes = scan_passes(n, exclusive, reverse)
    temps = [4 * x.size] * min(len(passes) - 1, 2)
    steps, src = [], 0
    for k, (step, shift) in enumerate(passes):
        left = len(passes) - 1 - k
        dst = 1 if left == 0 else 2 + left % len(temps)  # table: x, output, temporaries
        steps.append(Step(program, [x.size, n, inner, step, shift], grid_for(x.size),
                          (src, dst)))
        src = dst
    return Recipe(steps, 4 * x.size, temps)


@kernel("cumsum", "wgsl")
def cumsum(be, inputs, out_shape, out_dtype, axis, exclusive, reverse):
    return _scan(inputs, out_dtype, axis, exclusive, reverse, "sum", "0")


@kernel("cumprod", "wgsl")
def cumprod(be, inputs, out_shape, out_dtype, axis, exclusive, reverse):
    return _scan(inputs, out_dtype, axis, exclusive, reverse, "prod", "1")
