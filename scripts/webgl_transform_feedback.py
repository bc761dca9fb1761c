"""The compiled 8-op chain's fused GLSL body as a fragment pass (texflow's way) against
the same body in a vertex shader whose results transform feedback captures into a
buffer, read back by getBufferSubData (by hand; raw WebGL2, one page, interleaved).

    .venv/bin/python scripts/browser_cpu_time.py scripts/webgl_transform_feedback.py \
        --backend webgl

The fused program's source is texflow's own (captured as `tf.function` compiles the
chain of bench/cases.py); the vertex variants change only how an element is found
(`gl_VertexID` instead of `gl_FragCoord`) and where it goes. Cases, 1M float32
elements (512 x 512 RGBA32F texels), each run 10 times between browser_cpu_time.py's
marks, `ROUNDS` rounds in alternating order (wall ms per call printed at the end):
- frag, frag_read: the fragment pass, then a 1-texel read (a sync) or readPixels of all;
- tf4, tf4_read: one vertex per texel (vec4 out), POINTS, RASTERIZER_DISCARD, then a
  4-byte or a whole getBufferSubData; tf1, tf1_read: one vertex per element (float out);
- read_pixels, read_buffer: reading the 1M floats alone from the texture or the buffer;
- buffer_to_texture: the captured buffer into a texture (PIXEL_UNPACK_BUFFER and
  texSubImage2D), what a later op reading the result would need;
- tf_points, tf_lines, tf_triangles: a vertex shader that writes gl_VertexID and
  fetches nothing, 262146 vertices, by primitive mode: transform feedback's own cost.
Every variant's result is checked against texflow's bit for bit first.
"""

import asyncio
import statistics
import time

import js
import numpy as np
from pyodide.ffi import to_js

import texflow as tf
from texflow.bench.cases import CHAIN
from texflow.engine import context

import webgl_raw

ROUNDS = 6
N, W = 1 << 20, 512
TRIANGLE = """#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
"""
NULL_FRAGMENT = ("#version 300 es\nprecision highp float;\nout vec4 o;\n"
                 "void main() { o = vec4(0); }\n")
INDEX_ONLY = ("#version 300 es\nout highp vec4 outValue;\n"
              "void main() { outValue = vec4(gl_VertexID); }\n")


async def fused_source():
    """(texflow's fused fragment source for the chain, texflow's result, its input)."""
    backend = context.current()
    sources, plain = {}, backend.program

    def program(key, source, num_inputs):
        if "fused" in str(key):
            sources[key] = source()
        return plain(key, source, num_inputs)
    backend.program = program

    def chain(z):
        for step in CHAIN:
            name, *arg = step.split()
            z = getattr(tf, name)(z, float(arg[0])) if arg else getattr(tf, name)(z)
        return z
    host = np.random.default_rng(0).normal(size=N).astype(np.float32) * 3
    compiled = tf.function(chain)
    for _ in range(3):  # the first call runs eagerly, the second traces
        result = await compiled(tf.constant(host)).data()
    backend.program = plain
    (source,) = sources.values()
    return source, result, host


def vertex_sources(fragment):
    """The fused body in vertex shaders: one vertex per texel (vec4) and per element."""
    common = fragment.replace("layout(location = 0) out highp vec4 outValue;",
                              "out highp vec4 outValue;")
    common = common.replace("ivec2 p = ivec2(gl_FragCoord.xy);\n  return (p.y << uOutShift) + p.x;",
                            "return gl_VertexID;")
    per_texel = common.replace("texelFetch(uT0, ivec2(gl_FragCoord.xy), 0)",
                               "texelFetch(uT0, ivec2(t & 511, t >> 9), 0)")
    assert per_texel != common, "the fused program's fetch changed: update this script"
    head = common[:common.index("void main()")].replace("out highp vec4 outValue;",
                                                         "out highp float outValue;")
    per_element = head + """void main() {
  int i = gl_VertexID;
  int t = i >> 2;
  outValue = lane(texelFetch(uT0, ivec2(t & 511, t >> 9), 0)[i & 3]);
}
"""
    return per_texel, per_element


class Gl:
    """A WebGL2 context of its own with the fused pass's textures, framebuffers and the
    transform feedback buffer."""

    def __init__(self, host):
        gl = self.gl = js.OffscreenCanvas.new(1, 1).getContext("webgl2")
        gl.getExtension("EXT_color_buffer_float")
        gl.bindVertexArray(gl.createVertexArray())
        self.source = self.texture(host)
        self.target, self.fbo = self.texture(), gl.createFramebuffer()
        self.copy, self.copy_fbo = self.texture(), gl.createFramebuffer()
        for tex, fbo in ((self.target, self.fbo), (self.copy, self.copy_fbo)):
            gl.bindFramebuffer(gl.FRAMEBUFFER, fbo)
            gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
        gl.viewport(0, 0, W, W)
        self.buffer = gl.createBuffer()
        gl.bindBuffer(gl.COPY_READ_BUFFER, self.buffer)
        gl.bufferData(gl.COPY_READ_BUFFER, (N + 8) * 4, gl.STREAM_READ)
        gl.bindBuffer(gl.COPY_READ_BUFFER, None)
        self.feedback = gl.createTransformFeedback()
        gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, self.feedback)
        gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, self.buffer)
        gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, None)
        self.out, self.pixel = js.Float32Array.new(N), js.Float32Array.new(4)

    def texture(self, data=None):
        gl = self.gl
        tex = gl.createTexture()
        gl.activeTexture(gl.TEXTURE0)
        gl.bindTexture(gl.TEXTURE_2D, tex)
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
        gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, W, W)
        if data is not None:
            gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, W, W, gl.RGBA, gl.FLOAT, to_js(data))
        return tex

    def program(self, vertex, fragment, captured=None):
        return webgl_raw.link(self.gl, vertex, fragment, captured)

    def draw(self, prog):
        gl = self.gl
        gl.useProgram(prog)
        gl.bindFramebuffer(gl.FRAMEBUFFER, self.fbo)
        gl.activeTexture(gl.TEXTURE0)
        gl.bindTexture(gl.TEXTURE_2D, self.source)
        gl.drawArrays(gl.TRIANGLES, 0, 3)

    def capture(self, prog, mode, count):
        gl = self.gl
        gl.useProgram(prog)
        gl.activeTexture(gl.TEXTURE0)
        gl.bindTexture(gl.TEXTURE_2D, self.source)
        gl.enable(gl.RASTERIZER_DISCARD)
        gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, self.feedback)
        gl.beginTransformFeedback(mode)
        gl.drawArrays(mode, 0, count)
        gl.endTransformFeedback()
        gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, None)
        gl.disable(gl.RASTERIZER_DISCARD)

    def read_pixels(self, fbo=None, whole=True):
        gl = self.gl
        gl.bindFramebuffer(gl.FRAMEBUFFER, fbo or self.fbo)
        size = W if whole else 1
        gl.readPixels(0, 0, size, size, gl.RGBA, gl.FLOAT, self.out if whole else self.pixel)

    def read_buffer(self, whole=True):
        gl = self.gl
        gl.bindBuffer(gl.COPY_READ_BUFFER, self.buffer)
        gl.getBufferSubData(gl.COPY_READ_BUFFER, 0, self.out if whole else self.pixel)
        gl.bindBuffer(gl.COPY_READ_BUFFER, None)

    def buffer_to_texture(self):
        gl = self.gl
        gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, self.buffer)
        gl.bindTexture(gl.TEXTURE_2D, self.copy)
        gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, W, W, gl.RGBA, gl.FLOAT, 0)
        gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, None)

    def result(self):
        return np.asarray(self.out.to_py()).view(np.int32)


def cases(g, fragment):
    gl = g.gl
    per_texel, per_element = vertex_sources(fragment)
    frag = g.program(TRIANGLE, fragment)
    tf4, tf1 = g.program(per_texel, NULL_FRAGMENT, "outValue"), g.program(
        per_element, NULL_FRAGMENT, "outValue")
    index_only = g.program(INDEX_ONLY, NULL_FRAGMENT, "outValue")
    for prog in (frag, tf4, tf1):
        gl.useProgram(prog)
        for name, value in (("uT0", 0), ("uShift0", 9), ("uOutShift", 9), ("uOutSize", N)):
            if loc := gl.getUniformLocation(prog, name):
                gl.uniform1i(loc, value)
    pixel_sync, buffer_sync = (lambda: g.read_pixels(whole=False),
                               lambda: g.read_buffer(whole=False))
    return {  # name: (one call, a sync after the calls, the check after one call or None)
        "frag": (lambda: g.draw(frag), pixel_sync, None),
        "frag_read": (lambda: (g.draw(frag), g.read_pixels()), pixel_sync, g.result),
        "tf4": (lambda: g.capture(tf4, gl.POINTS, N // 4), buffer_sync, None),
        "tf4_read": (lambda: (g.capture(tf4, gl.POINTS, N // 4), g.read_buffer()),
                     buffer_sync, g.result),
        "tf1": (lambda: g.capture(tf1, gl.POINTS, N), buffer_sync, None),
        "tf1_read": (lambda: (g.capture(tf1, gl.POINTS, N), g.read_buffer()), buffer_sync,
                     g.result),
        "read_pixels": (g.read_pixels, pixel_sync, None),
        "read_buffer": (g.read_buffer, buffer_sync, None),
        "buffer_to_texture": (g.buffer_to_texture, lambda: g.read_pixels(g.copy_fbo, False),
                              None),
        "tf_points": (lambda: g.capture(index_only, gl.POINTS, N // 4 + 2), buffer_sync, None),
        "tf_lines": (lambda: g.capture(index_only, gl.LINES, N // 4 + 2), buffer_sync, None),
        "tf_triangles": (lambda: g.capture(index_only, gl.TRIANGLES, N // 4 + 2), buffer_sync,
                         None),
    }


async def run():
    fragment, expected, host = await fused_source()
    g = Gl(host)
    table = cases(g, fragment)
    for name, (call, _, check) in table.items():
        if check:
            call()
            print(f"{name}: bit-identical to texflow's result: "
                  f"{np.array_equal(check(), expected.view(np.int32))}", flush=True)
    table["tf4_read"][0]()  # the buffer copied into a texture holds the same values
    g.buffer_to_texture()
    g.read_pixels(g.copy_fbo)
    same = np.array_equal(g.result(), expected.view(np.int32))
    print(f"buffer_to_texture: bit-identical to texflow's result: {same}", flush=True)
    walls = {name: [] for name in table}
    for r in range(ROUNDS):
        for name in list(table)[::1 if r % 2 == 0 else -1]:
            call, sync, _ = table[name]
            call()
            sync()
            print(f"MARK begin {name}", flush=True)
            await asyncio.sleep(0.15)
            t0 = time.perf_counter()
            for _ in range(10):
                call()
            sync()
            walls[name].append((time.perf_counter() - t0) * 100)
            await asyncio.sleep(0.15)
            print(f"MARK end {name}", flush=True)
    print("wall ms per call (10 calls and a sync, over the rounds): median, least")
    for name, ms in walls.items():
        print(f"  {name:20s} {statistics.median(ms):8.2f} {min(ms):8.2f}")


await run()  # noqa: F704 (texflow run-browser runs the file with top-level await)
