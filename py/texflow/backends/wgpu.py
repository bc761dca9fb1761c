"""The `wgpu` backend: texflow's WGSL kernels natively, through wgpu-py.

wgpu-py (PyPI `wgpu`) runs WebGPU on Vulkan, Metal or D3D12, and on CPUs
without a GPU through Mesa's lavapipe. It is imported only here, so texflow
imports without it.

Dispatches are recorded into one open compute pass and submitted every
FLUSH_EVERY launches, before a buffer is written, and on reads. Each launch
copies its parameters into a slot of a CPU-side arena; the arena reaches the
GPU with one write just before its submit, so every pending dispatch keeps
its own parameters (see webgpu.js for the same design in the browser).
The open pass and the arena are shared by every thread of the process, so each
method that touches them holds the backend's lock (threads that run ops at once,
e.g. workers of one process or a prefetching pipeline, would otherwise record into
a pass another thread is ending).
"""

import functools
import itertools
import threading

import numpy as np

from ..errors import BackendError
from .wgsl.program import META_INTS
from .wgsl.runtime import WGSLBackend

SLOT_BYTES = 4 * META_INTS
_adapter_cache = []


def _locked(method):
    @functools.wraps(method)
    def wrapped(self, *args):
        with self._lock:
            return method(self, *args)
    return wrapped


def _adapter():
    """The wgpu adapter (a GPU if there is one), or None; asked for once."""
    if not _adapter_cache:
        import wgpu

        try:
            adapter = _without_xdg_noise(
                lambda: wgpu.gpu.request_adapter_sync(power_preference="high-performance"))
        except Exception:  # wgpu-native raises when no backend has an adapter
            adapter = None
        _adapter_cache.append(adapter)
    return _adapter_cache[0]


_XDG_NOISE = "XDG_RUNTIME_DIR is invalid or not set"


def _without_xdg_noise(fn):
    """Calls `fn` with the C-level stderr captured, then passes on everything but the
    "XDG_RUNTIME_DIR is invalid" lines the Vulkan loader prints while probing display
    servers (irrelevant to compute); any other output still reaches stderr."""
    import os
    import sys
    import tempfile

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (embedded): nothing to filter
        return fn()
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            return fn()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            lines = capture.read().decode(errors="replace").splitlines(keepends=True)
            kept = "".join(line for line in lines if _XDG_NOISE not in line)
            if kept:
                sys.stderr.write(kept)
                sys.stderr.flush()


# Mesa's llvmpipe (lavapipe) ends each invocation after 65535 loop iterations in all
# (its loops count down one "loop limiter" per invocation, Mesa 22.3: kernels return
# truncated sums, no error): probed once on CPU adapters with a loop of PROBE_LOOPS.
PROBE_LOOPS = 1 << 20
LOOP_MARGIN = 64
_PROBE = """@group(0) @binding(0) var<storage, read_write> o: array<i32>;
@compute @workgroup_size(1)
fn main() {
  let n = o[0];
  var count = 0;
  for (var k = 0; k < n; k = k + 1) { count = count + 1; }
  o[1] = count;
}"""


def _loop_limit(device):
    """The loop iterations after which `device` stops an invocation, or None if it
    ran all PROBE_LOOPS."""
    import wgpu

    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
    buf = device.create_buffer_with_data(data=np.array([PROBE_LOOPS, 0], np.int32),
                                         usage=usage)
    pipeline = device.create_compute_pipeline(layout="auto", compute={
        "module": device.create_shader_module(code=_PROBE), "entry_point": "main"})
    group = device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=[
        {"binding": 0, "resource": {"buffer": buf}}])
    encoder = device.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    compute.set_bind_group(0, group)
    compute.dispatch_workgroups(1)
    compute.end()
    device.queue.submit([encoder.finish()])
    ran = int(np.frombuffer(device.queue.read_buffer(buf), np.int32)[1])
    buf.destroy()
    return ran if ran < PROBE_LOOPS else None


class WgpuBackend(WGSLBackend):
    """WGSL kernels on a native wgpu device.

    >>> import texflow as tf                        # doctest: +SKIP
    >>> tf.set_backend("wgpu")
    >>> (tf.array([1.0, 2.0]) * 2).tolist()
    [2.0, 4.0]
    """

    name = "wgpu"
    FLUSH_EVERY = 64      # launches per submit
    ARENA_SLOTS = 64      # parameter slots; >= FLUSH_EVERY
    STAGE_KEEP_BYTES = 64 << 20  # the largest staging buffer kept between reads

    @classmethod
    def probe(cls):
        try:
            import wgpu  # noqa: F401
        except ImportError:
            return "wgpu is not installed (pip install wgpu)"
        if _adapter() is None:
            return "no wgpu adapter (no Vulkan, Metal or D3D12 device; install " \
                   "mesa-vulkan-drivers for the lavapipe CPU adapter)"
        return None

    def __init__(self):
        import wgpu

        super().__init__()
        self._wgpu = wgpu
        adapter = _adapter()
        limits = {k: adapter.limits[k] for k in (
            "max-storage-buffer-binding-size", "max-buffer-size",
            "max-compute-workgroup-storage-size", "max-storage-buffers-per-shader-stage")}
        self.device = adapter.request_device_sync(required_limits=limits)
        self.max_storage_buffers = limits["max-storage-buffers-per-shader-stage"]
        self.adapter_info = dict(adapter.info)
        if self.adapter_info.get("adapter_type") == "CPU":
            self.MATMUL_BLOCK = (8, 2, 16, 16)  # measured on lavapipe (llvmpipe, AVX2)
            self.MATMUL_BLOCKED = ("all", (16, 16))  # scripts/profile_mlp_kernels.py
            limit = _loop_limit(self.device)
            if limit is not None:  # a margin for the few iterations of a kernel's outer loops
                self.LOOP_BUDGET = limit - LOOP_MARGIN
                self.LOOP_DRIVER = " ".join(filter(None, (
                    self.adapter_info.get("vendor"), self.adapter_info.get("description"))))
        self._queue = self.device.queue
        self._buffers = {}
        self._ids = itertools.count(1)
        self._layouts = {}
        self._bind_groups = {}
        self._doomed = []
        self._arena_i32 = np.zeros(self.ARENA_SLOTS * META_INTS, np.int32)
        self._arena_f32 = self._arena_i32.view(np.float32)
        usage = wgpu.BufferUsage
        self._arena = self.device.create_buffer(
            size=self._arena_i32.nbytes, usage=usage.STORAGE | usage.COPY_DST | usage.COPY_SRC)
        self._usage = usage.STORAGE | usage.COPY_SRC | usage.COPY_DST
        self._encoder = self._pass = None
        self._used = 0
        self._stage = None
        self._lock = threading.RLock()

    # -- buffers ---------------------------------------------------------------------

    @_locked
    def _create_buffer(self, nbytes):
        bid = next(self._ids)
        self._buffers[bid] = self.device.create_buffer(size=nbytes, usage=self._usage)
        return bid

    @_locked
    def _destroy_buffer(self, bid):
        self._bind_groups.clear()  # some may hold it
        buf = self._buffers.pop(bid)
        if self._pass is not None:  # pending commands may use it: destroy after submit
            self._doomed.append(buf)
        else:
            buf.destroy()

    @_locked
    def _write(self, bid, values):
        self.flush()  # a recycled buffer may still be read by unsubmitted commands
        self._queue.write_buffer(self._buffers[bid], 0, values)

    @_locked
    def _read(self, bid, nbytes, out):
        self._read_buffer(self._buffers[bid], nbytes, out.view(np.uint8))

    def _read_buffer(self, buffer, nbytes, out):
        """Copies the first `nbytes` of `buffer` into uint8 array `out`: the copy into a
        mappable staging buffer rides in the submit of the pending dispatches, and the
        mapped bytes go straight into `out`. wgpu-py's `queue.read_buffer` makes a
        staging buffer per read, submits once more and copies the bytes twice: on an
        H100, 1.20 ms against 0.73 ms to read 4 MB (scripts/torch_reference.py's cases
        read results back so)."""
        stage = self._stage
        if stage is None or stage.size < nbytes:
            if stage is not None:
                stage.destroy()
            usage = self._wgpu.BufferUsage.MAP_READ | self._wgpu.BufferUsage.COPY_DST
            size = max(256, 1 << (nbytes - 1).bit_length())
            stage = self.device.create_buffer(size=size, usage=usage)
            # kept for the next read unless large: memory held for a one-off read
            self._stage = stage if size <= self.STAGE_KEEP_BYTES else None
        self.flush((buffer, stage, nbytes))
        stage.map_async("READ", 0, nbytes).sync_wait()
        try:
            out[:] = np.frombuffer(stage.read_mapped(0, nbytes, copy=False), np.uint8)
        finally:
            stage.unmap()
            if stage is not self._stage:
                stage.destroy()

    # -- programs and launches -----------------------------------------------------------

    def _layout(self, n_in, n_out):
        key = (n_in, n_out)
        if key not in self._layouts:
            wgpu = self._wgpu
            kinds = ([wgpu.BufferBindingType.read_only_storage] * n_in
                     + [wgpu.BufferBindingType.storage] * n_out)
            entries = [{"binding": k, "visibility": wgpu.ShaderStage.COMPUTE,
                        "buffer": {"type": kind}} for k, kind in enumerate(kinds)]
            entries.append({"binding": n_in + n_out, "visibility": wgpu.ShaderStage.COMPUTE,
                            "buffer": {"type": wgpu.BufferBindingType.read_only_storage,
                                       "has_dynamic_offset": True,
                                       "min_binding_size": SLOT_BYTES}})
            group = self.device.create_bind_group_layout(entries=entries)
            layout = self.device.create_pipeline_layout(bind_group_layouts=[group])
            self._layouts[key] = (group, layout)
        return self._layouts[key]

    def _compile(self, program):
        group, layout = self._layout(program.n_in, program.n_out)
        try:
            module = self.device.create_shader_module(code=program.source)
            pipeline = self.device.create_compute_pipeline(
                layout=layout, compute={"module": module, "entry_point": "main"})
        except Exception as e:
            raise BackendError(f"wgpu: compiling WGSL program {program.key!r} failed: "
                               f"{e}") from None
        return pipeline, group

    def _plan(self, pipeline, step):
        program = step.program
        n_buf = program.n_in + program.n_out
        meta = np.array(step.meta, np.int32)
        slots = tuple((slot, is_float) for _, slot, is_float in step.scalars)
        return (pipeline[0], pipeline[1], meta, slots, step.groups, n_buf, len(meta))

    @_locked
    def _launch(self, plan, *args):
        pipeline, group, meta, slots, groups, n_buf, n_meta = plan
        if self._pass is None:
            self._encoder = self.device.create_command_encoder()
            self._pass = self._encoder.begin_compute_pass()
        slot = self._used
        self._used += 1
        base = slot * META_INTS
        self._arena_i32[base:base + n_meta] = meta
        for (k, is_float), v in zip(slots, args[n_buf:]):
            if is_float:
                self._arena_f32[base + k] = v
            else:
                self._arena_i32[base + k] = v
        ids = args[:n_buf]
        key = (group, ids)
        bind_group = self._bind_groups.get(key)
        if bind_group is None:
            if len(self._bind_groups) > 4096:
                self._bind_groups.clear()
            entries = [{"binding": k, "resource": {"buffer": self._buffers[b]}}
                       for k, b in enumerate(ids)]
            entries.append({"binding": n_buf, "resource": {
                "buffer": self._arena, "offset": 0, "size": SLOT_BYTES}})
            bind_group = self._bind_groups[key] = self.device.create_bind_group(
                layout=group, entries=entries)
        p = self._pass
        p.set_pipeline(pipeline)
        p.set_bind_group(0, bind_group, [slot * SLOT_BYTES])
        p.dispatch_workgroups(*groups)
        if self._used >= self.FLUSH_EVERY:
            self.flush()

    @_locked
    def flush(self, copy=None):
        """Submits the recorded dispatches (with their parameters), then `copy` (source,
        destination, bytes) in the same submit."""
        if copy is not None:
            if self._pass is None:
                self._encoder = self.device.create_command_encoder()
            else:
                self._pass.end()
                self._pass = None
            self._encoder.copy_buffer_to_buffer(copy[0], 0, copy[1], 0, copy[2])
        elif self._pass is None:
            return
        else:
            self._pass.end()
        if self._used:
            self._queue.write_buffer(self._arena, 0, self._arena_i32[:self._used * META_INTS])
        self._queue.submit([self._encoder.finish()])
        self._encoder = self._pass = None
        self._used = 0
        for buf in self._doomed:
            buf.destroy()
        self._doomed.clear()

    @_locked
    def sync(self):
        self.flush()
        # Mapping a buffer waits for the queue (wgpu-py 0.32's
        # on_submitted_work_done_sync fails with a cffi signature error).
        self._read_buffer(self._arena, 4, np.empty(4, np.uint8))
