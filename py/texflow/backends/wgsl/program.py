"""The WGSL program generator: bindings, launch parameters, index helpers.

Every texflow WGSL program has the same interface, so one runtime can launch
any of them:

- bindings 0..n_in-1 are the input buffers (`in0`, `in1`, ... read-only),
  then the n_out output buffers (`out0`, ...), then `meta`, a read-only
  `array<i32>` of at most META_INTS launch parameters (shapes, strides,
  scalar operands) bound at a dynamic offset into a per-batch arena;
- float32 lives in `array<f32>`, int32 and bool in `array<i32>` (bool as 0/1),
  so integers are exact;
- the entry point is `main`; a 1-D launch of more than 65535 workgroups is
  spread over a 2-D grid, which `global_index` folds back.

Kernel modules describe a launch with `Step` (program, parameters, grid,
buffer references) and a whole op with `Recipe`; both are built once per
input signature and cached by the runtime.
"""

from string import Template

from ... import resources

WORKGROUP = 256
META_INTS = 64          # launch parameters per dispatch: 256 bytes, the offset alignment
MAX_GROUPS = 65535      # per grid dimension (WebGPU's default limit)
STORAGE = {"float32": "f32", "int32": "i32", "bool": "i32"}


class Program:
    """A WGSL compute shader with `n_in` input and `n_out` output buffers.

    `key` identifies it (the runtime compiles each key once); `source` is
    generated on first use only.
    """

    __slots__ = ("key", "n_in", "n_out", "_make", "_source")

    def __init__(self, key, n_in, n_out, make_source):
        self.key = key
        self.n_in = n_in
        self.n_out = n_out
        self._make = make_source
        self._source = None

    @property
    def source(self):
        if self._source is None:
            self._source = self._make()
        return self._source

    def __repr__(self):
        return f"Program({self.key!r})"


class Step:
    """One dispatch: `program` with `meta` parameters on a `groups` grid.

    `refs` index the op's buffer table (inputs, then the output, then
    temporaries); `scalars` lists (input index, meta slot, is_float) for
    Python-scalar operands, written into `meta` at each launch.
    """

    __slots__ = ("program", "meta", "groups", "refs", "scalars", "plan")

    def __init__(self, program, meta, groups, refs, scalars=()):
        if len(meta) > META_INTS:
            raise ValueError(f"{program.key[0]}: {len(meta)} launch parameters exceed the "
                             f"{META_INTS} a dispatch can carry")
        if max(groups) > MAX_GROUPS:
            raise ValueError(f"{program.key[0]}: a launch grid of {list(groups)} workgroups "
                             f"exceeds WebGPU's {MAX_GROUPS} per dimension")
        self.program = program
        self.meta = [int(v) for v in meta]
        self.groups = groups
        self.refs = tuple(refs)
        self.scalars = tuple(scalars)
        self.plan = None  # the runtime's launch plan, made on first use


class Recipe:
    """How to compute one op for one input signature.

    `steps` run in order; `temps` are the byte sizes of temporary buffers
    (table entries after the output); `out_nbytes` is the output's size.
    """

    __slots__ = ("steps", "temps", "out_nbytes", "direct")

    def __init__(self, steps, out_nbytes, temps=()):
        self.steps = steps
        self.temps = tuple(temps)
        self.out_nbytes = out_nbytes
        self.direct = None  # the plan, when one launch reads the inputs in order


class Builder:
    """Collects a recipe's steps and temporaries. Buffer table: the op's inputs,
    then its output (`out`), then temporaries in the order `temp` made them.

    The runtime calls every WGSL kernel as `fn(k, *inputs, **attrs)` with a Builder `k`
    (the convention of all three kernel languages: docs/ADDING_AN_OP.md) that also says
    what the op makes: `backend` (the runtime: its limits and choices), `out_shape`,
    `out_dtype` and `outs` ((shape, dtype) per output). The kernel adds its steps to `k`
    and returns `k.recipe()`.
    """

    def __init__(self, n_inputs, backend=None, outs=()):
        self.out = n_inputs
        self.steps = []
        self.temps = []
        self.backend = backend
        self.outs = outs
        self.out_shape, self.out_dtype = outs[0] if outs else (None, None)

    def temp(self, nbytes):
        """A new temporary buffer of `nbytes`; returns its table index."""
        self.temps.append(nbytes)
        # after every output (the runtime's table: inputs, outputs, temporaries)
        return self.out + max(len(self.outs), 1) - 1 + len(self.temps)

    def add(self, step):
        self.steps.append(step)
        return step

    def inline(self, fn, inputs, shape, **attrs):
        """Adds the steps of kernel `fn` on this kernel's `inputs` (all of them, in
        order), writing a new float32 temporary of `shape`; returns its table index (a
        kernel made of others: the sub-kernel's table renumbered into this one)."""
        recipe = fn(Builder(len(inputs), self.backend, [(shape, "float32")]), *inputs,
                    **attrs)
        out = self.temp(4 * size_of(shape))
        self._renumbered(recipe, list(range(len(inputs))) + [out])
        return out

    def inline_outputs(self, fn, inputs, refs, **attrs):
        """Adds the steps of kernel `fn` on `inputs` (each with `shape` and `dtype`), which
        lie at table indices `refs` (a temporary among them), writing this kernel's
        outputs."""
        recipe = fn(Builder(len(inputs), self.backend, self.outs), *inputs, **attrs)
        self._renumbered(recipe, list(refs) + [self.out + j for j in range(len(self.outs))])

    def _renumbered(self, recipe, table):
        table = table + [self.temp(n) for n in recipe.temps]
        for step in recipe.steps:
            self.add(Step(step.program, step.meta, step.groups,
                          tuple(table[r] for r in step.refs), step.scalars))

    def recipe(self, out_nbytes=None):
        """The Recipe of the steps added; each output `out_nbytes` long (by default
        `out_shape`'s, 4 bytes an element)."""
        if out_nbytes is None:
            out_nbytes = 4 * size_of(self.out_shape)
        return Recipe(self.steps, out_nbytes, self.temps)


def size_of(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def render(name, **fields):
    """Shader file `shaders/wgsl/<name>` with its `${field}`s filled in."""
    return Template(resources.shader("wgsl", name)).substitute(fields)


def header(in_types, out_types, extra=""):
    """Binding declarations, the prelude and `global_index` for a program."""
    lines = []
    for k, t in enumerate(in_types):
        lines.append(f"@group(0) @binding({k}) var<storage, read> in{k}: array<{t}>;")
    for k, t in enumerate(out_types):
        lines.append(f"@group(0) @binding({len(in_types) + k}) "
                     f"var<storage, read_write> out{k}: array<{t}>;")
    lines.append(f"@group(0) @binding({len(in_types) + len(out_types)}) "
                 "var<storage, read> params: array<i32>;")
    return "\n".join(lines) + "\n\n" + resources.shader("wgsl", "prelude.wgsl") + extra


def grid(n_groups):
    """A (x, y, 1) workgroup grid holding at least `n_groups` groups."""
    if n_groups <= MAX_GROUPS:
        return (max(n_groups, 1), 1, 1)
    y = -(-n_groups // MAX_GROUPS)
    return (-(-n_groups // y), y, 1)


def grid_for(n_items, per_group=WORKGROUP):
    return grid(-(-n_items // per_group))


GLOBAL_INDEX = ("@builtin(workgroup_id) wid: vec3<u32>, "
                "@builtin(num_workgroups) nwg: vec3<u32>, "
                "@builtin(local_invocation_index) lid: u32")


def global_index(name="i", per_group=WORKGROUP):
    """WGSL declaring `name`, the flat invocation index on a `grid()` launch."""
    return f"let {name} = i32((wid.y * nwg.x + wid.x) * {per_group}u + lid);"


def unravel(rank, flat, dims_at, prefix="c"):
    """WGSL splitting index `flat` into coordinates `c0..c{rank-1}` (row-major).

    Dimension k is `params[dims_at + k]`; the generated lines are made in a loop
    for any rank.
    """
    if rank == 0:
        return []
    lines = [f"var rest_{prefix} = {flat};"]
    for k in range(rank - 1, 0, -1):
        lines.append(f"let {prefix}{k} = rest_{prefix} % params[{dims_at + k}]; "
                     f"rest_{prefix} = rest_{prefix} / params[{dims_at + k}];")
    lines.append(f"let {prefix}0 = rest_{prefix};")
    return lines


def dot_strides(rank, strides_at, prefix="c"):
    """WGSL for the offset sum(c_k * params[strides_at + k])."""
    if rank == 0:
        return "0"
    return " + ".join(f"{prefix}{k} * params[{strides_at + k}]" for k in range(rank))


def within_budget(backend, iterations):
    """Whether an invocation looping `iterations` times in all stays within `backend`'s
    LOOP_BUDGET (runtime.py; None: no limit)."""
    return backend.LOOP_BUDGET is None or iterations <= backend.LOOP_BUDGET


def tap_parts(backend, dims):
    """Where an invocation's loop nest over a window (`dims`: its loops' lengths,
    outermost first) would pass `backend`'s LOOP_BUDGET, consecutive ranges [t0, t1) of
    its taps (in the nest's order) whose loops stay within it: one dispatch each, every
    one going on from the result the one before it left in the output; None where the
    whole window does."""
    total, budget = size_of(dims), backend.LOOP_BUDGET
    if budget is None or nest_loops(dims, total) <= budget:
        return None
    lo, hi = 1, total  # the most taps a part can take
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if nest_loops(dims, mid) <= budget else (lo, mid - 1)
    return [(t, min(t + lo, total)) for t in range(0, total, lo)]


def nest_loops(dims, taps):
    """The most loop iterations of a nest over `dims` running `taps` consecutive taps, as
    lavapipe counts them (measured: each loop's failing test counts too): the taps, twice
    the positions of each outer loop whose blocks they touch, and one."""
    loops, outer, inner = taps + 1, 1, size_of(dims)
    for d in dims[:-1]:
        outer, inner = outer * d, inner // d
        loops += 2 * min(outer, (taps - 1) // inner + 2)
    return loops


def nest_bounds(names, dims, at):
    """WGSL bounds [lo, hi) of each loop (`names`: the loop variables, or expressions
    of them counting up; `dims`: their lengths, WGSL) of a nest running only taps
    [params[at], params[at + 1]) of its order (tap_parts)."""
    t0, t1 = f"params[{at}]", f"params[{at + 1}]"
    bounds, prefix = [], None  # prefix: the enclosing loops' position, row-major
    for j, (v, d) in enumerate(zip(names, dims)):
        inner = " * ".join(dims[j + 1:])
        off = "" if prefix is None else f" - ({prefix}) * {' * '.join(dims[j:])}"
        if not inner:
            bounds.append((f"max(0, {t0}{off})", f"min({d}, {t1}{off})"))
        else:
            bounds.append((f"max(0, ({t0}{off}) / ({inner}))",
                           f"min({d}, ({t1}{off} + {inner} - 1) / ({inner}))"))
        prefix = v if prefix is None else f"({prefix}) * {d} + {v}"
    return bounds


def part_steps(program, meta, groups, refs, parts):
    """A Step of `program` per tap range of `parts` (tap_parts), its parameters `meta`
    followed by the range and whether it is the last; one Step of `meta` where `parts`
    is None."""
    if parts is None:
        return [Step(program, meta, groups, refs)]
    return [Step(program, [*meta, t0, t1, int(t1 == parts[-1][1])], groups, refs)
            for t0, t1 in parts]


def window_fields(parts, at, loops, resume):
    """A windowed shader's fields: for each loop (variable, length) of `loops`, outermost
    first, its bounds `<variable>0` and `<variable>1`: the whole window's where `parts` is
    None, else (nest_bounds) the range at params[at]; and `resume`, WGSL taking up what
    the part before left in the output (run from the second part on)."""
    names, dims = [v for v, _ in loops], [d for _, d in loops]
    bounds = [("0", d) for d in dims] if parts is None else nest_bounds(names, dims, at)
    fields = {f"{v}{j}": b for v, pair in zip(names, bounds) for j, b in enumerate(pair)}
    fields["resume"] = "" if parts is None else f"\n  if (params[{at}] > 0) {{ {resume} }}"
    return fields
