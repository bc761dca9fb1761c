"""The `webgpu` backend: texflow's WGSL kernels in the browser, inside Pyodide.

Python decides everything; web/webgpu.js executes: it holds the GPU objects
(buffers by int id, pipelines, launch plans) and records dispatches into one
compute pass, submitted every few dozen launches, before a buffer write, on
reads and when Python yields to the event loop. A launch is one Python->JS
call with a few ints: the plan registered for the op's signature (pipeline,
parameters, grid), buffer ids, and any scalar operands.

Reading is asynchronous in WebGPU. `await x.data()` always works; the
synchronous reads (`x.get_values()`, `x.numpy()`) block through JSPI
(`pyodide.ffi.run_sync`), which needs Python to have been entered through
`runPythonAsync` or `callPromising`, and raise otherwise.
"""

import array
import sys
from types import SimpleNamespace

import numpy as np

from .. import dtypes
from ..errors import BackendError
from .wgsl.runtime import WGSLBackend, bucket, wrap_i32

_BATCHED_UPLOAD = 64  # elements: uploads this small go into a pending launch list

_NO_SYNC = ("a synchronous read of WebGPU data needs JSPI (pyodide.ffi.run_sync), which is "
            "not available here (Python was not entered through runPythonAsync or "
            "callPromising); use `await x.data()` instead")


class WebGPUBackend(WGSLBackend):
    """WGSL kernels on the browser's WebGPU device (set up by web/boot.js).

    >>> import texflow as tf                        # doctest: +SKIP
    >>> tf.set_backend("webgpu")
    >>> await (tf.array([1.0, 2.0]) * 2).data()
    array([2., 4.], dtype=float32)
    """

    name = "webgpu"

    @classmethod
    def probe(cls):
        if sys.platform != "emscripten":
            return ("webgpu runs in a browser, inside Pyodide; natively, the 'wgpu' backend "
                    "runs the same kernels")
        import js

        info = getattr(js, "texflowWebGPUInfo", None)
        if info is None:
            return "WebGPU was not set up (texflow's web/boot.js did not run)"
        if not info.device:
            return info.error or "no WebGPU device"
        if getattr(js, "texflowWebGPU", None) is None:
            return "texflow's web/webgpu.js is not loaded"
        return None

    def __init__(self):
        import js
        from pyodide import ffi

        super().__init__()
        self._ffi = ffi
        info = js.texflowWebGPUInfo
        self.adapter_info = info.adapterInfo
        self.max_storage_buffers = int(info.device.limits.maxStorageBuffersPerShaderStage)
        if getattr(self.adapter_info, "architecture", "") == "swiftshader":
            # measured on SwiftShader (Chromium, no GPU): scripts/profile_mlp_kernels.py
            self.MATMUL_BLOCK = (16, 8, 2, 4)
            self.MATMUL_BLOCKED = ("general", (16, 4))
        self._ex = js.texflowWebGPU.Executor.new(info.device)
        self._launch = self._ex.launch
        self._batch = None
        # where launch programs (autodiff/replay.py) take their buffers: pool keys are
        # bucket sizes in bytes, handles buffer ids
        self.program_pool = SimpleNamespace(acquire=self._take, acquire_as=self._take_as,
                                            release=self.free,
                                            park=self.parking.park,
                                            unpark=self.parking.unpark)

    @property
    def js(self):
        """The JS executor (web/webgpu.js `Executor`)."""
        return self._ex

    @js.setter
    def js(self, executor):
        self._ex = executor
        if self._batch is None:
            self._launch = executor.launch

    def _take_as(self, nbytes, want):
        """Buffer `want` when it is free in `nbytes`' bucket, else any (`_take`)."""
        size = bucket(nbytes)
        free = self._pool.get(size)
        if free is None or want not in free:
            return self._take(nbytes)
        del free[want]
        del self._lru[want]
        self._pooled_bytes -= size
        self._live += 1
        return want

    def _create_buffer(self, nbytes):
        return self._ex.createBuffer(nbytes)

    # -- batches: a replayed tf.function step reaches JS as one launch list -------------

    def begin_batch(self):
        """Collects launches until `end_batch` sends them to JS in one call."""
        self._batch = []
        self._launch = self._batched

    def _batched(self, plan, *args):
        batch = self._batch
        batch.append(plan)
        batch.append(len(args))
        batch.extend(args)

    def _send_batch(self):
        batch = self._batch
        if batch:
            self._batch = []
            try:  # int32 words, which JS reads in place from wasm memory
                words = array.array("i", batch)
            except (TypeError, OverflowError):  # eager launches' float scalars: as bits
                words = np.array([v if type(v) is int else _float_bits(v) for v in batch],
                                 np.int32)
            self._ex.launchList(words)

    def upload(self, values, dtype):
        size = values.size
        if self._batch is None or not 0 < size <= _BATCHED_UPLOAD:
            return super().upload(values, dtype)
        # a replay's small host values (an optimizer's step scalars) ride in its batch
        values = np.ascontiguousarray(values, np.float32 if dtype == dtypes.float32
                                      else np.int32)
        bid = self._take(4 * size)
        self._batch += (-3, bid, size, *values.reshape(-1).view(np.int32).tolist())
        return bid

    # -- launch programs: a replayed step's dispatches, prepared once (autodiff/replay.py)

    def program_plan(self, key):
        """The recipe made for engine key `key`, or None."""
        return self._recipes.get(key)

    @staticmethod
    def plan_buffers(recipe, num_outputs):
        """Pool keys (bucket bytes) of `recipe`'s outputs and temporaries."""
        return [bucket(recipe.out_nbytes)] * num_outputs, [bucket(n) for n in recipe.temps]

    @staticmethod
    def plan_launches(recipe, in_regs, scalars, out_regs, scratch_regs):
        """`recipe`'s dispatches over registers: [(JS plan id, buffer regs in binding
        order, scalar words)] for inputs in `in_regs` (None for a scalar input, whose
        value `scalars` has), outputs in `out_regs`, temporaries in `scratch_regs`."""
        table = list(in_regs) + list(out_regs) + list(scratch_regs)
        return [(step.plan, [table[r] for r in step.refs],
                 [_float_bits(float(scalars[r])) if is_float else wrap_i32(scalars[r])
                  for r, _, is_float in step.scalars]) for step in recipe.steps]

    def add_program(self, records, number, num_registers):
        """Stores `plan_launches` records in JS (buffer ids replaced by register numbers,
        `number(reg)`): pipelines, bind group layouts and every dispatch's parameters
        are made there once. Returns the program's id and each record's position."""
        words = []
        for plan, regs, scalars in records:
            words += (plan, len(regs), *map(number, regs), len(scalars), *scalars)
        if self._batch:
            self._send_batch()
        pid = self._ex.addProgram(self._ffi.to_js(np.array(words, np.int32)), num_registers)
        return pid, list(range(len(records) + 1))

    def delete_program(self, program_id):
        if self._batch:
            self._send_batch()
        self.parking.drop(program_id)
        self._ex.deleteProgram(program_id)

    def end_batch(self):
        try:
            self._send_batch()
        finally:
            self._batch = None
            self._launch = self._ex.launch

    def _destroy_buffer(self, bid):
        self._send_batch()  # launches waiting in the batch may use it
        self._ex.destroyBuffer(bid)

    def _write(self, bid, values):
        self._send_batch()
        self._ex.write(bid, values)

    def flush(self):
        self._send_batch()
        self._ex.flush()

    def _can_block(self):
        can = getattr(self._ffi, "can_run_sync", None)
        return can() if can is not None else False

    def _read(self, bid, nbytes, out):
        self._send_batch()
        if not self._can_block():
            raise BackendError(_NO_SYNC)
        target = self._ffi.create_proxy(out)
        try:
            self._ffi.run_sync(self._ex.read(bid, nbytes, target))
        except self._ffi.JsException as e:
            raise BackendError(str(e)) from None
        finally:
            target.destroy()

    async def download_async(self, handle, size, dtype):
        out = self._download_target(size, dtype)
        self._send_batch()
        if size:
            target = self._ffi.create_proxy(out)
            try:
                await self._ex.read(handle, 4 * size, target)
            except self._ffi.JsException as e:
                raise BackendError(str(e)) from None
            finally:
                target.destroy()
        return self._finish_download(out, dtype)

    def _compile(self, program):
        return self._ex.compile(program.source, program.n_in, program.n_out,
                                repr(program.key))

    def _plan(self, pipeline, step):
        to_js = self._ffi.to_js
        return self._ex.plan(pipeline, to_js(step.meta), to_js([s[1] for s in step.scalars]),
                             to_js([int(s[2]) for s in step.scalars]), *step.groups)

    def _drop_plans(self):
        self._ex.dropPlans()

    def sync(self):
        """Waits for queued GPU work (through JSPI; see the module docstring)."""
        if not self._can_block():
            raise BackendError(_NO_SYNC)
        self._send_batch()
        self._ffi.run_sync(self._ex.sync())

    async def sync_async(self):
        self._send_batch()
        await self._ex.sync()


def _float_bits(value):
    """A Python float as the int32 holding its float32 bits (a wrapped int for ints)."""
    if type(value) is float:
        return int(np.array(value, np.float32).view(np.int32))
    return int(np.array(value, np.int64).astype(np.int32))
