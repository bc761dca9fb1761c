// texflow's WebGL2 executor. Python (texflow.backends.webgl) decides everything: texture
// sizes, shader sources, uniform values. This file owns the GL objects, keyed by small
// integer ids, and runs one launch per call. Works on a page and in a Worker.
(function () {
  "use strict";
  let gl = null;
  let error = null;
  let vertexShader = null;
  const textures = [null];   // id -> {tex, fbo, w, h, isInt}; id 0 is never used
  const programs = [null];   // id -> {program, lastPlan}
  const plans = [null];      // id -> {prog, w, rows, inputs, outputs, uniforms, scalars}
  const freeTextureIds = [];
  const freePlanIds = [];
  const units = [];          // texture object bound to each unit (skips redundant binds)
  let current = { program: null, fbo: null, w: -1, rows: -1 };
  let lastTarget = null;     // the texture entry last rendered to (sync reads a texel of it)

  const VERTEX = "#version 300 es\n" +
    "void main() {\n" +
    "  // one triangle covering the viewport: (-1,-1), (3,-1), (-1,3)\n" +
    "  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n" +
    "  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n" +
    "}\n";

  function init() {
    if (gl) return null;
    if (error) return error;
    try {
      const attrs = { alpha: false, antialias: false, depth: false, stencil: false,
                      premultipliedAlpha: false, preserveDrawingBuffer: false,
                      powerPreference: "high-performance" };
      let canvas = null;
      if (typeof OffscreenCanvas !== "undefined") canvas = new OffscreenCanvas(1, 1);
      else if (typeof document !== "undefined") canvas = document.createElement("canvas");
      if (!canvas) return (error = "neither OffscreenCanvas nor document is available");
      gl = canvas.getContext("webgl2", attrs);
      if (!gl) return (error = "this browser could not create a WebGL2 context");
      if (!gl.getExtension("EXT_color_buffer_float")) {
        gl = null;
        return (error = "WebGL2 lacks EXT_color_buffer_float (float32 render targets)");
      }
      gl.disable(gl.DITHER);
      vertexShader = gl.createShader(gl.VERTEX_SHADER);
      gl.shaderSource(vertexShader, VERTEX);
      gl.compileShader(vertexShader);
      gl.bindVertexArray(gl.createVertexArray());
      canvas.addEventListener && canvas.addEventListener("webglcontextlost", (e) => {
        e.preventDefault();
        error = "the WebGL2 context was lost";
      });
    } catch (e) {
      gl = null;
      return (error = "WebGL2 initialisation failed: " + e);
    }
    return null;
  }

  function info() {
    const d = gl.getExtension("WEBGL_debug_renderer_info");
    const renderer = gl.getParameter(d ? d.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
    const drawBuffers = Math.min(gl.getParameter(gl.MAX_DRAW_BUFFERS),
                                 gl.getParameter(gl.MAX_COLOR_ATTACHMENTS));
    return JSON.stringify({ renderer: renderer,
                            maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE),
                            maxTextureUnits: gl.getParameter(gl.MAX_TEXTURE_IMAGE_UNITS),
                            maxDrawBuffers: drawBuffers });
  }

  // A texture of w x h texels; with `layers` (> 1) a texture array of that many layers,
  // a kernel's several render targets, read as one sampler2DArray.
  function createTexture(w, h, isInt, layers) {
    layers = layers > 1 ? layers : 0;
    const target = layers ? gl.TEXTURE_2D_ARRAY : gl.TEXTURE_2D;
    const tex = gl.createTexture();
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(target, tex);
    units[0] = tex;
    // Integer textures are incomplete (they read as 0) unless filtering is NEAREST.
    gl.texParameteri(target, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(target, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(target, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(target, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    if (layers) gl.texStorage3D(target, 1, isInt ? gl.RGBA32I : gl.RGBA32F, w, h, layers);
    else gl.texStorage2D(target, 1, isInt ? gl.RGBA32I : gl.RGBA32F, w, h);
    const entry = { tex: tex, fbo: null, w: w, h: h, isInt: isInt, layers: layers };
    const id = freeTextureIds.length ? freeTextureIds.pop() : textures.length;
    textures[id] = entry;
    return id;
  }

  function deleteTexture(id) {
    const entry = textures[id];
    for (let i = 0; i < units.length; i++) if (units[i] === entry.tex) units[i] = null;
    if (entry.fbo) {
      if (current.fbo === entry.fbo) current.fbo = null;
      gl.deleteFramebuffer(entry.fbo);
    }
    gl.deleteTexture(entry.tex);
    if (lastTarget === entry) lastTarget = null;
    textures[id] = null;
    freeTextureIds.push(id);
  }

  function bindTarget(entry) {
    lastTarget = entry;
    if (!entry.fbo) {
      entry.fbo = gl.createFramebuffer();
      gl.bindFramebuffer(gl.FRAMEBUFFER, entry.fbo);
      if (entry.layers) {  // layer 0 (a sync reads it)
        gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, entry.tex, 0, 0);
      } else {
        gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D,
                                entry.tex, 0);
      }
    } else if (current.fbo !== entry.fbo) {
      gl.bindFramebuffer(gl.FRAMEBUFFER, entry.fbo);
    }
    current.fbo = entry.fbo;
  }

  // Copies `size` flat elements from numpy array `array` (a PyProxy) into texture `id`
  // of width `w` texels, straight from wasm memory. Only a last partial texel is copied.
  function upload(id, w, size, array) {
    const buffer = array.getBuffer();
    try {
      uploadData(textures[id], size, buffer.data);
    } finally {
      buffer.release();
    }
  }

  function uploadData(entry, size, data) {
    const format = entry.isInt ? gl.RGBA_INTEGER : gl.RGBA;
    const type = entry.isInt ? gl.INT : gl.FLOAT;
    const w = entry.w;
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, entry.tex);
    units[0] = entry.tex;
    const perRow = 4 * w;
    const fullRows = Math.floor(size / perRow);
    if (fullRows > 0) {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, w, fullRows, format, type, data, 0);
    }
    const rest = size - fullRows * perRow;
    if (rest > 0) {
      const texels = Math.ceil(rest / 4);
      let tail = data;
      let offset = fullRows * perRow;
      if (rest % 4 || data.length < offset + texels * 4) {
        tail = new data.constructor(texels * 4);
        tail.set(data.subarray(offset, size));
        offset = 0;
      }
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, fullRows, texels, 1, format, type, tail, offset);
    }
  }

  // Reads `rows` full texel rows of texture `id` into numpy array `array` (a PyProxy).
  function download(id, rows, array) {
    const entry = textures[id];
    bindTarget(entry);
    const buffer = array.getBuffer();
    try {
      gl.readPixels(0, 0, entry.w, rows, entry.isInt ? gl.RGBA_INTEGER : gl.RGBA,
                    entry.isInt ? gl.INT : gl.FLOAT, buffer.data, 0);
    } finally {
      buffer.release();
    }
  }

  // Compiles a fragment shader whose samplers are uT0, uT1, ...; returns a program id.
  function compile(source, numInputs) {
    const shader = gl.createShader(gl.FRAGMENT_SHADER);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) {
      const log = gl.getShaderInfoLog(shader);
      gl.deleteShader(shader);
      throw new Error("texflow WebGL: fragment shader did not compile: " + log);
    }
    const program = gl.createProgram();
    gl.attachShader(program, vertexShader);
    gl.attachShader(program, shader);
    gl.linkProgram(program);
    gl.deleteShader(shader);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
      const log = gl.getProgramInfoLog(program);
      gl.deleteProgram(program);
      throw new Error("texflow WebGL: program did not link: " + log);
    }
    gl.useProgram(program);
    current.program = program;
    for (let i = 0; i < numInputs; i++) {
      const loc = gl.getUniformLocation(program, "uT" + i);
      if (loc) gl.uniform1i(loc, i);
    }
    programs.push({ program: program, lastPlan: null });
    return programs.length - 1;
  }

  // A launch plan: program, output extent in texels, and uniform values fixed for one
  // shape signature. `uniforms` is JSON [[name, "i"|"f", [values...]], ...]; `scalars`
  // JSON [[name, "i"|"f"], ...] names the uniforms set from launch arguments s0, s1.
  function addPlan(programId, w, rows, numInputs, numOutputs, uniforms, scalars) {
    const prog = programs[programId];
    const setters = [];
    for (const [name, kind, values] of JSON.parse(uniforms)) {
      const loc = gl.getUniformLocation(prog.program, name);
      if (!loc) continue;  // optimised away
      const data = kind === "i" ? new Int32Array(values) : new Float32Array(values);
      setters.push([loc, kind, data]);
    }
    const scalarLocs = JSON.parse(scalars).map(
      ([name, kind]) => [gl.getUniformLocation(prog.program, name), kind]);
    const plan = { prog: prog, w: w, rows: rows, inputs: numInputs, outputs: numOutputs,
                   uniforms: setters, scalars: scalarLocs };
    const id = freePlanIds.length ? freePlanIds.pop() : plans.length;
    plans[id] = plan;
    return id;
  }

  function deletePlan(id) {
    const plan = plans[id];
    if (plan.prog.lastPlan === plan) plan.prog.lastPlan = null;
    plans[id] = null;
    freePlanIds.push(id);
  }

  function setScalar(entry, value) {
    if (!entry[0]) return;
    if (entry[1] === "i") gl.uniform1i(entry[0], value);
    else gl.uniform1f(entry[0], value);
  }

  function usePlan(plan, s0, s1) {
    const prog = plan.prog;
    if (current.program !== prog.program) {
      gl.useProgram(prog.program);
      current.program = prog.program;
    }
    if (prog.lastPlan !== plan) {
      for (const [loc, kind, data] of plan.uniforms) {
        if (kind === "i") gl.uniform1iv(loc, data);
        else gl.uniform1fv(loc, data);
      }
      prog.lastPlan = plan;
    }
    if (plan.scalars.length) {
      setScalar(plan.scalars[0], s0);
      if (plan.scalars.length > 1) setScalar(plan.scalars[1], s1);
    }
  }

  function draw(plan) {
    if (current.w !== plan.w || current.rows !== plan.rows) {
      gl.viewport(0, 0, plan.w, plan.rows);
      current.w = plan.w;
      current.rows = plan.rows;
    }
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  // One kernel launch: plan `planId` renders into texture `out` from textures t0..t2
  // (as many as the plan has inputs) with scalar uniforms s0, s1.
  function launch(planId, out, t0, t1, t2, s0, s1) {
    const plan = plans[planId];
    usePlan(plan, s0, s1);
    const n = plan.inputs;
    if (n > 0) bindUnit(0, t0);
    if (n > 1) bindUnit(1, t1);
    if (n > 2) bindUnit(2, t2);
    bindTarget(textures[out]);
    draw(plan);
  }

  // A replayed tf.function step's launches in one call. Per launch, int32 words: plan
  // id, output count n, input count m, n output and m input texture ids, two scalars (a
  // float scalar as its bits: the plan's scalar kinds say how to read them). Records
  // with a negative head: -1 program id, start, end: run launches [start, end) of a
  // program (its texture ids are register numbers); -2 program id, count, count pairs
  // (register, texture id): set a program's registers; -3 texture id, size, size words:
  // upload a small host value.
  function launchList(words) {
    if (words.getBuffer) {  // a Python int32 array.array: read in place from wasm memory
      const buffer = words.getBuffer("i32");
      try {
        runList(buffer.data);
      } finally {
        buffer.release();
      }
    } else {
      runList(words);
    }
  }

  function runList(words) {
    const f32 = new Float32Array(words.buffer, words.byteOffset, words.length);
    let i = 0;
    while (i < words.length) {
      const head = words[i];
      if (head === -1) {
        runProgram(launchPrograms[words[i + 1]], words[i + 2], words[i + 3]);
        i += 4;
      } else if (head === -2) {
        const regs = launchPrograms[words[i + 1]].regs, n = words[i + 2];
        for (let k = i + 3; k < i + 3 + 2 * n; k += 2) regs[words[k]] = words[k + 1];
        i += 3 + 2 * n;
      } else if (head === -3) {
        const entry = textures[words[i + 1]], size = words[i + 2];
        uploadData(entry, size, (entry.isInt ? words : f32).subarray(i + 3, i + 3 + size));
        i += 3 + size;
      } else {
        i = launchRecord(words, f32, i, null);
      }
    }
  }

  // One launch record at words[i] (texture ids through `regs` when given); returns the
  // index after it.
  function launchRecord(words, f32, i, regs) {
    const plan = plans[words[i]], n = words[i + 1], m = words[i + 2];
    const at = i + 3 + n + m, sc = plan.scalars;
    const s0 = sc.length > 0 && sc[0][1] === "f" ? f32[at] : words[at];
    const s1 = sc.length > 1 && sc[1][1] === "f" ? f32[at + 1] : words[at + 1];
    if (n === 1 && m <= 3 && plan.outputs === 1) {
      const id = (k) => (regs ? regs[words[k]] : words[k]);
      launch(words[i], id(i + 3), m > 0 ? id(i + 4) : 0, m > 1 ? id(i + 5) : 0,
             m > 2 ? id(i + 6) : 0, s0, s1);
    } else {
      let outs = words.subarray(i + 3, i + 3 + n), ins = words.subarray(i + 3 + n, at);
      if (regs) {
        outs = Array.from(outs, (r) => regs[r]);
        ins = Array.from(ins, (r) => regs[r]);
      }
      launchIds(words[i], outs, ins, s0, s1);
    }
    return at + 2;
  }

  // Launch programs: a replayed step's launch records kept here once, over registers
  // that each replay sets to texture ids (autodiff/replay.py).
  const launchPrograms = [null];
  const freeProgramIds = [];
  function addProgram(words, numRegisters) {
    const copy = Int32Array.from(words);
    const entry = { words: copy, f32: new Float32Array(copy.buffer),
                    regs: new Int32Array(numRegisters) };
    const id = freeProgramIds.length ? freeProgramIds.pop() : launchPrograms.length;
    launchPrograms[id] = entry;
    return id;
  }

  function deleteProgram(id) {
    launchPrograms[id] = null;
    freeProgramIds.push(id);
  }

  function runProgram(program, start, end) {
    const words = program.words, f32 = program.f32, regs = program.regs;
    let i = start;
    while (i < end) i = launchRecord(words, f32, i, regs);
  }

  // A launch with several outputs (multiple render targets) or more than three inputs;
  // `outs` and `ins` are comma-separated texture ids. Rare and heavy: string ids are fine.
  let mrtFbo = null;
  const drawBuffers = [];
  function launchMany(planId, outs, ins, s0, s1) {
    launchIds(planId, outs.split(",").map(Number), ins.split(",").map(Number), s0, s1);
  }

  function launchIds(planId, outIds, inIds, s0, s1) {
    const plan = plans[planId];
    usePlan(plan, s0, s1);
    for (let i = 0; i < inIds.length; i++) bindUnit(i, +inIds[i]);
    const layered = outIds.length === 1 && plan.outputs > 1;  // a texture array's layers
    if (outIds.length === 1 && !layered) {
      bindTarget(textures[+outIds[0]]);
      draw(plan);
      return;
    }
    if (!mrtFbo) mrtFbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, mrtFbo);
    current.fbo = mrtFbo;
    drawBuffers.length = 0;
    for (let i = 0; i < plan.outputs; i++) {
      if (layered) {
        gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + i,
                                   textures[+outIds[0]].tex, 0, i);
      } else {
        gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + i, gl.TEXTURE_2D,
                                textures[+outIds[i]].tex, 0);
      }
      drawBuffers.push(gl.COLOR_ATTACHMENT0 + i);
    }
    lastTarget = textures[+outIds[0]];
    gl.drawBuffers(drawBuffers);
    draw(plan);
    // detach, so deleted textures are not kept alive by this framebuffer
    for (let i = 0; i < plan.outputs; i++) {
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + i, gl.TEXTURE_2D, null, 0);
    }
  }

  function bindUnit(unit, id) {
    const entry = textures[id];
    const tex = entry.tex;
    if (units[unit] !== tex) {
      gl.activeTexture(gl.TEXTURE0 + unit);
      gl.bindTexture(entry.layers ? gl.TEXTURE_2D_ARRAY : gl.TEXTURE_2D, tex);
      units[unit] = tex;
    }
  }

  // Blocks until the GPU has finished all queued work. gl.finish() returns early in
  // Chromium, so read one texel of the last render target (a readback waits; until
  // 2026-11-24 a sync after a launch of several render targets, whose framebuffer is
  // none of a texture's, fell back to gl.finish() and did not wait).
  const syncPixel = new Int32Array(4);
  function sync() {
    const entry = lastTarget;
    if (!entry) {
      gl.finish();
      return;
    }
    bindTarget(entry);
    gl.readPixels(0, 0, 1, 1, entry.isInt ? gl.RGBA_INTEGER : gl.RGBA,
                  entry.isInt ? gl.INT : gl.FLOAT,
                  entry.isInt ? syncPixel : new Float32Array(syncPixel.buffer));
  }

  // Live object counts, for leak checks.
  function stats() {
    const live = (list) => list.reduce((n, x) => n + (x ? 1 : 0), 0);
    return JSON.stringify({ textures: live(textures), plans: live(plans),
                            programs: programs.length - 1, launchPrograms: live(launchPrograms) });
  }

  globalThis.texflowWebGL = {
    init, info, createTexture, deleteTexture, upload, download, compile, addPlan,
    deletePlan, launch, launchList, launchMany, addProgram, deleteProgram, sync, stats,
  };
})();
