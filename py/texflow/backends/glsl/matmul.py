"""GLSL kernel of matmul: batched, batch dimensions broadcast.

Paths, by shape (K the inner dimension):
- blocked (K, N multiples of 4, M >= the render-target count, enough work): a
  fragment computes a block of R rows x 4 columns into R render targets (R is
  4 to 8, WebGL's draw-buffer limit): per four k, R texels of A and 4 of B feed
  16 R multiply-adds. Measured on SwiftShader this more than halves the time
  of the one-texel path, fetches being the cost, even for an output of a few
  thousand elements when K is long; a second pass interleaves the R targets
  into C's flat layout. Its loop fetches by float texel index through texture()
  (`texelf`, sampler.glsl), which SwiftShader runs in about two thirds of a
  texelFetch's time (nearest filtering, one level: the same texel, exactly), so
  its operands and C stay below 2^24 texels (else the rows path).
- rows (K, N multiples of 4, little work): the fragment's own texel C[i, j..j+3]
  from one texel of A's row and four of B per four k (16 multiply-adds, 5
  fetches).
- rows_strided (N a multiple of 4, K not or A transposed, little work): the same
  texel from one element of A (any strides) and one texel of B per k: no
  transpose pass for A, a quarter of the general path's fetches.
- dot (K a multiple of 4): each lane is a dot product of a row of A and a row
  of B^T, four k per fetch.
- general: each lane walks its row and column one element at a time, with
  strides that absorb both transposes.
The fast paths read A along rows (and dot B^T along rows): a transposed operand
is first materialised by a transpose pass (O(MK)), except that rows_strided
reads A in any order, a product with A transposed and N % 4 != 0, M % 4 == 0 is
computed as C^T = B^T A (rows along M, A read along rows, one transpose of C
instead of two of the operands: the MLP's h^T @ dy, N = 10), and the blocked path
reads a transposed A ([K, M], M % 4 == 0) in place when N is small, where that
pass would cost more than the matmul gains: a texel of A^T holds four rows at
one k, so blocks of a multiple of 4 rows read whole texels (6 render targets,
SwiftShader's, block 4 rows: a 6-row block would straddle texels).

Split-K. An output of a few fragments, each running a long serial loop, leaves
SwiftShader's threads idle (a single fragment runs on one core). Any path then
splits K into chunks computed side by side into partial products [batch,
chunks, M, N] that a second pass adds up: the blocked path's interleaving pass,
or a sum reduction (reduce.py) for the others. `split_k` is the cost rule.
"""

from ..base import kernel
from ..layout import broadcast_strides, collapse
from . import epilogue as epilogues
from .elementwise import map_launch
from .fused import fused_elementwise_multi, tree_body
from .movement import transpose_into
from .program import fill, head, vec4_type
from .reduce import reduce_into

# Below this many multiply-adds per launch the blocked path's second pass (a draw
# costs tens of microseconds on SwiftShader) outweighs its cheaper loop; above it,
# the blocked path wins whatever the output size (measured: [64, 784] x [784, 128],
# 8192 outputs, in less than half the one-texel path's time).
BLOCK_MIN_MACS = 1 << 18
# The widest C for which the blocked path reads a transposed A in place. The
# transpose pass costs O(MK) and 4-row blocks fetch 20% more per multiply-add than
# 6-row ones, so past about this N the pass pays for itself (measured).
IN_PLACE_MAX_N = 256
# Split-K: chunks are added while a launch has fewer fragments than SPLIT_FRAGMENTS,
# and each fragment keeps at least SPLIT_MIN_FETCHES texel fetches per chunk.
SPLIT_FRAGMENTS = 256
SPLIT_MIN_FETCHES = 2048
# The blocked path indexes texels by float (texelf, sampler.glsl): exact below 2^24.
FLOAT_INDEX_LIMIT = 4 << 24
# The blocked loop's body is repeated this many times per iteration: SwiftShader's loop
# bookkeeping per iteration (the lanes' mask, the counter) cost x @ W1's pass 15-20%
# more unrolled by 1 than by 4, 8 no better than 4 (x^T dh, 16 steps, 3-9%)
UNROLL = 4

# The chunk of a split program's fragment: its batch and range of k.
_CHUNK = """  int bi = q / uChunks;
  int s = q - bi * uChunks;
  kr = ivec2(s * uKc, min(uK, (s + 1) * uKc));"""


def split_k(fragments, k, fetches_per_k, align):
    """(chunks, k per chunk) for a launch of `fragments` fragments over `k`, each
    fetching `fetches_per_k` texels per k.

    The chunk length is a multiple of `align` (4 on the texel paths), and no
    chunk is empty.
    """
    chunks = min(SPLIT_FRAGMENTS // max(fragments, 1),
                 int(k * fetches_per_k) // SPLIT_MIN_FETCHES)
    if chunks < 2:
        return 1, max(k, 1)
    kc = -(-k // chunks)
    kc = -(-kc // align) * align
    return -(-k // kc), kc


@kernel("matmul", "glsl")
def matmul(b, x, y, transpose_a, transpose_b):
    _matmul(b, x, y, transpose_a, transpose_b, None)


@kernel("matmul_epilogue", "glsl")
def matmul_epilogue(b, x, y, *extras, program, transpose_a, transpose_b):
    _matmul(b, x, y, transpose_a, transpose_b, (program, extras))


@kernel("matmul_epilogue_multi", "glsl")
def matmul_epilogue_multi(b, x, y, *extras, program, transpose_a, transpose_b,
                          output_index=None):
    """A blocked product's interleaving pass computes the program's outputs, one render
    target each; other paths write C into a temporary for fused_elementwise_multi."""
    m, n = b.out.shape[-2:]
    k = x.shape[-1] if not transpose_a else x.shape[-2]
    if _blocks(b, x, y, b.out, m, n, k) and len(program.outputs) <= b.backend.max_draw_buffers:
        outs = [b.out] + [b.output() for _ in program.outputs[1:]]
        _matmul(b, x, y, transpose_a, transpose_b, (program, extras), outs=outs)
        return
    if transpose_a and n % 4 and m % 4 == 0:
        # C^T = B^T A (as _matmul computes it), read by the kernel through strides: no
        # transpose pass (the MLP's h^T dlogits into Adam's update of W2)
        moved = b.temp(b.out.shape[:-2] + (n, m), b.out.dtype)
        _matmul(b, y, x, not transpose_b, False, None, moved)
        strides = [s * m * n for s in broadcast_strides(b.out.shape[:-2], b.out.shape[:-2])]
        fused_elementwise_multi(b, moved, *extras, program=program,
                                strides=[strides + [1, m]] + [None] * len(extras))
        return
    product = b.temp(b.out.shape, b.out.dtype)
    _matmul(b, x, y, transpose_a, transpose_b, None, product)
    fused_elementwise_multi(b, product, *extras, program=program)


def _blocks(b, x, y, out, m, n, k):
    """Whether C = x @ y takes the blocked path (module docstring)."""
    return (k % 4 == 0 and n % 4 == 0 and m >= b.backend.max_draw_buffers
            and m * n * k >= BLOCK_MIN_MACS
            and max(x.size, y.size, out.size) < FLOAT_INDEX_LIMIT)


def _matmul(b, x, y, transpose_a, transpose_b, epilogue, out=None, outs=None):
    """C = x @ y into `out` (b.out); `epilogue`, when given, is (FusedProgram, its extra
    Args), applied by the pass writing C (ops/epilogue.py); `outs`: the Args of an
    epilogue of several outputs (the blocked path only)."""
    out = b.out if out is None else out
    m, n = out.shape[-2:]
    k = x.shape[-1] if not transpose_a else x.shape[-2]
    if transpose_a and n % 4 and m % 4 == 0 and epilogue is None:
        # C = (B^T A)^T: C^T's rows are whole texels and its B operand, A given as
        # [K, M], is read along rows, where C would need both operands transposed
        moved = b.temp(out.shape[:-2] + (n, m), out.dtype)
        _matmul(b, y, x, not transpose_b, False, None, moved)
        transpose_into(b, out, moved, list(range(len(out.shape) - 2)) + [len(out.shape) - 1,
                                                                        len(out.shape) - 2])
        return
    fast = k % 4 == 0 and n % 4 == 0
    dot = k % 4 == 0 and not fast
    rows = b.backend.max_draw_buffers
    # (its texel indices are floats: exact below 2^24 texels; its partial products are
    # no larger than C, or a few thousand elements when K is split)
    blocked = _blocks(b, x, y, out, m, n, k)
    # With B along rows, each k adds one A value per row times a B texel; against B^T
    # the dot products would need A's four k of a row in one vector.
    in_place = (blocked and transpose_a and not transpose_b and m % 4 == 0
                and n <= IN_PLACE_MAX_N)
    if in_place:
        rows -= rows % 4   # whole A^T texels per k
    strided = n % 4 == 0 and not blocked and (k % 4 or transpose_a)
    if strided:
        fast = dot = False
        if transpose_b:
            y, transpose_b = _swap_last(b, y), False
    if (fast or dot) and transpose_a and not in_place:
        x, transpose_a = _swap_last(b, x), False
    if dot and not transpose_b:
        y, transpose_b = _swap_last(b, y), True
    batch = out.shape[:-2]
    sa = [s * m * k for s in broadcast_strides(x.shape[:-2], batch)]
    sb = [s * k * n for s in broadcast_strides(y.shape[:-2], batch)]
    shape, (sa, sb) = collapse(batch, [sa, sb])
    rank = len(shape)
    uniforms = {"uM": m, "uN": n, "uK": k}
    if rank:
        uniforms.update(uBatch=shape, uBatchA=sa, uBatchB=sb)
    nb = out.size // max(m * n, 1)
    if blocked:
        chunks, kc = split_k(nb * -(-m // rows) * n // 4, k, (rows + 4) / 4, 4)
        uniforms.update(uChunks=chunks, uKc=kc)
        _blocked(b, outs or out, x, y, transpose_a, transpose_b, rows, rank, uniforms,
                 _epilogue(b, epilogue, 1))
        return
    if strided:
        variant, fetches = "rows_strided", 2
        uniforms.update(uSAi=1 if transpose_a else k, uSAk=m if transpose_a else 1)
    elif fast:
        variant, fetches = ("rows_bt" if transpose_b else "rows"), 5 / 4
    elif dot:
        variant, fetches = "dot", 2    # four lanes, two fetches per four k each
    else:
        variant, fetches = "general", 8
        uniforms.update(uSAi=1 if transpose_a else k, uSAk=m if transpose_a else 1,
                        uSBk=1 if transpose_b else n, uSBj=k if transpose_b else 1)
    chunks, kc = split_k(-(-out.size // 4), k, fetches, 4 if fast or dot else 1)
    uniforms.update(uChunks=chunks, uKc=kc)
    t = out.type
    fused = _epilogue(b, epilogue, 2) if chunks == 1 else None
    ep_key, textures = (None, []) if fused is None else (fused.key, fused.textures)
    in_types = (x.type, y.type)

    def source():
        body = fill(f"matmul_{variant}.glsl", T=t, T4=vec4_type(t))
        return _source(in_types + tuple(e.type for e in textures), t, rank, chunks > 1,
                       epilogues.source(fused, vec4_type(t)) + "\n" + body)
    dst = out if chunks == 1 else b.temp((nb, chunks, m * n), out.dtype)
    if fused is not None:
        uniforms.update(fused.uniforms)
    b.launch(("matmul", variant, in_types, t, rank, chunks > 1, ep_key), source, dst,
             [x, y, *textures], uniforms)
    if chunks > 1:
        if epilogue is None:
            reduce_into(b, dst, (1,), "sum")
        else:  # the sum, then the epilogue as a map pass
            total = b.temp(out.shape, out.dtype)
            reduce_into(b, dst, (1,), "sum", total)
            map_epilogue(b, total, epilogue)


def _epilogue(b, epilogue, first):
    return None if epilogue is None else epilogues.Epilogue(b.out, epilogue[1], epilogue[0],
                                                            first)


def map_epilogue(b, product, epilogue):
    """A map pass writing b.out: `epilogue` (FusedProgram, extra Args) applied to Arg
    `product` (for product passes that cannot apply it themselves)."""
    program, extras = epilogue
    args = [product, *extras]
    body = tree_body(program, [(f"x{i}", a.type, a.dtype) for i, a in enumerate(args)])
    map_launch(b, b.out, [(a, a.type, None) for a in args], body, "fused")


def _swap_last(b, x):
    """A temporary holding `x` with its last two axes swapped."""
    perm = list(range(len(x.shape) - 2)) + [len(x.shape) - 1, len(x.shape) - 2]
    moved = b.temp(tuple(x.shape[p] for p in perm), x.dtype)
    transpose_into(b, moved, x, perm)
    return moved


def _source(in_types, t, rank, split, body, num_outputs=1):
    decls = loop = ""
    if rank:
        decls = "\n".join(f"uniform int {u}[{rank}];" for u in ("uBatch", "uBatchA", "uBatchB"))
        loop = fill("matmul_batch.glsl", R=rank)
    # unsplit programs skip the chunk arithmetic (an integer division per lane)
    chunk = _CHUNK if split else "  int bi = q;\n  kr = ivec2(0, uK);"
    return fill("matmul.frag", head=head(in_types, t, num_outputs), batch_decls=decls,
                batch_loop=loop, chunk=chunk, T=t, T4=vec4_type(t), body=body)


def _blocked(b, out, x, y, transpose_a, transpose_b, rows, rank, uniforms, epilogue):
    """C in blocks of `rows` x 4 into `rows` render targets (per K chunk), then
    interleaved (and the chunks added up, and Epilogue `epilogue` applied; `out` a list
    of Args for one of several outputs)."""
    outs = out if isinstance(out, list) else [out]
    out = outs[0]
    m, n = out.shape[-2:]
    mb = -(-m // rows)
    chunks = uniforms["uChunks"]
    batch = out.size // (m * n)
    # the targets are layers of one texture array: the interleaving pass reads the
    # row's layer in one fetch, where choosing among `rows` textures took an 8-way
    # branch costing about 3 fetches (scripts/webgl_fetch_cost.py `select_*`, `array_*`)
    parts = b.temp((batch, chunks, mb, n), out.dtype, layers=rows)
    t, t4 = out.type, vec4_type(out.type)
    in_types = (x.type, y.type)

    def source():
        a_setup, fetch_a, lanes = (_transposed_a if transpose_a else _rows_a)(rows, t4)
        if transpose_b:
            b_setup = ("  float kb = float(uK >> 2);\n"
                       "  float tb = float((off.y + j * uK + kr.x) >> 2);")
            fetch_b = [f"    {t4} b{c} = fetchB(tb + {c}.0 * kb + fk);" for c in range(4)]
            acc = [f"    c{r} += {t4}(dot4(a{r}, b0), dot4(a{r}, b1), dot4(a{r}, b2), "
                   f"dot4(a{r}, b3));" for r in range(rows)]
        else:
            b_setup = ("  float nb = float(uN >> 2);\n"
                       "  float tb = float((off.y + kr.x * uN + j) >> 2);")
            fetch_b = [f"    {t4} b{c} = fetchB(tb + {c}.0 * nb);" for c in range(4)]
            fetch_b.append("    tb += 4.0 * nb;")
            # one k at a time (a product and a sum each, no temporaries: 4% less CPU
            # for x^T dh than summing the four products first, the same for x @ W1)
            acc = ["    " + " ".join(f"c{r} += {a} * b{q};" for q, a in enumerate(lane))
                   for r, lane in enumerate(lanes)]
        # B's texels first, then each A texel (group) just before the rows it feeds:
        # SwiftShader keeps a vec4 in 4 SIMD registers, so the fewer fetched values live
        # at once the fewer spills (5-7% less GPU-process CPU than fetching all first)
        groups, a_tail = fetch_a
        per = rows // len(groups)
        loop = fetch_b + [line for g, lines in enumerate(groups)
                          for line in lines + acc[g * per:(g + 1) * per]] + a_tail
        body = fill("matmul_block.glsl", R=rows, a_setup=a_setup, b_setup=b_setup,
                    acc_decl="\n".join(f"  {t4} c{r} = {t4}(0);" for r in range(rows)),
                    loops=_loops("\n".join(loop)),
                    write="\n".join(f"  outValue{r} = c{r};" for r in range(rows)))
        return _source(in_types, t, rank, chunks > 1, body, rows)
    b.launch(("matmul_block", rows, transpose_a, transpose_b, in_types, t, rank, chunks > 1),
             source, parts, [x, y], dict(uniforms, uMb=mb))

    def unblock_source():
        fetch = ("  v = texel0(t, r);\n  for (t += step; t < end; t += step) v += texel0(t, r);"
                 if chunks > 1 else "  v = texel0(t, r);")
        textures = [] if epilogue is None else [e.type for e in epilogue.textures]
        store = "  outValue = v;" if epilogue is None else epilogue.store("v")
        return fill("matmul_unblock.frag", head=head([t + "[]"] + textures, t, len(outs)),
                    R=rows, T4=t4, fetch=fetch, store=store,
                    epilogue="" if epilogue is None else epilogue.source())
    uniforms = {"uM": m, "uN": n, "uMb": mb, "uChunks": chunks}
    extra, ep_key = [], None
    if epilogue is not None:
        extra, ep_key = epilogue.textures, epilogue.key
        uniforms.update(epilogue.uniforms)
    b.launch(("matmul_unblock", rows, t, chunks > 1, ep_key), unblock_source,
             outs if len(outs) > 1 else out, [parts] + extra, uniforms)


def _loops(body):
    """The blocked loop over `steps` (of 4 k) running `body` (which reads `fk`, the step
    as a float): UNROLL copies per iteration, each in its own scope, then the rest."""
    copies = "    fk += 1.0;\n".join(f"    {{\n{body}\n    }}\n" for _ in range(UNROLL))
    return (f"  int k = 0;\n  for (; k + {UNROLL - 1} < steps; k += {UNROLL}) {{\n"
            f"    float fk = float(k);\n{copies}  }}\n"
            f"  for (; k < steps; k++) {{\n    float fk = float(k);\n{body}\n  }}")


def _rows_a(rows, t4):
    """GLSL fetching the A texels (four k of one row each) of a block's `rows` rows:
    setup, the loop's fetches (per group of rows, then what follows them) and per row
    the four k's values (lanes)."""
    # rows past M (a last partial block) read row M - 1: valid memory, results unused
    setup = [f"  float ta{r} = float((off.x + min(i0 + {r}, uM - 1) * uK + kr.x) >> 2);"
             for r in range(rows)]
    fetch = [[f"    {t4} a{r} = fetchA(ta{r} + fk);"] for r in range(rows)]
    lanes = [[f"a{r}.{c}" for c in "xyzw"] for r in range(rows)]
    return "\n".join(setup), (fetch, []), lanes


def _transposed_a(rows, t4):
    """Like `_rows_a` for A given transposed ([K, M], M % 4 == 0, `rows` % 4 == 0):
    per k, the texels holding rows i0.. of A^T's row k."""
    groups = range(rows // 4)
    # a texel past M (a last partial block) reads rows M - 4..: valid memory, unused
    setup = ["  float mt = float(uM >> 2);"]
    setup += [f"  float ta{g} = float((off.x + kr.x * uM + min(i0 + {4 * g}, uM - 4)) >> 2);"
              for g in groups]
    fetch = [[f"    {t4} a{q}{g} = fetchA(ta{g} + {q}.0 * mt);" for q in range(4)]
             for g in groups]
    tail = [f"    ta{g} += 4.0 * mt;" for g in groups]
    lanes = [[f"a{q}{r // 4}.{'xyzw'[r % 4]}" for q in range(4)] for r in range(rows)]
    return "\n".join(setup), (fetch, tail), lanes
