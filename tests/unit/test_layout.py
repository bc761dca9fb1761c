"""backends/layout.py, the layout arithmetic GLSL and WGSL kernels share, against numpy."""

import itertools

import numpy as np
import pytest

from texflow.backends.layout import (axis_view, broadcast_strides, collapse,
                                     contiguous_strides, pow2_at_least, reduction_view,
                                     reverse_view, row_parts, slice_view, strided_view,
                                     tile_view, transpose_view, windows_tile)


def _read(flat, shape, strides, offset=0):
    """What a kernel reads: flat[offset + sum(i_k * strides_k)] at every index of shape."""
    out = np.empty(shape, flat.dtype)
    for index in itertools.product(*[range(d) for d in shape]):
        out[index] = flat[offset + sum(i * s for i, s in zip(index, strides))]
    return out


@pytest.mark.parametrize("in_shape,out_shape", [
    ((), (3,)), ((4,), (2, 4)), ((2, 1), (2, 3)), ((1, 3, 1), (2, 3, 4)),
    ((2, 3, 4), (2, 3, 4)), ((5, 1, 1, 2), (5, 3, 2, 2)), ((1,), (1, 1))])
def test_broadcast_strides_and_collapse_read_what_numpy_broadcasts(in_shape, out_shape):
    x = np.arange(int(np.prod(in_shape)), dtype=np.int32).reshape(in_shape)
    want = np.broadcast_to(x, out_shape)
    strides = broadcast_strides(in_shape, out_shape)
    assert np.array_equal(_read(x.reshape(-1), out_shape, strides), want)
    own = contiguous_strides(out_shape)
    assert own == tuple(s // 4 for s in np.empty(out_shape, np.int32).strides)
    dims, (out_s, in_s) = collapse(out_shape, [own, strides])
    # the collapsed view reads the same elements in the same order, with no axis of size 1
    assert 1 not in dims and len(dims) <= len(out_shape)
    assert out_s == contiguous_strides(dims)
    assert np.array_equal(_read(x.reshape(-1), dims, in_s).reshape(-1), want.reshape(-1))


@pytest.mark.parametrize("shape,axes", [
    ((7,), (0,)), ((3, 4), (0,)), ((3, 4), (1,)), ((2, 3, 5), (0, 2)), ((2, 3, 5), (1,)),
    ((2, 1, 3, 4), (1, 2)), ((2, 3, 4, 5), (1, 3)), ((4, 1, 5), (0, 1)), ((3, 4), (0, 1)),
    ((2, 3), ())])
def test_reduction_view_sums_as_numpy(shape, axes):
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    perm, a, r, b = reduction_view(shape, axes)
    moved = x if perm is None else x.transpose(perm)
    got = moved.reshape(a, r, b).sum(axis=1).reshape(-1)
    assert np.array_equal(got, x.sum(axis=axes).reshape(-1))
    assert perm is None or b == 1


@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4), (1, 4, 1, 3)])
def test_movement_views_read_what_numpy_moves(shape):
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    flat, rank = x.reshape(-1), len(shape)
    perm = tuple(reversed(range(rank)))
    assert np.array_equal(_read(flat, x.transpose(perm).shape, transpose_view(shape, perm)),
                          x.transpose(perm))
    begin = tuple(d // 2 for d in shape)
    size = tuple(d - b for d, b in zip(shape, begin))
    strides, offset = slice_view(shape, begin)
    assert np.array_equal(_read(flat, size, strides, offset),
                          x[tuple(slice(b, b + n) for b, n in zip(begin, size))])
    window = [(d - 1, -1, d) if k % 2 else (0, 2, -(-d // 2)) for k, d in enumerate(shape)]
    counts, strides, offset = strided_view(shape, window)
    assert np.array_equal(_read(flat, counts, strides, offset),
                          x[tuple(slice(a, None, st) for a, st, _ in window)])
    axes = tuple(range(0, rank, 2))
    strides, offset = reverse_view(shape, axes)
    assert np.array_equal(_read(flat, shape, strides, offset), np.flip(x, axes))
    multiples = tuple(k % 3 + 1 for k in range(rank))
    split, strides = tile_view(shape, multiples)
    assert np.array_equal(_read(flat, split, strides).reshape(-1),
                          np.tile(x, multiples).reshape(-1))


def test_axis_view_padding_and_parts():
    assert axis_view((2, 3, 4, 5), 1) == (2, 3, 20)
    assert axis_view((2, 3, 4, 5), -1) == (24, 5, 1)
    assert axis_view((7,), 0) == (1, 7, 1)
    assert [pow2_at_least(n, 4) for n in (1, 4, 5, 1024, 1025)] == [4, 4, 8, 1024, 2048]
    assert [pow2_at_least(n, 2) for n in (1, 3)] == [2, 4]
    for rows, per_row, part, most in [(1, 1, 512, 256), (100, 30, 512, 256), (64, 600, 512, 8),
                                      (3, 2000, 512, 256), (1000, 1000, 512, 1)]:
        per, parts = row_parts(rows, per_row, part, most)
        assert 1 <= parts <= min(most, rows) and (parts - 1) * per < rows <= parts * per
    assert windows_tile((2, 2), (2, 2), (0, 1, 0, 1)) and windows_tile([3, 1], (3, 1), (0,) * 4)
    assert not windows_tile((2, 2), (1, 2), (0,) * 4)
    assert not windows_tile((2, 2), (2, 2), (0, 0, 1, 0))
