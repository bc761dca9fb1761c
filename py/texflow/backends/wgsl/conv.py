"""WGSL kernels of convolution and pooling (NHWC images, HWIO filters).

conv2d is im2col (shaders/wgsl/im2col.wgsl) followed by the matmul kernels:
the [N*OH*OW, KH*KW*C] patch matrix times the filter seen as [KH*KW*C, OC]
gives the NHWC output directly, so convolutions run at matmul speed. Its
gradients are matmuls too: the filter's is patches^T @ dy; the input's is
dy @ filter^T, folded back onto the image by col2im.wgsl. Pooling and its
gradients loop over windows (pool.wgsl, pool_grad.wgsl); every gradient sums
in numpy's order (window offsets row-major).
"""

from ..base import kernel
from ..layout import row_parts, windows_tile
from . import epilogue as epilogues
from .matmul import Operand, epilogue_of, matmul_steps, sum_parts_program
from .program import (GLOBAL_INDEX, Program, Step, global_index, grid_for, header,
                      render, size_of)

_programs = {}
DIRECT_PIXELS = 4        # output pixels per invocation of conv2d_direct.wgsl
# conv2d_filter_direct.wgsl: about how many window pixels each part adds up, most parts
FILTER_PART = 512
MAX_FILTER_PARTS = 256


def _program(name, in_types, out_type, **fields):
    key = (name, tuple(sorted(fields.items())))
    if key not in _programs:
        shader = name.split(":")[0] + ".wgsl"
        _programs[key] = Program(key, len(in_types), 1, lambda: header(in_types, [out_type]) + (
            render(shader, builtins=GLOBAL_INDEX, index=global_index(), **fields)))
    return _programs[key]


def _is_pointwise(window, strides, dilations, pads):
    """A 1x1 window with unit strides and no padding: the image is its own patch matrix."""
    return window == (1, 1) and strides == (1, 1) and not any(pads)


def _patches(k, x_ref, x_shape, window, out_hw, strides, dilations, pads):
    """The table index of x's patch matrix [N*OH*OW, KH*KW*C] (x itself if pointwise)."""
    if _is_pointwise(window, strides, dilations, pads):
        return x_ref
    n, h, w, c = x_shape
    (kh, kw), (oh, ow) = window, out_hw
    rows, cols = n * oh * ow, kh * kw * c
    ref = k.temp(4 * rows * cols)
    t, c_words = _channel_words(c)
    meta = [rows * kh * kw, c_words, kh * kw, kw, oh, ow, h, w, *strides, *dilations,
            pads[0], pads[2]]
    k.add(Step(_program("im2col", [t], t, T=t, width=t), meta, grid_for(rows * kh * kw),
               (x_ref, ref)))
    return ref


def _channel_words(c):
    """(WGSL type, count) of the channel run of one pixel: vec4s when C allows."""
    return ("vec4<f32>", c // 4) if c % 4 == 0 else ("f32", c)


def _direct(c, oc):
    """Whether conv2d and its filter gradient skip im2col: few input channels (C % 4:
    scalar patch copies, a product K not a multiple of 4) into OC % 4 == 0."""
    return c % 4 != 0 and oc % 4 == 0


def _conv_direct(k, x_shape, w_shape, out_shape, strides, dilations, pads, epilogue):
    """conv2d_direct.wgsl: R output pixels of a row x four channels per invocation."""
    n, h, w, c = x_shape
    kh, kw, _, oc = w_shape
    _, oh, ow, _ = out_shape
    r = DIRECT_PIXELS
    total = n * oh * -(-ow // r) * (oc // 4)
    rs = range(r)
    fields = dict(
        R=r, acc_decl="\n  ".join(f"var acc{j} = vec4<f32>();" for j in rs),
        columns="\n      ".join(f"let ok{j} = x0 + {j} * sw >= 0 && x0 + {j} * sw < W; "
                                f"let xi{j} = (row + clamp(x0 + {j} * sw, 0, W - 1)) * C;"
                                for j in rs),
        accumulate="\n        ".join(f"acc{j} = acc{j} + w * select(0.0, in0[xi{j} + c], "
                                     f"ok{j});" for j in rs),
        store="\n  ".join(f"if (ox0 + {j} < OW) {{ let o{j} = ((nb * OH + oy) * OW + ox0 + "
                          f"{j}) * CO4 + co; out0[o{j}] = epilogue4(acc{j}, o{j}); }}"
                          for j in rs))
    key = ("conv2d_direct", r, epilogue and epilogue.key)
    if key not in _programs:
        types = ["f32", "vec4<f32>"] + ([] if epilogue is None else epilogue.types)
        _programs[key] = Program(key, len(types), 1, lambda: header(
            types, ["vec4<f32>"], "\n" + epilogues.source(epilogue, 16)) + render(
                "conv2d_direct.wgsl", builtins=GLOBAL_INDEX, index=global_index(), **fields))
    meta = [total, oc // 4, -(-ow // r), oh, ow, h, w, c, kh, kw, *strides, *dilations,
            pads[0], pads[2]] + ([] if epilogue is None else epilogue.meta)
    refs = (0, 1, *([] if epilogue is None else epilogue.refs), k.out)
    k.add(Step(_programs[key], meta, grid_for(total), refs))


def _filter_direct(k, x_shape, dy_shape, filter_shape, strides, dilations, pads):
    """conv2d_filter_direct.wgsl's partial sums over parts of the window rows, then
    sum_parts.wgsl adding them (one part: straight into the output)."""
    n, h, w, c = x_shape
    kh, kw, _, oc = filter_shape
    _, oh, ow, _ = dy_shape
    rows, f, co4 = n * oh, kh * kw * c, oc // 4
    per, parts = row_parts(rows, ow, FILTER_PART, MAX_FILTER_PARTS)
    total = parts * f * co4
    dst = k.out if parts == 1 else k.temp(16 * total)
    meta = [total, co4, f, oh, ow, h, w, c, kw, *strides, *dilations, pads[0], pads[2], rows,
            per]
    k.add(Step(_program("conv2d_filter_direct", ["f32", "vec4<f32>"], "vec4<f32>"), meta,
               grid_for(total), (0, 1, dst)))
    if parts > 1:
        k.add(Step(sum_parts_program("f32"), [f * co4, parts], grid_for(f * co4),
                   (dst, k.out)))


@kernel("conv2d", "wgsl")
def conv2d(k, *inputs, strides, dilations, pads, program=None):
    x, w, *extras = inputs
    kh, kw, c, oc = w.shape
    rows, cols = size_of(k.out_shape[:3]), kh * kw * c
    epilogue = None if program is None else epilogue_of(program, extras, k.out_shape)
    if _direct(c, oc):
        _conv_direct(k, x.shape, w.shape, k.out_shape, strides, dilations, pads, epilogue)
        return k.recipe()
    patches = _patches(k, 0, x.shape, (kh, kw), k.out_shape[1:3], strides, dilations, pads)
    matmul_steps(k.backend, k, Operand((rows, cols), "float32", patches),
                 Operand((cols, oc), "float32", 1), (rows, oc), "float32", epilogue=epilogue)
    return k.recipe()


kernel("conv2d_epilogue", "wgsl")(conv2d)  # the product through an epilogue (matmul's)


@kernel("conv2d_backprop_filter", "wgsl")
def conv2d_backprop_filter(k, *inputs, strides, dilations, pads,
                           filter_shape):
    x, dy = inputs
    kh, kw, c, oc = filter_shape
    rows, cols = size_of(dy.shape[:3]), kh * kw * c
    if _direct(c, oc):
        _filter_direct(k, x.shape, dy.shape, filter_shape, strides, dilations, pads)
        return k.recipe()
    patches = _patches(k, 0, x.shape, (kh, kw), dy.shape[1:3], strides, dilations, pads)
    matmul_steps(k.backend, k, Operand((rows, cols), "float32", patches),
                 Operand((rows, oc), "float32", 1), (cols, oc), "float32", transpose_a=True)
    return k.recipe()


@kernel("conv2d_backprop_input", "wgsl")
def conv2d_backprop_input(k, *inputs, strides, dilations, pads,
                          input_shape):
    dy, w = inputs
    kh, kw, c, oc = w.shape
    n, h, wd, _ = input_shape
    _, oh, ow, _ = dy.shape
    rows, cols = n * oh * ow, kh * kw * c
    pointwise = _is_pointwise((kh, kw), strides, dilations, pads)
    # dcols = dy @ filter^T: the gradient of each patch entry
    dcols = k.out if pointwise else k.temp(4 * rows * cols)
    matmul_steps(k.backend, k, Operand((rows, oc), "float32", 0),
                 Operand((cols, oc), "float32", 1), (rows, cols), "float32", transpose_b=True,
                 out_ref=dcols)
    if not pointwise:
        t, c_words = _channel_words(c)
        total = n * h * wd * c_words
        meta = [total, h, wd, c_words, oh, ow, kh, kw, *strides, *dilations, pads[0],
                pads[2], cols * c_words // c]
        k.add(Step(_program("col2im", [t], t, T=t, width=t), meta, grid_for(total),
                   (dcols, k.out)))
    return k.recipe()


# -- pooling -----------------------------------------------------------------------------

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


def _pool_step(kind, src, dst, x_shape, out_hw, ksize, strides, pads):
    n, h, w, c = x_shape
    if kind in _POOLS4 and c % 4 == 0:
        c //= 4
        init, update, result = _POOLS4[kind]
        program = _program(f"pool:{kind}4", ["vec4<f32>"], "vec4<f32>", what=kind,
                           init=init, update=update, result=result, nan=_NAN["vec4<f32>"])
    else:
        init, update, result = _POOLS[kind]
        program = _program(f"pool:{kind}", ["f32"], "i32" if kind == "argmax" else "f32",
                           what=kind, init=init, update=update, result=result, nan="")
    total = n * out_hw[0] * out_hw[1] * c
    meta = [total, *out_hw, c, h, w, *ksize, *strides, pads[0], pads[2]]
    return Step(program, meta, grid_for(total), (src, dst))


def _pool_grad_step(kind, srcs, dst, x_shape, out_hw, ksize, strides, pads):
    if kind == "max":  # dy (in0) goes to where the window's first maximum (in1) was
        in_types, contribution = ["f32", "i32"], "if (in1[o] == i) { acc = acc + in0[o]; }"
    else:  # dy (in0) shared by the in-image positions of each window
        in_types, contribution = ["f32"], (
            "let y0 = oy * sh - pt; let x0 = ox * sw - pl;\n"
            "      let cnt = (min(y0 + KH, H) - max(y0, 0)) * (min(x0 + KW, W) - max(x0, 0));\n"
            "      acc = acc + in0[o] / f32(cnt);")
    program = _program(f"pool_grad:{kind}", in_types, "f32", what=kind,
                       contribution=contribution)
    total = size_of(x_shape)
    meta = [total, *x_shape[1:], *out_hw, *ksize, *strides, pads[0], pads[2]]
    return Step(program, meta, grid_for(total), (*srcs, dst))


def _pool_kernel(kind):
    def plan(k, *inputs, ksize, strides, pads):
        k.add(_pool_step(kind, 0, k.out, inputs[0].shape, k.out_shape[1:3], ksize, strides,
                         pads))
        return k.recipe()
    kernel(f"{kind}_pool", "wgsl")(plan)


_pool_kernel("max")
_pool_kernel("avg")


# NaN tests of pool_grad_tiles.wgsl's scalar and vec4 variants
_NAN = {"f32": "fn nan(x: f32) -> bool { return is_nan_f32(x); }",
        "vec4<f32>": "fn nan(x: vec4<f32>) -> vec4<bool> {\n"
                     "  return (bitcast<vec4<u32>>(x) & vec4<u32>(0x7fffffffu)) > "
                     "vec4<u32>(0x7f800000u);\n}"}


def _tiles_grad(x_shape, out_hw, ksize, dst):
    """max_pool_grad in one pass where the windows tile the image (pool_grad_tiles.wgsl)."""
    n, h, w, c = x_shape
    t, words = _channel_words(c)
    tiles = (-(-h // ksize[0]), -(-w // ksize[1]))
    total = n * tiles[0] * tiles[1] * words
    program = _program("pool_grad_tiles", [t, t], t, T=t, width=t, nan=_NAN[t],
                       I="i32" if t == "f32" else "vec4<i32>")
    meta = [total, words, tiles[1], tiles[0], h, w, *ksize, *out_hw]
    return Step(program, meta, grid_for(total), (0, 1, dst))


@kernel("max_pool_grad", "wgsl")
def max_pool_grad(k, *inputs, ksize, strides, pads):
    x, dy = inputs
    if windows_tile(ksize, strides, pads):
        k.add(_tiles_grad(x.shape, dy.shape[1:3], ksize, k.out))
        return k.recipe()
    first = k.temp(4 * dy.size)
    k.add(_pool_step("argmax", 0, first, x.shape, dy.shape[1:3], ksize, strides, pads))
    k.add(_pool_grad_step("max", (1, first), k.out, x.shape, dy.shape[1:3], ksize, strides,
                          pads))
    return k.recipe()


@kernel("max_pool_taps", "wgsl")
def max_pool_taps(k, x, ksize, strides, pads, output_index=None):
    """The pooled values (output 0) and, as WGSL's max_pool_grad records them, the index
    into x of each window's first maximum (output 1): two passes, as eagerly."""
    out_hw = k.out_shape[1:3]
    k.add(_pool_step("max", 0, k.out, x.shape, out_hw, ksize, strides, pads))
    k.add(_pool_step("argmax", 0, k.out + 1, x.shape, out_hw, ksize, strides, pads))
    return k.recipe()


@kernel("conv2d_pool", "wgsl")
def conv2d_pool(k, *inputs, program, strides, dilations, pads, conv_shape, ksize,
                pool_strides, pool_pads, pooled_shape, output_index=None):
    """The convolution (through its epilogue) into a temporary, then max_pool_taps's
    two passes: eager's kernels."""
    h = k.inline(conv2d, inputs, conv_shape, strides=strides, dilations=dilations,
                 pads=pads, program=program)
    k.add(_pool_step("max", h, k.out, conv_shape, pooled_shape[1:3], ksize, pool_strides,
                     pool_pads))
    k.add(_pool_step("argmax", h, k.out + 1, conv_shape, pooled_shape[1:3], ksize,
                     pool_strides, pool_pads))
    return k.recipe()


@kernel("max_pool_grad_taps", "wgsl")
def max_pool_grad_taps(k, taps, dy, ksize, strides, pads, input_shape):
    k.add(_pool_grad_step("max", (1, 0), k.out, input_shape, dy.shape[1:3], ksize, strides,
                          pads))
    return k.recipe()


@kernel("avg_pool_grad", "wgsl")
def avg_pool_grad(k, *inputs, ksize, strides, pads, input_shape):
    dy = inputs[0]
    k.add(_pool_grad_step("avg", (0,), k.out, input_shape, dy.shape[1:3], ksize, strides,
                          pads))
    return k.recipe()
