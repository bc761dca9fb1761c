"""Elementwise fusion of a trace: chains of elementwise ops become one kernel.

A value made by an elementwise op and read only by one other elementwise op
(not returned, assigned or read by host code; not a single value broadcast to a
larger result, which a GPU would compute again per element, unless that value's
tree is a few ops on single values, which every reader then computes; a small
array's tree of a few ops read by several small elementwise results is likewise
computed in each, where a launch of its own costs more) is inlined
into its reader, so a chain or tree of such ops becomes one `fused_elementwise`
step at the place of its last op (ops/fused.py). Its inputs are the tree's
distinct arrays, read once per element; Python scalars become constants of the
kernel; only the tree's result is written. Every intermediate a later step needs
stays a separate step's output, so the fused plan computes exactly what the
trace did.

Then (`fuse_outputs`, after epilogue fusion) trees of one output shape and dtype
that read each other's results, or the same arrays, join into one
`fused_elementwise_multi` step writing several results in one launch: an
optimizer's update of a variable's slots and of the variable itself. A Variable
read after an assignment of a member's result reads that result inside the
kernel (an assignment shares the value's storage, so this is exact), and the
assignments move after the kernel. Steps in between that read a moved
assignment's Variable or a member's result, assign a Variable a member reads, or
run host code end the group before them.
"""

from ..engine.registry import get_op
from ..engine.trace import step_reads
from ..ops.fused import FusedProgram, fusible as fusible_op

# arrays one fused kernel reads: WebGPU's default limit is 8 storage buffers per
# shader stage, and a WGSL kernel also binds its output and its parameters
MAX_INPUTS = 6
# outputs of one kernel: WebGL2 guarantees 4 render targets; a WGSL kernel whose
# inputs, outputs and parameters exceed its device's storage-buffer limit splits its
# outputs over several launches (backends/wgsl/fused.py)
MAX_OUTPUTS = 4
# ops of a single value's tree inlined into a larger result (computed per element)
CHEAP_SCALAR_OPS = 12
# a small array's tree (at most this many elements, reading only small arrays) read by
# several elementwise results of at most SMALL_READER elements is inlined into each
# (as a single value's is into any): a launch costs more than computing it again
SMALL_ARRAY = 4096
SMALL_READER = 1 << 16


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

    tree_sizes = {}

    def cheap(k):
        """The nodes of small value k's tree when it reads only small values (single
        values when k is one) and has at most CHEAP_SCALAR_OPS nodes, else None."""
        if k in tree_sizes:
            return tree_sizes[k]
        tree_sizes[k] = None  # (a cycle cannot happen: steps read earlier slots)
        limit = 1 if _size(meta[k]) == 1 else SMALL_ARRAY
        p, n = producer[k], 1
        for x in steps[p][2]:
            if type(meta[x]) is not tuple:
                continue
            if _size(meta[x]) > limit:
                return None
            if inlinable(x, p):
                sub = cheap(x)
                if sub is None:
                    return None
                n += sub
        tree_sizes[k] = n if n <= CHEAP_SCALAR_OPS else None
        return tree_sizes[k]

    cut = set()  # values that stay a tree's result, to keep kernels within MAX_INPUTS

    def inlinable(k, i):
        if i not in fusible or k not in producer or k in out_slots or k in cut:
            return False
        if readers.get(k) == {i} and (_size(meta[k]) > 1 or _size(meta[steps[i][4][0]]) == 1):
            return True
        # A single value read by a larger result is computed again for every element
        # when inlined: worth it (rather than a launch) only for a few operations on
        # single values (tf.train Adam's bias-corrected step size), and then every
        # elementwise reader computes it.
        # Likewise a small array (a softmax's row maxima made finite) read by several
        # small elementwise results: each computes it again rather than a launch
        # making it.
        size = _size(meta[k])
        if size > SMALL_ARRAY or not all(r in fusible for r in readers[k]):
            return False
        if size > 1 and any(_size(meta[steps[r][4][0]]) > SMALL_READER for r in readers[k]):
            return False
        return cheap(k) is not None

    roots = [i for i in sorted(fusible) if not any(
        inlinable(steps[i][4][0], j) for j in readers.get(steps[i][4][0], ()))]
    fused, absorbed, kept = {}, set(), set()
    work = list(roots)
    while work:
        r = work.pop()
        built = _build(r, steps, meta, producer, inlinable)
        if built is None:
            continue
        nodes, dtypes, leaves, members = built
        children = [k for k in steps[r][2] if k in producer and inlinable(k, r)]
        if len(leaves) > MAX_INPUTS and children:
            # too many arrays for one kernel: the root's inlined operands become trees
            # of their own, which the root then reads (each is cut again if need be)
            cut.update(children)
            work.extend([r] + [producer[k] for k in children])
            continue
        if len(nodes) < 2 or len(leaves) > MAX_INPUTS or \
                crosses_assign(members, r, steps, state_slots):
            kept.update(members)  # (a single value inlined elsewhere too stays a step)
            continue
        out = steps[r][4][0]
        shape, dtype = meta[out]
        program = FusedProgram(nodes, dtypes, shape, dtype)
        fused[r] = ("op", _FUSED[0] or _fused_op(), tuple(leaves), {"program": program},
                    (out,), None)
        absorbed.update(m for m in members if m != r)
    absorbed -= kept | {producer[k] for k in cut}
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
    made = {}  # step -> its node: a value read twice (`y * y`) is computed once

    def node(i):
        if i in made:
            return made[i]
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
        made[i] = len(nodes) - 1
        return made[i]

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


# -- several outputs per kernel ----------------------------------------------------------

def elementwise_unit(step, meta):
    """(nodes, node dtypes, input slots) of a fused or fusible step writing an array of
    more than one element, else None."""
    if step[0] != "op" or step[5] is not None or len(step[4]) != 1 or \
            _size(meta[step[4][0]]) < 2:
        return None
    if step[1] is _FUSED[0]:
        program = step[3]["program"]
        return program.nodes, program.node_dtypes, step[2]
    if not _fusible(step, meta):
        return None
    ins, operands = [], []
    for k in step[2]:
        if type(meta[k]) is tuple:
            operands.append(("in", len(ins)))
            ins.append(k)
        else:
            operands.append(("const", meta[k]))
    return [(step[1].name, step[3] or {}, tuple(operands))], [meta[step[4][0]][1]], ins


class _Group:
    """Steps joined into one kernel (see the module docstring): `members` (step index,
    its operands resolved: ("in", slot) or ("out", a member's output slot))."""

    def __init__(self, key, readers):
        self.key = key            # (shape, dtype) of every output
        self.readers = readers
        self.members = []
        self.outs = {}            # member output slot -> member step index
        self.leaves = []          # input slots read from outside, in order
        self.leaf_state = set()   # Variables (state slots) read from outside
        self.pending = {}         # Variable slot -> member output assigned to it
        self.assigns = []         # step indices of those assignments

    def add(self, i, step, unit, state_slots):
        """Joins step `i` when it is related to the group and fits; returns whether."""
        _, _, ins = unit
        resolved, new = [], []
        for k in ins:
            if k in self.outs:
                resolved.append(("out", k))
            elif k in self.pending:
                resolved.append(("out", self.pending[k]))
            else:
                resolved.append(("in", k))
                if k not in self.leaves and k not in new:
                    new.append(k)
        related = len(new) < len(set(ins)) or not self.members
        members = {m for m, _, _ in self.members} | {i}
        outs = [o for o in (*self.outs, step[4][0])
                if not self.readers.get(o, set()) <= members]
        if not related or len(self.leaves) + len(new) > MAX_INPUTS or \
                len(outs) > MAX_OUTPUTS:
            return False
        self.members.append((i, unit, resolved))
        self.outs[step[4][0]] = i
        self.leaves.extend(new)
        self.leaf_state.update(k for k in new if k in state_slots)
        return True

    def allows(self, j, step, meta):
        """Whether non-member step `j` may stay where it is while later steps join."""
        kind = step[0]
        if kind == "host":
            return False
        if kind == "assign":
            var, value = step[1], step[2]
            if var in self.pending:
                return False
            if value in self.outs:  # moves after the kernel, which reads the old value
                if meta[var] != meta[value]:
                    return False
                self.pending[var] = value
                self.assigns.append(j)
                return True
            return var not in self.leaf_state
        return not any(k in self.outs or k in self.pending for k in step_reads(step))

    def step(self, meta, out_slots):
        """The `fused_elementwise_multi` step computing every member."""
        nodes, node_dtypes, root = [], [], {}
        index = {k: n for n, k in enumerate(self.leaves)}
        for i, (unit_nodes, unit_dtypes, _), resolved in self.members:
            base = len(nodes)
            for name, attrs, operands in unit_nodes:
                ops = []
                for kind, v in operands:
                    if kind == "node":
                        ops.append(("node", base + v))
                    elif kind == "in":
                        how, k = resolved[v]
                        ops.append(("node", root[k]) if how == "out" else ("in", index[k]))
                    else:
                        ops.append((kind, v))
                nodes.append((name, attrs, tuple(ops)))
            node_dtypes.extend(unit_dtypes)
            root[self._out_of(i)] = len(nodes) - 1
        members = {m for m, _, _ in self.members}
        outs = [o for o in self.outs
                if o in out_slots or not self.readers.get(o, set()) <= members]
        shape, dtype = self.key
        program = FusedProgram(nodes, node_dtypes, shape, dtype, [root[o] for o in outs])
        return ("op", get_op("fused_elementwise_multi"), tuple(self.leaves),
                {"program": program}, tuple(outs), None)

    def _out_of(self, i):
        return next(o for o, m in self.outs.items() if m == i)


def fuse_outputs(steps, meta, out_slots, state_slots):
    """`steps` (after `fuse` and epilogue fusion, which keeps the trees it folds into
    products out of these) with trees joined into kernels of several outputs (see the
    module docstring; arguments as `fuse` takes them)."""
    readers = {}
    for i, step in enumerate(steps):
        for k in step_reads(step):
            readers.setdefault(k, set()).add(i)
    groups, open_groups = [], []
    for i, step in enumerate(steps):
        unit = elementwise_unit(step, meta)
        joined = None
        if unit is not None:
            out = step[4][0]
            key = meta[out]
            joined = next((g for g in open_groups
                           if g.key == key and g.add(i, step, unit, state_slots)), None)
            if joined is None:
                joined = _Group(key, readers)
                joined.add(i, step, unit, state_slots)
                groups.append(joined)
        for g in list(open_groups):
            if g is not joined and not g.allows(i, step, meta):
                open_groups.remove(g)
        if joined is not None and joined not in open_groups:
            open_groups.append(joined)
    replaced, moved, dropped = {}, {}, set()
    for g in groups:
        fused = g.step(meta, out_slots) if len(g.members) > 1 else None
        if fused is None or len(fused[4]) < 2:  # one result: the trees stay as they were
            continue
        last = g.members[-1][0]
        replaced[last] = fused
        dropped.update(m for m, _, _ in g.members[:-1])
        early = [j for j in g.assigns if j < last]
        moved[last] = [steps[j] for j in early]
        dropped.update(early)
    result = []
    for i, step in enumerate(steps):
        if i in dropped:
            continue
        result.append(replaced.get(i, step))
        result.extend(moved.get(i, ()))
    return result
