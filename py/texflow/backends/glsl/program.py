"""GLSL program generation, the compiled-program cache and launch plans.

A kernel (`@kernel("add", "glsl")`) runs once per shape signature: it gets a
`PlanBuilder` and argument descriptions (`Arg`: shape, dtype, whether it is a
Python scalar) and records one or more launches. Each launch names a program
by cache key (family, dtypes, ranks, variant; never shapes) with a function
that writes its source on a cache miss, and the uniform values of this
signature. The result, a `Plan`, is cached by the backend; running it again
costs one JS call per launch with a few ints (plan id, texture ids, scalars).

Generated sources share one head: `prelude.glsl`, one sampler block per input
(`sampler.glsl`: texel and flat-element fetches for any rank, by mask and
shift) and the output declaration (`output.glsl`). Op bodies are functions in
`*_ops.glsl` files; `functions()` pulls in the ones a program names, with the
helpers they call.
"""

import functools
import json
import re
from string import Template

from ... import dtypes
from ...engine import memory
from ...resources import shader
from .textures import layout, rows_used

_SCALAR_DTYPES = {float: dtypes.float32, int: dtypes.int32, bool: dtypes.bool_}


def glsl_type(dtype):
    """The GLSL scalar type storing `dtype`: float for float32, int for int32 and bool."""
    return "float" if dtype == dtypes.float32 else "int"


def vec4_type(scalar_type):
    return "vec4" if scalar_type == "float" else "ivec4"


@functools.cache
def template(name):
    """`shaders/glsl/<name>` as a string.Template."""
    return Template(shader("glsl", name))


def fill(name, **values):
    return template(name).substitute(values)


# -- op functions ------------------------------------------------------------------

_NAME = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_COMMENT = re.compile(r"//[^\n]*")


@functools.cache
def _chunks(filename):
    """Top-level functions of a .glsl file: [(name, source)], overloads separately."""
    return _split(shader("glsl", filename))


@functools.cache
def _split(text):
    """Top-level functions of GLSL source `text`: [(name, source)]."""
    chunks, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                body = text[start:i + 1]
                name = _NAME.search(_COMMENT.sub("", body)).group(1)
                if name in ("float", "int", "bool", "vec4", "ivec4"):  # the return type
                    name = _NAME.findall(_COMMENT.sub("", body))[1]
                chunks.append((name, body.strip()))
                start = i + 1
    return chunks


def functions(names, files=("math.glsl",), sources=()):
    """Source of the functions `names` (all overloads) and the helpers they call.

    `files`, then the GLSL `sources`, are searched in order; helpers come before
    their callers.
    """
    defs = {}
    order = []
    for chunks in [_chunks(f) for f in files] + [_split(text) for text in sources]:
        for name, body in chunks:
            defs.setdefault(name, []).append(body)
            if name not in order:
                order.append(name)
    needed = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        if name not in defs:
            raise KeyError(f"no GLSL function {name!r} in {list(files)} or the op "
                           "bodies declared with their ops")
        needed.add(name)
        for body in defs[name]:
            todo.extend(n for n in _NAME.findall(_COMMENT.sub("", body))
                        if n in defs and n not in needed)
    return "\n\n".join(b for n in order if n in needed for b in defs[n])


# -- program heads -------------------------------------------------------------------

def head(in_types, out_type, num_outputs=1):
    """Prelude, one sampler block per input storage type ("float[]", "int[]": a texture
    array, read by `texel{i}(t, layer)`), and the output declaration: `outValue`, or
    `outValue0`.. for several render targets (`out_type` one type for all, or a list of
    one per target)."""
    parts = [shader("glsl", "prelude.glsl")]
    for i, t in enumerate(in_types):
        if t.endswith("[]"):  # a texture array (PlanBuilder.temp with layers)
            t = t[:-2]
            parts.append(fill("sampler_array.glsl", i=i, T4=vec4_type(t),
                              S="isampler2DArray" if t == "int" else "sampler2DArray"))
            continue
        parts.append(fill("sampler.glsl", i=i, T=t, T4=vec4_type(t),
                          S="isampler2D" if t == "int" else "sampler2D"))
    types = list(out_type) if isinstance(out_type, (list, tuple)) else [out_type] * num_outputs
    if len(types) == 1:
        outputs = f"layout(location = 0) out highp {vec4_type(types[0])} outValue;"
    else:
        outputs = "\n".join(f"layout(location = {i}) out highp {vec4_type(t)} outValue{i};"
                             for i, t in enumerate(types))
    parts.append(fill("output.glsl", outputs=outputs))
    return "\n".join(parts)


# -- plans ------------------------------------------------------------------------------

class Arg:
    """A kernel argument, temporary or output: shape, dtype and where its data is.

    `ref` is the engine input position (>= 0), -1 for the output, or -2 - j for
    temporary j. `scalar` is True for a Python scalar input (a uniform). `layers` > 1:
    a texture array of that many layers of `shape` (a temporary).
    """

    __slots__ = ("ref", "shape", "dtype", "scalar", "size", "layers")

    def __init__(self, ref, shape, dtype, scalar=False):
        self.ref = ref
        self.shape = tuple(shape)
        self.dtype = dtype
        self.scalar = scalar
        self.layers = 1
        size = 1
        for d in self.shape:
            size *= d
        self.size = size

    @property
    def type(self):
        """The GLSL type this argument is stored (or passed) as."""
        return glsl_type(self.dtype)

    def __repr__(self):
        return f"Arg({self.ref}, {list(self.shape)}, {self.dtype}, scalar={self.scalar})"


class Plan:
    """The launches of one kernel for one shape signature."""

    __slots__ = ("steps", "temp_keys", "out_key", "js_ids", "single", "extra_outputs")

    def __init__(self, steps, temp_keys, out_key, js_ids, extra_outputs=()):
        # [(js plan id, (out refs), (texture refs), ((scalar ref, converter)), many)]
        self.steps = steps
        self.temp_keys = temp_keys  # pool keys of the temporaries
        self.out_key = out_key
        self.js_ids = js_ids        # JS plan ids to delete with this plan
        self.extra_outputs = tuple(extra_outputs)  # temporaries returned after the output
        # the common case, one plain launch, unpacked for `run`
        self.single = None
        if not temp_keys and len(steps) == 1 and not steps[0][4]:
            js_id, _, refs, scalar_refs, _ = steps[0]
            self.single = (js_id, refs + (None,) * (3 - len(refs)), scalar_refs)

    def run(self, pool, launch, js, inputs):
        """Runs the launches on `inputs` (NDArrays and scalars); returns the output Tex
        (a list of Texs when the plan has `extra_outputs`)."""
        out = pool.acquire(self.out_key)
        single = self.single
        memory._state["num_launches"] += len(self.steps)
        if single is not None:
            js_id, (r0, r1, r2), scalar_refs = single
            t0 = inputs[r0]._storage.handle.id
            t1 = 0 if r1 is None else inputs[r1]._storage.handle.id
            t2 = 0 if r2 is None else inputs[r2]._storage.handle.id
            if scalar_refs:
                s = [conv(inputs[r]) for r, conv in scalar_refs] + [0]
                launch(js_id, out.id, t0, t1, t2, s[0], s[1])
            else:
                launch(js_id, out.id, t0, t1, t2, 0, 0)
            return out
        temps = [pool.acquire(k) for k in self.temp_keys]
        try:
            for js_id, out_refs, refs, scalar_refs, many in self.steps:
                ids = [_resolve(r, inputs, out, temps) for r in refs]
                s = [conv(inputs[r]) for r, conv in scalar_refs] + [0, 0]
                outs = [_resolve(r, inputs, out, temps) for r in out_refs]
                if many:
                    js.launchMany(js_id, ",".join(map(str, outs)), ",".join(map(str, ids)),
                                  s[0], s[1])
                else:
                    ids += (0, 0, 0)
                    launch(js_id, outs[0], ids[0], ids[1], ids[2], s[0], s[1])
        except BaseException:
            for j in self.extra_outputs:
                pool.release(temps[j])
            pool.release(out)
            raise
        finally:
            for j, t in enumerate(temps):
                if j not in self.extra_outputs:
                    pool.release(t)
        if self.extra_outputs:
            return [out] + [temps[j] for j in self.extra_outputs]
        return out


def _resolve(ref, inputs, out, temps):
    if ref >= 0:
        return inputs[ref]._storage.handle.id
    return out.id if ref == -1 else temps[-2 - ref].id


class PlanBuilder:
    """Records the launches of one kernel call; `build()` gives the Plan.

    The runtime calls every GLSL kernel as `fn(b, *args, **attrs)` with a PlanBuilder `b`
    (the convention of all three kernel languages: docs/ADDING_AN_OP.md) and the input
    Args. Attributes: `backend`, `out` (the output Arg), `out_shape`, `out_dtype`,
    `outs` ((shape, dtype) per output), `args` (the input Args).
    """

    def __init__(self, backend, inputs, out_shape, out_dtype, outs=None):
        self.backend = backend
        self.args = [Arg(i, (), _SCALAR_DTYPES[type(x)], True) if type(x) in _SCALAR_DTYPES
                     else Arg(i, x.shape, x.dtype) for i, x in enumerate(inputs)]
        self.out = Arg(-1, out_shape, out_dtype)
        self.out_shape, self.out_dtype = self.out.shape, out_dtype
        self.outs = tuple(outs or ((self.out_shape, out_dtype),))
        self.steps = []
        self.temp_keys = []
        self.js_ids = []
        self.extra_outputs = []

    def output(self):
        """The next output, of its shape and dtype in `outs` (kernels with several
        outputs: the backend's `execute_joint`), returned after `out` in the order made."""
        shape, dtype = self.outs[1 + len(self.extra_outputs)]
        arg = self.temp(shape, dtype)
        self.extra_outputs.append(-2 - arg.ref)
        return arg

    def temp(self, shape, dtype, layers=1):
        """A temporary array for intermediate results, freed when the plan finishes;
        with `layers` > 1 a texture array of that many arrays of `shape`, rendered as
        one launch's render targets and read as one texture (`head`'s "float[]")."""
        arg = Arg(-2 - len(self.temp_keys), shape, dtype)
        key = layout(max(arg.size, 1), dtype != dtypes.float32)
        if layers > 1:
            arg.layers = layers
            key += (layers,)
        self.temp_keys.append(key)
        return arg

    def launch(self, key, source, out, inputs, uniforms=None, scalars=()):
        """Records one launch of program `key` rendering `out` from texture `inputs`.

        Args:
            key: the program cache key (hashable; no shapes in it).
            source: a function returning the GLSL source, called on a cache miss.
            out: the Arg rendered to, or a list of Args of one size (render targets
                outValue0, outValue1, ...), or a texture array (a target per layer).
            inputs: non-scalar Args, bound as uT0, uT1, ... (more than three, or
                several outputs, take the slower `launchMany` path).
            uniforms: {name: int or float or list of them} for this signature.
            scalars: up to two (uniform name, Arg, GLSL type) for Python scalar
                inputs, set at each launch (their values are not in the signature).
        """
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        out = outs[0]
        # 16: WebGL2's least MAX_TEXTURE_IMAGE_UNITS (a blocked matmul's last pass reads
        # 8 render targets' textures, and its epilogue's arrays after them)
        if len(inputs) > 16 or len(scalars) > 2:
            raise ValueError(f"a WebGL launch takes up to 16 textures and 2 scalars; "
                             f"received {len(inputs)} and {len(scalars)}")
        program = self.backend.program(key, source, len(inputs))
        out_key = layout(max(out.size, 1), out.dtype != dtypes.float32)
        w = out_key[0]
        values = [["uOutShift", "i", [w.bit_length() - 1]], ["uOutSize", "i", [out.size]]]
        for i, arg in enumerate(inputs):
            in_w, in_h, _ = layout(arg.size, arg.dtype != dtypes.float32)
            values.append([f"uShift{i}", "i", [in_w.bit_length() - 1]])
            # texelf's (JS skips uniforms a program does not use)
            values.append([f"uGeo{i}", "f", [1.0 / in_w, 1.0 / in_h, float(in_w)]])
        for name, value in (uniforms or {}).items():
            value = list(value) if isinstance(value, (list, tuple)) else [value]
            kind = "f" if any(isinstance(v, float) for v in value) else "i"
            values.append([name, kind, value])
        scalar_spec = [[name, "i" if t == "int" else "f"] for name, _, t in scalars]
        targets = sum(o.layers for o in outs)
        js_id = self.backend.js.addPlan(program, w, rows_used(max(out.size, 1), w),
                                        len(inputs), targets, json.dumps(values),
                                        json.dumps(scalar_spec))
        self.js_ids.append(js_id)
        # float() so that a huge Python int reaches JS as a number, not a BigInt
        scalar_refs = tuple((a.ref, float if t == "float" else int) for _, a, t in scalars)
        self.steps.append((js_id, tuple(o.ref for o in outs), tuple(a.ref for a in inputs),
                           scalar_refs, targets > 1 or len(inputs) > 3))

    def build(self):
        out_key = layout(max(self.out.size, 1), self.out.dtype != dtypes.float32)
        return Plan(self.steps, self.temp_keys, out_key, self.js_ids, self.extra_outputs)

