"""What the two WGSL runtimes share: the buffer pool, recipe cache and launch loop.

`webgpu` (browser, through web/webgpu.js) and `wgpu` (native, wgpu-py) each
subclass `WGSLBackend` and supply the device primitives:

    _create_buffer(nbytes) -> id       _destroy_buffer(id)
    _write(id, values)                 _read(id, nbytes, out)  (fills numpy `out`)
    _compile(program) -> pipeline      _plan(pipeline, step) -> plan
    _launch(plan, *buffer_ids, *scalars)   one call per dispatch
    flush()                            sync()

Buffer ids are ints. Kernels (the other modules of this package) never touch
a device: they turn an input signature into a `Recipe`, which is cached, so
a repeated op costs one dict lookup, a pooled buffer and one `_launch` call.
"""

from collections import OrderedDict

import numpy as np

from ... import dtypes
from ...engine import memory
from ..base import Backend
from ..parking import Parking
from .program import Builder

_SCALARS = (float, int, bool)


def bucket(nbytes):
    """The pooled size for a request of `nbytes`: >= 256, within 1/8 above it."""
    if nbytes <= 256:
        return 256
    shift = nbytes.bit_length() - 4
    return ((nbytes + (1 << shift) - 1) >> shift) << shift


def wrap_i32(value):
    """A Python int as the int32 it wraps to (numpy int32 arithmetic wraps)."""
    value = int(value)
    if -0x80000000 <= value <= 0x7fffffff:
        return value
    return (value + 0x80000000) % 0x100000000 - 0x80000000


class WGSLBackend(Backend):
    """The runtime-independent half of a WGSL backend (see the module docstring).

    Storage: one buffer per array, 4 bytes per element (float32 as f32, int32
    and bool as i32). Freed buffers go to a pool keyed by size, rounded up to
    `bucket()`, so sizes that differ a little share buffers; all buffers have
    the same usage. The pool is bounded (POOL_BYTES, POOL_COUNT): past either
    limit the least recently freed buffers are destroyed, and a buffer larger
    than a quarter of POOL_BYTES is destroyed at once.
    """

    language = "wgsl"
    is_gpu = True
    fresh_downloads = True
    POOL_BYTES = 256 << 20   # freed buffers kept for reuse, at most this many bytes ...
    POOL_COUNT = 2048        # ... and this many buffers; the least recently freed go first
    RECIPE_LIMIT = 8192      # cached op signatures; the cache is emptied past this
    # matmul: None for the workgroup-memory tiled kernel (GPUs), or (rows, vec4
    # columns) per invocation and the workgroup's (x, y) for the register-blocked
    # one, which runtimes pick on CPU adapters (see wgsl/matmul.py).
    MATMUL_BLOCK = None
    # matmul on CPU adapters: (mode, (rows, columns per invocation at most)) of
    # wgsl/matmul_blocked.py's kernel, which takes the products the general kernel
    # would (mode "general") or all of them ("all"); None: never (GPUs)
    MATMUL_BLOCKED = None
    # loop iterations one invocation may run in all, where the driver stops an
    # invocation silently past a limit (lavapipe: 65535, see wgpu.py); kernels whose
    # loops grow with their input split their work to stay under it. None: no limit.
    LOOP_BUDGET = None
    LOOP_DRIVER = ""         # the driver with the limit, for error messages
    # storage buffers one shader may bind (WebGPU's default; runtimes read their device's)
    max_storage_buffers = 8

    def __init__(self):
        super().__init__()
        self._pool = {}              # bucket bytes -> {id: None}, last freed last
        self._lru = OrderedDict()    # pooled id -> bucket, least recently freed first
        self._size = {}              # id -> bucket, for live and pooled buffers
        self._pooled_bytes = 0
        self._live = 0
        self._recipes = {}
        self._pipelines = {}         # program key -> compiled pipeline
        self.plan_generation = 0     # changes when plans (and so launch programs) are dropped
        # launch programs' arenas kept between replays (backends/parking.py)
        self.parking = Parking(self.free, self._size.__getitem__)

    # -- storage ---------------------------------------------------------------------

    def _take(self, nbytes):
        size = bucket(nbytes)
        free = self._pool.get(size)
        if not free and self.parking.held and self.parking.reclaim():
            free = self._pool.get(size)
        if free:
            bid = free.popitem()[0]
            del self._lru[bid]
            self._pooled_bytes -= size
        else:
            bid = self._create_buffer(size)
            self._size[bid] = size
        self._live += 1
        return bid

    def alloc(self, size, dtype):
        return self._take(4 * size)

    def free(self, handle):
        size = self._size[handle]
        self._live -= 1
        if size > self.POOL_BYTES // 4:
            del self._size[handle]
            self._destroy_buffer(handle)
            return
        self._pool.setdefault(size, {})[handle] = None
        self._lru[handle] = size
        self._pooled_bytes += size
        while self._pooled_bytes > self.POOL_BYTES or len(self._lru) > self.POOL_COUNT:
            old, old_size = self._lru.popitem(last=False)
            del self._pool[old_size][old]
            del self._size[old]
            self._pooled_bytes -= old_size
            self._destroy_buffer(old)

    def upload(self, values, dtype):
        if values.dtype != (np.float32 if dtype == dtypes.float32 else np.int32):
            values = values.astype(np.float32 if dtype == dtypes.float32 else np.int32)
        bid = self._take(4 * values.size)
        if values.size:
            self._write(bid, np.ascontiguousarray(values))
        return bid

    def _download_target(self, size, dtype):
        return np.empty(size, np.float32 if dtype == dtypes.float32 else np.int32)

    @staticmethod
    def _finish_download(out, dtype):
        return out != 0 if dtype == dtypes.bool_ else out

    def download(self, handle, size, dtype):
        out = self._download_target(size, dtype)
        if size:
            self._read(handle, 4 * size, out)
        return self._finish_download(out, dtype)

    def memory_info(self):
        parked = self.parking
        return {"num_gpu_objects": self._live - parked.count,
                "num_pooled_gpu_objects": len(self._lru) + parked.count,
                "pooled_bytes": self._pooled_bytes + parked.nbytes,
                "pool_limit_bytes": self.POOL_BYTES}

    # -- kernels ---------------------------------------------------------------------

    def execute(self, fn, inputs, out_shape, out_dtype, attrs, key):
        recipe = self._recipes.get(key)
        if recipe is None:
            recipe = self._prepare(fn, inputs, ((out_shape, out_dtype),), attrs, key)
        out = self._take(recipe.out_nbytes)
        memory._state["num_launches"] += len(recipe.steps)
        plan = recipe.direct
        if plan is not None:  # one launch on the inputs in order: the common case
            try:
                if len(inputs) == 1:
                    self._launch(plan, inputs[0]._storage.handle, out)
                elif len(inputs) == 2:
                    self._launch(plan, inputs[0]._storage.handle, inputs[1]._storage.handle,
                                 out)
                else:
                    self._launch(plan, *[x._storage.handle for x in inputs], out)
            except BaseException:
                self.free(out)
                raise
            return out
        table = [x if type(x) in _SCALARS else x._storage.handle for x in inputs]
        table.append(out)
        self._run(recipe, table, (out,))
        return out

    def launcher(self, fn, inputs, out_shape, out_dtype, attrs, key):
        # execute's common case (one launch on the inputs in order) as a closure: an
        # eager op's issue is then this closure, a pooled buffer and the JS call
        recipe = self._recipes.get(key)
        if recipe is None or recipe.direct is None or len(inputs) not in (1, 2):
            return None
        plan, nbytes, counts = recipe.direct, recipe.out_nbytes, memory._state
        take = self._take
        if len(inputs) == 2:
            def launch(inputs):
                out = take(nbytes)
                counts["num_launches"] += 1
                try:
                    self._launch(plan, inputs[0]._storage.handle, inputs[1]._storage.handle,
                                 out)
                except BaseException:
                    self.free(out)
                    raise
                return out
        else:
            def launch(inputs):
                out = take(nbytes)
                counts["num_launches"] += 1
                try:
                    self._launch(plan, inputs[0]._storage.handle, out)
                except BaseException:
                    self.free(out)
                    raise
                return out
        return launch

    def execute_joint(self, fn, inputs, outs, attrs, key):
        # a kernel writing several outputs (of one size): table entries after the inputs
        recipe = self._recipes.get(key)
        if recipe is None:
            recipe = self._prepare(fn, inputs, outs, attrs, key)
        handles = [self._take(recipe.out_nbytes) for _ in outs]
        memory._state["num_launches"] += len(recipe.steps)
        table = [x if type(x) in _SCALARS else x._storage.handle for x in inputs]
        self._run(recipe, table + handles, handles)
        return handles

    def _run(self, recipe, table, outs):
        """Launches `recipe`'s steps on buffer `table` (inputs, then outputs), with its
        temporaries; frees `outs` when a launch fails."""
        temps = recipe.temps
        if temps:
            temps = [self._take(n) for n in temps]
            table += temps
        launch = self._launch
        try:
            for step in recipe.steps:
                args = [table[r] for r in step.refs]
                for ref, _, is_float in step.scalars:
                    v = table[ref]
                    args.append(float(v) if is_float else wrap_i32(v))
                launch(step.plan, *args)
        except BaseException:
            for out in outs:
                self.free(out)
            raise
        finally:
            # Reusing a temporary for a later launch is safe: dispatches run in order.
            for t in temps:
                self.free(t)

    def _prepare(self, fn, inputs, outs, attrs, key):
        if len(self._recipes) >= self.RECIPE_LIMIT:
            self.clear_plans()
        recipe = fn(Builder(len(inputs), self, outs), *inputs, **attrs)
        for step in recipe.steps:
            pipeline = self._pipelines.get(step.program.key)
            if pipeline is None:
                pipeline = self._pipelines[step.program.key] = self._compile(step.program)
            step.plan = self._plan(pipeline, step)
        steps = recipe.steps
        n = len(inputs)
        if len(steps) == 1 and not recipe.temps and steps[0].refs == tuple(range(n + 1)):
            recipe.direct = steps[0].plan
        self._recipes[key] = recipe
        return recipe

    def clear_plans(self):
        """Forgets every recipe and launch plan (pipelines stay compiled)."""
        self._recipes.clear()
        self._drop_plans()
        self.plan_generation += 1

    def _drop_plans(self):
        """Forgets every launch plan (the recipe cache was emptied)."""
