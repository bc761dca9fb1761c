"""GLSL kernels of the elementwise ops, and `map_launch`, the generator they share.

Each output texel (four flat elements) is one fragment. An input is read in
one of four ways, chosen per signature:
  "="  same flat order as the output: one texel fetch at the fragment's own
       coordinate (equal sizes have equal texture widths, see textures.py);
  "1"  one element broadcast to all: one fetch of texel 0;
  "r"  a row of C elements (C % 4 == 0) repeated along the leading dimensions (a
       bias): the fragment's four lanes are one texel of it, at the output texel
       modulo C / 4 (the general path costs a division per dimension and lane);
  "s"  a Python scalar: a uniform set at each launch;
  "x"  anything else (broadcasting, transposes): a flat offset per lane from
       the output's multi-index and the input's strides, after merging the
       dimensions every input walks contiguously (so most cases are rank 1-2).
Op bodies are the `op_<name>` functions of unary_ops.glsl/binary_ops.glsl (or of source
declared with the op).
"""

from ... import dtypes
from ..layout import broadcast_strides, collapse, contiguous_strides
from ..base import elementwise_spec, inline_bodies, kernel, kernel_generator
from .program import fill, functions, head, vec4_type

_FILES = ("math.glsl", "unary_ops.glsl", "binary_ops.glsl")
_LANES = "xyzw"


def conv(expr, src, dst):
    """GLSL `expr` of type `src` converted to type `dst`."""
    return expr if src == dst else f"{dst}({expr})"


def map_launch(b, out, items, body, name):
    """Records a launch computing `out[i] = body(x0[i], x1[i], ...)`.

    Args:
        b: the PlanBuilder.
        out: the Arg written, or a list of Args of one shape and GLSL type (render
            targets, one per result of `body`).
        items: per input (Arg, GLSL type of its value in `body`, strides over
            out.shape or None for numpy broadcasting[, flat offset of element 0]).
            An array's type is its storage type; a scalar's is the type of its
            uniform. The offset (slices) makes the input strided.
        body: a GLSL expression of x0, x1, x2 of out's storage type; or, for several
            outputs, (statements, one expression per output).
        name: names the body in the program cache key (with the op functions
            the body calls, which must be named op_<...>).
    """
    outs = out if isinstance(out, list) else [out]
    out = outs[0]
    reads = MapInputs(out, items)
    key = ("map", name, body, out.type, reads.key)
    scalars = [(f"uS{i}", arg, t) for i, (arg, t, _) in enumerate(reads.items) if arg.scalar]

    def source():
        decls, loads = reads.source()
        n_out, text, lane, store = _lane(out.type, [t for _, t, _ in reads.items], body)
        return fill("map.frag", head=head(reads.tex_types, out.type, n_out),
                    functions=body_functions(text), lane=lane, store=store, decls=decls,
                    loads=loads)
    b.launch(key, source, outs if len(outs) > 1 else out, reads.arrays, reads.uniforms,
             scalars)


def _lane(out_type, types, body):
    """(outputs, the GLSL text calling op functions, `lane()` computing one element of
    each output from x0, x1, ... of `types`, statements storing a texel of each from
    v0, v1, ...)."""
    params = ", ".join(f"{t} x{i}" for i, t in enumerate(types))
    lanes = [", ".join(f"v{i}.{c}" for i in range(len(types))) for c in _LANES]
    t4 = vec4_type(out_type)
    if isinstance(body, str):
        lane = f"{out_type} lane({params}) {{\n  return {body};\n}}"
        return 1, body, lane, f"  outValue = {t4}({', '.join(f'lane({a})' for a in lanes)});"
    # several outputs: lane() sets out parameters, one render target each
    lets, results = body
    n_out = len(results)
    outs = ", ".join(f"out {out_type} r{j}" for j in range(n_out))
    lane = (f"void lane({params}, {outs}) {{\n" + "".join(f"  {s}\n" for s in lets)
            + "".join(f"  r{j} = {e};\n" for j, e in enumerate(results)) + "}")
    store = [f"  {t4} res{j};" for j in range(n_out)]
    got = ", ".join(f"e{j}" for j in range(n_out))
    for c, a in zip(_LANES, lanes):
        store.append(f"  {{ {out_type} {got}; lane({a}, {got}); "
                     + " ".join(f"res{j}.{c} = e{j};" for j in range(n_out)) + " }")
    names = [f"outValue{j}" for j in range(n_out)] if n_out > 1 else ["outValue"]
    store += [f"  {v} = res{j};" for j, v in enumerate(names)]
    return n_out, " ".join((*lets, *results)), lane, "\n".join(store)


def body_functions(body):
    """Source of the op functions (`op_<name>`) GLSL expression `body` calls."""
    called = sorted(set(w for w in body.replace("(", " ").split() if w.startswith("op_")))
    return functions(called, _FILES, inline_bodies("glsl")) if called else ""


class MapInputs:
    """How a fragment writing output texel `out_texel()` of Arg `out` reads `items` (as
    `map_launch` takes them) into `v0`, `v1`, ...: the read modes (module docstring),
    the textures bound from unit `first` on, their uniforms and the GLSL (`source()`)."""

    def __init__(self, out, items, first=0):
        offsets = [item[3] if len(item) > 3 else 0 for item in items if not item[0].scalar]
        self.items = items = [item[:3] for item in items]
        self.first = first
        arrays = [(arg, s if s is not None else broadcast_strides(arg.shape, out.shape))
                  for arg, _, s in items if not arg.scalar]
        shape, strides = collapse(out.shape, [s for _, s in arrays])
        natural = contiguous_strides(shape)
        modes, array_strides, array_offsets = [], iter(strides), iter(offsets)
        self.row_texels = {}
        for arg, _, _ in items:
            if arg.scalar:
                modes.append("s")
                continue
            s, offset = next(array_strides), next(array_offsets)
            if offset:
                modes.append("x")
            elif arg.size == 1:
                modes.append("1")
            elif arg.size == out.size and s == natural:
                modes.append("=")
            elif len(shape) == 2 and list(s) == [0, 1] and shape[1] % 4 == 0:
                self.row_texels[first + sum(m != "s" for m in modes)] = shape[1] // 4
                modes.append("r")
            else:
                modes.append("x")
        # rank 0 when strided: an offset into a one-element view (a slice of size 1)
        rank = max(len(shape), 1) if "x" in modes else 0
        if rank and not shape:
            shape, strides = [1], [[0] for _ in strides]
        self.modes, self.rank, self.has_offset = modes, rank, any(offsets)
        self.arrays = [arg for arg, _ in arrays]
        self.tex_types = [arg.type for arg, _, _ in items if not arg.scalar]
        types = [t for _, t, _ in items]
        self.key = (tuple(zip(modes, types)), tuple(self.tex_types), rank, self.has_offset,
                    first)
        self.uniforms = {f"uRow{j}": n for j, n in self.row_texels.items()}
        if rank:
            self.uniforms["uShape"] = shape
            tex_modes = [m for m in modes if m != "s"]
            for j, (mode, s) in enumerate(zip(tex_modes, strides), first):
                if mode == "x":
                    self.uniforms[f"uStride{j}"] = s
                    if self.has_offset:
                        self.uniforms[f"uOffset{j}"] = offsets[j - first]

    def source(self):
        """(declarations, statements defining v0, v1, ... from `int base`, the flat index
        of the fragment's first element)."""
        rank, has_offset = self.rank, self.has_offset
        decls, loads, strided = [], [], []
        tex = self.first
        for i, ((arg, t, _), mode) in enumerate(zip(self.items, self.modes)):
            t4 = vec4_type(t)
            if mode == "s":
                decls.append(f"uniform {t} uS{i};")
                loads.append(f"  {t4} v{i} = {t4}(uS{i});")
            elif mode == "1":
                loads.append(f"  {t4} v{i} = {t4}(texelFetch(uT{tex}, ivec2(0), 0).x);")
            elif mode == "=":
                loads.append(f"  {t4} v{i} = texelFetch(uT{tex}, ivec2(gl_FragCoord.xy), 0);")
            elif mode == "r":
                decls.append(f"uniform int uRow{tex};")
                loads.append(f"  {t4} v{i} = {t4}(texel{tex}((base >> 2) % uRow{tex}));")
            else:
                decls.append(f"uniform int uStride{tex}[{rank}];")
                if has_offset:
                    decls.append(f"uniform int uOffset{tex};")
                strided.append((i, tex, t4))
            tex += 1 if mode != "s" else 0
        if strided:
            decls.insert(0, f"uniform int uShape[{rank}];")
            lines = {k: [] for k in ("init", "add", "first", "step", "wrap", "lane")}
            for i, j, t4 in strided:
                start = f"uOffset{j}" if has_offset else "0"
                lines["init"].append(f"  int o{i} = {start};\n  {t4} v{i};")
                lines["add"].append(f"    o{i} += idx[d] * uStride{j}[d];")
                lines["first"].append(f"  v{i}.x = get{j}(o{i});")
                lines["step"].append(f"      o{i} += uStride{j}[d];")
                lines["wrap"].append(f"      o{i} -= uShape[d] * uStride{j}[d];")
                lines["lane"].append(f"    v{i}[c] = get{j}(o{i});")
            text = {k: "\n".join(v) for k, v in lines.items()}
            loads.append(fill("map_strided.glsl", R=rank, offsets_init=text["init"],
                              offsets_add=text["add"], offsets_step=text["step"],
                              offsets_wrap=text["wrap"], first_fetch=text["first"],
                              lane_fetch=text["lane"]))
        return "\n".join(decls), "\n".join(loads)


# -- the ops ---------------------------------------------------------------------------

# Each elementwise op's kernel is generated from its declaration (ops/declare.py): its
# kind types the body `op_<name>` (overloaded on float and int where the op keeps its
# dtype), found in _FILES or in the source declared with the op.

def unary_body(name, x, x_type, out_type):
    """GLSL of unary op `name` on expression `x` (of type `x_type`), giving `out_type`."""
    kind = elementwise_spec(name).kind
    compute = "float" if kind == "float" else x_type
    body = f"op_{name}({conv(x, x_type, compute)})"
    return f"int({body})" if kind == "pred" else conv(body, compute, out_type)


def binary_compute(name, x_dtype, y_dtype, out_type):
    """The GLSL type binary op `name` computes in (a scalar operand is passed in it)."""
    kind = elementwise_spec(name).kind
    if kind == "arith":
        return out_type          # bools count as int 0/1
    if kind == "float":
        return "float"
    return "float" if dtypes.float32 in (x_dtype, y_dtype) else "int"


def binary_body(name, x, x_type, y, y_type, out_type, compute):
    """GLSL of binary op `name` on expressions `x`, `y` (of types `x_type`, `y_type`)."""
    body = f"op_{name}({conv(x, x_type, compute)}, {conv(y, y_type, compute)})"
    return f"int({body})" if elementwise_spec(name).kind == "cmp" else \
        conv(body, compute, out_type)


@kernel_generator("glsl")
def _elementwise_kernel(spec):
    name = spec.name
    if spec.arity == 1:
        def unary(b, x):
            map_launch(b, b.out, [(x, x.type, None)],
                       unary_body(name, "x0", x.type, b.out.type), name)
        return unary

    def binary(b, x, y):
        compute = binary_compute(name, x.dtype, y.dtype, b.out.type)
        tx = compute if x.scalar else x.type
        ty = compute if y.scalar else y.type
        body = binary_body(name, "x0", tx, "x1", ty, b.out.type, compute)
        map_launch(b, b.out, [(x, tx, None), (y, ty, None)], body, name)
    return binary


def where_body(c, c_type, x, x_type, y, y_type, out_type):
    return f"truthy({c}) ? {conv(x, x_type, out_type)} : {conv(y, y_type, out_type)}"


@kernel("where", "glsl")
def where(b, cond, x, y):
    t = b.out.type
    tx = t if x.scalar else x.type
    ty = t if y.scalar else y.type
    body = where_body("x0", cond.type, "x1", tx, "x2", ty, t)
    map_launch(b, b.out, [(cond, cond.type, None), (x, tx, None), (y, ty, None)], body,
               "where")


_CASTS = {dtypes.float32: "op_cast_float", dtypes.int32: "op_cast_int",
          dtypes.bool_: "op_cast_bool"}


def cast_body(x, dtype):
    body = f"{_CASTS[dtype]}({x})"
    return f"int({body})" if dtype == dtypes.bool_ else body


@kernel("cast", "glsl")
def cast(b, x, dtype):
    map_launch(b, b.out, [(x, x.type, None)], cast_body("x0", dtype), "cast")
