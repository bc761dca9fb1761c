"""Constant folding of a trace: an op computed from constants alone runs once, when the
trace is planned, and its value becomes a constant of the trace.

A trace's constants are the arrays it captured from outside that are not Variables
(`tf.constant`s, a tape's initial gradient) and Python scalars; an op step whose
inputs are all constants (or folded values) computes the same value at every replay,
as TensorFlow's graph optimiser (grappler) also sees, so it runs here once, with the
kernel a replay would run, and the replay reads its result. In a Keras step this is
the loss's mean's gradient (the initial gradient divided by the batch size, broadcast
to the batch and negated): three launches a compiled step no longer makes. Random
draws are host code, never op steps, so they are not folded. Left as steps: results
the function returns or that anything but an op reads (an assignment would make a
Variable share the constant's storage; host code may keep it), results larger
than `MAX_ELEMENTS` (each folded value is kept for the life of the trace), and an
elementwise result read only by one elementwise op, which fusion computes inside that
op's kernel at no launch of its own (folding it would only change which trees share
arrays and so join kernels of several outputs: a constant gradient's square in Adam).
"""

from ..engine import scope as scopes
from ..engine.run import run_into
from ..engine.trace import step_reads
from ..ops.fused import fusible

MAX_ELEMENTS = 1 << 16


def fold_constants(steps, meta, out_slots, constant, template, captured):
    """`steps` less the op steps computed from constants alone, whose values are
    computed now into `template` (slot -> value) and added to `captured` (module
    docstring). `constant`: the trace's constant slots (engine/trace.py)."""
    readers = {}
    for step in steps:
        for k in step_reads(step):
            readers.setdefault(k, []).append(step)
    known = {k for k in captured if k in constant}
    kept = []
    recorders = scopes.recorders()
    paused = recorders[:]   # an outer tape (or tracer) must not record these runs
    recorders.clear()
    try:
        _fold(steps, readers, known, kept, meta, out_slots, template, captured)
    finally:
        recorders.extend(paused)
    return kept


def _fold(steps, readers, known, kept, meta, out_slots, template, captured):
    for step in steps:
        if step[0] == "op" and all(k in known for k in step[2]) and _foldable(
                step, meta, out_slots, readers):
            _, op, ins, attrs, outs, view = step
            run_into(template, outs, op, [template[k] for k in ins], attrs, view)
            for k in outs:
                template[k]._kept = True   # the trace's, as a captured constant is
            known.update(outs)
            captured.update(outs)
            continue
        kept.append(step)


def _foldable(step, meta, out_slots, readers):
    outs = step[4]
    if fusible(step[1]) and len(readers.get(outs[0], ())) == 1:
        reader = readers[outs[0]][0]
        if reader[0] == "op" and reader[5] is None and fusible(reader[1]):
            return False  # fusion inlines it (module docstring)
    for k in outs:
        m = meta[k]
        if k in out_slots or type(m) is not tuple or \
                any(r[0] != "op" for r in readers.get(k, ())):
            return False
        size = 1
        for d in m[0]:
            size *= d
        if size > MAX_ELEMENTS:
            return False
    return True
