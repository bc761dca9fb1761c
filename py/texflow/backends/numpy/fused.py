"""The numpy kernel of `fused_elementwise`: the tree evaluated with the numpy kernels
of its ops, each node's value in its op's dtype as a separate launch would store it.
Each node's value is freed as soon as its one reader has it. (Measured: evaluating
in cache-sized blocks did not beat this on the 8-op chain, so there is none.)
"""

import numpy as np

from ... import dtypes
from ..base import kernel, kernels_for


@kernel("fused_elementwise", "numpy")
def fused_elementwise(*args, program):
    table = kernels_for("numpy")
    values = []
    for (name, attrs, operands), dtype in zip(program.nodes, program.node_dtypes):
        ins = []
        for kind, v in operands:
            if kind == "node":
                ins.append(values[v])
                values[v] = None  # read once (fusion inlines single readers): free it now
            else:
                ins.append(args[v] if kind == "in" else v)
        values.append(node_value(table, name, ins, attrs, dtype))
    return values[-1]


def node_value(table, name, ins, attrs, dtype):
    """Op `name`'s kernel from `table` on `ins`, as a numpy array of `dtype` (the node's
    value as a separate launch would store it)."""
    result = table[name](*ins, **attrs)
    np_dtype = dtypes.NUMPY[dtype]
    if type(result) is not np.ndarray or result.dtype != np_dtype:
        result = np.asarray(result).astype(np_dtype)
    return result
