"""WGSL kernels of matmul: batched, batch dims broadcast, optional transposes.

Two programs:

- the fast ones read row-major A [M, K] and B [K, N] as vec4 (K and N
  multiples of 4). On real GPUs, matmul_tiled.wgsl stages 64x64 tiles in
  workgroup memory; on CPU adapters (SwiftShader, lavapipe), where barriers
  are expensive and caches do the staging, matmul.wgsl accumulates a block of
  R rows x CV vec4 columns per invocation straight from memory: several
  times faster there. The runtime picks (`be.MATMUL_BLOCK`: None for tiled,
  else the measured block and workgroup shape, shrunk for small M and N).
  A transposed operand is first copied into row-major order when the product
  is big enough to repay it.
- the general one (matmul_general.wgsl) takes any strides, so transposes and
  odd sizes cost nothing extra: a 4x4 block per invocation, scalar loads, 16x16
  invocations per workgroup, fewer for small products (N = 10 logits, K = 10
  gradients) so that they still spread over SPLIT_GROUPS workgroups (CPU cores).
  CPU adapters take matmul_blocked.py's kernel instead (any strides, big
  unrolled blocks), for the products the general kernel would get
  (`be.MATMUL_BLOCKED` "general": SwiftShader) or for all (lavapipe).

Broadcast batch dims are strides (0 where an operand repeats).
"""

import copy

from ..base import kernel
from ..layout import broadcast_strides, collapse, pow2_at_least
from . import epilogue as epilogues
from . import matmul_blocked as blocked
from .fused import fused_elementwise_multi
from .movement import transpose_step
from .program import (GLOBAL_INDEX, STORAGE, Program, Step, dot_strides,
                      global_index, grid_for, header, render, size_of, unravel)

_programs = {}
GENERAL_WG = 16              # general kernel: at most 16x16 invocations of 4x4 blocks
TRANSPOSE_WORTH = 1 << 18    # M*N*K from which a transposing copy pays off
MAX_BATCH = 65535            # matrices per launch (the z grid dimension)
# Split-K (fast kernel on CPU adapters): chunks while a product has fewer workgroups
# than this, each chunk at least SPLIT_MIN_K4 vec4s of k
SPLIT_GROUPS = 16
# whether CPU adapters' vec4 kernel reads transposed operands in place or copies them by
# 4x4 blocks (scripts/profile_mlp_kernels.py turns it off to compare with element copies)
READ_IN_PLACE = [True]
IN_PLACE_A_COLUMNS = 64
SPLIT_MIN_K4 = 64


def _convert(expr, storage, t, width=""):
    return expr if storage == t else f"{'vec4<' + t + '>' if width else t}({expr})"


def _batch(out_batch, a_batch_shape, b_batch_shape, a_size, b_size):
    """Collapsed batch dims and per-matrix strides (scaled by matrix sizes) of A and B."""
    a_st = tuple(s * a_size for s in broadcast_strides(a_batch_shape, out_batch))
    b_st = tuple(s * b_size for s in broadcast_strides(b_batch_shape, out_batch))
    dims, (a_st, b_st) = collapse(out_batch, [a_st, b_st])
    count = 1
    for d in dims:
        count *= d
    if count > MAX_BATCH:
        raise ValueError(f"matmul: {count} matrices in one batch exceed the {MAX_BATCH} a "
                         "launch can take")
    return dims, a_st, b_st, count


def _batch_code(rank, at, z="i32(wid.z)"):
    """WGSL for `a_base`/`b_base` given batch dims at params[at:], strides after."""
    return ("\n  ".join(unravel(rank, z, at, "bt")),
            dot_strides(rank, at + rank, "bt"), dot_strides(rank, at + 2 * rank, "bt"))


# -- the fast kernel ---------------------------------------------------------------

def _fast_program(a_type, b_type, t, rank, block, epilogue, split=False,
                  flips=(False, False)):
    key = ("matmul", a_type, b_type, t, rank, block, epilogue and epilogue.key, split, flips)
    if key not in _programs:
        if block is None:
            make = _tiled_source
        else:
            def make(*args):
                return _fast_source(*args, split=split, flips=flips)
        _programs[key] = Program(key, 2 + _count(epilogue), 1,
                                 lambda: make(a_type, b_type, t, rank, block, epilogue))
    return _programs[key]


def _count(epilogue):
    return 0 if epilogue is None else len(epilogue.refs)


def _header(in_types, out_type, t, epilogue, at):
    """The program head for output elements of type `out_type` (of scalar type `t`), with
    the epilogue's bindings after `in_types` and its functions (their parameters at
    params[at:])."""
    extra = [] if epilogue is None else epilogue.types
    return header(in_types + extra, [out_type], "\n" + epilogues.source(epilogue, at, t))


def _fast_source(a_type, b_type, t, rank, block, epilogue, split=False, flips=(False, False)):
    """`flips`: whether A is stored transposed, [K, M] (read as vec4s of 4 rows, M % 4
    == 0), and B, [N, K] (vec4s along k): the vec4s are regrouped in registers, which
    costs nothing on CPU adapters (a vector's components are separate registers)."""
    r, cv, wx, wy = block
    if split:  # params[3:5]: k per chunk (vec4s) and the number of batches
        chunk = ("let s = i32(wid.z) / params[4]; let bz = i32(wid.z) % params[4];\n  "
                 "let k0 = s * params[3]; let k1 = min(K4, k0 + params[3]);")
    else:
        chunk = "let bz = i32(wid.z); let k0 = 0; let k1 = K4;"
    at = 5 if split else 3
    batch, a_off, b_off = _batch_code(rank, at, "bz")
    xyzw = "xyzw"
    if flips[0]:
        setup = ["let M4 = M / 4;"]
        setup += [f"let ca{q} = a_base + min(r0 / 4 + {q}, M4 - 1);" for q in range(r // 4)]
    else:
        setup = [f"let ra{i} = a_base + min(r0 + {i}, M - 1) * K4;" for i in range(r)]
    if flips[1]:
        setup += [f"let cb{n} = b_base + min(4 * c0 + {n}, 4 * N4 - 1) * K4;"
                  for n in range(4 * cv)]
        body = [f"let bt{n} = {_convert(f'in1[cb{n} + k]', b_type, t, 4)};"
                for n in range(4 * cv)]
        body += [f"let b{j}_{c} = vec4<{t}>(" + ", ".join(
            f"bt{4 * c + e}.{xyzw[j]}" for e in range(4)) + ");"
            for j in range(4) for c in range(cv)]
    else:
        setup += [f"let cb{c} = b_base + min(c0 + {c}, N4 - 1);" for c in range(cv)]
        body = [f"let b{j}_{c} = {_convert(f'in1[cb{c} + (4 * k + {j}) * N4]', b_type, t, 4)};"
                for j in range(4) for c in range(cv)]
    setup += [f"var acc{i}_{c} = vec4<{t}>();" for i in range(r) for c in range(cv)]
    if flips[0]:
        body += ["let kr = 4 * k * M4;"]  # k's 4 rows of the stored A^T: kr + j * M4
        body += [f"let at{q}_{j} = {_convert(f'in0[ca{q} + kr + {j} * M4]', a_type, t, 4)};"
                 for q in range(r // 4) for j in range(4)]
    for i in range(r):
        if flips[0]:
            body.append(f"let a{i} = vec4<{t}>(" + ", ".join(
                f"at{i // 4}_{j}.{xyzw[i % 4]}" for j in range(4)) + ");")
        else:
            body.append(f"let a{i} = {_convert(f'in0[ra{i} + k]', a_type, t, 4)};")
        body += [f"acc{i}_{c} = acc{i}_{c} + a{i}.x * b0_{c} + a{i}.y * b1_{c} + "
                 f"a{i}.z * b2_{c} + a{i}.w * b3_{c};" for c in range(cv)]
    store = [f"if (r0 + {i} < M && c0 + {c} < N4) {{ let o{i}_{c} = c_base + (r0 + {i}) * N4 "
             f"+ c0 + {c}; out0[o{i}_{c}] = epilogue4(acc{i}_{c}, o{i}_{c}); }}"
             for i in range(r) for c in range(cv)]
    at += 3 * rank
    return _header([f"vec4<{a_type}>", f"vec4<{b_type}>"], f"vec4<{t}>", t, epilogue, at) + render(
        "matmul.wgsl", R=r, CV=cv, WX=wx, WY=wy, chunk=chunk, batch=batch, a_off=a_off,
        b_off=b_off,
        setup="\n  ".join(setup), body="\n    ".join(body), store="\n  ".join(store))


def _tiled_source(a_type, b_type, t, rank, block, epilogue):
    batch, a_off, b_off = _batch_code(rank, 3)
    at = 3 + 3 * rank
    return _header([f"vec4<{a_type}>", f"vec4<{b_type}>"], f"vec4<{t}>", t, epilogue, at) + render(
        "matmul_tiled.wgsl", T=t, batch=batch, a_off=a_off, b_off=b_off,
        load_a=_convert("in0[a_row + min(ka, K4 - 1)]", a_type, t, 4),
        load_b=_convert("in1[b_col + min(kb, 4 * K4 - 1) * N4]", b_type, t, 4))


def _fast_steps(be, builder, a, b, m, n, k, out_batch, out_dtype, transpose_a, transpose_b,
                out_ref, epilogue):
    refs = [a.ref, b.ref]
    # CPU adapters' vec4 kernel reads a transposed operand in place (A: rows by 4), A only
    # for few columns: on SwiftShader, scripts/profile_mlp_kernels.py, the MNIST CNN's
    # [64,5408]^T [64,64] took 35 ms in place against 50 with the copy, but the MLP's
    # [64,784]^T [64,128] 19.8 against 12.4 (B^T: the CNN's 24 against 56)
    cpu = be.MATMUL_BLOCK is not None and READ_IN_PLACE[0]
    flips = (bool(cpu and transpose_a and m % 4 == 0 and n <= IN_PLACE_A_COLUMNS),
             bool(cpu and transpose_b))
    for which, (x, flip) in enumerate(((a, transpose_a and not flips[0]),
                                       (b, transpose_b and not flips[1]))):
        if flip:  # make the operand row-major in a temporary buffer
            ref = builder.temp(4 * size_of(x.shape))
            perm = tuple(range(len(x.shape) - 2)) + (len(x.shape) - 1, len(x.shape) - 2)
            if cpu and len(x.shape) == 2 and x.shape[0] % 4 == 0 and x.shape[1] % 4 == 0:
                builder.add(_transpose4_step(x, ref))
            else:
                builder.add(transpose_step(x.ref, x.shape, x.dtype, perm, ref))
            refs[which] = ref
    n4 = n // 4
    dims, a_st, b_st, count = _batch(out_batch, a.shape[:-2], b.shape[:-2], m * k // 4,
                                     k * n4)
    block = be.MATMUL_BLOCK
    t = STORAGE[out_dtype]
    if block is None:  # the workgroup-memory tiled kernel: 64x64 tiles
        groups = (-(-n4 // 16), -(-m // 64), count)
    else:
        r, cv, wx, wy = block
        r = min(r, max(4 if flips[0] else 1, pow2_at_least(-(-m // wy))))
        cv = min(cv, pow2_at_least(-(-n4 // wx)))
        block = (r, cv, wx, wy)
        groups = (-(-n4 // (wx * cv)), -(-m // (wy * r)), count)
        chunks, kc4 = split_k(groups[0] * groups[1] * count, k // 4)
        if chunks > 1:
            _split_steps(builder, refs, a, b, (m, n4, k // 4, dims, a_st, b_st, count), t,
                         block, (groups[0], groups[1], chunks * count), chunks, kc4, out_ref,
                         epilogue, flips)
            return
    program = _fast_program(STORAGE[a.dtype], STORAGE[b.dtype], t, len(dims), block, epilogue,
                            flips=flips)
    meta = [m, n4, k // 4, *dims, *a_st, *b_st] + _meta(epilogue)
    builder.add(Step(program, meta, groups, (refs[0], refs[1], *_refs(epilogue), out_ref)))


def _transpose4_step(x, out_ref):
    """transpose4.wgsl: matrix Operand `x` [K, M] transposed into `out_ref` by 4x4 blocks."""
    t = f"vec4<{STORAGE[x.dtype]}>"
    key = ("transpose4", t)
    if key not in _programs:
        _programs[key] = Program(key, 1, 1, lambda: header([t], [t]) + render(
            "transpose4.wgsl", T=t, builtins=GLOBAL_INDEX, index=global_index()))
    k, m = x.shape
    return Step(_programs[key], [k * m // 4, m // 4, k // 4], grid_for(k * m // 16),
                (x.ref, out_ref))


def split_k(groups, k4):
    """(chunks, vec4s of k per chunk) for a product of `groups` workgroups over `k4`
    vec4s of k: chunks are added while there are fewer than SPLIT_GROUPS workgroups
    and each keeps at least SPLIT_MIN_K4 (a product of one workgroup would run on one
    CPU core, or one GPU multiprocessor)."""
    chunks = min(SPLIT_GROUPS // max(groups, 1), k4 // SPLIT_MIN_K4)
    if chunks < 2:
        return 1, k4
    kc4 = -(-k4 // chunks)
    return -(-k4 // kc4), kc4


def _split_steps(builder, refs, a, b, sizes, t, block, groups, chunks, kc4, out_ref,
                 epilogue, flips):
    """Split-K: partial products [chunks, batch, M, N] (the fast program summing one chunk
    of k per workgroup z), then sum_parts.wgsl adding them through the epilogue."""
    m, n4, k4, dims, a_st, b_st, count = sizes
    total = count * m * n4
    parts = builder.temp(16 * total * chunks)
    program = _fast_program(STORAGE[a.dtype], STORAGE[b.dtype], t, len(dims), block, None,
                            split=True, flips=flips)
    builder.add(Step(program, [m, n4, k4, kc4, count, *dims, *a_st, *b_st], groups,
                     (refs[0], refs[1], parts)))
    if epilogue is not None:  # its arrays bound after the one input of sum_parts
        epilogue = copy.copy(epilogue)
        epilogue.first = 1
    builder.add(Step(sum_parts_program(t, epilogue), [total, chunks] + _meta(epilogue),
                     grid_for(total), (parts, *_refs(epilogue), out_ref)))


def sum_parts_program(t, epilogue=None, vec=True):
    """sum_parts.wgsl over vec4s of `t` (scalars if not `vec`), storing through
    `epilogue` (params[2:])."""
    key = ("sum_parts", t, epilogue and epilogue.key, vec)
    if key not in _programs:
        v = f"vec4<{t}>" if vec else t
        types = [v] + ([] if epilogue is None else epilogue.types)
        _programs[key] = Program(key, len(types), 1, lambda: header(
            types, [v], "\n" + epilogues.source(epilogue, 2, t)) + render(
                "sum_parts.wgsl", builtins=GLOBAL_INDEX, index=global_index(),
                store="epilogue4" if vec else "epilogue"))
    return _programs[key]


def _meta(epilogue):
    return [] if epilogue is None else epilogue.meta


def _refs(epilogue):
    return [] if epilogue is None else epilogue.refs


# -- the general kernel ------------------------------------------------------------

def _general_program(a_type, b_type, t, rank, epilogue, wg):
    key = ("matmul_general", a_type, b_type, t, rank, epilogue and epilogue.key, wg)
    if key not in _programs:
        _programs[key] = Program(key, 2 + _count(epilogue), 1,
                                 lambda: _general_source(a_type, b_type, t, rank, epilogue, wg))
    return _programs[key]


def general_workgroup(m, n, count, min_lanes):
    """(x, y) invocations per workgroup of the general kernel for an [M, N] output in
    `count` matrices: 16x16, cut to the product's size, then halved (the larger side)
    while there are fewer than SPLIT_GROUPS workgroups and more than `min_lanes`
    invocations per workgroup (a small product in one workgroup runs on one core)."""
    wx = min(GENERAL_WG, pow2_at_least(-(-n // 4)))
    wy = min(GENERAL_WG, pow2_at_least(-(-m // 4)))
    while wx * wy > min_lanes and (-(-n // (4 * wx)) * -(-m // (4 * wy)) * count
                                   < SPLIT_GROUPS):
        if wy >= wx:
            wy //= 2
        else:
            wx //= 2
    return wx, wy


def _general_source(a_type, b_type, t, rank, epilogue, wg):
    batch, a_off, b_off = _batch_code(rank, 7)
    return _header([a_type, b_type], t, t, epilogue, 7 + 3 * rank) + render(
        "matmul_general.wgsl", T=t, WX=wg[0], WY=wg[1], batch=batch, a_off=a_off, b_off=b_off,
        load_a=_convert("in0[a_base + mi * a_rows + k * a_cols]", a_type, t),
        load_b=_convert("in1[b_base + k * b_rows + ni * b_cols]", b_type, t))


def _general_steps(be, builder, a, b, m, n, k, out_batch, out_dtype, transpose_a, transpose_b,
                   out_ref, epilogue):
    a_rows, a_cols = (1, m) if transpose_a else (k, 1)
    b_rows, b_cols = (1, k) if transpose_b else (n, 1)
    dims, a_st, b_st, count = _batch(out_batch, a.shape[:-2], b.shape[:-2], m * k, k * n)
    # CPU adapters run 4 invocations per SIMD op; GPUs want a warp's worth
    wx, wy = general_workgroup(m, n, count, 64 if be.MATMUL_BLOCK is None else 4)
    program = _general_program(STORAGE[a.dtype], STORAGE[b.dtype], STORAGE[out_dtype],
                               len(dims), epilogue, (wx, wy))
    meta = [m, n, k, a_rows, a_cols, b_rows, b_cols, *dims, *a_st, *b_st] + _meta(epilogue)
    groups = (-(-n // (4 * wx)), -(-m // (4 * wy)), count)
    builder.add(Step(program, meta, groups, (a.ref, b.ref, *_refs(epilogue), out_ref)))


class Operand:
    """A matmul operand inside a recipe: its shape, dtype and buffer-table index."""

    __slots__ = ("shape", "dtype", "ref")

    def __init__(self, shape, dtype, ref):
        self.shape, self.dtype, self.ref = tuple(shape), dtype, ref


def matmul_steps(be, builder, a, b, out_shape, out_dtype, transpose_a=False,
                 transpose_b=False, out_ref=None, epilogue=None):
    """Adds the steps writing `a @ b` (Operands) to table entry `out_ref` (default:
    the builder's output), through wgsl/epilogue.py Epilogue `epilogue` if given."""
    out_ref = builder.out if out_ref is None else out_ref
    m, n = out_shape[-2:]
    k = a.shape[-2] if transpose_a else a.shape[-1]
    fast = k % 4 == 0 and n % 4 == 0
    if (transpose_a or transpose_b) and m * n * k < TRANSPOSE_WORTH:
        fast = False
    mode, block = be.MATMUL_BLOCKED or (None, None)
    budget = be.LOOP_BUDGET
    if budget is not None and k > budget:  # the blocked kernel splits K to keep under it
        mode, block = "all", block or (4, 4)
    if mode == "all" or (mode == "general" and not fast):
        blocked.steps(builder, a, b, m, n, k, out_shape[:-2], out_dtype, transpose_a,
                      transpose_b, out_ref, epilogue, block, budget)
    elif fast:
        _fast_steps(be, builder, a, b, m, n, k, out_shape[:-2], out_dtype, transpose_a,
                    transpose_b, out_ref, epilogue)
    else:
        _general_steps(be, builder, a, b, m, n, k, out_shape[:-2], out_dtype, transpose_a,
                       transpose_b, out_ref, epilogue)


@kernel("matmul", "wgsl")
def matmul(k, *inputs, transpose_a, transpose_b):
    a, b = inputs
    matmul_steps(k.backend, k, Operand(a.shape, a.dtype, 0), Operand(b.shape, b.dtype, 1),
                 k.out_shape, k.out_dtype, transpose_a, transpose_b)
    return k.recipe()


@kernel("matmul_epilogue", "wgsl")
def matmul_epilogue(k, *inputs, program, transpose_a, transpose_b):
    a, b, *extras = inputs
    matmul_steps(k.backend, k, Operand(a.shape, a.dtype, 0), Operand(b.shape, b.dtype, 1),
                 k.out_shape, k.out_dtype, transpose_a, transpose_b,
                 epilogue=epilogue_of(program, extras, k.out_shape))
    return k.recipe()


@kernel("matmul_epilogue_multi", "wgsl")
def matmul_epilogue_multi(k, *inputs, program, transpose_a, transpose_b, output_index=None):
    """The product into a temporary, then the kernel of several outputs reading it:
    eager's kernels (autodiff/fusion_epilogue.py makes this op on GLSL only)."""
    a, b, *extras = inputs
    product = k.inline(matmul, [a, b], k.out_shape, transpose_a=transpose_a,
                       transpose_b=transpose_b)
    k.inline_outputs(fused_elementwise_multi, [Operand(k.out_shape, k.out_dtype, 0), *extras],
                     [product] + list(range(2, 2 + len(extras))), program=program)
    return k.recipe()


def epilogue_of(program, extras, out_shape):
    """The Epilogue of `program` on input arrays `extras` (buffer-table entries 2..)."""
    return epilogues.Epilogue(program, [Operand(x.shape, x.dtype, k) for k, x in
                                        enumerate(extras, 2)], out_shape, 2)
