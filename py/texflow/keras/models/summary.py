"""`model.summary()`: Keras 3's table, character for character (without colours).

Keras 3 draws the table with the `rich` library; texflow draws the same box
characters itself with the same column arithmetic: widths from `positions` x
`line_length` (default 88, or 108 with a "Connected to" column, capped at the
terminal width minus 4), each widened by its padding and then reduced in turn
until the table fits, and cell text wrapped at spaces.
"""

import re
import shutil
import sys

from ...data import structure
from ..layers.node import KerasTensor


def _shape_text(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _output_shape(layer):
    if layer._inbound_nodes:
        outputs = layer._inbound_nodes[-1].outputs
        shapes = structure.map_structure(
            lambda t: _shape_text(t.shape) if isinstance(t, KerasTensor) else "?", outputs)
    elif layer._build_input_shape is not None or hasattr(layer, "_output_shape"):
        try:
            if getattr(layer, "_output_shape", None) is not None:
                shapes = _shape_text(layer._output_shape)
            else:
                out = layer.compute_output_shape(layer._build_input_shape)
                shapes = _shape_text(out) if _is_shape(out) else structure.map_structure(
                    _shape_text, out)
        except (NotImplementedError, TypeError, ValueError, AttributeError, IndexError):
            return "?"
    else:
        return "?"
    flat = structure.flatten(shapes)
    if len(flat) == 1:
        return flat[0]
    return str(shapes).replace("'", "")


def _is_shape(value):
    return isinstance(value, tuple) and all(d is None or isinstance(d, int) for d in value)


def _ratio_reduce(total, widths):
    """Takes `total` characters from the columns in turn, as rich's ratio_reduce does."""
    out, remaining, ratios = [], total, len(widths)
    for w in widths:
        take = min(w, round(remaining / ratios))
        out.append(w - take)
        remaining -= take
        ratios -= 1
    return out


def _wrap(text, width):
    """Greedy wrap at spaces; a word longer than `width` gets its own line, cut short with
    an ellipsis (rich's default overflow)."""
    lines, line = [], ""
    for word in text.split(" "):
        if len(word) > width:
            if line:
                lines.append(line)
            lines.append(word[:width - 1] + "…")
            line = ""
            continue
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    return lines


def _render(header, rows, widths, align):
    inner = [w - 2 for w in widths]

    def cells(values):
        wrapped = [_wrap(str(v), w) for v, w in zip(values, inner)]
        height = max(len(c) for c in wrapped)
        out = []
        for i in range(height):
            parts = []
            for c, w, a in zip(wrapped, inner, align):
                text = c[i] if i < len(c) else ""
                text = text.rjust(w) if a == "right" else text.center(w) if a == "center" \
                    else text.ljust(w)
                parts.append(" " + text + " ")
            out.append(parts)
        return out

    def rule(left, mid, right, fill):
        return left + mid.join(fill * w for w in widths) + right

    lines = [rule("┏", "┳", "┓", "━")]
    lines += ["┃" + "┃".join(p) + "┃" for p in cells(header)]
    lines.append(rule("┡", "╇", "┩", "━"))
    for i, row in enumerate(rows):
        if i:
            lines.append(rule("├", "┼", "┤", "─"))
        lines += ["│" + "│".join(p) + "│" for p in cells(row)]
    lines.append(rule("└", "┴", "┘", "─"))
    return lines


def _readable(size):
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _count(weights):
    unique = {id(w): w for w in weights}.values()
    count = sum(int(_prod(w.shape)) for w in unique)
    size = sum(int(_prod(w.shape)) * (1 if w.dtype == "bool" else 4) for w in unique)
    return count, size


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _sequential_like(model):
    from .functional import Functional
    if not isinstance(model, Functional):
        return True
    depths = {}
    for node in model._nodes:
        if len(node.input_tensors) > 1:
            return False
    counts = {}
    for node in model._nodes:
        counts[id(node.layer)] = counts.get(id(node.layer), 0) + 1
        depths.setdefault(id(node.layer), node)
    if any(c > 1 for c in counts.values()):
        return False
    # a chain: every node feeds from the one before it
    produced = {id(t) for t in model._input_tensors}
    for node in model._nodes:
        if any(id(t) not in produced for t in node.input_tensors):
            return False
        produced = {id(t) for t in node.output_tensors}
    return len(model._input_tensors) == 1


def _connections(layer, model):
    relevant = {id(n) for n in getattr(model, "_nodes", ())}
    parts = []
    for node in layer._inbound_nodes:
        if id(node) not in relevant:
            continue
        for t in node.input_tensors:
            source, node_index, tensor_index = t._keras_history
            parts.append(f"{source.name}[{node_index}][{tensor_index}]")
    return ", ".join(parts) or "-"


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  expand_nested=False, show_trainable=False, layer_range=None):
    sequential_like = _sequential_like(model)
    if sequential_like:
        default, positions = 88, positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        align = ["left", "left", "right"]
    else:
        default, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        align = ["left", "left", "right", "left"]
    if show_trainable:
        default += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        align.append("center")
    line_length = line_length or min(default, shutil.get_terminal_size().columns - 4)
    if positions[-1] <= 1:
        positions = [int(p * line_length) for p in positions]
    widths, current = [], 0
    for pos in positions:
        width = pos - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    widths = [w + 2 for w in widths]  # rich adds each cell's padding to a fixed width
    excess = sum(widths) - (line_length - (len(widths) + 1))
    if excess > 0:
        widths = _ratio_reduce(excess, widths)

    def fields(layer, prefix=""):
        params = "0 (unbuilt)" if not layer.built else f"{layer.count_params():,}"
        row = [f"{prefix}{layer.name} ({type(layer).__name__})", _output_shape(layer), params]
        if not sequential_like:
            row.append(_connections(layer, model))
        if show_trainable:
            row.append(("Y" if layer.trainable else "N") if layer.weights else "-")
        return row

    def rows_of(layer, level=0):
        rows = [fields(layer, "   " * level + "└ " if level else "")]
        if expand_nested and getattr(layer, "layers", None):
            for sub in layer.layers:
                rows.extend(rows_of(sub, level + 1))
        return rows

    layers = model.layers
    start, end = _layer_range(layers, layer_range)
    rows = [row for layer in layers[start:end] for row in rows_of(layer)]
    trainable, t_size = _count(model.trainable_weights)
    frozen, f_size = _count(model.non_trainable_weights)
    optimizer = getattr(model, "optimizer", None)
    built_optimizer = getattr(model, "compiled", False) and optimizer is not None and \
        optimizer.built
    opt_count, opt_size = _count(optimizer.variables) if built_optimizer else (0, 0)
    if built_optimizer:  # Keras's iteration count is an int64: 4 bytes more than ours
        opt_size += 4
    lines = [f'Model: "{model.name}"'] + _render(header, rows, widths, align)
    lines += [f" Total params: {trainable + frozen + opt_count:,} "
              f"({_readable(t_size + f_size + opt_size)})",
              f" Trainable params: {trainable:,} ({_readable(t_size)})",
              f" Non-trainable params: {frozen:,} ({_readable(f_size)})"]
    if built_optimizer:
        lines.append(f" Optimizer params: {opt_count:,} ({_readable(opt_size)})")
    text = "\n".join(lines) + "\n"
    if print_fn is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        print_fn(text)


def _layer_range(layers, layer_range):
    if layer_range is None:
        return 0, len(layers)
    if len(layer_range) != 2:
        raise ValueError(f"layer_range must be a list or tuple of length 2. Received: "
                         f"layer_range = {layer_range} of length {len(layer_range)}")
    names = [layer.name for layer in layers]
    starts = [i for i, n in enumerate(names) if re.match(layer_range[0], n)]
    ends = [i for i, n in enumerate(names) if re.match(layer_range[1], n)]
    if not starts or not ends:
        raise ValueError(f"Passed layer_names do not match the layer names in the model. "
                         f"Received: {layer_range}")
    if starts[0] > ends[-1]:
        raise ValueError("layer_range[1] must come after layer_range[0] in the model")
    return starts[0], ends[-1] + 1
