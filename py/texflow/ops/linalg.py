"""Linear algebra over texflow's ops: tensordot, norm, global_norm, clip_by_norm and
clip_by_global_norm (TensorFlow's formulas, so values and gradients match), and the
matrix 2-norm, the one op here with a kernel: the largest singular value, computed on
the host with numpy's SVD (GPU kernels have no SVD), as is its gradient u1 v1^T."""

import numpy as np

from ..dtypes import float32
from ..engine.ndarray import NDArray, as_array, from_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..errors import InvalidArgumentError
from . import elementwise as ew
from . import reduce as rd
from .matmul import matmul
from .movement import reshape, squeeze, stack, transpose


# -- tensordot ---------------------------------------------------------------------------

def _tensordot_axes(axes, a, b):
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"tensordot: `axes` must be at least 0. Received: {n}.")
        for x in (a, b):
            if n > len(x.shape):
                raise ValueError(f"tensordot: `axes` must not be larger than the number of "
                                 f"dimensions of tensor {list(x.shape)}. Received {n}.")
        return list(range(len(a.shape) - n, len(a.shape))), list(range(n))
    if len(axes) != 2:
        raise ValueError(f"tensordot: `axes` must be an int or a pair of axis lists, "
                         f"received {axes!r}")
    a_axes, b_axes = ([int(v)] if np.ndim(v) == 0 else [int(u) for u in v] for v in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: different number of contraction axes `a` and `b`, "
                         f"{len(a_axes)} != {len(b_axes)}.")
    return ([v % len(a.shape) for v in a_axes], [v % len(b.shape) for v in b_axes])


@export("tf", "math", "linalg")
def tensordot(a, b, axes, name=None):
    """Sums the products of `a` and `b` over the axes `axes` pairs up (an int N: the last
    N of a with the first N of b), TensorFlow's tensordot: a transpose, a reshape and one
    matmul.

    >>> tf.tensordot(tf.ones([2, 3]), tf.ones([3, 4]), axes=1).shape
    (2, 4)
    """
    a, b = as_array(a), as_array(b)
    a_axes, b_axes = _tensordot_axes(axes, a, b)
    for i, j in zip(a_axes, b_axes):
        if a.shape[i] != b.shape[j]:
            raise InvalidArgumentError(f"tensordot: matrix size-incompatible: axis {i} of "
                                       f"{list(a.shape)} and axis {j} of {list(b.shape)}")
    free_a = [i for i in range(len(a.shape)) if i not in a_axes]
    free_b = [j for j in range(len(b.shape)) if j not in b_axes]
    k = int(np.prod([a.shape[i] for i in a_axes], dtype=np.int64))
    m = int(np.prod([a.shape[i] for i in free_a], dtype=np.int64))
    n = int(np.prod([b.shape[j] for j in free_b], dtype=np.int64))
    a2 = reshape(transpose(a, free_a + a_axes), (m, k))
    b2 = reshape(transpose(b, b_axes + free_b), (k, n))
    return reshape(matmul(a2, b2), tuple(a.shape[i] for i in free_a) +
                   tuple(b.shape[j] for j in free_b))


# -- norms -------------------------------------------------------------------------------

def _matrix_norm2_grad(dy, inputs, y, attrs):
    return (ew.mul(run_op(_matrix_norm2_vectors, inputs), reshape(dy, dy.shape + (1, 1))),)


_matrix_norm2 = def_op("matrix_norm2", lambda inputs, attrs: (inputs[0].shape[:-2], float32),
                       grad=_matrix_norm2_grad, host_only=True)
_matrix_norm2_vectors = def_op("matrix_norm2_vectors",
                               lambda inputs, attrs: (inputs[0].shape, float32),
                               host_only=True)


@export("tf", "math", "linalg")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """A vector norm (ord 'euclidean', 1, 2, np.inf or any p > 0; over all entries when
    axis is None, else along one axis) or a matrix norm (axis a pair: 'fro',
    'euclidean', 1, np.inf, 2 = the largest singular value, computed on the host),
    TensorFlow's norm.

    >>> tf.norm(tf.constant([3.0, 4.0])).get()
    5.0
    """
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if matrix:
        if not all(isinstance(v, int) for v in axis) or axis[0] == axis[1]:
            raise ValueError(f"norm: 'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if not any(ord == o and type(ord) is not bool for o in ("euclidean", "fro", 1, 2,
                                                                 np.inf)):
            raise ValueError(f"norm: 'ord' must be a supported matrix norm in ['euclidean', "
                             f"'fro', 1, 2, inf], got {ord}")
    else:
        if not (axis is None or isinstance(axis, int)):
            raise ValueError(f"norm: 'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if isinstance(ord, str) and ord != "euclidean" or not isinstance(ord, str) and (
                not np.isreal(ord) or not ord > 0):
            raise ValueError(f"norm: 'ord' must be a supported vector norm, got {ord}")
    x = as_array(tensor)
    rank = len(x.shape)
    axes = None if axis is None else tuple(a % rank for a in (axis if matrix else [axis]))
    if ord in ("euclidean", "fro", 2) and not (matrix and ord == 2):
        x = ew.expect_dtype(x, "norm", ew.FLOAT)
        result = ew.sqrt(rd.sum(ew.mul(x, x), axes, keepdims=True))
    elif matrix and ord == 2:
        x = ew.expect_dtype(x, "norm", ew.FLOAT)
        rest = [i for i in range(rank) if i not in axes]
        value = run_op(_matrix_norm2, (transpose(x, rest + list(axes)),))
        result = reshape(value, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    elif ord == 1:
        result = rd.sum(ew.abs(x), None if axes is None else axes[0], keepdims=True)
        if matrix:
            result = rd.max(result, axes[1], keepdims=True)
    elif ord == np.inf:
        result = ew.abs(x)
        if matrix:
            result = rd.sum(result, axes[1], keepdims=True)
        result = rd.max(result, None if axes is None else axes[0], keepdims=True)
    else:
        x = ew.expect_dtype(x, "norm", ew.FLOAT)
        p = float(ord)
        result = ew.pow(rd.sum(ew.pow(ew.abs(x), p), axes, keepdims=True), 1.0 / p)
    if keepdims:
        return result
    return squeeze(result, axes) if axes is not None else reshape(result, ())


# -- clipping ----------------------------------------------------------------------------

@export("math", "linalg")
def global_norm(t_list, name=None):
    """sqrt of the sum of the squares of every entry of every tensor in `t_list` (None
    entries are skipped), TensorFlow's global_norm.

    >>> tf.linalg.global_norm([tf.constant([3.0]), tf.constant([4.0])]).get()
    5.0
    """
    if isinstance(t_list, (NDArray, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"global_norm: `t_list` should be a sequence of tensors. Received "
                        f"{type(t_list)}.")
    halves = [ew.mul(rd.sum(ew.square(ew.expect_dtype(t, "global_norm", ew.FLOAT))), 0.5)
              for t in t_list if t is not None]
    if not halves:
        return from_numpy(np.float32(0.0))
    return ew.sqrt(ew.mul(rd.sum(stack(halves)), 2.0))


@export("tf")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """The tensors of `t_list` scaled by clip_norm / max(global_norm, clip_norm), and the
    global norm (TensorFlow's: an infinite or NaN norm makes every entry NaN).

    >>> [t.tolist() for t in tf.clip_by_global_norm([tf.constant([3.0, 4.0])], 1.0)[0]]
    [[0.6000000238418579, 0.800000011920929]]
    """
    if isinstance(t_list, (NDArray, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"clip_by_global_norm: `t_list` should be a sequence of tensors. "
                        f"Received {type(t_list)}.")
    t_list = list(t_list)
    norm_ = global_norm(t_list) if use_norm is None else as_array(use_norm)
    clip = float(clip_norm) if not isinstance(clip_norm, NDArray) else clip_norm
    scale = ew.mul(clip, ew.minimum(ew.div(1.0, norm_), ew.div(1.0, clip)))
    scale = ew.add(scale, ew.sub(norm_, norm_))  # NaN when the norm is not finite
    return [None if t is None else ew.mul(as_array(t), scale) for t in t_list], norm_


@export("tf")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t` scaled down so that its L2 norm over `axes` (all axes when None) is at most
    `clip_norm` (TensorFlow's clip_by_norm; a zero norm leaves t as it is).

    >>> tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0).tolist()
    [0.6000000238418579, 0.800000011920929]
    """
    t = ew.expect_dtype(t, "clip_by_norm", ew.FLOAT)
    l2sum = rd.sum(ew.mul(t, t), axes, keepdims=True)
    positive = ew.greater(l2sum, 0.0)
    # TensorFlow's double where keeps the gradient of sqrt away from 0
    l2norm = ew.where(positive, ew.sqrt(ew.where(positive, l2sum, 1.0)), l2sum)
    return ew.div(ew.mul(t, clip_norm), ew.maximum(l2norm, clip_norm))
