"""Tracking layer structure so the flattened lists of layers can be cached.

A layer's sublayers are its Layer-valued attributes (alone or in lists, tuples and
dicts). Assigning such an attribute, or changing a list or dict attribute in place,
bumps a version number; cached layer lists are rebuilt when it changed.
"""

# Attributes that never hold sublayers (the cache below holds nested ones).
NEVER_TRACKED = frozenset(("_flat_cache", "_inbound_nodes", "_losses", "_trainable_weights",
                            "_non_trainable_weights", "_build_input_shape", "input_spec"))

# Layer structure changes (a sublayer assigned, a tracked list changed) bump this, so the
# flattened layer lists that every training step reads are cached between changes.
_version = [0]


def bump_structure(*_):
    _version[0] += 1


def structure_version():
    return _version[0]


class TrackedList(list):
    """A list attribute of a layer: changing it invalidates cached layer lists."""

    def _mutate(name):
        def method(self, *args, **kwargs):
            bump_structure()
            return getattr(list, name)(self, *args, **kwargs)
        method.__name__ = name
        return method

    for _name in ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
                  "__setitem__", "__delitem__", "__iadd__"):
        locals()[_name] = _mutate(_name)
    del _name, _mutate


class TrackedDict(dict):
    """A dict attribute of a layer: changing it invalidates cached layer lists."""

    def _mutate(name):
        def method(self, *args, **kwargs):
            bump_structure()
            return getattr(dict, name)(self, *args, **kwargs)
        method.__name__ = name
        return method

    for _name in ("__setitem__", "__delitem__", "pop", "popitem", "clear", "update",
                  "setdefault"):
        locals()[_name] = _mutate(_name)
    del _name, _mutate
