"""How Keras objects appear in checkpoints and weights files (their saveable tree).

The layout is Keras 3's weights-file layout: a layer's own variables are
`vars/0`, `vars/1`, ... (trainable first, in creation order); Sequential and
functional models list their layers under `layers/` first, each named by its
class in snake case, numbered when repeated ("layers/dense", "layers/dense_1");
other sublayers, metrics and containers of layers are children by attribute
name (public names in sorted order, then private ones), a subclassed model's
`layers` among them; a compiled model's optimizer is `optimizer/` with its
`variables` (iteration, learning rate, then slots). Each object is saved once,
at the first path that reaches it.
Auto-generated names ("dense_7") never appear, so a new instance of the same
architecture loads the file.
"""

from ...checkpoint import graph
from ..backend import snake_case
from ..layers.base import Layer
from ..layers.tracking import NEVER_TRACKED
from ..metrics import Metric
from ..optimizers.base import Optimizer

_SAVEABLE = (Layer, Optimizer, Metric)


class KerasContainer:
    """A list or dict attribute of a Keras object, named the way Keras names them."""

    def __init__(self, items):
        self.items = list(items.values()) if isinstance(items, dict) else list(items)


def _unique(name, used):
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def _describe_container(container):
    used, children = {}, []
    for item in container.items:
        if isinstance(item, _SAVEABLE):
            children.append((_unique(snake_case(type(item).__name__), used), item))
        elif isinstance(item, (list, tuple, dict)):
            children.append((_unique("container", used), KerasContainer(item)))
    return [], children


def _name_key(name):
    return f"~{name}" if name.startswith("_") else name  # private attributes last


def _child(value):
    if isinstance(value, _SAVEABLE):
        return value
    if isinstance(value, (list, tuple, dict)) and _holds_layer(value):
        return KerasContainer(value)
    return None


def _holds_layer(container, depth=0):
    """Whether a container attribute holds layers (containers of only metrics or
    losses, such as a model's compile arguments, are not state to save)."""
    items = container.values() if isinstance(container, dict) else container
    for item in items:
        if isinstance(item, Layer) or (depth < 3 and isinstance(item, (list, tuple, dict))
                                       and _holds_layer(item, depth + 1)):
            return True
    return False


def _describe_layer(layer):
    own = list(layer._trainable_weights) + list(layer._non_trainable_weights)
    attributes = dict(vars(layer))
    for name in NEVER_TRACKED | set(layer._untracked_attributes()) | {"_tracking"}:
        attributes.pop(name, None)
    children = []
    if _has_layer_list(layer):   # Keras walks a Sequential's or functional model's first
        children.append(("layers", KerasContainer(layer.layers)))
    elif hasattr(layer, "compiled"):   # a subclassed model: `layers` among its attributes
        attributes["layers"] = layer.layers
    optimizer = getattr(layer, "optimizer", None) if hasattr(layer, "compiled") else None
    if isinstance(optimizer, Optimizer):
        attributes["optimizer"] = optimizer
    for name in sorted(attributes, key=_name_key):
        child = _child(attributes[name])
        if child is not None:
            children.append((name, child))
    return own, children


def _has_layer_list(layer):
    from ..models.functional import Functional
    from ..models.sequential import Sequential
    return isinstance(layer, (Sequential, Functional))


def _describe_optimizer(optimizer):
    return list(optimizer.variables), []


def _describe_metric(metric):
    return list(metric.variables), []


graph.register(KerasContainer, _describe_container)
graph.register(Metric, _describe_metric)
graph.register(Optimizer, _describe_optimizer)
graph.register(Layer, _describe_layer)
