"""How Keras objects appear in checkpoints and weights files (their saveable tree).

The layout is Keras 3's weights-file layout: a layer's own variables are
`vars/0`, `vars/1`, ... (trainable first, in creation order); Sequential and
functional models list their layers under `layers/`, each named by its class in
snake case, numbered when repeated ("layers/dense", "layers/dense_1"); other
sublayers, metrics and containers of them are children by attribute name
(public names in sorted order, then private ones); a compiled model's optimizer
is `optimizer/` with its `variables` (iteration, learning rate, then slots).
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
    if isinstance(value, (list, tuple, dict)) and value:
        return KerasContainer(value)
    return None


def _describe_layer(layer):
    own = list(layer._trainable_weights) + list(layer._non_trainable_weights)
    children = []
    if _has_layer_list(layer):
        children.append(("layers", KerasContainer(layer.layers)))
    optimizer = getattr(layer, "optimizer", None) if hasattr(layer, "compiled") else None
    if isinstance(optimizer, Optimizer):
        children.append(("optimizer", optimizer))
    skip = NEVER_TRACKED | set(layer._untracked_attributes())
    attributes = vars(layer)
    for name in sorted(attributes, key=_name_key):
        if name in skip or name in ("_flat_cache", "_tracking"):
            continue
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
