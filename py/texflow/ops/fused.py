"""`fused_elementwise` and `fused_elementwise_multi`: one kernel computing a tree (or a
set of trees sharing inputs) of elementwise ops.

tf.function builds these from chains of elementwise ops in a trace
(autodiff/fusion.py); they are not public ops. A `FusedProgram` lists the
nodes in order, each an elementwise op name, its attrs and operands:
("in", k) the k-th input array, ("node", j) an earlier node's value, or
("const", v) a Python scalar; `outputs` names the nodes written (the last
node alone for `fused_elementwise`; several nodes of one shape and dtype for
`fused_elementwise_multi`, whose kernel writes them all in one launch). Each
kernel language composes the bodies its own kernel of each op uses
(backends/*/fused.py), so a fused kernel computes what the separate kernels
compute, without writing the intermediates.
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
    """Elementwise nodes (see the module docstring) with the shape and dtype of their
    outputs. `key` spells the program out; programs with equal keys compute the same.
    `reads[j]`: how many operands read node j; `dead[j]`: the nodes whose last reader
    is node j and which are not outputs (a kernel holding values may free them)."""

    __slots__ = ("nodes", "node_dtypes", "shape", "dtype", "outputs", "reads", "dead",
                 "key")

    def __init__(self, nodes, node_dtypes, shape, dtype, outputs=None):
        self.nodes = tuple(nodes)
        self.node_dtypes = tuple(dtypes.device_dtype(d) for d in node_dtypes)
        self.shape = tuple(shape)
        self.dtype = dtypes.device_dtype(dtype)
        self.outputs = (len(self.nodes) - 1,) if outputs is None else tuple(outputs)
        reads, last = [0] * len(self.nodes), {}
        for j, (_, _, operands) in enumerate(self.nodes):
            for kind, v in operands:
                if kind == "node":
                    reads[v] += 1
                    last[v] = j
        self.reads = tuple(reads)
        dead = [[] for _ in self.nodes]
        for v, j in last.items():
            if v not in self.outputs:
                dead[j].append(v)
        self.dead = tuple(tuple(d) for d in dead)
        self.key = ";".join(f"{name}{sorted(attrs.items())}{operands}"
                            for name, attrs, operands in self.nodes) + f"->{self.outputs}"

    def __repr__(self):
        return f"FusedProgram({len(self.nodes)} ops: {self.key})"


def _infer(inputs, attrs):
    program = attrs["program"]
    return program.shape, program.dtype


def _infer_multi(inputs, attrs):
    program = attrs["program"]
    return [(program.shape, program.dtype)] * len(program.outputs)


fused_elementwise = def_op("fused_elementwise", _infer)
# num_outputs None: as many as the program writes, all from one kernel call
fused_elementwise_multi = def_op("fused_elementwise_multi", _infer_multi, num_outputs=None)
