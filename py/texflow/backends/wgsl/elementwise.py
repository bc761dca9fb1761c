"""WGSL kernels of the elementwise ops: one generated "map" program per op,
dtypes and operand layout, around the op bodies in shaders/wgsl/*_ops.wgsl.

Operands are broadcast by strides (0 along broadcast axes); `collapse` merges
axes first, so most launches need no index arithmetic at all: an operand is
read at the output index ('c'), at element 0 ('z'), from `meta` (a Python
scalar, 'k'), or through strides ('s'), the only case needing coordinates.
"""

from ...dtypes import float32
from ..base import kernel, kernel_generator
from ..layout import broadcast_strides, collapse, contiguous_strides
from .program import (GLOBAL_INDEX, STORAGE, WORKGROUP, Program, Step, dot_strides,
                      global_index, grid_for, header, render, unravel)

_SCALARS = (float, int, bool)
SMALL_GROUP = 64
_programs = {}


def _convert(value, storage, compute):
    """WGSL converting `value` from its storage type to the compute type."""
    if compute == storage:
        return value
    if compute == "f32":
        return f"f32({value})"
    if compute == "bool":  # on the bits: NaN is true, and `NaN != 0.0` may be false
        return (f"((bitcast<u32>({value}) & 0x7fffffffu) != 0u)" if storage == "f32"
                else f"({value} != 0)")
    return f"f32_to_i32({value})"  # f32 -> i32: only `cast` asks for it


def map_step(name, expr, ops_file, out_shape, out_dtype, operands, out_ref):
    """A Step computing `expr` (WGSL over x0, x1, ...) at every output element.

    Args:
        name: names the program (op name, or a purpose such as 'transpose').
        expr: WGSL giving the output's storage type from operands `x<k>`; or, for
            several outputs of one dtype, (`let` statements, one expression per output).
        ops_file: the shader file of op bodies `expr` calls (or a tuple of them, where
            an entry may be WGSL source instead of a file name), or None.
        operands: (ref, storage type, compute type, strides) per operand; a
            Python scalar has strides None and ref = its input index.
        out_ref: the buffer-table index of the output (a tuple of them for several).
    """
    out_type = STORAGE[out_dtype]
    buffers = [op for op in operands if op[3] is not None]
    dims, sets = collapse(out_shape, [contiguous_strides(out_shape)]
                          + [op[3] for op in buffers])
    out_strides, in_strides = sets[0], iter(sets[1:])
    n = 1
    for d in out_shape:
        n *= d
    meta = [n]
    modes, strided, scalars = [], [], []
    for ref, storage, compute, strides in operands:
        if strides is None:
            modes.append(("k", storage, compute))
            scalars.append((ref, compute == "f32"))
            continue
        s = next(in_strides)
        mode = "c" if s == out_strides else ("z" if not any(s) else "s")
        modes.append((mode, storage, compute))
        if mode == "s":
            strided.append(s)
    rank = len(dims) if strided else 0
    vec = not strided  # every operand contiguous, repeated or scalar: whole vec4s
    if vec:
        meta[0] = -(-n // 4)  # buffers hold whole vec4s: sizes are multiples of 32 bytes
    meta += dims if strided else ()
    for s in strided:
        meta += s
    slots = []
    for ref, is_float in scalars:
        slots.append((ref, len(meta), is_float))
        meta.append(0)
    # Small launches get small workgroups: SwiftShader runs every invocation of a
    # workgroup, in bounds or not.
    wg = SMALL_GROUP if meta[0] <= SMALL_GROUP else WORKGROUP
    key = ("map", name, expr, tuple(modes), out_type, rank, wg)
    out_refs = out_ref if isinstance(out_ref, tuple) else (out_ref,)
    program = _programs.get(key)
    if program is None:
        program = _programs[key] = Program(
            key, len(buffers), len(out_refs),
            lambda: _map_source(expr, ops_file, modes, out_type, rank, slots, vec, wg))
    refs = [op[0] for op in buffers] + list(out_refs)
    return Step(program, meta, grid_for(meta[0], wg), refs, slots)


def _map_source(expr, ops_file, modes, out_type, rank, slots, vec, wg):
    """WGSL of a map: `elem(x0, x1, ...)` computes one element from operands already
    converted to their compute types; `main` loads, converts and stores, one
    element per invocation, or four (as vec4) when no operand needs strides."""
    params = ", ".join(f"x{k}: {'bool' if c == 'bool' else c}"
                       for k, (_, _, c) in enumerate(modes))
    if isinstance(expr, str):
        n_out = 1
        elem = f"fn elem({params}) -> {out_type} {{\n  return {expr};\n}}\n"
    else:  # several outputs: elem returns them in a struct
        lets, results = expr
        n_out = len(results)
        fields = ", ".join(f"v{j}: {out_type}" for j in range(n_out))
        elem = (f"struct Elem {{ {fields} }}\nfn elem({params}) -> Elem {{\n"
                + "".join(f"  {line}\n" for line in lets)
                + f"  return Elem({', '.join(results)});\n}}\n")
    lines = [global_index("i", wg), "if (i >= params[0]) { return; }"]
    lines += unravel(rank, "i", 1)
    args = [[] for _ in range(4 if vec else 1)]
    k_buf = k_strided = k_scalar = 0
    for k, (mode, storage, compute) in enumerate(modes):
        if mode == "k":
            raw = f"params[{slots[k_scalar][1]}]"
            k_scalar += 1
            value = (f"bitcast<f32>({raw})" if compute == "f32"
                     else f"({raw} != 0)" if compute == "bool" else raw)
            lines.append(f"let x{k} = {value};")
            for a in args:
                a.append(f"x{k}")
            continue
        if mode == "s":
            index = dot_strides(rank, 1 + rank * (1 + k_strided))
            k_strided += 1
        else:
            index = "i" if mode == "c" else "0"
        lines.append(f"let v{k} = in{k_buf}[{index}];")
        k_buf += 1
        for c, a in enumerate(args):
            part = f"v{k}" if not vec else (f"v{k}.x" if mode == "z" else f"v{k}.{'xyzw'[c]}")
            a.append(_convert(part, storage, compute))
    calls = [f"elem({', '.join(a)})" for a in args]
    if isinstance(expr, str):
        lines.append(f"out0[i] = vec4<{out_type}>({', '.join(calls)});" if vec
                     else f"out0[i] = {calls[0]};")
    else:
        lines += [f"let r{c} = {call};" for c, call in enumerate(calls)]
        lines += [f"out{j}[i] = vec4<{out_type}>({', '.join(f'r{c}.v{j}' for c in range(4))});"
                  if vec else f"out{j}[i] = r0.v{j};" for j in range(n_out)]
    body = "\n  ".join(lines)
    ops = render_ops(ops_file)
    wrap = (lambda t: f"vec4<{t}>") if vec else (lambda t: t)
    in_types = [wrap(storage) for mode, storage, _ in modes if mode != "k"]
    return (header(in_types, [wrap(out_type)] * n_out, "\n" + ops + "\n" + elem) +
            f"\n@compute @workgroup_size({wg})\nfn main({GLOBAL_INDEX}) {{\n  {body}\n}}\n")


def render_ops(ops_file):
    """The WGSL of `ops_file`: a file name, a body's source declared with its op, a tuple
    of them, or None."""
    files = ops_file if isinstance(ops_file, tuple) else (ops_file,) if ops_file else ()
    return "\n".join(render(f) if f.endswith(".wgsl") else f for f in files)


def operand(inputs, k, out_shape, compute):
    """The map_step operand for input `k` (an NDArray or a Python scalar)."""
    x = inputs[k]
    if type(x) in _SCALARS:
        return (k, "f32" if compute == "f32" else "i32", compute, None)
    return (k, STORAGE[x.dtype], compute, broadcast_strides(x.shape, out_shape))


def _map_recipe(k, name, expr, ops_file, inputs, computes):
    operands = [operand(inputs, j, k.out_shape, c) for j, c in enumerate(computes)]
    k.add(map_step(name, expr, ops_file, k.out_shape, k.out_dtype, operands, k.out))
    return k.recipe()


def _as_bool(expr):
    return f"select(0, 1, {expr})"


# -- the ops: each is a spec (expression over x0, x1, ..., its ops file, the compute type
# of each operand), shared by the op's own kernel and fused kernels (fused.py) ----------

_SPECS = {}


def spec(name, inputs, out_dtype, attrs):
    """(expression, ops file, compute types) of elementwise op `name` on `inputs` (arrays
    with a dtype, or Python scalars), or None when `name` is not one of these ops."""
    fn = _SPECS.get(name)
    return None if fn is None else fn(inputs, STORAGE[out_dtype], **attrs)


def _register(name, make):
    _SPECS[name] = make

    def plan(k, *inputs, **attrs):
        expr, ops_file, computes = make(inputs, STORAGE[k.out_dtype], **attrs)
        return _map_recipe(k, name, expr, ops_file, inputs, computes)
    plan.__name__ = name
    return plan


@kernel_generator("wgsl")
def _elementwise_kernel(decl):
    """The kernel of a declared elementwise op (ops/declare.py): its kind says how its
    body `op_<name>` (per dtype: `op_<name>_f32`, `op_<name>_i32`) is typed."""
    name, kind = decl.name, decl.kind
    files = ("unary_ops.wgsl" if decl.arity == 1 else "binary_ops.wgsl",)
    files += (decl.bodies["wgsl"],) if "wgsl" in decl.bodies else ()
    if decl.arity == 1:
        def make(inputs, t):
            if kind == "same":
                return f"op_{name}_{t}(x0)", files, [t]
            body = f"op_{name}(x0)"
            return (_as_bool(body) if kind == "pred" else body), files, ["f32"]
    else:
        def make(inputs, t):
            if kind == "arith":
                return f"op_{name}_{t}(x0, x1)", files, [t, t]
            if kind == "float":
                return f"op_{name}(x0, x1)", files, ["f32", "f32"]
            # numpy compares an int with a float as floats
            c = "f32" if _is_float(inputs[0]) or _is_float(inputs[1]) else "i32"
            return _as_bool(f"op_{name}_{c}(x0, x1)"), files, [c, c]
    return _register(name, make)


def _is_float(x):
    return type(x) is float or (type(x) not in _SCALARS and x.dtype == float32)


kernel("where", "wgsl")(
    _register("where", lambda inputs, t: ("select(x2, x1, x0)", None, ["bool", t, t])))


def _cast_spec(inputs, t, dtype):
    compute = "bool" if dtype == "bool" else t
    return (_as_bool("x0") if compute == "bool" else "x0"), None, [compute]


kernel("cast", "wgsl")(_register("cast", _cast_spec))
