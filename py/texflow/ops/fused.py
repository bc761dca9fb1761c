"""`fused_elementwise`: one kernel computing a tree of elementwise ops.

tf.function builds these from chains of elementwise ops in a trace
(autodiff/fusion.py); they are not a public op. A `FusedProgram` lists the
tree's nodes in order, each an elementwise op name, its attrs and operands:
("in", k) the k-th input array, ("node", j) an earlier node's value, or
("const", v) a Python scalar. Each kernel language composes the bodies its own
kernel of each op uses (backends/*/fused.py), so a fused chain computes what
the chain of separate kernels computes, without writing the intermediates.
"""

from .. import dtypes
from ..engine.registry import def_op

# The elementwise ops every kernel language can fuse.
ELEMENTWISE = frozenset((
    "neg", "abs", "square", "sign", "relu", "floor", "ceil", "exp", "log", "sqrt", "rsqrt",
    "tanh", "sigmoid", "elu", "sin", "cos", "is_nan", "is_finite", "logical_not", "log1p",
    "expm1", "softplus", "erf", "relu6", "invert", "erfc",
    "add", "sub", "mul", "pow", "maximum", "minimum", "div", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "floordiv", "floormod", "bitwise_and",
    "bitwise_or", "bitwise_xor", "where", "cast"))


class FusedProgram:
    """A tree of elementwise ops (see the module docstring) with its output's shape and
    dtype. `key` spells the tree out; programs with equal keys compute the same."""

    __slots__ = ("nodes", "node_dtypes", "shape", "dtype", "key")

    def __init__(self, nodes, node_dtypes, shape, dtype):
        self.nodes = tuple(nodes)
        self.node_dtypes = tuple(dtypes.device_dtype(d) for d in node_dtypes)
        self.shape = tuple(shape)
        self.dtype = dtypes.device_dtype(dtype)
        self.key = ";".join(f"{name}{sorted(attrs.items())}{operands}"
                            for name, attrs, operands in self.nodes)

    def __repr__(self):
        return f"FusedProgram({len(self.nodes)} ops: {self.key})"


def _infer(inputs, attrs):
    program = attrs["program"]
    return program.shape, program.dtype


fused_elementwise = def_op("fused_elementwise", _infer)
