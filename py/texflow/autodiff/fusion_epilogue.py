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

Then, after the kernels of several outputs (fusion.py `fuse_outputs`), where the kernel
language gains by it (`MULTI_EPILOGUE_LANGUAGES`), a matmul read only by one
`fused_elementwise_multi` step of its shape becomes `matmul_epilogue_multi`
(`fuse_multi_epilogues`): on GLSL the blocked product's interleaving pass computes the
whole kernel (an optimizer's update of the Variable whose gradient the product is),
so the product is never written whole and read again.
"""

from ..engine import context
from ..engine.registry import get_op
from ..engine.trace import step_reads
from ..ops.epilogue import PRODUCTS
from ..ops.fused import FusedProgram, fusible
from .fusion import MAX_INPUTS, crosses_assign

_FUSED = "fused_elementwise"
_MULTI = "fused_elementwise_multi"
# Kernel languages whose blocked matmul writes C in a pass of its own (GLSL's
# interleaving pass), which can compute a kernel of several outputs instead. Elsewhere
# matmul_epilogue_multi's kernel is the product and the kernel of several outputs, as
# two launches: no gain, so the rewrite is not made there (its kernels run in tests).
MULTI_EPILOGUE_LANGUAGES = {"glsl"}


def fuse_epilogues(steps, meta, out_slots, state_slots):
    """`steps` with products folded into their elementwise readers (module docstring)."""
    return _fold(steps, meta, out_slots, state_slots, PRODUCTS, _elementwise)


def fuse_multi_epilogues(steps, meta, out_slots, state_slots):
    """`steps` with each matmul read only by a kernel of several outputs folded into it
    (module docstring), where the kernel language gains by it."""
    if context.current().language not in MULTI_EPILOGUE_LANGUAGES:
        return steps
    return _fold(steps, meta, out_slots, state_slots,
                 {"matmul": get_op("matmul_epilogue_multi")}, _multi)


def _fold(steps, meta, out_slots, state_slots, products, accepts):
    """`steps` with each product of `products` (op name -> folded op) read by exactly one
    step that `accepts` folded into it."""
    readers, made_by = {}, {}
    for i, step in enumerate(steps):
        for k in step_reads(step):
            readers.setdefault(k, []).append(i)
        if step[0] == "op" and step[1].name in products and step[5] is None:
            made_by[step[4][0]] = i
    replaced, absorbed = {}, set()
    for k, i in made_by.items():
        reads = readers.get(k, ())
        if k in out_slots or len(reads) != 1 or not _float_sized(meta[k]):
            continue
        j = reads[0]
        reader = steps[j]
        if j in replaced or not accepts(reader) or meta[reader[4][0]] != meta[k]:
            continue  # not elementwise, or a result of another shape or dtype
        program, extras = _epilogue(reader, k, meta)
        operands = steps[i][2]
        if len(operands) + len(extras) > MAX_INPUTS or \
                crosses_assign([i], j, steps, state_slots):
            continue
        _, op, _, attrs, _, _ = steps[i]
        replaced[j] = ("op", products[op.name], (*operands, *extras),
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


def _multi(step):
    return (step[0] == "op" and step[5] is None and step[1].name == _MULTI
            and step[3].get("output_index") is None)


def _epilogue(reader, k, meta):
    """The reader as a FusedProgram whose input 0 is slot `k`, and its other arrays."""
    _, op, ins, attrs, outs, _ = reader
    outputs = None
    if op.name in (_FUSED, _MULTI):
        program = attrs["program"]
        nodes, leaves = program.nodes, list(ins)
        dtypes = program.node_dtypes
        outputs = program.outputs if op.name == _MULTI else None
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
    return FusedProgram(nodes, dtypes, shape, dtype, outputs), order[1:]
