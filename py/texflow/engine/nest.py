"""Nested structures (lists, tuples, named tuples, dicts) as TensorFlow's tf.nest reads
them: dict entries in sorted key order."""


def flatten(structure):
    """The leaves of a nested tuple/list/dict, dict entries in sorted key order."""
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in flatten(structure[k])]
    if isinstance(structure, (tuple, list)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_as(structure, leaves):
    """The inverse of `flatten`: `leaves` arranged like `structure`."""
    it = iter(leaves)

    def build(s):
        if isinstance(s, dict):
            built = {k: build(s[k]) for k in sorted(s)}
            return {k: built[k] for k in s}
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*(build(x) for x in s))
        if isinstance(s, (tuple, list)):
            return type(s)(build(x) for x in s)
        return next(it)
    return build(structure)
