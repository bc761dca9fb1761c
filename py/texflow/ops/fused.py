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
from ..engine.registry import all_ops, def_op

def fusible(op):
    """Whether every kernel language can fuse op `op` (an OpDef): the elementwise ops
    declared with ops/declare.py, `where` and `cast`."""
    return op.elementwise is not None


def elementwise_ops():
    """The names of the ops `fusible` accepts."""
    return frozenset(name for name, op in all_ops().items() if fusible(op))


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
