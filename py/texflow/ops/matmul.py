"""Matrix multiplication, batched with broadcasting batch dimensions."""

from .. import dtypes
from ..dtypes import bool_
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..errors import OpDTypeError, ShapeError
from .grad_util import unbroadcast
from .movement import reshape
from .shape_util import broadcast_shapes


def _matmul_infer(inputs, attrs):
    a, b = inputs
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise ShapeError(f"matmul: inputs must have rank >= 2, received shapes "
                         f"{list(a.shape)} and {list(b.shape)}")
    m, k = (a.shape[-1], a.shape[-2]) if ta else a.shape[-2:]
    k2, n = (b.shape[-1], b.shape[-2]) if tb else b.shape[-2:]
    if k != k2:
        raise ShapeError(
            f"matmul: inner dimensions do not match: shapes {list(a.shape)} and "
            f"{list(b.shape)} (transpose_a={ta}, transpose_b={tb}) give {k} and {k2}")
    batch = broadcast_shapes("matmul", a.shape[:-2], b.shape[:-2])
    dtype = dtypes.upcast(a.dtype, b.dtype)
    if dtype == bool_:
        raise OpDTypeError("matmul does not accept bool inputs; cast them first")
    return batch + (m, n), dtype


# (transpose_a, transpose_b) -> how each input's gradient is a matmul of (dy, a, b):
# (left operand, right operand, transpose_a, transpose_b), TensorFlow's rules.
_MATMUL_GRADS = {
    (False, False): (("dy", "b", False, True), ("a", "dy", True, False)),
    (False, True): (("dy", "b", False, False), ("dy", "a", True, False)),
    (True, False): (("b", "dy", False, True), ("a", "dy", False, False)),
    (True, True): (("b", "dy", True, True), ("dy", "a", True, True)),
}


def _matmul_grad(dy, inputs, y, attrs, needs=(True, True)):
    a, b = inputs
    named = {"dy": dy, "a": a, "b": b}
    rules = _MATMUL_GRADS[(attrs["transpose_a"], attrs["transpose_b"])]
    grads = []
    for x, need, (left, right, ta, tb) in zip(inputs, needs, rules):
        # Broadcast batch dimensions sum back to the input's shape.
        grads.append(unbroadcast(matmul(named[left], named[right], ta, tb), x.shape)
                     if need else None)
    return tuple(grads)


_matmul = def_op("matmul", _matmul_infer, grad=_matmul_grad, grad_needs=True)


@export("tf", "math", "linalg", "dl")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False,
           grad_b=False, name=None):
    """The matrix product of `a` and `b` (`a @ b`).

    Inputs of rank > 2 are batches of matrices whose batch dimensions
    broadcast. A rank-1 input is treated as numpy does: a row vector on the
    left, a column vector on the right, and that axis is dropped from the result.

    Args:
        a, b: NDArrays (or lists / numpy arrays) of float32 or int32.
        transpose_a, transpose_b: use the transpose of the last two axes.
        adjoint_a, adjoint_b: the same as transposing (texflow's dtypes are real); one of
            transpose_a and adjoint_a may be True, as in TensorFlow.
        a_is_sparse, b_is_sparse, grad_a, grad_b: TensorFlow's optimization hints,
            accepted and ignored (the result is the same).
        output_type: None, or the result's dtype.

    >>> tf.matmul(tf.ones([2, 3]), tf.ones([3, 4])).shape
    TensorShape([2, 4])
    """
    a = a if isinstance(a, NDArray) else from_numpy(to_numpy(a))
    b = b if isinstance(b, NDArray) else from_numpy(to_numpy(b))
    for side, transposed, adjoint in (("a", transpose_a, adjoint_a), ("b", transpose_b,
                                                                        adjoint_b)):
        if transposed and adjoint:
            raise ValueError(f"Only one of transpose_{side} and adjoint_{side} can be True.")
    transpose_a, transpose_b = transpose_a or adjoint_a, transpose_b or adjoint_b
    if output_type is not None and dtypes.as_dtype(output_type) != dtypes.upcast(a.dtype,
                                                                              b.dtype):
        raise TypeError(f"matmul: output_type {output_type} differs from the inputs' dtype "
                        f"{dtypes.upcast(a.dtype, b.dtype)}; cast the inputs instead")
    attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
    if len(a.shape) >= 2 and len(b.shape) >= 2:
        return run_op(_matmul, (a, b), attrs)
    if (len(a.shape) == 1 and transpose_a) or (len(b.shape) == 1 and transpose_b):
        raise ShapeError("matmul: transpose_a/transpose_b need inputs of rank >= 2")
    if not a.shape or not b.shape:
        raise ShapeError(f"matmul: inputs must not be scalars, received shapes "
                         f"{list(a.shape)} and {list(b.shape)}")
    k_a = a.shape[-1] if len(a.shape) == 1 or not transpose_a else a.shape[-2]
    k_b = b.shape[0] if len(b.shape) == 1 else (b.shape[-1] if transpose_b else b.shape[-2])
    if k_a != k_b:
        raise ShapeError(f"matmul: inner dimensions do not match: shapes {list(a.shape)} and "
                         f"{list(b.shape)} give {k_a} and {k_b}")
    a2 = reshape(a, (1,) + a.shape) if len(a.shape) == 1 else a
    b2 = reshape(b, b.shape + (1,)) if len(b.shape) == 1 else b
    out = run_op(_matmul, (a2, b2), attrs)
    shape = out.shape
    if len(a.shape) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(b.shape) == 1:
        shape = shape[:-1]
    return reshape(out, shape)
