"""The numpy kernel of `fused_elementwise`: the tree evaluated with the numpy kernels
of its ops, each node's value in its op's dtype as a separate launch would store it."""

import numpy as np

from ... import dtypes
from ..base import kernel, kernels_for


@kernel("fused_elementwise", "numpy")
def fused_elementwise(*args, program):
    table = kernels_for("numpy")
    values = []
    for (name, attrs, operands), dtype in zip(program.nodes, program.node_dtypes):
        ins = [args[v] if kind == "in" else values[v] if kind == "node" else v
               for kind, v in operands]
        result = table[name](*ins, **attrs)
        np_dtype = dtypes.NUMPY[dtype]
        if type(result) is not np.ndarray or result.dtype != np_dtype:
            result = np.asarray(result).astype(np_dtype)
        values.append(result)
    return values[-1]
