"""Epilogue fusion of a trace: a matmul or conv2d read only by an elementwise tree
becomes one step computing both (ops/epilogue.py).

Runs after elementwise fusion (autodiff/fusion.py). A product (matmul, conv2d)
whose value is read by exactly one step, which is elementwise (a fused tree or a
single op) and gives a result of the product's own shape and dtype (float32; each
output element reads the product's element once, never broadcast), and which
neither the function returns nor host code reads, is folded into that reader: the
product's kernel applies the tree to its accumulator before its single write,
and the product's value is never stored. The folded step runs where the reader
ran; a Variable the product reads must not be assigned in between.
"""

from ..engine.trace import step_reads
from ..ops.epilogue import PRODUCTS
from ..ops.fused import FusedProgram, fusible
from .fusion import MAX_INPUTS, crosses_assign

_FUSED = "fused_elementwise"


def fuse_epilogues(steps, meta, out_slots, state_slots):
    """`steps` with products folded into their elementwise readers (module docstring)."""
    readers, made_by = {}, {}
    for i, step in enumerate(steps):
        for k in step_reads(step):
            readers.setdefault(k, []).append(i)
        if step[0] == "op" and step[1].name in PRODUCTS and step[5] is None:
            made_by[step[4][0]] = i
    replaced, absorbed = {}, set()
    for k, i in made_by.items():
        reads = readers.get(k, ())
        if k in out_slots or len(reads) != 1 or not _float_sized(meta[k]):
            continue
        j = reads[0]
        reader = steps[j]
        if j in replaced or not _elementwise(reader) or meta[reader[4][0]] != meta[k]:
            continue  # not elementwise, or a result of another shape or dtype
        program, extras = _epilogue(reader, k, meta)
        operands = steps[i][2]
        if len(operands) + len(extras) > MAX_INPUTS or \
                crosses_assign([i], j, steps, state_slots):
            continue
        _, op, _, attrs, _, _ = steps[i]
        replaced[j] = ("op", PRODUCTS[op.name], (*operands, *extras),
                       dict(attrs, program=program), reader[4], None)
        absorbed.add(i)
    if not replaced:
        return steps
    return [replaced.get(i, step) for i, step in enumerate(steps) if i not in absorbed]


def _float_sized(m):
    """A float32 array of rank >= 1 and no size 0 (which runs on the host)."""
    return type(m) is tuple and m[1] == "float32" and all(m[0]) and len(m[0]) > 0


def _elementwise(step):
    if step[0] != "op" or step[5] is not None or len(step[4]) != 1:
        return False
    return step[1].name == _FUSED or fusible(step[1])


def _epilogue(reader, k, meta):
    """The reader as a FusedProgram whose input 0 is slot `k`, and its other arrays."""
    _, op, ins, attrs, outs, _ = reader
    if op.name == _FUSED:
        program = attrs["program"]
        nodes, leaves = program.nodes, list(ins)
        dtypes = program.node_dtypes
    else:  # one op: its operands, Python scalars as constants
        leaves = [s for s in ins if type(meta[s]) is tuple]
        operands = tuple(("in", leaves.index(s)) if type(meta[s]) is tuple
                         else ("const", meta[s]) for s in ins)
        nodes, dtypes = ((op.name, attrs, operands),), (meta[outs[0]][1],)
    order = [k] + [s for s in dict.fromkeys(leaves) if s != k]
    where = {s: order.index(s) for s in order}

    def renumber(operand):
        kind, v = operand
        return ("in", where[leaves[v]]) if kind == "in" else operand
    nodes = [(name, a, tuple(renumber(o) for o in ops)) for name, a, ops in nodes]
    shape, dtype = meta[outs[0]]
    return FusedProgram(nodes, dtypes, shape, dtype), order[1:]
