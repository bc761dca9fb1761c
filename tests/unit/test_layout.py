"""backends/layout.py, the layout arithmetic GLSL and WGSL kernels share, against numpy."""

import itertools

import numpy as np
import pytest

from texflow.backends.layout import (broadcast_strides, collapse, contiguous_strides,
                                     reduction_view)


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
