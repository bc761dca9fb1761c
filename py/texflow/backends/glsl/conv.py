"""GLSL kernels of convolution (NHWC images, HWIO filters).

Every program here shares one window geometry (window.glsl: image and grid
shapes, window size, strides, dilations, top/left pads, all uniforms), so a
program is compiled once per variant and reused for every shape. Fetches are
what costs on SwiftShader (and bandwidth on real GPUs), so the fast paths make
each fetched texel serve as many outputs as they can:

- conv2d with CO % 4 == 0 (conv2d_block.frag): channels are innermost in NHWC,
  so four output channels of a pixel are one texel and a filter row's four
  channels one filter texel. A fragment computes R such texels of one pixel
  into R render targets, so each x value (or, with CI % 4 == 0, each x texel
  against four filter texels per target) serves R filter texels; a second pass
  (conv2d_unblock.frag) interleaves the targets. R is 1 (no second pass) for
  small outputs. One input channel (a grayscale first layer) blocks pixels
  instead (conv2d_px_block.frag): a fragment computes one channel texel of 4 to 8
  neighbouring pixels of a row, so each filter texel and the row's x values serve
  them all (MNIST's first layer: a fifth less GPU time than blocking channels).
  Any other CO: lane by lane (conv2d.frag).
- conv2d_backprop_input, max_pool_grad, avg_pool_grad (window_grad.frag): the
  window ops run backwards as gathers, with no atomics: each image element
  visits the windows that cover it (found by division; the taps that reach it
  are a fixed step apart) and adds their terms (window_grad_<variant>.glsl);
  with CI % 4 == 0 and CO % 4 == 0 four input channels per fragment, from one
  dy texel and four filter texels per four output channels. One input channel
  at stride 1 (a grayscale first layer) has its own program,
  conv2d_backprop_input_px.frag, whose four lanes share filter texels.
- conv2d_backprop_filter: a reduction over the N x OH x OW window pixels, cut
  into parts of about FILTER_PART pixels (within MAX_FILTER_PARTS parts and
  MAX_PARTIAL_SUMS sums), so that no fragment loops over a whole batch and a
  real GPU has many fragments. The first pass writes [parts, filter] partial
  sums (for CO % 4 == 0 blocked into render targets like conv2d, each x value
  serving R dy texels), the second adds the parts.
- pooling: glsl/pool.py.
"""

import math

from ... import dtypes
from ...resources import shader
from ..base import kernel
from ..layout import row_parts
from . import epilogue as epilogues
from .program import fill, head
from .reduce import reduce_into

# Below this many outputs the one-texel conv2d is as fast as the blocked one, which
# costs a second pass (a draw costs tens of microseconds on SwiftShader).
BLOCK_MIN_OUTPUTS = 16384
# conv2d_backprop_filter's first pass: about how many window pixels each part adds
# up, the most parts, and the most partial sums (elements) of all parts together.
FILTER_PART = 512
MAX_FILTER_PARTS = 256
MAX_PARTIAL_SUMS = 1 << 22


def _geometry(image, grid, window, strides, pads, dilations=(1, 1)):
    """The window.glsl uniforms: image and grid NHWC shapes, window, strides, pads."""
    return {"uImage": list(image), "uGrid": list(grid), "uWin": list(window),
            "uStride": list(strides), "uDil": list(dilations), "uPad": [pads[0], pads[2]]}


def _source(name, in_types, out_type, num_outputs=1, **values):
    """Source of shader `name` with the program head and the window geometry."""
    return fill(name, head=head(in_types, out_type, num_outputs),
                window=shader("glsl", "window.glsl"), **values)


def _lanes(fn, vec, t4="vec4"):
    """The output texel from `fn(o)`: one call for a whole texel, or four lanes."""
    return f"{fn}(o)" if vec else f"{t4}({fn}(o), {fn}(o + 1), {fn}(o + 2), {fn}(o + 3))"


def _block_rows(cout, max_rows):
    """Channel texels per fragment of the blocked passes: the largest divisor of
    CO / 4 up to the render-target limit."""
    cb = cout // 4
    return max(r for r in range(1, min(cb, max_rows) + 1) if cb % r == 0)


def _select(index, count, body):
    """An if/else chain running `body` (with {r} the target) for target `index` of
    `count`: a quad whose lanes agree runs one branch (SwiftShader skips the others)."""
    return "\n".join(f"  {'' if r == 0 else 'else '}"
                     f"{f'if ({index} == {r}) ' if r < count - 1 else ''}{body.format(r=r)}"
                     for r in range(count))


def _unblock(b, targets, cb, blocks, parts=1, part_step=0, epilogue=None, out=None):
    """Records conv2d_unblock.frag: the blocked targets' texels, summed over `parts`,
    into `out` (b.out by default) in order (through Epilogue `epilogue`)."""
    rows = len(targets)
    extra = [] if epilogue is None else epilogue.textures

    def source():
        if parts == 1:
            body = "acc = texel{r}(i);"
        else:
            body = ("{{\n    for (int s = 0; s < uParts; s++) {{\n      acc += texel{r}(i);\n"
                    "      i += uPartStep;\n    }}\n  }}")
        select = _select("r", rows, body)
        return fill("conv2d_unblock.frag", head=head(["float"] * rows + [e.type for e in extra],
                                                     "float"),
                    select=select, epilogue=epilogues.source(epilogue))
    b.launch(("conv2d_unblock", rows, parts == 1, epilogue and epilogue.key), source,
             out or b.out,
             targets + extra, dict(epilogue.uniforms if epilogue else {}, uCb=cb,
                                   uBlocks=blocks, uParts=parts, uPartStep=part_step))


# -- conv2d ------------------------------------------------------------------------------

@kernel("conv2d", "glsl")
def conv2d(b, x, w, strides, dilations, pads):
    _conv2d(b, x, w, strides, dilations, pads, None)


@kernel("conv2d_epilogue", "glsl")
def conv2d_epilogue(b, x, w, *extras, program, strides, dilations, pads):
    _conv2d(b, x, w, strides, dilations, pads, (program, extras))


def _conv2d(b, x, w, strides, dilations, pads, epilogue, out=None):
    """conv2d into `out` (b.out by default); `epilogue`, when given, is (FusedProgram,
    its extra Args), applied by the pass writing the output (ops/epilogue.py)."""
    out = out or b.out
    geometry = _geometry(x.shape, out.shape, w.shape[:2], strides, pads, dilations)
    cin, cout = x.shape[3], w.shape[3]
    if cout % 4:
        fused = _epilogue(out, epilogue, 2)

        def source():
            return _source("conv2d.frag", ["float", "float"] + _types(fused), "float",
                           epilogue=epilogues.source(fused))
        b.launch(("conv2d", fused and fused.key), source, out, [x, w] + _textures(fused),
                 dict(geometry, **_uniforms(fused)))
        return
    cb = cout // 4
    if cin == 1 and out.size >= BLOCK_MIN_OUTPUTS and b.backend.max_draw_buffers >= 4:
        _conv2d_px(b, x, w, strides, dilations, geometry, epilogue, out)
        return
    # blocking costs a second pass: worth it only for large outputs
    rows = 1
    if out.size >= BLOCK_MIN_OUTPUTS:
        rows = _block_rows(cout, b.backend.max_draw_buffers)
    blocks = cb // rows
    targets = [out] if rows == 1 else [
        b.temp((out.size // rows,), dtypes.float32) for _ in range(rows)]
    variant = "ci4" if cin % 4 == 0 else ("ci1" if cin == 1 else "cin")
    fused = _epilogue(out, epilogue, 2 if rows == 1 else rows)
    here = fused if rows == 1 else None  # the epilogue in this pass, or in the unblocking

    def source():
        rs = range(rows)
        if variant == "ci4":  # one x texel against four filter texels per target
            inner = ("      for (int c = 0, t = wt; c < cin; c += 4, t += cb << 2) {\n"
                     "        vec4 xv = texel0((xi + c) >> 2);\n" + "\n".join(
                         f"        acc{r} += rows4(xv, t + {r} * uBlocks, cb);" for r in rs)
                     + "\n      }")
        elif variant == "ci1":  # no loop over one channel: it costs a third here
            inner = "      float xv = get0(xi);\n" + "\n".join(
                f"      acc{r} += xv * texel1(wt + {r} * uBlocks);" for r in rs)
        else:
            inner = ("      for (int c = 0, t = wt; c < cin; c++, t += cb) {\n"
                     "        float xv = get0(xi + c);\n" + "\n".join(
                         f"        acc{r} += xv * texel1(t + {r} * uBlocks);" for r in rs)
                     + "\n      }")
        return _source("conv2d_block.frag", ["float", "float"] + _types(here), "float", rows,
                       R=rows, inner=inner, write=_write(rows, "epilogue(acc0)"),
                       acc_decl="\n".join(f"  vec4 acc{r} = vec4(0);" for r in rs),
                       epilogue=epilogues.source(here))
    b.launch(("conv2d_block", rows, variant, here and here.key), source, targets,
             [x, w] + _textures(here), dict(geometry, uBlocks=blocks, **_uniforms(here)))
    if rows > 1:
        _unblock(b, targets, cb, blocks, epilogue=fused, out=out)


def _pixels_per_fragment(ow, kw, sx, dx, most, aligned):
    """Pixels per fragment of conv2d_px_block.frag for output rows of `ow` pixels: the
    count (4 to `most`) with the fewest fetches per output row, (groups) x (x fetches +
    filter texels per tap row), the last group's pixels past the row being wasted work.
    `aligned`: x rows start on texels, so a count making each group start on one too
    reads x four values per fetch."""
    def cost(p):
        span = (p - 1) * sx + (kw - 1) * dx + 1
        texels = aligned and p * sx % 4 == 0
        return -(-ow // p) * ((span + 3) // 4 + 1 if texels else span) + kw, -p
    return min(range(4, most + 1), key=cost)


def _conv2d_px(b, x, w, strides, dilations, geometry, epilogue, out):
    """conv2d of one input channel (CO % 4 == 0), pixels blocked into render targets
    (conv2d_px_block.frag), then put in order (conv2d_px_unblock.frag)."""
    n, oh, ow, cout = out.shape
    kw, sx, dx = w.shape[1], strides[1], dilations[1]
    # x rows (and, with these pads, each group's first value) start on texels
    aligned = x.shape[2] % 4 == 0 and geometry["uPad"][1] % 4 == 0
    pixels = _pixels_per_fragment(ow, kw, sx, dx, b.backend.max_draw_buffers, aligned)
    aligned = aligned and pixels * sx % 4 == 0
    groups = -(-ow // pixels)
    targets = [b.temp((n * oh * groups * cout,), dtypes.float32) for _ in range(pixels)]
    # x value j of the tap row is at ix0 + j; pixel p's tap kx reads value p * sx + kx * dx
    used = sorted({p * sx + kx * dx for p in range(pixels) for kx in range(kw)})

    def source():
        load = []
        if aligned:  # four values per fetch; past the image: masked, inside the array
            load.append("    int xt = (base + ix0) >> 2;")
            load += [f"    vec4 xt{i} = texel0(clamp(xt + {i}, 0, uXLast));"
                     for i in range(used[-1] // 4 + 1)]
        for j in used:
            value = (f"xt{j // 4}.{'xyzw'[j % 4]}" if aligned
                     else f"get0(base + clamp(ix{j}, 0, w - 1))")
            load.append(f"    int ix{j} = ix0 + {j};\n    float x{j} = {value};\n"
                        f"    bool in{j} = all(bvec3(row_in, ix{j} >= 0, ix{j} < w));")
        acc = []
        for kx in range(kw):
            acc.append(f"    vec4 w{kx} = texel1(wt + {kx} * cb);")
            for p in range(pixels):
                j = p * sx + kx * dx
                acc.append(f"    acc{p} += in{j} ? x{j} * w{kx} : vec4(0);")
        return _source("conv2d_px_block.frag", ["float", "float"], "float", pixels,
                       P=pixels, SX=sx, KW=kw, load_x="\n".join(load),
                       accumulate="\n".join(acc), write=_write(pixels, ""),
                       acc_decl="\n".join(f"  vec4 acc{p} = vec4(0);" for p in range(pixels)))
    b.launch(("conv2d_px_block", pixels, sx, kw, dx, aligned), source, targets, [x, w],
             dict(geometry, uGroups=groups, uXLast=(x.size + 3) // 4 - 1))
    fused = _epilogue(out, epilogue, pixels)

    def unblock_source():
        select = _select("p", pixels, "acc = texel{r}(i);")
        return fill("conv2d_px_unblock.frag", head=head(["float"] * pixels + _types(fused),
                                                          "float"),
                    P=pixels, select=select, epilogue=epilogues.source(fused))
    b.launch(("conv2d_px_unblock", pixels, fused and fused.key), unblock_source, out,
             targets + _textures(fused),
             dict(_uniforms(fused), uGrid=list(out.shape), uGroups=groups))


def _epilogue(out, epilogue, first):
    return None if epilogue is None else epilogues.Epilogue(out, epilogue[1], epilogue[0],
                                                            first)


def _types(epilogue):
    return [] if epilogue is None else [e.type for e in epilogue.textures]


def _textures(epilogue):
    return [] if epilogue is None else list(epilogue.textures)


def _uniforms(epilogue):
    return {} if epilogue is None else epilogue.uniforms


def _write(rows, single):
    """The writes of accumulators acc0.. into `rows` render targets; `single`: the value
    written by a pass with one target."""
    if rows == 1:
        return f"  outValue = {single};"
    return "\n".join(f"  outValue{r} = acc{r};" for r in range(rows))


# -- the gathers: conv2d_backprop_input, max_pool_grad, avg_pool_grad ------------------

def _window_grad(b, inputs, variant, vec, geometry):
    """Records window_grad.frag with the term window_grad_<variant>.glsl."""
    strides, dils = geometry["uStride"], geometry["uDil"]
    # the taps reaching one image position are s / gcd(s, d) apart
    steps = [s // math.gcd(s, d) for s, d in zip(strides, dils)]
    geometry = dict(geometry, uTapStep=steps,
                    uGridStep=[t * d // s for t, s, d in zip(steps, strides, dils)])
    in_types = ["float", "int"] if variant == "max" else ["float"] * len(inputs)

    def source():
        fetch = "texel{j}(gi >> 2)" if vec else "get{j}(gi)"
        body = fill(f"window_grad_{variant}.glsl", fetch0=fetch.format(j=0),
                    fetch1=fetch.format(j=1))
        return _source("window_grad.frag", in_types, "float", V="vec4" if vec else "float",
                       body=body.rstrip(), result=_lanes("grad", vec))
    b.launch(("window_grad", variant, vec), source, b.out, inputs, geometry)


@kernel("conv2d_backprop_input", "glsl")
def conv2d_backprop_input(b, dy, w, strides, dilations, pads, input_shape):
    cin, cout = input_shape[3], dy.shape[3]
    geometry = _geometry(input_shape, dy.shape, w.shape[:2], strides, pads, dilations)
    if cin == 1 and cout % 4 == 0 and tuple(strides) == (1, 1):
        def source():
            return _source("conv2d_backprop_input_px.frag", ["float", "float"], "float")
        b.launch(("conv2d_backprop_input_px",), source, b.out, [dy, w], geometry)
    elif cout % 4:
        _window_grad(b, [dy, w], "conv_lane", False, geometry)
    elif cin % 4:
        _window_grad(b, [dy, w], "conv_co4", False, geometry)
    else:
        _window_grad(b, [dy, w], "conv_vec", True, geometry)


# -- conv2d_backprop_filter ---------------------------------------------------------------

@kernel("conv2d_backprop_filter", "glsl")
def conv2d_backprop_filter(b, x, dy, strides, dilations, pads, filter_shape):
    rows = dy.shape[0] * dy.shape[1]
    # parts of whole rows of OW window pixels; a large filter has fewer parts (it has
    # fragments enough) so that the partial sums stay small
    per, parts = row_parts(rows, dy.shape[2], FILTER_PART,
                           min(MAX_FILTER_PARTS, max(1, MAX_PARTIAL_SUMS // b.out.size)))
    geometry = dict(_geometry(x.shape, dy.shape, filter_shape[:2], strides, pads, dilations),
                    uRows=per)
    if filter_shape[3] % 4 == 0:
        _filter_blocked(b, x, dy, filter_shape, parts, geometry)
        return
    dst = b.out if parts == 1 else b.temp((parts, b.out.size), dtypes.float32)

    def source():
        return _source("conv2d_backprop_filter.frag", ["float", "float"], "float")
    b.launch(("conv2d_backprop_filter",), source, dst, [x, dy], geometry)
    if parts > 1:
        reduce_into(b, dst, (0,), "sum")


def _filter_blocked(b, x, dy, filter_shape, parts, geometry):
    cb = filter_shape[3] // 4
    rows = _block_rows(filter_shape[3], b.backend.max_draw_buffers)
    blocks = cb // rows
    k = b.out.size // filter_shape[3]  # filter rows (ky, kx, ci)
    direct = rows == 1 and parts == 1
    targets = [b.out] if direct else [
        b.temp((parts * k * blocks * 4,), dtypes.float32) for _ in range(rows)]

    def source():
        rs = range(rows)
        return _source("conv2d_backprop_filter_block.frag", ["float", "float"], "float", rows,
                       R=rows, acc_decl="\n".join(f"  vec4 acc{r} = vec4(0);" for r in rs),
                       accumulate="\n".join(f"      acc{r} += xv * texel1(dt + {r} * uBlocks);"
                                            for r in rs),
                       write=_write(rows, "acc0"))
    b.launch(("conv2d_backprop_filter_block", rows), source, targets, [x, dy],
             dict(geometry, uBlocks=blocks))
    if not direct:
        _unblock(b, targets, cb, blocks, parts, k * blocks)
