"""Prologue fusion of a trace: a reduction reading a value that only it reads, made by
an elementwise tree, becomes one step computing both (ops/prologue.py).

Runs last, after kernels of several outputs (fusion.py `fuse_outputs`), and takes
only the trees left as steps of their own: a tree that joined such a kernel saves
its launch there already, and taking it out first can leave its kernel's other
members as separate launches (measured: one more launch per Keras fit step of the
MNIST CNN; this way one fewer, and never more). A `sum`, `prod`, `max` or `min` whose
input is made by an elementwise step (a fused tree or a single op) that nothing else
reads (not returned, assigned, viewed or read by host code), and which reduces more
than one element into a non-empty result, is folded with that step: the reduction's
kernel evaluates the tree per element where it reads its input, and the tree's result
is never stored. The folded step runs where the reduction ran; a Variable the tree
reads must not be assigned in between.
"""

from ..backends.layout import prologue_reads
from ..engine.trace import step_reads
from ..ops.fused import FusedProgram
from ..ops.prologue import REDUCTIONS, reduce_prologue
from .fusion import MAX_INPUTS, crosses_assign, elementwise_unit

# launch parameters a WGSL reduction pass has left for strided arrays (64 per dispatch,
# backends/wgsl/program.py META_INTS, less its own 5): a merged shape and each array's
# strides over it
MAX_STRIDE_PARAMS = 59


def fuse_prologues(steps, meta, out_slots, state_slots):
    """`steps` with elementwise trees folded into the reductions reading them (module
    docstring; arguments as fusion.py `fuse` takes them)."""
    readers, made_by = {}, {}
    for i, step in enumerate(steps):
        for k in step_reads(step):
            readers.setdefault(k, []).append(i)
        if step[0] == "op" and step[5] is None and len(step[4]) == 1:
            made_by[step[4][0]] = i
    replaced, absorbed = {}, set()
    for j, step in enumerate(steps):
        if step[0] != "op" or step[5] is not None or step[1].name not in REDUCTIONS:
            continue
        k = step[2][0]
        i = made_by.get(k)
        if i is None or k in out_slots or readers.get(k) != [j] or i in absorbed or \
                not _reduces(meta[k], meta[step[4][0]], step[3]["axes"]):
            continue
        unit = elementwise_unit(steps[i], meta)
        if unit is None:
            continue
        nodes, node_dtypes, leaves = unit
        shape, dtype = meta[k]
        if len(leaves) > MAX_INPUTS or crosses_assign([i], j, steps, state_slots) or \
                _params(shape, step[3]["axes"], [meta[s][0] for s in leaves]) > \
                MAX_STRIDE_PARAMS:
            continue
        attrs = dict(step[3], program=FusedProgram(nodes, node_dtypes, shape, dtype),
                     reduction=step[1].name)
        replaced[j] = ("op", reduce_prologue, tuple(leaves), attrs, step[4], None)
        absorbed.add(i)
    if not replaced:
        return steps
    return [replaced.get(i, step) for i, step in enumerate(steps) if i not in absorbed]


def _reduces(m, out, axes):
    """Whether a reduction of input meta `m` over `axes` into `out` combines more than one
    element into each of a non-empty result's (else it is a copy, or runs on the host)."""
    n = 1
    for a in axes:
        n *= m[0][a]
    return n > 1 and all(out[0])


def _params(shape, axes, leaf_shapes):
    """The launch parameters the strided arrays of a prologue need."""
    dims, _, strided = prologue_reads(shape, axes, leaf_shapes)[4:]
    return len(dims) * (1 + len(strided)) if strided else 0
