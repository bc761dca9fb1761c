"""The register-blocked WGSL matmul for CPU adapters (SwiftShader, lavapipe):
shaders/wgsl/matmul_blocked.wgsl, any strides, so transposed operands are read in
place (no transposing copy) and odd sizes (N = 10 logits, K = 10 gradients) take
it too.

Why scalar loads and big blocks: CPU adapters run invocations as SIMD lanes and
gather every load whose index varies at run time, so loads per multiply-add set
the cost; a block of R x C outputs per invocation needs R + C loads per k for
R * C multiply-adds. On SwiftShader the vec4 kernel with blocks as big (16 rows
by 8 vec4s) is still faster where it applies, so this one takes only what it
cannot; on lavapipe this one is faster for every product of the MLP step. The
runtime's `MATMUL_BLOCKED` gives the largest block (measured with
scripts/profile_mlp_kernels.py); a product smaller than a block gets the power of 2
at least its size, so few lanes compute clamped copies and few programs are made.
Each 4 neighbouring invocations (one SIMD register on SwiftShader) share their rows
and interleave their columns, so a gather of B and a scatter of C touch one cache
line.
"""

import copy

from ...errors import BackendError
from ..layout import pow2_at_least
from . import matmul as mm
from .program import Step

MIN_GROUPS = 8       # workgroups wanted (CPU threads take whole workgroups) ...
MIN_LANES = 4        # ... but no fewer invocations than a SIMD register's lanes each


def workgroup(gx, gy, count):
    """(x, y) invocations per workgroup for a grid of gx (a multiple of 4) x gy
    invocations per matrix: 8x8, cut to the grid, then halved (the larger side, x
    not below 4: a SIMD register's lanes share their rows) while there are fewer
    than MIN_GROUPS workgroups and more than MIN_LANES invocations in one."""
    wx, wy = min(8, pow2_at_least(gx)), min(8, pow2_at_least(gy))
    while wx * wy > MIN_LANES and -(-gx // wx) * -(-gy // wy) * count < MIN_GROUPS:
        if wy >= wx or wx == 4:
            wy //= 2
        else:
            wx //= 2
    return wx, wy


def _program(a_type, b_type, t, rank, epilogue, shape, split=False):
    key = ("matmul_blocked", a_type, b_type, t, rank, epilogue and epilogue.key, shape, split)
    if key not in mm._programs:
        mm._programs[key] = mm.Program(key, 2 + mm._count(epilogue), 1,
                                       lambda: _source(a_type, b_type, t, rank, epilogue,
                                                       shape, split))
    return mm._programs[key]


def _source(a_type, b_type, t, rank, epilogue, shape, split):
    r, c, wx, wy = shape
    if split:  # params[7:9]: k per chunk and the number of batches
        chunk = ("let s = i32(wid.z) / params[8]; let bz = i32(wid.z) % params[8];\n  "
                 "let k0 = s * params[7]; let k1 = min(K, k0 + params[7]);")
    else:
        chunk = "let bz = i32(wid.z); let k0 = 0; let k1 = K;"
    at = 9 if split else 7
    batch, a_off, b_off = mm._batch_code(rank, at, "bz")
    setup = [f"let ra{i} = a_base + min(m0 + {i}, M - 1) * a_rows;" for i in range(r)]
    setup += [f"let cb{j} = b_base + min(n0 + {4 * j}, N - 1) * b_cols;" for j in range(c)]
    setup += [f"var acc{i}_{j} = {t}();" for i in range(r) for j in range(c)]
    body = [f"let a{i} = {mm._convert(f'in0[ra{i} + ka]', a_type, t)};" for i in range(r)]
    body += [f"let b{j} = {mm._convert(f'in1[cb{j} + kb]', b_type, t)};" for j in range(c)]
    body += [f"acc{i}_{j} = acc{i}_{j} + a{i} * b{j};" for i in range(r) for j in range(c)]
    store = []
    for i in range(r):
        inner = " ".join(f"if (n0 + {4 * j} < N) {{ out0[o + {4 * j}] = "
                         f"epilogue(acc{i}_{j}, o + {4 * j}); }}" for j in range(c))
        store.append(f"if (m0 + {i} < M) {{ let o = c_base + (m0 + {i}) * N + n0; {inner} }}")
    return mm._header([a_type, b_type], t, t, epilogue, at + 3 * rank) + mm.render(
        "matmul_blocked.wgsl", R=r, C=c, C4=4 * c, WX=wx, WY=wy, chunk=chunk, batch=batch,
        a_off=a_off,        b_off=b_off,
        setup="\n  ".join(setup), body="\n    ".join(body), store="\n  ".join(store))


def steps(builder, a, b, m, n, k, out_batch, out_dtype, transpose_a, transpose_b, out_ref,
          epilogue, block, budget=None):
    """Adds the step of `a @ b` (matmul.py Operands) to `builder`, at most `block`
    (rows, columns) of the output per invocation; with K past `budget` (the loop
    iterations an invocation may run, runtime.py LOOP_BUDGET), partial products of
    chunks of k, then sum_parts.wgsl adding them in order through the epilogue."""
    a_rows, a_cols = (1, m) if transpose_a else (k, 1)
    b_rows, b_cols = (1, k) if transpose_b else (n, 1)
    dims, a_st, b_st, count = mm._batch(out_batch, a.shape[:-2], b.shape[:-2], m * k, k * n)
    # powers of 2 cut to the product: few distinct programs (each is a pipeline to compile)
    r = min(block[0], pow2_at_least(m))
    c = min(block[1], pow2_at_least(-(-n // 4)))
    gx, gy = 4 * -(-n // (4 * c)), -(-m // r)
    wx, wy = workgroup(gx, gy, count)
    types = mm.STORAGE[a.dtype], mm.STORAGE[b.dtype], mm.STORAGE[out_dtype]
    strides = [m, n, k, a_rows, a_cols, b_rows, b_cols]
    groups = (-(-gx // wx), -(-gy // wy), count)
    if budget is None or k <= budget:
        program = _program(*types, len(dims), epilogue, (r, c, wx, wy))
        meta = strides + [*dims, *a_st, *b_st] + mm._meta(epilogue)
        builder.add(Step(program, meta, groups, (a.ref, b.ref, *mm._refs(epilogue), out_ref)))
        return
    chunks = -(-k // budget)
    kc = -(-k // chunks)
    if chunks * count > mm.MAX_BATCH:
        raise BackendError(f"matmul: {count} matrices of K = {k} need {chunks * count} "
                           f"partial products, past the {mm.MAX_BATCH} a launch can take "
                           f"(the driver stops loops after {budget} iterations)")
    total = count * m * n
    parts = builder.temp(4 * total * chunks)
    program = _program(*types, len(dims), None, (r, c, wx, wy), split=True)
    builder.add(Step(program, strides + [kc, count, *dims, *a_st, *b_st],
                     groups[:2] + (chunks * count,), (a.ref, b.ref, parts)))
    if epilogue is not None:  # its arrays bound after the one input of sum_parts
        epilogue = copy.copy(epilogue)
        epilogue.first = 1
    builder.add(Step(mm.sum_parts_program(types[2], epilogue, vec=False),
                     [total, chunks] + mm._meta(epilogue), mm.grid_for(total),
                     (parts, *mm._refs(epilogue), out_ref)))
