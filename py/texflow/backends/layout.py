"""Array layout arithmetic the GPU kernel languages share: strides, merging axes that
every operand walks as one, and the [A, R, B] view of a reduction.

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
