// texflow's WebGPU executor: buffers, pipelines, bind groups, dispatches, readback.
// Python (texflow.backends.webgpu) decides what runs; this file only executes it.
// Loaded as a classic script on a page or in a Worker; exposes globalThis.texflowWebGPU.
(function () {
  "use strict";
  const SLOT_INTS = 64;            // launch parameters per dispatch: 256 bytes, the alignment
                                   // of dynamic offsets
  const SLOT_BYTES = 4 * SLOT_INTS;
  const ARENA_SLOTS = 256;         // parameter slots per submit (flushEvery is at most this)
  // Dispatches per submit. Measured on SwiftShader with a chain of 1000 one-element
  // adds: 8 per submit ~65 us/op, 16 ~47, 32-64 ~20-40, 128-256 ~30-50 (noisy machine).
  const FLUSH_EVERY = 64;
  const STAGING_KEEP = 4;          // readback buffers kept for reuse
  const GROUP_CACHE = 4096;        // cached bind groups
  const PROGRAM_GROUPS = 4;        // bind groups kept per dispatch of a launch program

  class Executor {
    constructor(device) {
      this.device = device;
      this.queue = device.queue;
      this.buffers = [null];       // id -> GPUBuffer (id 0 unused)
      this.freeIds = [];
      this.layouts = new Map();    // "nIn,nOut" -> {group, pipeline}
      this.pipelines = [];
      this.plans = [];
      this.groups = new Map();     // "layout:ids" -> GPUBindGroup
      this.groupKeys = [];         // buffer id -> keys of cached groups using it
      this.errors = [];
      this.programs = [null];      // launch programs by id (id 0 unused)
      this.groupsMade = 0;         // bind groups made (stats)
      this.submits = 0;            // queue submits (stats)
      this.freeProgramIds = [];
      this.arenaI32 = new Int32Array(ARENA_SLOTS * SLOT_INTS);
      this.arenaF32 = new Float32Array(this.arenaI32.buffer);
      this.arena = device.createBuffer({
        size: this.arenaI32.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      this.offsets = new Uint32Array(ARENA_SLOTS);
      for (let k = 0; k < ARENA_SLOTS; k++) this.offsets[k] = k * SLOT_BYTES;
      this.encoder = null;
      this.pass = null;
      this.lastPipeline = null;
      this.used = 0;
      this.flushEvery = FLUSH_EVERY;
      this.doomed = [];
      this.staging = [];
      this.flushQueued = false;
      this.usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
      device.addEventListener("uncapturederror", (e) => this.errors.push(e.error.message));
    }

    // -- buffers -----------------------------------------------------------------------

    createBuffer(nbytes) {
      const buf = this.device.createBuffer({ size: nbytes, usage: this.usage });
      const id = this.freeIds.length ? this.freeIds.pop() : this.buffers.length;
      this.buffers[id] = buf;
      return id;
    }

    destroyBuffer(id) {
      const keys = this.groupKeys[id];
      if (keys) {
        for (const key of keys) this.groups.delete(key);
        this.groupKeys[id] = undefined;
      }
      const buf = this.buffers[id];
      this.buffers[id] = null;
      this.freeIds.push(id);
      // Unsubmitted commands may still use it: destroy it after their submit.
      if (this.pass) this.doomed.push(buf); else buf.destroy();
    }

    // Copies a numpy array (a PyProxy) into buffer `id` without an intermediate copy.
    write(id, array) {
      this.flush();  // a recycled buffer may still be read by unsubmitted commands
      const view = array.getBuffer();
      try {
        this.queue.writeBuffer(this.buffers[id], 0, view.data);
      } finally {
        view.release();
      }
    }

    // Resolves once `nbytes` of buffer `id` are copied into numpy array `target` (a PyProxy).
    async read(id, nbytes, target) {
      const staging = this.takeStaging(nbytes);
      if (this.pass) {
        this.pass.end();
        this.pass = null;
      } else {
        this.encoder = this.device.createCommandEncoder();
      }
      this.encoder.copyBufferToBuffer(this.buffers[id], 0, staging, 0, nbytes);
      this.submit();
      try {
        await staging.mapAsync(GPUMapMode.READ, 0, nbytes);
      } catch (e) {
        staging.destroy();
        this.throwErrors();
        throw e;
      }
      try {
        this.throwErrors();
        // Take the view only now: the wasm heap may have grown while we waited.
        const view = target.getBuffer("u8");
        try {
          view.data.set(new Uint8Array(staging.getMappedRange(0, nbytes)));
        } finally {
          view.release();
        }
      } finally {
        staging.unmap();
        this.returnStaging(staging);
      }
    }

    takeStaging(nbytes) {
      const k = this.staging.findIndex((b) => b.size >= nbytes && b.size <= 2 * nbytes);
      if (k >= 0) return this.staging.splice(k, 1)[0];
      return this.device.createBuffer({
        size: nbytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    }

    returnStaging(buf) {
      this.staging.push(buf);
      if (this.staging.length > STAGING_KEEP) this.staging.shift().destroy();
    }

    // -- programs ------------------------------------------------------------------------

    layout(nIn, nOut) {
      const key = nIn + "," + nOut;
      let layout = this.layouts.get(key);
      if (!layout) {
        const entries = [];
        for (let k = 0; k < nIn + nOut; k++) {
          entries.push({ binding: k, visibility: GPUShaderStage.COMPUTE,
                         buffer: { type: k < nIn ? "read-only-storage" : "storage" } });
        }
        entries.push({ binding: nIn + nOut, visibility: GPUShaderStage.COMPUTE,
                       buffer: { type: "read-only-storage", hasDynamicOffset: true,
                                 minBindingSize: SLOT_BYTES } });
        const group = this.device.createBindGroupLayout({ entries });
        const pipeline = this.device.createPipelineLayout({ bindGroupLayouts: [group] });
        layout = { group, pipeline, id: this.layouts.size };
        this.layouts.set(key, layout);
      }
      return layout;
    }

    // Compiles WGSL `source`; returns a pipeline id. Errors surface at the next read.
    compile(source, nIn, nOut, name) {
      const layout = this.layout(nIn, nOut);
      const module = this.device.createShaderModule({ code: source, label: name });
      module.getCompilationInfo().then((info) => {
        for (const m of info.messages) {
          if (m.type === "error") {
            this.errors.push(`WGSL program ${name}: line ${m.lineNum}: ${m.message}`);
          }
        }
      });
      const pipeline = this.device.createComputePipeline({
        layout: layout.pipeline, compute: { module, entryPoint: "main" }, label: name });
      this.pipelines.push({
        pipeline, group: layout.group, groupId: layout.id, nBuf: nIn + nOut });
      return this.pipelines.length - 1;
    }

    // Registers a launch plan: pipeline, its fixed parameters, scalar slots and grid.
    plan(pipelineId, meta, scalarSlots, scalarIsFloat, gx, gy, gz) {
      const p = this.pipelines[pipelineId];
      this.plans.push({
        pipeline: p.pipeline, group: p.group, groupId: p.groupId, nBuf: p.nBuf,
        meta: Int32Array.from(meta),
        slots: Int32Array.from(scalarSlots), isFloat: Uint8Array.from(scalarIsFloat),
        gx, gy, gz,
      });
      return this.plans.length - 1;
    }

    dropPlans() {
      this.flush();
      this.plans = [];
    }

    // -- launches ------------------------------------------------------------------------

    begin() {
      if (!this.pass) {
        this.encoder = this.device.createCommandEncoder();
        this.pass = this.encoder.beginComputePass();
        this.lastPipeline = null;
        if (!this.flushQueued) {  // submit once Python yields to the event loop
          this.flushQueued = true;
          queueMicrotask(() => { this.flushQueued = false; this.flush(); });
        }
      }
    }

    // One dispatch of plan `p`: buffer ids in binding order, then scalar operands.
    launch(p, a, b, c, d, e, f) {
      const plan = this.plans[p];
      if (plan.nBuf > 4) return this.launchWide(plan, Array.prototype.slice.call(arguments, 1));
      if (!this.pass) this.begin();
      const slot = this.used++;
      const base = slot * SLOT_INTS;
      this.arenaI32.set(plan.meta, base);
      const nBuf = plan.nBuf;
      const slots = plan.slots;
      if (slots.length) {
        const args = [a, b, c, d, e, f];
        for (let k = 0; k < slots.length; k++) {
          const v = args[nBuf + k];
          if (plan.isFloat[k]) this.arenaF32[base + slots[k]] = v;
          else this.arenaI32[base + slots[k]] = v;
        }
      }
      const group = nBuf === 2 ? this.bindGroup(plan, a, b, -1, -1)
        : nBuf === 3 ? this.bindGroup(plan, a, b, c, -1) : this.bindGroup(plan, a, b, c, d);
      const pass = this.pass;
      if (plan.pipeline !== this.lastPipeline) {  // chains often repeat an op
        pass.setPipeline(plan.pipeline);
        this.lastPipeline = plan.pipeline;
      }
      pass.setBindGroup(0, group, this.offsets, slot, 1);
      pass.dispatchWorkgroups(plan.gx, plan.gy, plan.gz);
      if (this.used >= this.flushEvery || this.used === ARENA_SLOTS) this.flush();
    }

    // A replayed tf.function step in one call: int32 words (a PyProxy of a Python
    // array, read in place from wasm memory, or an Int32Array). Per eager launch: plan
    // id, argument count, the arguments (buffer ids, then scalars; a float scalar as
    // its float32 bits). Records with a negative head: -1 program id, start, end: run
    // dispatches [start, end) of a launch program, then submit; -2 program id, count,
    // count pairs (register, buffer id): set a program's registers; -3 buffer id,
    // size, size words: write a small host value.
    launchList(list) {
      if (list.getBuffer) {
        const view = list.getBuffer("i32");
        try {
          this.runList(view.data);
        } finally {
          view.release();
        }
      } else {
        this.runList(list);
      }
    }

    runList(list) {
      const f32 = new Float32Array(list.buffer, list.byteOffset, list.length);
      let i = 0;
      while (i < list.length) {
        const p = list[i];
        if (p === -1) {
          this.runProgram(this.programs[list[i + 1]], list[i + 2], list[i + 3]);
          i += 4;
          continue;
        } else if (p === -2) {
          const regs = this.programs[list[i + 1]].regs, n = list[i + 2];
          for (let k = i + 3; k < i + 3 + 2 * n; k += 2) regs[list[k]] = list[k + 1];
          i += 3 + 2 * n;
          continue;
        } else if (p === -3) {
          const size = list[i + 2];
          this.flush();  // the buffer may be recycled: unsubmitted commands may read it
          this.queue.writeBuffer(this.buffers[list[i + 1]], 0, list.buffer,
                                 list.byteOffset + 4 * (i + 3), 4 * size);
          i += 3 + size;
          continue;
        }
        const n = list[i + 1], at = i + 2;
        const plan = this.plans[p];
        const args = Array.prototype.slice.call(list, at, at + n);
        for (let k = 0; k < plan.slots.length; k++) {
          if (plan.isFloat[k]) args[plan.nBuf + k] = f32[at + plan.nBuf + k];
        }
        if (plan.nBuf > 4) this.launchWide(plan, args);
        else this.launch(p, args[0], args[1], args[2], args[3], args[4], args[5]);
        i = at + n;
      }
    }

    // -- launch programs: a replayed step's dispatches, made once (autodiff/replay.py) --

    // `words`, per dispatch: plan id, buffer count n, n register numbers (binding order),
    // scalar count m, m scalar words. Every dispatch's parameters (the plan's, with the
    // scalars written in) go into one buffer of the program's, once; bind groups are
    // made at a dispatch's first run and kept while its registers name the same buffers.
    addProgram(words, numRegisters) {
      const dispatches = [];
      const data = [];
      let i = 0;
      while (i < words.length) {
        const plan = this.plans[words[i]], n = words[i + 1];
        const regs = Int32Array.from(words.subarray(i + 2, i + 2 + n));
        const m = words[i + 2 + n];
        const params = new Int32Array(SLOT_INTS);
        params.set(plan.meta);
        // a float scalar's word is its float32 bits: stored as they are
        for (let k = 0; k < m; k++) params[plan.slots[k]] = words[i + 3 + n + k];
        data.push(params);
        dispatches.push({ pipeline: plan.pipeline, layout: plan.group, regs,
                          gx: plan.gx, gy: plan.gy, gz: plan.gz, cache: [] });
        i += 3 + n + m;
      }
      const count = Math.max(1, dispatches.length);
      const params = this.device.createBuffer({
        size: count * SLOT_BYTES, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      const all = new Int32Array(count * SLOT_INTS);
      data.forEach((p, k) => all.set(p, k * SLOT_INTS));
      this.queue.writeBuffer(params, 0, all);
      const offsets = new Uint32Array(count);
      for (let k = 0; k < count; k++) offsets[k] = k * SLOT_BYTES;
      const program = { dispatches, params, offsets, regs: new Int32Array(numRegisters) };
      const id = this.freeProgramIds.length ? this.freeProgramIds.pop() : this.programs.length;
      this.programs[id] = program;
      return id;
    }

    deleteProgram(id) {
      const program = this.programs[id];
      this.programs[id] = null;
      this.freeProgramIds.push(id);
      if (this.pass) this.doomed.push(program.params); else program.params.destroy();
    }

    // Dispatches [start, end) of `program` into the open pass (none is begun while one is
    // open): one submit for the segment, made as for eager launches when Python yields to
    // the event loop, reads, or writes a buffer (a host value between segments).
    runProgram(program, start, end) {
      if (!this.pass) this.begin();
      const pass = this.pass, regs = program.regs, buffers = this.buffers;
      for (let d = start; d < end; d++) {
        const x = program.dispatches[d];
        const group = this.programGroup(program, x, regs, buffers);
        if (x.pipeline !== this.lastPipeline) {
          pass.setPipeline(x.pipeline);
          this.lastPipeline = x.pipeline;
        }
        pass.setBindGroup(0, group, program.offsets, d, 1);
        pass.dispatchWorkgroups(x.gx, x.gy, x.gz);
      }
    }

    // The bind group of dispatch `x` for the buffers its registers name now: one of the
    // last few made for it (Variables alternate between buffers from step to step),
    // compared by buffer object, so a destroyed buffer whose id was reused never matches.
    programGroup(program, x, regs, buffers) {
      const r = x.regs, cache = x.cache;
      for (let c = cache.length - 1; c >= 0; c--) {
        const bufs = cache[c].bufs;
        let same = true;
        for (let k = 0; k < r.length; k++) {
          if (buffers[regs[r[k]]] !== bufs[k]) { same = false; break; }
        }
        if (same) return cache[c].group;
      }
      const bufs = [], entries = [];
      for (let k = 0; k < r.length; k++) {
        bufs.push(buffers[regs[r[k]]]);
        entries.push({ binding: k, resource: { buffer: bufs[k] } });
      }
      entries.push({ binding: r.length, resource: { buffer: program.params, size: SLOT_BYTES } });
      const group = this.device.createBindGroup({ layout: x.layout, entries });
      this.groupsMade++;
      if (cache.length >= PROGRAM_GROUPS) cache.shift();
      cache.push({ bufs, group });
      return group;
    }

    stats() {
      return JSON.stringify({ launchPrograms: this.programs.filter((p) => p).length,
                              buffers: this.buffers.filter((b) => b).length,
                              groupsMade: this.groupsMade, submits: this.submits });
    }

    // A launch binding more than four buffers (fused elementwise kernels): buffer ids,
    // then scalars, in one array.
    launchWide(plan, args) {
      if (!this.pass) this.begin();
      const slot = this.used++;
      const base = slot * SLOT_INTS;
      this.arenaI32.set(plan.meta, base);
      const nBuf = plan.nBuf;
      for (let k = 0; k < plan.slots.length; k++) {
        const v = args[nBuf + k];
        if (plan.isFloat[k]) this.arenaF32[base + plan.slots[k]] = v;
        else this.arenaI32[base + plan.slots[k]] = v;
      }
      const ids = args.slice(0, nBuf);
      const group = this.groupFor(plan, ids, plan.groupId + ":" + ids.join(","));
      this.pass.setPipeline(plan.pipeline);
      this.lastPipeline = plan.pipeline;
      this.pass.setBindGroup(0, group, this.offsets, slot, 1);
      this.pass.dispatchWorkgroups(plan.gx, plan.gy, plan.gz);
      if (this.used >= this.flushEvery || this.used === ARENA_SLOTS) this.flush();
    }

    // Bind groups are cached by layout and buffer ids (training loops reuse pooled
    // buffers, so the same combinations recur), and dropped with their buffers.
    bindGroup(plan, a, b, c, d) {
      const key = plan.groupId + ":" + a + "," + b + "," + c + "," + d;
      const ids = d >= 0 ? [a, b, c, d] : c >= 0 ? [a, b, c] : [a, b];
      return this.groupFor(plan, ids, key);
    }

    groupFor(plan, ids, key) {
      let group = this.groups.get(key);
      if (group) return group;
      if (this.groups.size >= GROUP_CACHE) this.clearGroups();
      const entries = [];
      for (let k = 0; k < ids.length; k++) {
        entries.push({ binding: k, resource: { buffer: this.buffers[ids[k]] } });
        (this.groupKeys[ids[k]] || (this.groupKeys[ids[k]] = [])).push(key);
      }
      entries.push({ binding: ids.length, resource: { buffer: this.arena, size: SLOT_BYTES } });
      group = this.device.createBindGroup({ layout: plan.group, entries });
      this.groupsMade++;
      this.groups.set(key, group);
      return group;
    }

    clearGroups() {
      this.groups.clear();
      this.groupKeys = [];
    }

    submit() {
      if (this.used) {
        this.queue.writeBuffer(this.arena, 0, this.arenaI32.buffer, 0, this.used * SLOT_BYTES);
      }
      this.queue.submit([this.encoder.finish()]);
      this.submits++;
      this.encoder = null;
      this.used = 0;
      for (const buf of this.doomed) buf.destroy();
      this.doomed = [];
    }

    // Submits the recorded dispatches (their parameters are written just before).
    flush() {
      if (!this.pass) return;
      this.pass.end();
      this.pass = null;
      this.submit();
    }

    // Resolves when all submitted work is done (benchmarks).
    async sync() {
      this.flush();
      await this.queue.onSubmittedWorkDone();
      this.throwErrors();
    }

    throwErrors() {
      if (this.errors.length) {
        const text = this.errors.join("\n");
        this.errors = [];
        throw new Error("texflow WebGPU: " + text);
      }
    }
  }

  globalThis.texflowWebGPU = { Executor };
})();
