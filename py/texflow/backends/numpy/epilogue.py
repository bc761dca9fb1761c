"""numpy kernels of `matmul_epilogue` and `conv2d_epilogue` (ops/epilogue.py): the
product from the matmul/conv2d kernel, then the epilogue applied in place on it.

Nodes whose op is one of `_IN_PLACE` and whose value has the product's shape and
float32 dtype are computed with numpy's `out=` into the product's own buffer (or
an earlier node's, once nothing reads it any more): no allocation and no pass over
new memory per node. They are the ops an epilogue usually has, each with float32
operands computing exactly what its registry kernel computes; any other node runs
its registry kernel, as `fused_elementwise` does.
"""

import numpy as np

from ... import dtypes
from ..base import kernel, kernels_for
from .conv import conv2d, max_pool_taps
from .fused import fused_elementwise_multi, node_value
from .matmul import matmul

_F32, _BOOL = np.dtype(np.float32), np.dtype(np.bool_)

# op name -> numpy call writing into `out` (float32 operands, or a bool mask for mul)
_IN_PLACE = {
    "add": lambda x, y, out: np.add(x, y, out=out),
    "sub": lambda x, y, out: np.subtract(x, y, out=out),
    "mul": lambda x, y, out: np.multiply(x, y, out=out),
    "maximum": lambda x, y, out: np.maximum(x, y, out=out),
    "minimum": lambda x, y, out: np.minimum(x, y, out=out),
    "relu": lambda x, out: np.maximum(x, _F32.type(0), out=out),
    "neg": lambda x, out: np.negative(x, out=out),
    "tanh": lambda x, out: np.tanh(x, out=out),
}


@kernel("matmul_epilogue", "numpy")
def matmul_epilogue(k, a, b, *extras, program, transpose_a, transpose_b):
    return apply(matmul(k, a, b, transpose_a=transpose_a, transpose_b=transpose_b), extras,
                 program)


@kernel("matmul_epilogue_multi", "numpy")
def matmul_epilogue_multi(k, a, b, *extras, program, transpose_a, transpose_b,
                          output_index=None):
    """The product, then the kernel of several outputs: eager's kernels."""
    product = matmul(k, a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    return fused_elementwise_multi(k, product, *extras, program=program,
                                   output_index=output_index)


@kernel("conv2d_epilogue", "numpy")
def conv2d_epilogue(k, x, w, *extras, program, strides, dilations, pads):
    return apply(conv2d(k, x, w, strides=strides, dilations=dilations, pads=pads), extras,
                 program)


@kernel("conv2d_pool", "numpy")
def conv2d_pool(k, x, w, *extras, program, strides, dilations, pads, conv_shape, ksize,
                pool_strides, pool_pads, pooled_shape, output_index=None):
    """The convolution (through its epilogue), then max_pool_taps: eager's kernels."""
    h = conv2d(k, x, w, strides=strides, dilations=dilations, pads=pads)
    if program is not None:
        h = apply(h, extras, program)
    return max_pool_taps(k, h, ksize, pool_strides, pool_pads, output_index)


def apply(acc, extras, program):
    """Epilogue `program` on product `acc` (a new float32 array, overwritten) and the
    arrays `extras` (its inputs 1..)."""
    table = kernels_for("numpy")
    uses = {}
    for _, _, operands in program.nodes:
        for operand in operands:
            uses[operand] = uses.get(operand, 0) + 1
    shape = acc.shape
    values, spare = [], [acc]   # spare: a full-size float32 buffer nothing reads any more
    for (name, attrs, operands), dtype in zip(program.nodes, program.node_dtypes):
        ins = []
        for operand in operands:
            kind, v = operand
            x = values[v] if kind == "node" else acc if operand == ("in", 0) else \
                extras[v - 1] if kind == "in" else v
            ins.append(x)
            uses[operand] -= 1
            if kind == "node" and not uses[operand] and values[v] is not None and \
                    values[v].shape == shape and values[v].dtype == _F32:  # its last read
                spare.append(values[v])
                values[v] = None
        in_place = _IN_PLACE.get(name)
        buffer = _buffer(spare, uses, acc) if in_place and dtype == dtypes.float32 and \
            _fills(ins, name, shape) else None
        if buffer is not None:
            with np.errstate(all="ignore"):
                result = in_place(*ins, out=buffer)
        else:
            result = node_value(table, name, ins, attrs, dtype)
        values.append(result)
    return values[-1]


def _buffer(spare, uses, acc):
    """A full-size float32 buffer free to overwrite: a dead node's, or the product's once
    no node reads it any more."""
    for i, x in enumerate(spare):
        if x is not acc or uses.get(("in", 0), 0) == 0:
            return spare.pop(i)
    return None


def _fills(ins, name, shape):
    """Whether operands `ins` are float32 (or a mul's bool mask) and give `shape`."""
    shapes = []
    for x in ins:
        if isinstance(x, np.ndarray):
            if x.dtype != _F32 and not (name == "mul" and x.dtype == _BOOL):
                return False
            shapes.append(x.shape)
        elif type(x) is not float:
            return False
    return np.broadcast_shapes(*shapes) == shape
