"""What a WebGL2 fragment's time goes to on this browser's GPU (SwiftShader here): raw
WebGL2 programs, no texflow kernels, each drawn 10 times per sample (by hand).

    .venv/bin/python scripts/browser_cpu_time.py scripts/webgl_fetch_cost.py --backend webgl

browser_cpu_time.py prints each case's GPU-process CPU time. Cases, 256 fragments x 196
steps each:
- blocked: the blocked matmul's loop (8 A and 4 B texelFetch, 128 multiply-adds a step);
  fetch_only: its fetches summed; alu_only: its multiply-adds on texels fetched once;
- sampled: the same loop through texture() (nearest, one level) at texel centres from
  2-D coordinates; sampled_flat: from flat float indices as texelf (sampler.glsl) does;
  sampled_lod: textureLod(..., 0.0), which costs more than texture() on SwiftShader;
- ubo_b, ubo_ab: B (and A) read from a uniform buffer (std140 vec4 array, filled from
  the texture through a pixel-pack buffer) instead of texelFetch;
- select_uniform, select_quad, select_lane: an 8-way if/else chain choosing which
  texture to fetch, by an index the same for the whole draw, for each 2x2 quad, or
  different across a quad's lanes; one_fetch: one fetch a step, no chain; tree_*: the
  choice as three levels of if/else; array_lane: layer r of a texture array, one fetch.
"""

import asyncio

import js
import numpy as np
from pyodide.ffi import to_js

import webgl_raw

VS = """#version 300 es
void main() { vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(p, 0.0, 1.0); }"""
HEAD = """#version 300 es
precision highp float; precision highp int; precision highp sampler2D;
uniform sampler2D uA; uniform sampler2D uB; uniform highp sampler2DArray uC;
layout(std140) uniform BlockB { vec4 bU[4096]; };
out vec4 outValue;
vec4 ta(int t) { return texelFetch(uA, ivec2(t & 255, t >> 8), 0); }
vec4 tb(int t) { return texelFetch(uB, ivec2(t & 255, t >> 8), 0); }
vec4 ub(int t) { return bU[t & 4095]; }
vec4 sa(int t) { return texture(uA, (vec2(t & 255, t >> 8) + 0.5) * (1.0 / 256.0)); }
vec4 sb(int t) { return texture(uB, (vec2(t & 255, t >> 8) + 0.5) * (1.0 / 256.0)); }
vec4 la(int t) { return textureLod(uA, (vec2(t & 255, t >> 8) + 0.5) * (1.0 / 256.0), 0.0); }
vec4 lb(int t) { return textureLod(uB, (vec2(t & 255, t >> 8) + 0.5) * (1.0 / 256.0), 0.0); }
vec4 fa(float t) {
  float y = floor(t * (1.0 / 256.0));
  return texture(uA, (vec2(t - y * 256.0, y) + 0.5) * (1.0 / 256.0));
}
vec4 fb(float t) {
  float y = floor(t * (1.0 / 256.0));
  return texture(uB, (vec2(t - y * 256.0, y) + 0.5) * (1.0 / 256.0));
}
"""
ROWS = range(8)


def blocked(fa="ta", fb="tb", macs=True, hoist=False, floats=False):
    d = ".0" if floats else ""  # float indices: float literals
    fetch_a = [f"vec4 a{r} = {fa}(a + {196 * r}{d});" for r in ROWS]
    fetch_b = [f"vec4 b{q} = {fb}(b + {32 * q}{d});" for q in range(4)]
    if macs:
        acc = [f"c{r} += a{r}.x * b0 + a{r}.y * b1 + a{r}.z * b2 + a{r}.w * b3;" for r in ROWS]
    else:
        acc = ["c0 += " + " + ".join([f"a{r}" for r in ROWS] + ["b0", "b1", "b2", "b3"]) + ";"]
    before, inside = (fetch_a + fetch_b, []) if hoist else ([], fetch_a + fetch_b)
    # hoisted: the texels change each step (from the sums) so that nothing folds
    after = ["a0 += c7; b0 += c6;"] if hoist else []
    return HEAD + "\n".join([
        "void main() {", "  int f = int(gl_FragCoord.y) * 16 + int(gl_FragCoord.x);",
        "  float a = float(f * 7), b = float(f & 31);" if floats else
        "  int a = f * 7, b = f & 31;",
        "  " + " ".join(f"vec4 c{r} = vec4(0);" for r in ROWS), *before,
        "  for (int k = 0; k < 196; k++) {", *inside, *acc, *after,
        f"    a += 1{d}; b += 128{d};", "  }",
        "  outValue = " + " + ".join(f"c{r}" for r in ROWS) + ";", "}"])


def tree(fetches, lo, hi):
    """Nested if/else on r choosing among fetches[lo:hi] (log2 branches deep)."""
    if hi - lo == 1:
        return fetches[lo]
    mid = (lo + hi) // 2
    return f"if (r < {mid}) {{ {tree(fetches, lo, mid)} }} else {{ {tree(fetches, mid, hi)} }}"


def select(index, chain=True, fetch_all=False, binary=False, array=False):
    fetches = [f"v += {'ta' if r % 2 == 0 else 'tb'}(t + {r // 2});" for r in ROWS]
    if array:  # one fetch from layer r of a texture array
        body = ["v += texelFetch(uC, ivec3(t & 255, t >> 8, r), 0);"]
    elif binary:
        body = [tree(fetches, 0, 8)]
    elif fetch_all:  # every texture fetched, the value chosen without a branch
        body = [f"vec4 f{r} = {'ta' if r % 2 == 0 else 'tb'}(t + {r // 2});" for r in ROWS]
        body.append("v += " + "".join(f"r == {r} ? f{r} : " for r in range(7)) + "f7;")
    elif chain:
        body = [("if (r == 0) " if r == 0 else f"else if (r == {r}) " if r < 7 else "else ")
                + fetches[r] for r in ROWS]
    else:
        body = [fetches[0]]
    return HEAD + "\n".join([
        "void main() {", "  int f = int(gl_FragCoord.y) * 16 + int(gl_FragCoord.x);",
        f"  int r = {index};", "  vec4 v = vec4(0);",
        "  for (int k = 0; k < 196; k++) {", "    int t = f + k * 7;", *body, "  }",
        "  outValue = v;", "}"])


CASES = {
    "blocked": blocked(), "fetch_only": blocked(macs=False), "alu_only": blocked(hoist=True),
    "ubo_b": blocked(fb="ub"), "ubo_ab": blocked(fa="ub", fb="ub"),
    "sampled": blocked(fa="sa", fb="sb"), "sampled_lod": blocked(fa="la", fb="lb"),
    "sampled_flat": blocked(fa="fa", fb="fb", floats=True),
    "select_uniform": select("int(gl_FragCoord.x) >> 4"),
    "select_quad": select("(int(gl_FragCoord.x) >> 1) & 7"),
    "select_lane": select("int(gl_FragCoord.x) & 7"), "one_fetch": select("0", False),
    "fetch_all_quad": select("(int(gl_FragCoord.x) >> 1) & 7", fetch_all=True),
    "tree_uniform": select("int(gl_FragCoord.x) >> 4", binary=True),
    "tree_lane": select("int(gl_FragCoord.x) & 7", binary=True),
    "array_lane": select("int(gl_FragCoord.x) & 7", array=True),
}


def main():
    gl = js.OffscreenCanvas.new(1, 1).getContext("webgl2")
    gl.getExtension("EXT_color_buffer_float")

    def program(fs):
        p = webgl_raw.link(gl, VS, fs)
        gl.useProgram(p)
        gl.uniform1i(gl.getUniformLocation(p, "uA"), 0)
        gl.uniform1i(gl.getUniformLocation(p, "uB"), 1)
        gl.uniform1i(gl.getUniformLocation(p, "uC"), 3)
        block = gl.getUniformBlockIndex(p, "BlockB")
        if block != gl.INVALID_INDEX:
            gl.uniformBlockBinding(p, block, 0)
        return p

    def texture(unit, w, h, data=None):
        t = gl.createTexture()
        gl.activeTexture(gl.TEXTURE0 + unit)
        gl.bindTexture(gl.TEXTURE_2D, t)
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
        gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, w, h)
        if data is not None:
            gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, w, h, gl.RGBA, gl.FLOAT, to_js(data))
        return t

    rng = np.random.default_rng(0)
    texture(0, 256, 256, rng.random(256 * 256 * 4, dtype=np.float32))
    tex_b = texture(1, 256, 256, rng.random(256 * 256 * 4, dtype=np.float32))
    # the uniform buffer: B's first 4096 texels, copied on the device (pixel-pack buffer)
    ubo = gl.createBuffer()
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, ubo)
    gl.bufferData(gl.PIXEL_PACK_BUFFER, 65536, gl.DYNAMIC_COPY)
    gl.bindFramebuffer(gl.FRAMEBUFFER, gl.createFramebuffer())
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex_b, 0)
    gl.readPixels(0, 0, 256, 16, gl.RGBA, gl.FLOAT, 0)
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, None)
    gl.bindBufferBase(gl.UNIFORM_BUFFER, 0, ubo)
    layers = gl.createTexture()  # 8 layers of 256 x 256 texels (contents do not matter)
    gl.activeTexture(gl.TEXTURE3)
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, layers)
    gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
    gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
    gl.texStorage3D(gl.TEXTURE_2D_ARRAY, 1, gl.RGBA32F, 256, 256, 8)
    out = texture(2, 16, 16)
    fbo = gl.createFramebuffer()
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo)
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, out, 0)
    gl.viewport(0, 0, 16, 16)
    programs = {name: program(fs) for name, fs in CASES.items()}
    pixel = js.Float32Array.new(4)
    return gl, programs, lambda: gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, pixel)


async def run():
    gl, programs, sync = main()
    for _ in range(4):
        for name, p in programs.items():
            gl.useProgram(p)
            sync()  # a readback waits for the device
            print(f"MARK begin {name}", flush=True)
            await asyncio.sleep(0.15)
            for _ in range(10):
                gl.drawArrays(gl.TRIANGLES, 0, 3)
            sync()
            await asyncio.sleep(0.15)
            print(f"MARK end {name}", flush=True)


await run()  # noqa: F704 (texflow run-browser runs the file with top-level await)
