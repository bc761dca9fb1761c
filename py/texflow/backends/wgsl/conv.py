"""WGSL kernels of convolution (NHWC images, HWIO filters; pooling: pool.py).

conv2d is im2col (shaders/wgsl/im2col.wgsl) followed by the matmul kernels:
the [N*OH*OW, KH*KW*C] patch matrix times the filter seen as [KH*KW*C, OC]
gives the NHWC output directly, so convolutions run at matmul speed. Its
gradients are matmuls too: the filter's is patches^T @ dy; the input's is
dy @ filter^T, folded back onto the image by col2im.wgsl. For few input channels
(`_direct`) conv2d_direct.wgsl and conv2d_filter_direct.wgsl skip im2col.
"""

from ..base import kernel
from ..layout import row_parts, windows_tile
from . import epilogue as epilogues
from .matmul import Operand, epilogue_of, matmul_steps, sum_parts_program
from .program import (GLOBAL_INDEX, Program, Step, global_index, grid_for, header,
                      nest_loops, part_steps, render, size_of, tap_parts, window_fields,
                      within_budget)

_programs = {}
DIRECT_PIXELS = 4        # output pixels per invocation of conv2d_direct.wgsl
# conv2d_filter_direct.wgsl: about how many window pixels each part adds up, most parts
FILTER_PART = 512
MAX_FILTER_PARTS = 256


def cached_program(name, in_types, out_type, **fields):
    """Shader `name` (the part before any `:`) with `fields` filled in, one Program per
    name and fields; `out_type` a tuple for several outputs."""
    key = (name, tuple(sorted(fields.items())))
    outs = out_type if isinstance(out_type, tuple) else (out_type,)
    if key not in _programs:
        shader = name.split(":")[0] + ".wgsl"
        _programs[key] = Program(key, len(in_types), len(outs), lambda: header(
            in_types, list(outs)) + render(shader, builtins=GLOBAL_INDEX,
                                           index=global_index(), **fields))
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
    t, c_words = channel_words(c)
    budget = k.backend.LOOP_BUDGET
    q = 1 if budget is None else -(-c_words // budget)  # invocations a pixel
    ref = k.temp(4 * rows * cols)
    total = rows * kh * kw * q
    meta = [total, c_words, kh * kw, kw, oh, ow, h, w, *strides, *dilations, pads[0], pads[2],
            q, -(-c_words // q)]
    if q == 1:
        fields = dict(part="let pk = i;", c0="0", c1="C")
    else:  # pixel pk's channels [q * CC, (q + 1) * CC)
        fields = dict(part="let Q = params[14]; let CC = params[15]; let q = i % Q; "
                           "let pk = i / Q;", c0="q * CC", c1="min(C, (q + 1) * CC)")
    k.add(Step(cached_program("im2col", [t], t, T=t, width=t, **fields), meta,
               grid_for(total), (x_ref, ref)))
    return ref


def channel_words(c):
    """(WGSL type, count) of the channel run of one pixel: vec4s when C allows."""
    return ("vec4<f32>", c // 4) if c % 4 == 0 else ("f32", c)


def direct(c, oc, be=None, loops=0):
    """Whether conv2d and its filter gradient skip im2col: few input channels (C % 4:
    scalar patch copies, a product K not a multiple of 4) into OC % 4 == 0, and the
    kernel's `loops` per invocation within `be`'s LOOP_BUDGET (else im2col and the
    product, which splits its K)."""
    return c % 4 != 0 and oc % 4 == 0 and (be is None or within_budget(be, loops))


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
    budget = k.backend.LOOP_BUDGET
    if budget is not None and nest_loops((per, ow), per * ow) > budget:  # fewer rows a part
        per = (budget - 1) // (ow + 2)
        parts = -(-rows // per)
    total = parts * f * co4
    dst = k.out if parts == 1 else k.temp(16 * total)
    meta = [total, co4, f, oh, ow, h, w, c, kw, *strides, *dilations, pads[0], pads[2], rows,
            per]
    k.add(Step(cached_program("conv2d_filter_direct", ["f32", "vec4<f32>"], "vec4<f32>"),
               meta, grid_for(total), (0, 1, dst)))
    if parts > 1:
        k.add(Step(sum_parts_program("f32"), [f * co4, parts], grid_for(f * co4),
                   (dst, k.out)))


@kernel("conv2d", "wgsl")
def conv2d(k, *inputs, strides, dilations, pads, program=None):
    x, w, *extras = inputs
    kh, kw, c, oc = w.shape
    rows, cols = size_of(k.out_shape[:3]), kh * kw * c
    epilogue = None if program is None else epilogue_of(program, extras, k.out_shape)
    if direct(c, oc, k.backend, nest_loops((kh, kw, c), kh * kw * c)):
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
    if direct(c, oc, k.backend, nest_loops((1, dy.shape[2]), dy.shape[2])):  # a row a part
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
    if not pointwise:  # past the loop budget, a dispatch per range of the window's taps
        parts = tap_parts(k.backend, (kh, kw))
        t, c_words = channel_words(c)
        total = n * h * wd * c_words
        meta = [total, h, wd, c_words, oh, ow, kh, kw, *strides, *dilations, pads[0],
                pads[2], cols * c_words // c]
        loops = window_fields(parts, 15, (("ky", "KH"), ("kx", "KW")), "acc = out0[i];")
        for step in part_steps(cached_program("col2im", [t], t, T=t, width=t, **loops), meta,
                               grid_for(total), (dcols, k.out), parts):
            k.add(step)
    return k.recipe()
