"""GLSL kernels of pooling and of a convolution pooled in the same kernel (NHWC).

- max_pool and avg_pool (pool.frag) reduce the in-image positions of each
  window only; max_pool_grad first records each window's first-maximum tap
  (an int32 pass of pool.frag), then routes dy to it; where the windows tile
  the image (Keras's default) and C % 4 == 0, each image texel just compares
  its own tap with its one window's (pool_grad_tiles.frag: two fetches, no
  loop). Finding the maximum once per window rather than once per image texel
  (an earlier one-pass kernel) halved the time on SwiftShader.
- In a compiled step (autodiff/trace_rewrite.py) max_pool_taps writes the pooled
  values and those taps in one launch (two render targets), max_pool_grad_taps
  routes dy by them, and conv2d_pool computes a one-channel convolution where the
  pooling reads it (conv2d_px_pool.frag), so the convolution's image is never
  written.
"""

from ... import dtypes
from ..base import kernel
from ..layout import windows_tile
from .conv import (BLOCK_MIN_OUTPUTS, _conv2d, _epilogue, _geometry, _lanes, _source,
                   _textures, _types, _uniforms, _window_grad)
from .program import Arg, vec4_type


# -- pooling ------------------------------------------------------------------------------

_POOL = {  # op -> (result type, init, update, finish)
    "max": ("${V}", "  ${V} acc = ${V}(-intBitsToFloat(0x7f7fffff));  // float32's lowest",
            "      acc = pool_max(acc, v);", "  return acc;"),
    "avg": ("${V}", "  ${V} acc = ${V}(0);", "      acc += v;", """\
  int count = (ty.y - ty.x) * (tx.y - tx.x);
  // a window wholly in the padding averages nothing: NaN, as 0 / 0 in numpy
  return count > 0 ? acc / float(count) : ${V}(f_nan());"""),
    # `at` starts at the first in-image tap, not tap 0, which `take` then takes whatever
    # it holds, as TensorFlow's MaxPoolGrad does (not tap 0 in the padding: lost)
    "argmax": ("${I}", "  ${V} best = ${V}(0);\n  ${I} at = ${I}(ty.x * uWin[1] + tx.x);",
               "      take(best, at, v, ky * uWin[1] + kx);", "  return at;"),
}
# max_pool_taps: both folds in one loop, the taps through an out parameter
_POOL["taps"] = ("${V}", _POOL["max"][1] + "\n" + _POOL["argmax"][1],
                 _POOL["max"][2] + "\n" + _POOL["argmax"][2],
                 "  first = at;\n" + _POOL["max"][3])


def _pool(b, x, out, op, ksize, strides, pads):
    vec = x.shape[3] % 4 == 0
    out_type = ["float", "int"] if op == "taps" else "int" if op == "argmax" else "float"

    def source():
        v, i = ("vec4", "ivec4") if vec else ("float", "int")
        r, init, update, finish = (s.replace("${V}", v).replace("${I}", i)
                                   for s in _POOL[op])
        if op != "taps":
            params, main = "", f"  outValue = {_lanes('pool', vec, vec4_type(out_type))};"
        elif vec:
            params, main = ", out ivec4 first", "  ivec4 at;\n  outValue0 = pool(o, at);"
        else:  # a lane's tap into that component of the taps texel
            params = ", out int first"
            main = "  ivec4 at;\n  outValue0 = vec4(" + ", ".join(
                f"pool(o + {j}, at.{'xyzw'[j]})" for j in range(4)) + ");"
        if op == "taps":
            main += "\n  outValue1 = at;"
        return _source("pool.frag", ["float"], out_type, R=r, V=v, init=init, update=update,
                       finish=finish, fetch="texel0(i >> 2)" if vec else "get0(i)",
                       params=params, main=main, KH=ksize[0], KW=ksize[1])
    # the window size is part of the program: loops of known length cost about 10% less
    # GPU-process CPU time on SwiftShader (scripts/browser_cpu_time.py)
    grid = (out[0] if isinstance(out, list) else out).shape
    b.launch(("pool", op, vec, tuple(ksize)), source, out, [x],
             _geometry(x.shape, grid, ksize, strides, pads))


@kernel("max_pool", "glsl")
def max_pool(b, x, ksize, strides, pads):
    _pool(b, x, b.out, "max", ksize, strides, pads)


@kernel("avg_pool", "glsl")
def avg_pool(b, x, ksize, strides, pads):
    _pool(b, x, b.out, "avg", ksize, strides, pads)


@kernel("max_pool_taps", "glsl")
def max_pool_taps(b, x, ksize, strides, pads, output_index=None):
    _pool(b, x, [b.out, b.output()], "taps", ksize, strides, pads)


@kernel("conv2d_pool", "glsl")
def conv2d_pool(b, x, w, *extras, program, strides, dilations, pads, conv_shape, ksize,
                pool_strides, pool_pads, pooled_shape, output_index=None):
    outs = [b.out, b.output()]
    epilogue = None if program is None else (program, list(extras))
    h = Arg(-1, conv_shape, dtypes.float32)
    if x.shape[3] == 1 and conv_shape[3] % 4 == 0 and b.backend.max_draw_buffers >= 4 and \
            h.size >= BLOCK_MIN_OUTPUTS and windows_tile(ksize, pool_strides, pool_pads) and \
            all(p * k <= d for p, k, d in zip(pooled_shape[1:3], ksize, conv_shape[1:3])):
        _conv_px_pool(b, x, w, outs, h, strides, dilations, pads, ksize, epilogue)
        return
    # elsewhere the two kernels, the image in between
    h = b.temp(conv_shape, dtypes.float32)
    _conv2d(b, x, w, strides, dilations, pads, epilogue, h)
    _pool(b, h, outs, "taps", ksize, pool_strides, pool_pads)


def _conv_px_pool(b, x, w, outs, h, strides, dilations, pads, ksize, epilogue):
    """conv2d_px_pool.frag: conv2d_pool where eager's conv2d takes conv2d_px_block.frag
    (one input channel), so that each pixel's sums are that kernel's."""
    kh, kw = w.shape[:2]
    (sy, sx), (dy, dx), (pkh, pkw) = strides, dilations, ksize
    fused = _epilogue(h, epilogue, 2)
    rows = sorted({r * sy + ky * dy for r in range(pkh) for ky in range(kh)})
    cols = sorted({s * sx + kx * dx for s in range(pkw) for kx in range(kw)})
    # x rows start on texels (W % 4 == 0): a row's values are read four per fetch, from
    # texels at one of a few offsets (ix0 % 4 over the pooled columns, known here)
    offsets = sorted({(g * pkw * sx - pads[2]) % 4 for g in range(4)})
    aligned = x.shape[2] % 4 == 0

    def source():
        load_w = [f"  vec4 w{ky}_{kx} = texel1(({ky} * {kw} + {kx}) * cb + c);"
                  for ky in range(kh) for kx in range(kw)]
        load_x = ["  int off = ix0 & 3;"] + [
            f"  int cx{j} = ix0 + {j};\n  bool cin{j} = all(bvec2(cx{j} >= 0, cx{j} < w));"
            for j in cols]
        for o in rows:
            load_x.append(f"  int ry{o} = iy0 + {o};\n  int base{o} = (n * h + clamp(ry{o}, "
                          f"0, h - 1)) * w;\n  bool rin{o} = all(bvec2(ry{o} >= 0, ry{o} < h));")
            if aligned:
                load_x.append(f"  int xt{o} = (base{o} + ix0) >> 2;")
                load_x += [f"  vec4 t{o}_{i} = texel0(clamp(xt{o} + {i}, 0, uXLast));"
                           for i in range((offsets[-1] + cols[-1]) // 4 + 1)]
            for j in cols:
                if aligned:
                    value = f"t{o}_{(offsets[-1] + j) >> 2}.{'xyzw'[(offsets[-1] + j) & 3]}"
                    for off in reversed(offsets[:-1]):
                        value = (f"off == {off} ? t{o}_{(off + j) >> 2}."
                                 f"{'xyzw'[(off + j) & 3]} : {value}")
                else:
                    value = f"get0(base{o} + clamp(cx{j}, 0, w - 1))"
                load_x.append(f"  float x{o}_{j} = {value};\n"
                              f"  bool in{o}_{j} = rin{o} && cin{j};")
        acc, pool = [], []
        for r in range(pkh):
            for s in range(pkw):
                acc.append(f"  vec4 acc{r}_{s} = vec4(0);")
                for ky in range(kh):
                    for kx in range(kw):
                        o, j = r * sy + ky * dy, s * sx + kx * dx
                        acc.append(f"  acc{r}_{s} += in{o}_{j} ? x{o}_{j} * w{ky}_{kx} : "
                                   "vec4(0);")
                pool.append(f"  vec4 v{r}_{s} = epilogue(acc{r}_{s}, ((n * uGrid[1] + y0 + "
                            f"{r}) * uGrid[2] + x0 + {s}) * cb + c);\n"
                            f"  pooled = pool_max(pooled, v{r}_{s});\n"
                            f"  take(best, at, v{r}_{s}, {r * pkw + s});")
        return _source("conv2d_px_pool.frag", ["float", "float"] + _types(fused),
                       ["float", "int"], PKH=pkh, PKW=pkw, load_w="\n".join(load_w),
                       load_x="\n".join(load_x), accumulate="\n".join(acc),
                       pool="\n".join(pool),
                       epilogue=fused.source(texel=True) if fused else
                       "vec4 epilogue(vec4 v, int t) { return v; }")
    b.launch(("conv2d_px_pool", kh, kw, strides, dilations, tuple(ksize), pads[2] % 4,
              aligned, fused and fused.key), source, outs, [x, w] + _textures(fused),
             dict(_geometry(x.shape, h.shape, (kh, kw), strides, pads, dilations),
                  uPooled=list(outs[0].shape), uXLast=(x.size + 3) // 4 - 1,
                  **_uniforms(fused)))


@kernel("max_pool_grad", "glsl")
def max_pool_grad(b, x, dy, ksize, strides, pads):
    at = b.temp(dy.shape, dtypes.int32)
    _pool(b, x, at, "argmax", ksize, strides, pads)
    _route_max(b, dy, at, x.shape, ksize, strides, pads)


@kernel("max_pool_grad_taps", "glsl")
def max_pool_grad_taps(b, taps, dy, ksize, strides, pads, input_shape):
    _route_max(b, dy, taps, input_shape, ksize, strides, pads)


def _route_max(b, dy, at, image_shape, ksize, strides, pads):
    """max_pool_grad's second pass: dy routed to each window's first-maximum tap `at`."""
    geometry = _geometry(image_shape, dy.shape, ksize, strides, pads)
    if windows_tile(ksize, strides, pads) and image_shape[3] % 4 == 0:
        def source():
            return _source("pool_grad_tiles.frag", ["float", "int"], "float", KH=ksize[0],
                           KW=ksize[1])
        b.launch(("pool_grad_tiles", tuple(ksize)), source, b.out, [dy, at], geometry)
        return
    _window_grad(b, [dy, at], "max", image_shape[3] % 4 == 0, geometry)


@kernel("avg_pool_grad", "glsl")
def avg_pool_grad(b, dy, ksize, strides, pads, input_shape):
    _window_grad(b, [dy], "avg", input_shape[3] % 4 == 0,
                 _geometry(input_shape, dy.shape, ksize, strides, pads))
