"""Elementwise fusion of a trace: chains of elementwise ops become one kernel.

A value made by an elementwise op and read only by one other elementwise op
(not returned, assigned or read by host code; not a single value broadcast to a
larger result, which a GPU would compute again per element) is inlined into its
reader, so a chain or tree of such ops becomes one `fused_elementwise` step at
the place of its last op (ops/fused.py). Its inputs are the tree's distinct arrays, read
once per element; Python scalars become constants of the kernel; only the
tree's result is written. Every intermediate a later step needs stays a
separate step's output, so the fused plan computes exactly what the trace did.
"""

from ..engine.registry import get_op
from ..engine.trace import step_reads
from ..ops.fused import FusedProgram, fusible as fusible_op

# arrays one fused kernel reads: WebGPU's default limit is 8 storage buffers per
# shader stage, and a WGSL kernel also binds its output and its parameters
MAX_INPUTS = 6


def fuse(steps, meta, out_slots, state_slots):
    """`steps` with elementwise trees replaced by fused steps (see the module docstring).

    Args:
        steps: the trace's steps (engine/trace.py).
        meta: slot -> (shape, dtype) or the Python scalar.
        out_slots: slots the function returns.
        state_slots: slots holding Variables (read live, so reads never move past an
            assignment).
    """
    readers = {}
    producer = {}
    fusible = set()
    for i, step in enumerate(steps):
        for k in step_reads(step):
            readers.setdefault(k, set()).add(i)
        if _fusible(step, meta):
            producer[step[4][0]] = i
            fusible.add(i)

    def inlinable(k, i):
        # A single value read by a larger result stays a launch of its own: inlined, a
        # GPU would compute it again for every element (Adam's step size, say).
        return i in fusible and k in producer and k not in out_slots and \
            readers.get(k) == {i} and (_size(meta[k]) > 1 or _size(meta[steps[i][4][0]]) == 1)

    roots = [i for i in sorted(fusible) if not any(
        inlinable(steps[i][4][0], j) for j in readers.get(steps[i][4][0], ()))]
    fused, absorbed = {}, set()
    for r in roots:
        built = _build(r, steps, meta, producer, inlinable)
        if built is None:
            continue
        nodes, dtypes, leaves, members = built
        if len(nodes) < 2 or len(leaves) > MAX_INPUTS or \
                crosses_assign(members, r, steps, state_slots):
            continue
        out = steps[r][4][0]
        shape, dtype = meta[out]
        program = FusedProgram(nodes, dtypes, shape, dtype)
        fused[r] = ("op", _FUSED[0] or _fused_op(), tuple(leaves), {"program": program},
                    (out,), None)
        absorbed.update(m for m in members if m != r)
    return [fused.get(i, step) for i, step in enumerate(steps) if i not in absorbed]


_FUSED = [None]


def _size(m):
    n = 1
    for d in m[0]:
        n *= d
    return n


def _fused_op():
    _FUSED[0] = get_op("fused_elementwise")
    return _FUSED[0]


def _fusible(step, meta):
    if step[0] != "op" or step[5] is not None or len(step[4]) != 1:
        return False
    if not fusible_op(step[1]):
        return False
    for k in (*step[2], step[4][0]):
        m = meta[k]
        if type(m) is tuple and (0 in m[0] if m[0] else False):
            return False  # size 0: runs on the host
    return True


def _build(root, steps, meta, producer, inlinable):
    nodes, dtypes, leaves, members = [], [], {}, []

    def node(i):
        _, op, ins, attrs, outs, _ = steps[i]
        members.append(i)
        operands = []
        for k in ins:
            m = meta[k]
            if type(m) is not tuple:
                operands.append(("const", m))
            elif inlinable(k, i):
                operands.append(("node", node(producer[k])))
            else:
                operands.append(("in", leaves.setdefault(k, len(leaves))))
        nodes.append((op.name, attrs, tuple(operands)))
        dtypes.append(meta[outs[0]][1])
        return len(nodes) - 1

    node(root)
    return nodes, dtypes, list(leaves), members


def crosses_assign(members, root, steps, state_slots):
    """Whether a member reads a Variable that an assignment before `root` replaces."""
    for m in members:
        if m == root:
            continue
        reads = [k for k in steps[m][2] if k in state_slots]
        if reads and any(steps[j][0] == "assign" and steps[j][1] in reads
                         for j in range(m + 1, root)):
            return True
    return False
