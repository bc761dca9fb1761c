"""The object graph behind checkpoints: every variable an object holds, by key.

An object is *saveable* when an adapter is registered for its class (Keras
layers, models, optimizers and metrics register theirs in keras/saving/walk.py;
`tf.train.Checkpoint` and plain lists, tuples and dicts have theirs here). An
adapter returns the object's own variables and its named children. Keys follow
the layout of Keras 3's weights files: a node's own variables are
`<path>/vars/<i>`, a child is `<path>/<name>`, and a variable that is itself a
child (`tf.train.Checkpoint(epoch=tf.Variable(0))`) is keyed by its path
("epoch"). Each object is keyed once, at the first path that reaches it: the
walk is depth first, in the order adapters give children (as Keras 3 walks a
model), except that a Checkpoint's (or a plain list's or dict's) own children
are claimed before anything below them, as TensorFlow's breadth-first object
graph does, so `Checkpoint(model=m, optimizer=o)` keys the optimizer
"optimizer/..." whether or not the model holds it too. Keys depend on structure
only (attribute names, class names, order), never on auto-generated names, so a
new instance of the same program gets the same keys.
"""

from ..autodiff.variable import Variable

_ADAPTERS = []   # [(class, describe, claims children first)], most recent first


def register(cls, describe, claim_children=False):
    """Registers `describe(obj) -> (own variables, [(name, child), ...])` for `cls`.

    With `claim_children`, the object's children are keyed under it before any
    object below them is walked (see the module docstring).
    """
    _ADAPTERS.insert(0, (cls, describe, claim_children))


def _adapter(obj):
    for entry in _ADAPTERS:
        if isinstance(obj, entry[0]):
            return entry
    return None


def describe(obj):
    """(own variables, children) of a saveable object, or None."""
    entry = _adapter(obj)
    return entry[1](obj) if entry is not None else None


def is_saveable(obj):
    """Whether checkpoints can hold `obj` (a Variable or a registered object)."""
    return isinstance(obj, Variable) or _adapter(obj) is not None


def join(path, name):
    return f"{path}/{name}" if path else name


def walk(root):
    """({key: Variable}, {path: object}) of everything reachable from `root`."""
    variables, nodes = {}, {}
    seen, claimed, alive = set(), {}, []   # alive: temporaries must keep their ids

    def visit(path, obj):
        if id(obj) in seen or claimed.get(id(obj), path) != path:
            return
        seen.add(id(obj))
        alive.append(obj)
        if isinstance(obj, Variable):
            variables[path] = obj
            return
        entry = _adapter(obj)
        if entry is None:
            return
        nodes[path] = obj
        own, children = entry[1](obj)
        for i, v in enumerate(own):
            if id(v) not in seen:
                seen.add(id(v))
                variables[join(join(path, "vars"), str(i))] = v
        children = [(join(path, str(name)), child) for name, child in children]
        if entry[2]:
            alive.extend(child for _, child in children)
            for child_path, child in children:
                claimed.setdefault(id(child), child_path)
        for child_path, child in children:
            visit(child_path, child)

    visit("", root)
    return variables, nodes


def variable_name(v):
    """A variable's name for messages: its Keras path, else its name."""
    return getattr(v, "path", None) or getattr(v, "name", None) or "<variable>"


def _describe_list(items):
    return [], [(str(i), item) for i, item in enumerate(items) if is_saveable(item)]


def _describe_dict(items):
    for key in items:
        if not isinstance(key, str) or "/" in key or not key:
            raise ValueError(f"a dict in a checkpoint needs string keys without '/', "
                             f"received key {key!r}")
    return [], [(key, item) for key, item in items.items() if is_saveable(item)]


register(list, _describe_list, claim_children=True)
register(tuple, _describe_list, claim_children=True)
register(dict, _describe_dict, claim_children=True)
