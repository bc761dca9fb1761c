"""Array layout arithmetic the GPU kernel languages share: strides, merging axes that
every operand walks as one, the [A, R, B] view of a reduction, the [A, n, B] view along
one axis (scans, sorts), and how a kernel pads or cuts a length (sorts, conv2d's
filter gradient).

Arrays are stored flat in row-major order; a stride is in elements. Everything here is
plain Python on shapes (tuples of ints), so GLSL and WGSL kernels agree on layouts.
"""


def contiguous_strides(shape):
    """Row-major strides of a contiguous array of `shape`."""
    strides = []
    step = 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def broadcast_strides(in_shape, out_shape):
    """Strides reading a contiguous `in_shape` at the multi-indices of `out_shape` (numpy
    broadcasting: 0 along the axes it is broadcast over)."""
    pad = len(out_shape) - len(in_shape)
    own = contiguous_strides(in_shape)
    return tuple(0 if k < pad or in_shape[k - pad] == 1 else own[k - pad]
                 for k in range(len(out_shape)))


# -- the movement ops as strided reads: output element c (a multi-index over the view's
# shape) reads the contiguous input at offset + sum(c_k * strides_k) ---------------------

def transpose_view(shape, perm):
    """Strides reading a contiguous `shape` at the multi-indices of its `perm` transpose."""
    own = contiguous_strides(shape)
    return tuple(own[p] for p in perm)


def slice_view(shape, begin):
    """(strides, offset) reading the slice of a contiguous `shape` starting at `begin`."""
    own = contiguous_strides(shape)
    return own, sum(b * s for b, s in zip(begin, own))


def strided_view(shape, window):
    """(counts, strides, offset): a strided slice of a contiguous `shape`, `window` a
    (start, step, count) per axis, read over one axis per input axis (`counts`)."""
    own = contiguous_strides(shape)
    return (tuple(c for _, _, c in window),
            tuple(step * s for (_, step, _), s in zip(window, own)),
            sum(start * s for (start, _, _), s in zip(window, own)))


def reverse_view(shape, axes):
    """(strides, offset) reading a contiguous `shape` reversed along `axes`: negative
    strides from each reversed axis's last element."""
    own = contiguous_strides(shape)
    return (tuple(-s if a in axes else s for a, s in enumerate(own)),
            sum((shape[a] - 1) * own[a] for a in axes))


def tile_view(shape, multiples):
    """(split, strides): a tiling of a contiguous `shape` by `multiples` as a read over
    [m0, n0, m1, n1, ...] (the output's row-major order), stride 0 along the m axes."""
    split, strides = [], []
    for m, n, s in zip(multiples, shape, contiguous_strides(shape)):
        split += [m, n]
        strides += [0, s]
    return tuple(split), tuple(strides)


def collapse(shape, stride_sets):
    """Merges the axes of `shape` that every stride set walks as one.

    Drops axes of size 1 and joins neighbours j, j+1 where each set has
    stride[j] == stride[j+1] * shape[j+1]. Returns (shape, stride_sets) as tuples; a
    result of rank 0 means a single element.
    """
    dims, sets = [], [[] for _ in stride_sets]
    for k, d in enumerate(shape):
        if d == 1:
            continue
        if dims and all(s[-1] == src[k] * d for s, src in zip(sets, stride_sets)):
            dims[-1] *= d
            for s, src in zip(sets, stride_sets):
                s[-1] = src[k]
            continue
        dims.append(d)
        for s, src in zip(sets, stride_sets):
            s.append(src[k])
    return tuple(dims), [tuple(s) for s in sets]


def axis_view(shape, axis):
    """(A, n, B): an array of `shape` viewed as [A, n, B] along `axis` (outer, the axis,
    inner), as scans and sorts walk it; `axis` may be negative."""
    axis %= len(shape)
    outer = inner = 1
    for d in shape[:axis]:
        outer *= d
    for d in shape[axis + 1:]:
        inner *= d
    return outer, shape[axis], inner


def pow2_at_least(n, least=1):
    """The least power of two that is >= `n` and >= `least` (a power of two): the
    padded length of a bitonic sort, a workgroup or register block cut to a product."""
    p = least
    while p < n:
        p *= 2
    return p


def windows_tile(ksize, strides, pads):
    """Whether pooling windows of `ksize` at `strides` with `pads` (top, bottom, left,
    right) tile the image from its top-left corner: strides equal to the window and no
    padding before, so each input position lies in at most one window."""
    return tuple(strides) == tuple(ksize) and pads[0] == pads[2] == 0


# max_pool3d by TensorFlow 2.21's CPU kernel (ops/pool3d.py): it computes this many float32
# outputs at once (Eigen's AVX packet), and its gradient's tie tolerance |x - y| < TIE
POOL3D_PACKET = 8
POOL3D_TIE = 1e-5


def row_parts(rows, per_row, part, most):
    """(rows per part, parts): `rows` rows of `per_row` items each cut into parts of
    whole rows, about `part` items a part and at most `most` parts (at least one); all
    parts but the last have the same number of rows."""
    parts = max(1, min(-(-rows * per_row // part), most, rows))
    per = -(-rows // parts)
    return per, -(-rows // per)


def reduction_view(shape, axes):
    """(perm, A, R, B): an array of `shape` reduced over `axes` viewed as [A, R, B]
    (outer, reduced, inner) in its own order when the reduced axes are adjacent after
    dropping size-1 axes (perm None), else after transposing by `perm`, which moves
    the reduced axes last (B = 1)."""
    runs = []  # [reduced?, size] of merged non-trivial axes
    for k, d in enumerate(shape):
        if d == 1:
            continue
        red = k in axes
        if runs and runs[-1][0] == red:
            runs[-1][1] *= d
        else:
            runs.append([red, d])
    reduced = [size for red, size in runs if red]
    if len(reduced) <= 1:
        a = b = 1
        seen = False
        for red, size in runs:
            if red:
                seen = True
            elif seen:
                b *= size
            else:
                a *= size
        return None, a, (reduced[0] if reduced else 1), b
    perm = tuple(k for k in range(len(shape)) if k not in axes) + tuple(axes)
    r = total = 1
    for k in axes:
        r *= shape[k]
    for d in shape:
        total *= d
    return perm, total // r, r, 1


def prologue_reads(shape, axes, leaf_shapes):
    """How a reduction of an array of `shape` over `axes` reads arrays of `leaf_shapes`
    (broadcast to `shape`) that it computes its input from, element e of the
    [A, R, B] view (`reduction_view`, flat in the view's order) at a time.

    Returns (perm, A, R, B, dims, modes, strided): `modes` per leaf "c" (its element
    e), "z" (its element 0) or "s" (the offset sum(c_k * strides[k]) from e's
    coordinates c over `dims`, the view's shape with merged axes); `strided` the
    strides of the "s" leaves, in order. No transpose is made: a leaf's strides
    follow the view's axis order.
    """
    perm, a, r, b = reduction_view(shape, axes)
    order = perm if perm is not None else tuple(range(len(shape)))
    view = tuple(shape[p] for p in order)
    leaf_strides = []
    for leaf in leaf_shapes:
        own = broadcast_strides(leaf, shape)
        leaf_strides.append(tuple(own[p] for p in order))
    dims, sets = collapse(view, [contiguous_strides(view)] + leaf_strides)
    modes, strided = [], []
    for s in sets[1:]:
        if s == sets[0]:
            modes.append("c")
        elif not any(s):
            modes.append("z")
        else:
            modes.append("s")
            strided.append(s)
    return perm, a, r, b, dims, modes, strided
