"""WGSL kernels of pooling over NHWC windows and, in a compiled step, of a convolution
pooled where it is computed.

Pooling and its gradients loop over windows (pool.wgsl, pool_grad.wgsl); every gradient
sums in numpy's order (window offsets row-major); max_pool_grad of windows that tile
the image is one pass per tile (pool_grad_tiles.wgsl). A trace's pooling whose gradient
it computes (autodiff/trace_rewrite.py) is `max_pool_taps`: the pooled values and each
window's first-maximum tap (the image element's index) in one pass (pool_taps.wgsl),
which `max_pool_grad_taps` routes dy by (per tile where the windows tile); and
`conv2d_pool` pools a conv2d_direct.wgsl convolution in that pass, each pixel computed
where the pooling reads it (conv2d_pool.wgsl, conv2d_direct's sums in its order), so
the convolution's image is never written.

Past a driver's loop budget (wgpu on lavapipe: program.py tap_parts) each window loop
runs as one dispatch per range of the window's taps, scalar, each taking up the fold
(_RESUME) where the one before left it in the output: the unsplit kernel's result, bit for
bit; the gradients by tiles give way to the general ones then.
"""

from ..base import kernel
from ..layout import windows_tile
from . import epilogue as epilogues
from .conv import cached_program as _program, channel_words, conv2d, direct
from .matmul import epilogue_of
from .program import (GLOBAL_INDEX, Program, Step, global_index, grid_for, header,
                      nest_loops, part_steps, render, size_of, tap_parts, window_fields,
                      within_budget)

# TensorFlow's max_pool starts each window at float32's lowest and takes a value only
# when greater: NaN never wins, a window of -inf and NaN only gives the lowest
_LOWEST = "bitcast<f32>(0xff7fffffu)"

_POOLS = {  # the window's fold: initial value, update from element v at index `at`, result
    "max": (_LOWEST, "if (!is_nan_f32(v) && v > acc) { acc = v; }", "acc"),
    "avg": ("0.0", "acc = acc + v;", "acc / f32(count)"),
    # for max_pool_grad, the index into x of TensorFlow's MaxPoolGrad's choice: the first
    # in-image tap, then a strictly greater value (a NaN first stays: nothing is greater)
    "argmax": ("0.0", "if (best < 0 || (!is_nan_f32(acc) && !is_nan_f32(v) && v > acc)) "
                      "{ acc = v; best = at; }", "best"),
}


# max and avg over four channels at once (C % 4 == 0): the rules of _POOLS lane by lane
_POOLS4 = {
    "max": (f"vec4<f32>({_LOWEST})", "acc = select(acc, v, !nan(v) & (v > acc));", "acc"),
    "avg": ("vec4<f32>()", "acc = acc + v;", "acc / f32(count)"),
}


# The loops of pool.wgsl, pool_grad.wgsl and pool_taps.wgsl over a window; past the loop
# budget (program.py tap_parts) one dispatch per range of its taps, each taking up the
# state the one before left in the output (_RESUME), so the folds run in the same order
_LOOPS = (("ky", "KH"), ("kx", "KW"))
_RESUME = {"max": "acc = out0[i];", "avg": "acc = out0[i];", "grad": "acc = out0[i];",
           "argmax": "best = out0[i]; if (best >= 0) { acc = in0[best]; }",
           "taps": "acc = out0[i]; at = out1[i]; first = at < 0; "
                   "if (!first) { best = in0[at]; }"}
# avg's result in parts: the sum, divided after the last part by the window's in-image taps
_Y0, _X0 = "(oy * params[8] - params[10])", "(ox * params[9] - params[11])"
_AVG_PARTS = (f"select(acc, acc / f32(max(0, min({_Y0} + KH, H) - max({_Y0}, 0)) * "
              f"max(0, min({_X0} + KW, W) - max({_X0}, 0))), params[14] != 0)")


def _pool_steps(kind, src, dst, x_shape, out_hw, ksize, strides, pads, parts=None):
    """pool.wgsl's dispatches: one, or one per range of `parts`, scalar then."""
    n, h, w, c = x_shape
    loops = window_fields(parts, 12, _LOOPS, _RESUME[kind])
    if kind in _POOLS4 and c % 4 == 0 and parts is None:
        c //= 4
        init, update, result = _POOLS4[kind]
        program = _program(f"pool:{kind}4", ["vec4<f32>"], "vec4<f32>", what=kind,
                           init=init, update=update, result=result, nan=_NAN["vec4<f32>"],
                           **loops)
    else:
        init, update, result = _POOLS[kind]
        if parts is not None and kind == "avg":
            result = _AVG_PARTS
        program = _program(f"pool:{kind}", ["f32"], "i32" if kind == "argmax" else "f32",
                           what=kind, init=init, update=update, result=result, nan="",
                           **loops)
    total = n * out_hw[0] * out_hw[1] * c
    meta = [total, *out_hw, c, h, w, *ksize, *strides, pads[0], pads[2]]
    return part_steps(program, meta, grid_for(total), (src, dst), parts)


def _pool_grad_steps(kind, srcs, dst, x_shape, out_hw, ksize, strides, pads, parts=None):
    if kind == "max":  # dy (in0) goes to where the window's first maximum (in1) was
        in_types, contribution = ["f32", "i32"], "if (in1[o] == i) { acc = acc + in0[o]; }"
    else:  # dy (in0) shared by the in-image positions of each window
        in_types, contribution = ["f32"], (
            "let y0 = oy * sh - pt; let x0 = ox * sw - pl;\n"
            "      let cnt = (min(y0 + KH, H) - max(y0, 0)) * (min(x0 + KW, W) - max(x0, 0));\n"
            "      acc = acc + in0[o] / f32(cnt);")
    program = _program(f"pool_grad:{kind}", in_types, "f32", what=kind,
                       contribution=contribution,
                       **window_fields(parts, 12, _LOOPS, _RESUME["grad"]))
    total = size_of(x_shape)
    meta = [total, *x_shape[1:], *out_hw, *ksize, *strides, pads[0], pads[2]]
    return part_steps(program, meta, grid_for(total), (*srcs, dst), parts)


def _add(k, steps):
    for step in steps:
        k.add(step)


def _pool_kernel(kind):
    def plan(k, *inputs, ksize, strides, pads):
        _add(k, _pool_steps(kind, 0, k.out, inputs[0].shape, k.out_shape[1:3], ksize,
                            strides, pads, tap_parts(k.backend, ksize)))
        return k.recipe()
    kernel(f"{kind}_pool", "wgsl")(plan)


_pool_kernel("max")
_pool_kernel("avg")


# NaN tests of pool_grad_tiles.wgsl's scalar and vec4 variants
_NAN = {"f32": "fn nan(x: f32) -> bool { return is_nan_f32(x); }",
        "vec4<f32>": "fn nan(x: vec4<f32>) -> vec4<bool> {\n"
                     "  return (bitcast<vec4<u32>>(x) & vec4<u32>(0x7fffffffu)) > "
                     "vec4<u32>(0x7f800000u);\n}"}


# the params of the two gradients by tiles (total, C words, tiles along W and H, H, W,
# window, the pooled H and W) and a tile's position and extent in the image
_TILE = ("let C = params[1]; let TW = params[2]; let TH = params[3]; let H = params[4];\n"
         "  let W = params[5]; let KH = params[6]; let KW = params[7]; let OH = params[8];\n"
         "  let OW = params[9];\n"
         "  let c = i % C; let r1 = i / C; let tx = r1 % TW; let r2 = r1 / TW;\n"
         "  let ty = r2 % TH; let nb = r2 / TH;\n"
         "  let y0 = ty * KH; let x0 = tx * KW;\n"
         "  let ny = min(KH, H - y0); let nx = min(KW, W - x0);")


def _tiles_step(name, x_shape, out_hw, ksize, dst, fields):
    """One dispatch of `name` (a gradient by tiles, _TILE) over image `x_shape` (NHWC);
    `fields(t)`: its input types and shader fields for channel words of type `t`."""
    n, h, w, c = x_shape
    t, words = channel_words(c)
    tiles = (-(-h // ksize[0]), -(-w // ksize[1]))
    total = n * tiles[0] * tiles[1] * words
    in_types, more = fields(t)
    program = _program(name, in_types, t, T=t, tile=_TILE, **more)
    meta = [total, words, tiles[1], tiles[0], h, w, *ksize, *out_hw]
    return Step(program, meta, grid_for(total), (0, 1, dst))


def _tiles_grad(x_shape, out_hw, ksize, dst):
    """max_pool_grad in one pass where the windows tile the image (pool_grad_tiles.wgsl)."""
    return _tiles_step("pool_grad_tiles", x_shape, out_hw, ksize, dst, lambda t: (
        [t, t], dict(width=t, nan=_NAN[t], I="i32" if t == "f32" else "vec4<i32>")))


@kernel("max_pool_grad", "wgsl")
def max_pool_grad(k, *inputs, ksize, strides, pads):
    x, dy = inputs
    # by tiles: two loops over a window; past the budget, the window's parts
    if windows_tile(ksize, strides, pads) and within_budget(
            k.backend, 2 * nest_loops(ksize, ksize[0] * ksize[1])):
        k.add(_tiles_grad(x.shape, dy.shape[1:3], ksize, k.out))
        return k.recipe()
    parts = tap_parts(k.backend, ksize)
    first = k.temp(4 * dy.size)
    _add(k, _pool_steps("argmax", 0, first, x.shape, dy.shape[1:3], ksize, strides, pads,
                        parts))
    _add(k, _pool_grad_steps("max", (1, first), k.out, x.shape, dy.shape[1:3], ksize,
                             strides, pads, parts))
    return k.recipe()


# per channel word type: the taps' type, the bool of `first`, and the image element
# index of each lane of word {} (the scalar index a tap holds)
_TAPS = {"f32": ("i32", "bool", "{}"),
         "vec4<f32>": ("vec4<i32>", "vec4<bool>", "4 * {} + vec4<i32>(0, 1, 2, 3)")}
# One value v (at word p) into the window's pooled value `acc` by max_pool's rule and its
# tap `at` by MaxPoolGrad's (`best` the value there; `first` until a tap is taken)
_FOLD = """acc = select(acc, v, !nan(v) & (v > acc));
      let take = first | (!nan(best) & !nan(v) & (v > best));
      best = select(best, v, take);
      at = select(at, {tap}, take);
      first = {b}(false);"""
# conv2d_pool.wgsl: the most pixels (accumulators) and the most neighbouring windows of a
# row an invocation computes (its loops cost per invocation on SwiftShader, shared by
# more pixels: GPU-process CPU of the MNIST CNN's compiled step, 7 (of at most 8), 4 and
# 1 windows of 2x2 in one page, 1506, 1600, 1627 ms per 3 steps)
MAX_WINDOW_PIXELS = 32
MAX_POOL_WINDOWS = 8
_programs = {}


def _taps_meta(x_shape, out_hw, ksize, strides, pads, words):
    n, h, w, _ = x_shape
    total = n * out_hw[0] * out_hw[1] * words
    return total, [total, *out_hw, words, h, w, *ksize, *strides, pads[0], pads[2]]


def _taps_steps(src, dsts, x_shape, out_hw, ksize, strides, pads, parts):
    """max_pool_taps in one pass (pool_taps.wgsl): vec4s of channels when C % 4 == 0; or
    one pass per range of `parts`, scalar."""
    t, words = channel_words(x_shape[3])
    if parts is not None:
        t, words = "f32", x_shape[3]
    i, b, tap = _TAPS[t]
    program = _program("pool_taps", [t], (t, i), T=t, I=i, B=b, nan=_NAN[t],
                       fold=_FOLD.format(tap=tap.format("p"), b=b),
                       **window_fields(parts, 12, _LOOPS, _RESUME["taps"]))
    total, meta = _taps_meta(x_shape, out_hw, ksize, strides, pads, words)
    return part_steps(program, meta, grid_for(total), (src, *dsts), parts)


@kernel("max_pool_taps", "wgsl")
def max_pool_taps(k, x, ksize, strides, pads, output_index=None):
    """The pooled values (output 0) and the index into x of each window's first maximum
    (output 1, as max_pool_grad_taps reads it) in one pass."""
    _add(k, _taps_steps(0, (k.out, k.out + 1), x.shape, k.out_shape[1:3], ksize, strides,
                        pads, tap_parts(k.backend, ksize)))
    return k.recipe()


@kernel("conv2d_pool", "wgsl")
def conv2d_pool(k, *inputs, program, strides, dilations, pads, conv_shape, ksize,
                pool_strides, pool_pads, pooled_shape, output_index=None):
    """max_pool_taps of the convolution (through its epilogue): computed where the
    pooling reads it for conv2d_direct.wgsl's convolutions (windows of at most
    MAX_WINDOW_PIXELS pixels), else conv2d into a temporary first."""
    x, w, *extras = inputs
    kh, kw, c, oc = w.shape
    direct_loops = nest_loops((kh, kw, c), kh * kw * c)  # conv2d_direct's, per invocation
    parts = tap_parts(k.backend, ksize)
    if not direct(c, oc, k.backend, direct_loops) or \
            ksize[0] * ksize[1] > MAX_WINDOW_PIXELS or parts is not None:
        h = k.inline(conv2d, inputs, conv_shape, strides=strides, dilations=dilations,
                     pads=pads, program=program)
        _add(k, _taps_steps(h, (k.out, k.out + 1), conv_shape, pooled_shape[1:3], ksize,
                            pool_strides, pool_pads, parts))
        return k.recipe()
    epilogue = None if program is None else epilogue_of(program, extras, conv_shape)
    padded_rows = bool(pads[0] or pads[1])
    n, oh, ow, _ = pooled_shape
    # windows per invocation: as many as allowed, in groups of about equal size
    most = min(MAX_POOL_WINDOWS, MAX_WINDOW_PIXELS // (ksize[0] * ksize[1]))
    g = -(-ow // -(-ow // most))
    key = ("conv2d_pool", tuple(ksize), g, padded_rows, epilogue and epilogue.key)
    if key not in _programs:
        types = ["f32", "vec4<f32>"] + ([] if epilogue is None else epilogue.types)
        extra = "\n" + epilogues.source(epilogue, 23)  # after the 12 + 11 below
        fields = _conv_pool_fields(ksize, g, padded_rows)
        _programs[key] = Program(key, len(types), 2, lambda: header(
            types, ["vec4<f32>", "vec4<i32>"], extra) + render(
                "conv2d_pool.wgsl", builtins=GLOBAL_INDEX, index=global_index(),
                nan=_NAN["vec4<f32>"], **fields))
    total, meta = _taps_meta(conv_shape, (oh, -(-ow // g)), ksize, pool_strides,
                             pool_pads, oc // 4)
    meta[6] = ow
    meta += [*x.shape[1:3], c, kh, kw, *strides, *dilations, pads[0], pads[2]]
    meta += [] if epilogue is None else epilogue.meta
    refs = (0, 1, *([] if epilogue is None else epilogue.refs), k.out, k.out + 1)
    k.add(Step(_programs[key], meta, grid_for(total), refs))
    return k.recipe()


def _conv_pool_fields(ksize, windows, padded_rows):
    """conv2d_pool.wgsl's generated lines for `windows` windows of `ksize` (column b of
    window g is cx{g * KW + b})."""
    rows, cols = range(ksize[0]), range(ksize[1] * windows)
    pixels = [(a, b) for a in rows for b in cols]
    add = "acc{0}_{1} + w * select(0.0, in0[(row{0} + xc{1}) * C + c], ok{1})"
    # a row of the padding: conv2d_direct skips it, so the sum must not change at all
    step = "acc{0}_{1} = select(acc{0}_{1}, " + add + ", ry{0});" if padded_rows else \
        "acc{0}_{1} = " + add + ";"
    fold = _FOLD.format(tap="4 * p + vec4<i32>(0, 1, 2, 3)", b="vec4<bool>")
    pool = []
    for g in range(windows):
        pool += ["{", f"  let oxg = ox * {windows} + {g};",
                 "  var acc = vec4<f32>(bitcast<f32>(0xff7fffffu));", "  var best = acc;",
                 "  var at = vec4<i32>(-1);", "  var first = vec4<bool>(true);"]
        for a, b in [(a, g * ksize[1] + j) for a in rows for j in range(ksize[1])]:
            pool += [f"  if (cy{a} >= 0 && cy{a} < H && cx{b} >= 0 && cx{b} < W) {{",
                     f"    let p = ((nb * H + cy{a}) * W + cx{b}) * CO4 + co;",
                     f"    let v = epilogue4(acc{a}_{b}, p);", f"    {fold}", "  }"]
        pool += ["  if (oxg < OW) {", "    let o = ((nb * OH + oy) * OW + oxg) * CO4 + co;",
                 "    out0[o] = acc;", "    out1[o] = at;", "  }", "}"]
    return dict(
        G=windows, P=f"{ksize[0]}x{ksize[1]}",
        coords="\n  ".join(
            [f"let cy{a} = oy * psh - ppt + {a}; let qy{a} = clamp(cy{a}, 0, H - 1);"
             for a in rows] +
            [f"let cx{b} = (ox * {windows} + {b // ksize[1]}) * psw - ppl + "
             f"{b % ksize[1]}; let qx{b} = clamp(cx{b}, 0, W - 1);" for b in cols]),
        acc_decl="\n  ".join(f"var acc{a}_{b} = vec4<f32>();" for a, b in pixels),
        rows="\n    ".join(f"let y{a} = qy{a} * sh - pt + ky * dh; let ry{a} = y{a} >= 0 && "
                            f"y{a} < IH; let row{a} = (nb * IH + clamp(y{a}, 0, IH - 1)) * IW;"
                            for a in rows),
        columns="\n      ".join(f"let x{b} = qx{b} * sw - pl + kx * dw; let ok{b} = x{b} >= 0 "
                                f"&& x{b} < IW; let xc{b} = clamp(x{b}, 0, IW - 1);"
                                for b in cols),
        accumulate="\n        ".join(step.format(a, b) for a, b in pixels),
        pool="\n  ".join(pool))


def _taps_grad_tiles(taps_shape, x_shape, ksize, dst):
    """max_pool_grad_taps in one pass where the windows tile the image."""
    return _tiles_step("pool_grad_taps_tiles", x_shape, taps_shape[1:3], ksize, dst,
                       lambda t: ([_TAPS[t][0], t], dict(lanes=_TAPS[t][2].format("t"))))


@kernel("max_pool_grad_taps", "wgsl")
def max_pool_grad_taps(k, taps, dy, ksize, strides, pads, input_shape):
    parts = tap_parts(k.backend, ksize)  # the loop over a tile: a window's
    if windows_tile(ksize, strides, pads) and parts is None:
        k.add(_taps_grad_tiles(taps.shape, input_shape, ksize, k.out))
        return k.recipe()
    _add(k, _pool_grad_steps("max", (1, 0), k.out, input_shape, dy.shape[1:3], ksize,
                             strides, pads, parts))
    return k.recipe()


@kernel("avg_pool_grad", "wgsl")
def avg_pool_grad(k, *inputs, ksize, strides, pads, input_shape):
    dy = inputs[0]
    _add(k, _pool_grad_steps("avg", (0,), k.out, input_shape, dy.shape[1:3], ksize,
                             strides, pads, tap_parts(k.backend, ksize)))
    return k.recipe()
