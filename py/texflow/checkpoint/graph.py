"""The object graph behind checkpoints: every variable an object holds, by key.

An object is *saveable* when an adapter is registered for its class (Keras
layers, models, optimizers and metrics register theirs in keras/saving/walk.py;
`tf.train.Checkpoint` and plain lists, tuples and dicts have theirs here). An
adapter returns the object's own variables and its named children. Keys follow
the layout of Keras 3's weights files: a node's own variables are
`<path>/vars/<i>`, a child is `<path>/<name>`, and a variable that is itself a
child (`tf.train.Checkpoint(epoch=tf.Variable(0))`) is keyed by its path
("epoch"). The walk is breadth first and visits each object once, so an object
reachable two ways (an optimizer passed to a Checkpoint and also held by the
model) is keyed by its shortest path. Keys depend on structure only (attribute
names, class names, order), never on auto-generated names, so a new instance
of the same program gets the same keys.
"""

import collections

from ..autodiff.variable import Variable

_ADAPTERS = []   # [(class, describe)], most recently registered first


def register(cls, describe):
    """Registers `describe(obj) -> (own variables, [(name, child), ...])` for `cls`."""
    _ADAPTERS.insert(0, (cls, describe))


def describe(obj):
    """(own variables, children) of a saveable object, or None."""
    for cls, fn in _ADAPTERS:
        if isinstance(obj, cls):
            return fn(obj)
    return None


def is_saveable(obj):
    """Whether checkpoints can hold `obj` (a Variable or a registered object)."""
    return isinstance(obj, Variable) or any(isinstance(obj, cls) for cls, _ in _ADAPTERS)


def join(path, name):
    return f"{path}/{name}" if path else name


def walk(root):
    """({key: Variable}, {path: object}) of everything reachable from `root`.

    Breadth first; each object is visited once, at its first path.
    """
    variables, nodes = {}, {}
    seen, alive = set(), []   # alive: temporaries must keep their ids while we walk
    queue = collections.deque([("", root)])
    while queue:
        path, obj = queue.popleft()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        alive.append(obj)
        if isinstance(obj, Variable):
            variables[path] = obj
            continue
        found = describe(obj)
        if found is None:
            continue
        nodes[path] = obj
        own, children = found
        for i, v in enumerate(own):
            if id(v) not in seen:
                seen.add(id(v))
                variables[join(join(path, "vars"), str(i))] = v
        for name, child in children:
            queue.append((join(path, str(name)), child))
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


register(list, _describe_list)
register(tuple, _describe_list)
register(dict, _describe_dict)
