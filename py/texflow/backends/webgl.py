"""The WebGL2 runtime: NDArrays in float32/int32 RGBA textures, GLSL ES 3.00 kernels.

Only inside Pyodide. `web/webgl.js` (loaded by boot.js before Python starts)
owns the GL objects; this file decides everything else and talks to it by
small integer ids: texture ids for data, program ids, and launch-plan ids.

The launch path, per op: the engine calls `execute`, which looks up the
kernel's `Plan` for this shape signature (built once by the kernel with a
`PlanBuilder`: programs compiled and cached by key, uniforms registered in
JS), takes an output texture from the pool and makes one JS call per launch
with the texture ids and any Python-scalar operands. Data stays in textures
between ops; only reads (`download`, a synchronous readPixels) copy it out,
straight into a numpy array's memory. Layout and pool: glsl/textures.py.
"""

import array
import struct
import sys

import numpy as np

from .. import dtypes
from ..engine import memory
from ..errors import BackendError
from .base import Backend
from .glsl.program import PlanBuilder
from .glsl.textures import TexturePool, layout, rows_used



_BATCHED_UPLOAD = 64  # elements: uploads this small go into a pending launch list


def _word(value):
    """A scalar launch argument as an int32 word: an int as itself (wrapped), a float
    as its float32 bits."""
    if type(value) is float:
        return struct.unpack("<i", struct.pack("<f", value))[0]
    return value


class WebGLBackend(Backend):
    """Runs ops as fragment-shader launches on WebGL2 textures.

    Attributes: `pool` (the TexturePool; its caps `max_bytes`, `max_count` may
    be changed), `max_plans` (launch plans kept before the cache is reset).
    """

    name = "webgl"
    language = "glsl"
    is_gpu = True
    fresh_downloads = True
    max_plans = 4096

    @classmethod
    def probe(cls):
        """None when WebGL2 with float32 render targets works here, else why not."""
        if sys.platform != "emscripten":
            return "WebGL2 exists only in a browser (texflow in Pyodide); natively use 'wgpu'"
        import js
        runtime = getattr(js, "texflowWebGL", None)
        if runtime is None:
            return "web/webgl.js is not loaded (globalThis.texflowWebGL is missing)"
        reason = runtime.init()
        return None if reason is None else str(reason)

    def __init__(self):
        import js

        from . import glsl  # noqa: F401  (registers the GLSL kernels)
        super().__init__()
        self.js = js.texflowWebGL
        reason = self.js.init()
        if reason is not None:
            raise BackendError(f"WebGL2 could not start: {reason}")
        self.pool = TexturePool(self.js)
        self.program_pool = self.pool  # where launch programs take their textures
        # render targets a fragment may write (blocked matmul), at most 8
        self.max_draw_buffers = min(8, self.info()["maxDrawBuffers"])
        self._launch = self.js.launch
        self._many = self.js        # what Plan.run calls launchMany on
        self._batch = None
        self._plans = {}
        self.plan_generation = 0    # changes when plans (and so launch programs) are dropped
        self._programs = {}
        self._delete_texture = self.pool._delete
        from pyodide.ffi import to_js
        self._to_js = to_js

    # -- batches: a replayed tf.function step reaches JS as one launch list -------------

    def begin_batch(self):
        """Collects launches until `end_batch` sends them to JS in one call; any other
        call into JS that touches textures (uploads, reads, syncs, deleting a texture or
        a plan) sends what is pending first, so GL sees everything in order."""
        self._batch = []
        self._launch = self._batched
        self._many = self
        self.pool._delete = self._deleting

    def _batched(self, js_id, out, t0, t1, t2, s0, s1):
        self._batch += (js_id, 1, 3, out, t0, t1, t2, _word(s0), _word(s1))

    def _send_batch(self):
        batch = self._batch
        if batch:
            self._batch = []
            try:  # int32 words, which JS reads in place from wasm memory
                words = array.array("i", batch)
            except OverflowError:  # an int scalar beyond int32 wraps, as a uniform does
                words = np.array(batch, np.int64).astype(np.int32)
            self.js.launchList(words)

    def end_batch(self):
        try:
            self._send_batch()
        finally:
            self._batch = None
            self._launch = self.js.launch
            self._many = self.js
            self.pool._delete = self._delete_texture

    def launchMany(self, js_id, outs, ins, s0, s1):  # noqa: N802 (Plan.run calls it)
        outs, ins = outs.split(","), ins.split(",")
        self._batch += (js_id, len(outs), len(ins), *map(int, outs), *map(int, ins),
                        _word(s0), _word(s1))

    # -- launch programs: a replayed step's launches, prepared once (autodiff/replay.py) --

    def program_plan(self, key):
        """The launch plan made for engine key `key`, or None."""
        return self._plans.get(key)

    @staticmethod
    def plan_buffers(plan, num_outputs):
        """Pool keys of `plan`'s outputs and of its other temporaries."""
        extra = plan.extra_outputs
        return ([plan.out_key] + [plan.temp_keys[j] for j in extra],
                [k for j, k in enumerate(plan.temp_keys) if j not in extra])

    def plan_launches(self, plan, in_regs, scalars, out_regs, scratch_regs):
        """`plan`'s launches over registers: [(JS plan id, out regs, in regs, s0, s1)] for
        inputs in registers `in_regs` (None for a scalar input, whose value `scalars`
        has), outputs in `out_regs` and the other temporaries in `scratch_regs` (in
        `plan_buffers`' order)."""
        scratch = iter(scratch_regs)
        temps = [out_regs[1 + plan.extra_outputs.index(j)] if j in plan.extra_outputs
                 else next(scratch) for j in range(len(plan.temp_keys))]
        out_reg = out_regs[0]

        def reg(ref):
            return in_regs[ref] if ref >= 0 else out_reg if ref == -1 else temps[-2 - ref]
        launches = []
        for js_id, out_refs, refs, scalar_refs, _ in plan.steps:
            s = [_word(conv(scalars[r])) for r, conv in scalar_refs] + [0, 0]
            launches.append((js_id, [reg(r) for r in out_refs], [reg(r) for r in refs],
                             s[0], s[1]))
        return launches

    def add_program(self, records, number, num_registers):
        """Stores `plan_launches` records in JS (launchList's format, texture ids replaced
        by register numbers, `number(reg)`); returns the program's id and each record's
        word offset (and the end's)."""
        words, offsets = [], []
        for js_id, outs, ins, s0, s1 in records:
            offsets.append(len(words))
            words += (js_id, len(outs), len(ins), *map(number, outs), *map(number, ins),
                      s0, s1)
        offsets.append(len(words))
        if self._batch:
            self._send_batch()
        pid = self.js.addProgram(self._to_js(np.array(words, np.int64).astype(np.int32)),
                                 num_registers)
        return pid, offsets

    def delete_program(self, program_id):
        if self._batch:
            self._send_batch()
        self.pool.parking.drop(program_id)
        self.js.deleteProgram(program_id)

    def _deleting(self, tex_id):
        self._send_batch()
        self._delete_texture(tex_id)

    # -- storage ---------------------------------------------------------------------

    def upload(self, values, dtype):
        size = values.size
        tex = self.pool.acquire(layout(size, dtype != dtypes.float32))
        if dtype == dtypes.bool_:
            values = values.astype(np.int32)
        elif values.dtype != dtypes.NUMPY[dtype] or not values.flags.c_contiguous:
            values = np.ascontiguousarray(values, dtypes.NUMPY[dtype])
        if self._batch is not None and size <= _BATCHED_UPLOAD:
            # a replay's small host values (an optimizer's step scalars) ride in its batch
            self._batch += (-3, tex.id, size, *values.reshape(-1).view(np.int32).tolist())
            return tex
        if self._batch:
            self._send_batch()
        self.js.upload(tex.id, tex.w, size, values)
        return tex

    def download(self, handle, size, dtype):
        if self._batch:
            self._send_batch()
        rows = rows_used(size, handle.w)
        data = np.empty(rows * handle.w * 4, np.int32 if handle.is_int else np.float32)
        self.js.download(handle.id, rows, data)
        data = data[:size]
        return data != 0 if dtype == dtypes.bool_ else data

    def free(self, handle):
        self.pool.release(handle)

    # -- kernels -----------------------------------------------------------------------

    def execute(self, fn, inputs, out_shape, out_dtype, attrs, key):
        plan = self._plans.get(key)
        if plan is None:
            plan = self._make_plan(key, fn, inputs, ((out_shape, out_dtype),), attrs)
        return plan.run(self.pool, self._launch, self._many, inputs)

    def launcher(self, fn, inputs, out_shape, out_dtype, attrs, key):
        # the plan's one launch unpacked into a closure: an eager op's issue is then this
        # closure, a pooled texture and the JS call (self._launch: batches swap it)
        plan = self._plans.get(key)
        if plan is None:
            return None
        js_id, (r0, r1, r2), scalar_refs = plan.single or (None, (None, None, None), ())
        acquire, out_key, counts = self.pool.acquire, plan.out_key, memory._state
        if r0 is None or scalar_refs or r2 is not None:
            def launch(inputs):
                return plan.run(self.pool, self._launch, self._many, inputs)
        elif r1 is not None:
            def launch(inputs):
                out = acquire(out_key)
                counts["num_launches"] += 1
                self._launch(js_id, out.id, inputs[r0]._storage.handle.id,
                             inputs[r1]._storage.handle.id, 0, 0, 0)
                return out
        else:
            def launch(inputs):
                out = acquire(out_key)
                counts["num_launches"] += 1
                self._launch(js_id, out.id, inputs[r0]._storage.handle.id, 0, 0, 0, 0)
                return out
        return launch

    def execute_joint(self, fn, inputs, outs, attrs, key):
        # the kernel adds outputs with PlanBuilder.output(): render targets of one launch
        plan = self._plans.get(key)
        if plan is None:
            plan = self._make_plan(key, fn, inputs, outs, attrs)
        return plan.run(self.pool, self._launch, self._many, inputs)

    def _make_plan(self, key, fn, inputs, outs, attrs):
        builder = PlanBuilder(self, inputs, outs[0][0], outs[0][1], outs)
        try:
            fn(builder, *builder.args, **attrs)
        except BaseException:
            for js_id in builder.js_ids:
                self.js.deletePlan(js_id)
            raise
        if len(self._plans) >= self.max_plans:
            self.clear_plans()
        plan = self._plans[key] = builder.build()
        return plan

    def program(self, key, source, num_inputs):
        """The JS id of program `key`, compiling `source()` on first use."""
        program_id = self._programs.get(key)
        if program_id is None:
            text = source()
            try:
                program_id = self.js.compile(text, num_inputs)
            except Exception as e:
                numbered = "\n".join(f"{i + 1:4d} {line}"
                                     for i, line in enumerate(text.splitlines()))
                raise BackendError(f"WebGL could not compile program {key!r}: {e}\n"
                                   f"{numbered}") from None
            self._programs[key] = program_id
        return program_id

    def clear_plans(self):
        """Forgets every launch plan (programs stay compiled)."""
        if self._batch:
            self._send_batch()
        for plan in self._plans.values():
            for js_id in plan.js_ids:
                self.js.deletePlan(js_id)
        self._plans.clear()
        self.plan_generation += 1

    def sync(self):
        if self._batch:
            self._send_batch()
        self.js.sync()

    # -- accounting ----------------------------------------------------------------------

    def memory_info(self):
        return self.pool.info()

    def info(self):
        """The renderer string and texture limits, as a dict."""
        import json
        return json.loads(self.js.info())
