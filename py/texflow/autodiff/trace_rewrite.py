"""Rewrites of a whole trace that eager execution cannot make, before fusion.

Eager execution must compute every value when it is asked for; a trace knows the
whole step, so:

- `hoist_pool_masks`: a ReLU gradient's mask applied to a max pooling's gradient,
  `max_pool_grad(x, dy) * (x > 0)`, moves to the pooled side,
  `max_pool_grad(x, dy * (max_pool(x) > 0))`, when the windows do not overlap
  (strides at least the window, Keras's default): each image position then belongs
  to at most one window, its gradient is that window's dy where it holds the
  window's first maximum (whose value is the pooled one) and zero elsewhere, so
  both give the same numbers; the mask is applied to the pooled shape (a quarter
  of the elements for 2x2 windows), and when dy is a reshaped matmul product (a
  Flatten before a Dense layer) the mask goes before the reshape, where epilogue
  fusion folds it into the product's kernel. The full-size mask pass is gone.
- `skip_broadcasts`: `broadcast_to(v, shape)` read only by elementwise ops that
  broadcast their operands to that very shape anyway (a reduction's gradient times
  another array) is not materialised: its readers read `v` and broadcast it as they
  read it, with the same numbers.
- `skip_same_shape_reshapes`: a reshape to the shape its input already has (a
  gradient's `reshape(dy, [64, 1])` of a [64, 1] value) is a view Python needs for
  nothing: later steps read its input, so an elementwise reader of the view can fuse
  with the op that made the input (the view is left for `drop_dead`). Not for a
  Variable's value (which an assignment replaces), a returned view, or one that host
  code reads.
- `record_pool_taps` (where the kernel language gains by it: `POOL_TAPS_LANGUAGES`):
  a `max_pool` whose `max_pool_grad` (same input, same windows) the trace computes
  too becomes `max_pool_taps`, which writes each window's first maximum by
  MaxPoolGrad's rule next to the pooled values in the same launch (on GLSL a
  second render target), and the gradient `max_pool_grad_taps` routes dy by those
  taps instead of finding every window's maximum again. Both follow the eager
  kernels' rules (the pooled value skips NaN; the tap is the first in-image one,
  then only a strictly greater value), so the numbers are eager's bits. Not for a
  Variable's value (an assignment between the two could change it).
- `fuse_conv_pools` (after epilogue fusion: autodiff/compiled.py): a `conv2d` or
  `conv2d_epilogue` whose result only such a `max_pool_taps` reads (neither returned,
  assigned nor read by host code: a ReLU's gradient mask moved to the pooled side
  above, the gradient reading the taps) becomes one `conv2d_pool` step: on GLSL and
  WGSL the convolution's values are computed where the pooling reads them, in the
  sums' order of the conv2d kernel, so its image is never written (numpy runs the
  two kernels).
- `drop_dead`: a step whose results nothing reads (an op or a view; not host code,
  not an assignment), and which the function does not return, is dropped, then
  the steps that only it read, and so on (a loss's gradient through `where`'s
  other branch, an optimizer value nobody uses).

New slots are numbered after the trace's (`meta` gains their shape and dtype).
"""

from ..engine import context
from ..engine.registry import get_op
from ..engine.trace import step_reads
from ..ops.fused import fusible

# Kernel languages that gain by recording the taps: GLSL's max_pool_grad finds each
# window's maximum in a pass of its own (an argmax pass, then one compare per image
# texel); WGSL's gradient of tiling windows is one pass reading x, but its conv2d_pool
# never writes the convolution's image. numpy's finds the maxima faster from x than
# from the taps.
POOL_TAPS_LANGUAGES = {"glsl", "wgsl"}


def rewrite(steps, meta, out_slots, state_slots):
    """`steps` with the rewrites of the module docstring applied (arguments as
    autodiff/fusion.py `fuse` takes them; `meta` gains the new slots)."""
    steps = hoist_pool_masks(steps, meta, out_slots, state_slots)
    if context.current().language in POOL_TAPS_LANGUAGES:
        steps = record_pool_taps(steps, meta, state_slots)
    steps = skip_same_shape_reshapes(steps, meta, out_slots, state_slots)
    return drop_dead(skip_broadcasts(steps, meta, out_slots), out_slots)


def skip_same_shape_reshapes(steps, meta, out_slots, state_slots):
    """`steps` with the readers of reshape views that keep their input's shape reading
    that input (module docstring)."""
    host_reads = set()
    for step in steps:
        if step[0] == "host":
            host_reads.update(step_reads(step))
    same = {}
    for step in steps:
        if _reshape(step):
            source, out = step[2][0], step[4][0]
            source = same.get(source, source)
            if out not in out_slots and out not in host_reads and \
                    source not in state_slots and type(meta.get(source)) is tuple and \
                    meta[source] == meta.get(out):
                same[out] = source
    if not same:
        return steps
    result = []
    for step in steps:
        kind = step[0]
        if kind == "op":
            step = step[:2] + (tuple(same.get(k, k) for k in step[2]),) + step[3:]
        elif kind == "assign":
            step = (kind, step[1], same.get(step[2], step[2]))
        elif kind == "view":
            step = (kind, same.get(step[1], step[1])) + step[2:]
        result.append(step)
    return result


def drop_dead(steps, out_slots):
    """`steps` without ops and views whose results nothing reads (module docstring)."""
    live = set(out_slots)
    kept = []
    for step in reversed(steps):
        kind = step[0]
        outs = step[4] if kind == "op" else (step[3],) if kind == "view" else None
        if outs is not None and not any(k in live for k in outs):
            continue
        live.update(step_reads(step))
        kept.append(step)
    kept.reverse()
    return kept if len(kept) < len(steps) else steps


def skip_broadcasts(steps, meta, out_slots):
    """`steps` with elementwise readers of a broadcast_to reading its input (module
    docstring; the broadcast, then read by nothing, is left for `drop_dead`)."""
    readers = {}
    for i, step in enumerate(steps):
        for k in step_reads(step):
            readers.setdefault(k, []).append(i)
    steps = list(steps)
    for step in list(steps):
        if not _op(step, "broadcast_to") or step[4][0] in out_slots:
            continue
        source, out = step[2][0], step[4][0]
        reads = readers.get(out, [])
        swapped = {}
        for j in set(reads):
            reader = steps[j]
            if reader[0] != "op" or reader[5] is not None or not fusible(reader[1]) or \
                    len(reader[4]) != 1:
                break
            ins = tuple(source if k == out else k for k in reader[2])
            shapes = [meta[k][0] for k in ins if type(meta[k]) is tuple]
            if _broadcast(shapes) != tuple(meta[reader[4][0]][0]):
                break
            swapped[j] = reader[:2] + (ins,) + reader[3:]
        else:
            for j, reader in swapped.items():
                steps[j] = reader
                readers.setdefault(source, []).append(j)
    return steps


def _broadcast(shapes):
    """The broadcast of `shapes` (numpy's rule), or None when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _readers_and_makers(steps):
    """The steps reading each slot (in order) and the op step writing each slot."""
    readers, made_by = {}, {}
    for i, step in enumerate(steps):
        for k in step_reads(step):
            readers.setdefault(k, []).append(i)
        if step[0] == "op":
            for k in step[4]:
                made_by[k] = i
    return readers, made_by


def _op(step, name):
    return step[0] == "op" and step[5] is None and step[1].name == name


def hoist_pool_masks(steps, meta, out_slots, state_slots=()):
    """`steps` with ReLU masks on non-overlapping max pooling gradients moved to the
    pooled side (module docstring)."""
    readers, made_by = _readers_and_makers(steps)
    inserted, dropped = {}, set()
    # new slots after every slot of the trace (a Variable's saved value has no meta)
    last = [max([max(meta, default=-1)] + [k for s in steps for k in _slots(s)])]

    def slot(shape, dtype):
        last[0] += 1
        meta[last[0]] = (tuple(shape), dtype)
        return last[0]
    for j, step in enumerate(steps):
        if not _op(step, "mul"):
            continue
        found = _pool_mask(steps, j, meta, out_slots, readers, made_by)
        if found is None:
            continue
        i_grad, i_pool, zero, grad_first = found
        x, dy = steps[i_grad][2]
        pooled = steps[i_pool][4][0]
        if x in state_slots or dy in state_slots or meta[dy] != meta[pooled]:
            continue  # (a Variable's reads must not move past its assignments)
        new = []
        shape, dtype = meta[dy]
        # dy made by a reshape of a product read by nothing else: mask before the reshape
        source = made_by.get(dy)
        flat = None
        if source is not None and _reshape(steps[source]) and readers[dy] == [i_grad] and \
                dy not in out_slots and steps[source][2][0] not in state_slots:
            flat = steps[source][2][0]
        if flat is not None:
            mask_shape = meta[flat][0]
            viewed = slot(mask_shape, meta[pooled][1])
            new.append(_reshaped(steps[source][1], pooled, viewed, mask_shape))
        else:
            mask_shape, viewed = shape, pooled
        mask = slot(mask_shape, meta[steps[j][2][1 if grad_first else 0]][1])
        new.append(("op", get_op("greater"), (viewed, zero), {}, (mask,), None))
        masked = slot(mask_shape, dtype)
        operands = (flat if flat is not None else dy, mask)
        new.append(("op", step[1], operands if grad_first else operands[::-1], step[3],
                    (masked,), None))
        if flat is not None:
            reshaped = slot(shape, dtype)
            new.append(_reshaped(steps[source][1], masked, reshaped, shape))
            masked = reshaped
        _, pool_grad, _, attrs, _, _ = steps[i_grad]
        new.append(("op", pool_grad, (x, masked), attrs, step[4], None))
        inserted[j] = new
        dropped.update((i_grad, j))

    if not inserted:
        return steps
    result = []
    for i, step in enumerate(steps):
        result.extend(inserted.get(i, ()))
        if i not in dropped:
            result.append(step)
    return result


def record_pool_taps(steps, meta, state_slots):
    """`steps` with each max_pool whose gradient the trace computes recording its
    windows' first-maximum taps for that gradient (module docstring)."""
    pools = {}   # (x, attrs) -> index of the first max_pool of x with those windows
    taps = {}    # index of such a max_pool -> its new taps slot
    grads = {}   # index of a max_pool_grad -> the taps slot it reads
    new_slot = [max([max(meta, default=-1)] + [k for s in steps for k in _slots(s)])]
    for i, step in enumerate(steps):
        if not (_op(step, "max_pool") or _op(step, "max_pool_grad")):
            continue
        x = step[2][0]
        if x in state_slots or type(meta.get(x)) is not tuple or meta[x][1] != "float32":
            continue
        key = (x, tuple(sorted(step[3].items())))
        if step[1].name == "max_pool":
            pools.setdefault(key, i)
        elif key in pools:
            j = pools[key]
            if j not in taps:
                new_slot[0] += 1
                taps[j] = new_slot[0]
                meta[taps[j]] = (meta[step[2][1]][0], "int32")
            grads[i] = taps[j]
    if not grads:
        return steps
    result = list(steps)
    for j, slot in taps.items():
        _, _, ins, attrs, outs, _ = steps[j]
        result[j] = ("op", get_op("max_pool_taps"), ins, attrs, (outs[0], slot), None)
    for i, slot in grads.items():
        _, _, (x, dy), attrs, outs, _ = steps[i]
        result[i] = ("op", get_op("max_pool_grad_taps"), (slot, dy),
                     dict(attrs, input_shape=tuple(meta[x][0])), outs, None)
    return result


def fuse_conv_pools(steps, meta, out_slots, state_slots):
    """`steps` with each convolution read only by a max_pool_taps step pooled in the
    same kernel (module docstring)."""
    readers, made_by = _readers_and_makers(steps)
    replaced, dropped = {}, set()
    for j, step in enumerate(steps):
        if not _op(step, "max_pool_taps"):
            continue
        h = step[2][0]
        i = made_by.get(h)
        if i is None or steps[i][0] != "op" or steps[i][5] is not None or \
                steps[i][1].name not in ("conv2d", "conv2d_epilogue") or \
                readers.get(h) != [j] or h in out_slots or h in state_slots:
            continue
        if any(s[0] in ("assign", "host") for s in steps[i + 1:j]):
            continue  # the convolution's operands (Variables) must read as they did
        _, conv, ins, attrs, _, _ = steps[i]
        pool = step[3]
        fused = dict(strides=attrs["strides"], dilations=attrs["dilations"],
                     pads=attrs["pads"], program=attrs.get("program"),
                     conv_shape=tuple(meta[h][0]), ksize=pool["ksize"],
                     pool_strides=pool["strides"], pool_pads=pool["pads"],
                     pooled_shape=tuple(meta[step[4][0]][0]))
        replaced[j] = ("op", get_op("conv2d_pool"), ins, fused, step[4], None)
        dropped.add(i)
    if not replaced:
        return steps
    return [replaced.get(j, s) for j, s in enumerate(steps) if j not in dropped]


def _slots(step):
    if step[0] == "op":
        return (*step[2], *step[4])
    if step[0] == "view":
        return (step[1], step[3])
    if step[0] == "host":
        return (*step_reads(step), *step[4])
    return step_reads(step)


def _reshape(step):
    return step[0] == "op" and step[1].name == "reshape" and step[5] is not None


def _reshaped(op, source, target, shape):
    """A reshape step (a view sharing `source`'s storage) of `source` into `target`."""
    return ("op", op, (source,), {"shape": tuple(shape)}, (target,), tuple(shape))


def _pool_mask(steps, j, meta, out_slots, readers, made_by):
    """For mul step `j` of a max pooling gradient and `x > 0` (x the pooling's input):
    (the gradient's step, the pooling's step, the 0 compared with, whether the
    gradient is the first operand), else None."""
    ins = steps[j][2]
    if len(ins) != 2 or any(type(meta[k]) is not tuple for k in ins):
        return None
    for first in (True, False):
        grad, cond = ins if first else ins[::-1]
        i_grad, i_cond = made_by.get(grad), made_by.get(cond)
        if i_grad is None or i_cond is None or not _op(steps[i_grad], "max_pool_grad") or \
                not _op(steps[i_cond], "greater"):
            continue
        if grad in out_slots or readers.get(grad) != [j]:
            continue  # the unmasked gradient is needed too
        x, _ = steps[i_grad][2]
        attrs = steps[i_grad][3]
        left, zero = steps[i_cond][2]
        if left != x or type(meta[zero]) is tuple or meta[zero] != 0 or \
                meta[x][1] != "float32":
            continue
        if any(s < k for s, k in zip(attrs["strides"], attrs["ksize"])):
            continue  # overlapping windows: a position may hold several windows' maxima
        pool = next((i for i in range(i_grad) if _op(steps[i], "max_pool") and
                     steps[i][2][0] == x and steps[i][3] == attrs), None)
        if pool is None:
            continue
        return i_grad, pool, zero, first
    return None
