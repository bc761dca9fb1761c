"""Nested structures as TensorFlow's `tf.nest` reads them (the one implementation:
tf.nest, GradientTape sources and targets, and tf.data elements use it).

A structure is nested when it is a mapping (entries in sorted key order; rebuilt in
its own key order), a list, a tuple or named tuple, or another `collections.abc.Sequence`
other than str and bytes; anything else, a tensor, numpy array, set, None or a
TensorShape (`_nest_leaf`), is a leaf.
"""

import collections
import collections.abc as abc

_STRINGS = (str, bytes, bytearray)


def is_nested(seq):
    """Whether `seq` is a structure tf.nest looks into (see the module docstring).

    >>> tf.nest.is_nested([1]), tf.nest.is_nested({"a": 1}), tf.nest.is_nested("ab")
    (True, True, False)
    """
    if isinstance(seq, (list, tuple)):
        return not getattr(seq, "_nest_leaf", False)
    if isinstance(seq, abc.Mapping):
        return True
    return isinstance(seq, abc.Sequence) and not isinstance(seq, _STRINGS)


def _children(structure):
    """The direct children of a nested structure, mapping values in sorted key order."""
    if isinstance(structure, abc.Mapping):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first, mapping entries in sorted key order.

    >>> tf.nest.flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]
    """
    if not is_nested(structure):
        return [structure]
    return [leaf for child in _children(structure) for leaf in flatten(child)]


def _sequence_like(structure, items):
    """A structure like `structure` holding `items` (given in flatten's order)."""
    if isinstance(structure, abc.Mapping):
        by_key = dict(zip(sorted(structure), items))
        if isinstance(structure, collections.defaultdict):
            return type(structure)(structure.default_factory,
                                   [(k, by_key[k]) for k in structure])
        try:
            return type(structure)((k, by_key[k]) for k in structure)
        except TypeError:  # a read-only mapping type (MappingProxyType): a dict
            return {k: by_key[k] for k in structure}
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*items)
    if isinstance(structure, (list, tuple)):
        return type(structure)(items)
    return list(items)


def pack_as(structure, leaves):
    """The inverse of `flatten`: `leaves` arranged like `structure`."""
    it = iter(leaves)

    def build(s):
        if not is_nested(s):
            return next(it)
        return _sequence_like(s, [build(child) for child in _children(s)])
    return build(structure)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` (a list of leaves) arranged like `structure`, as TensorFlow's.

    >>> tf.nest.pack_sequence_as({"b": [0, 0], "a": 0}, [3, 1, 2])
    {'b': [1, 2], 'a': 3}
    """
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but "
                        f"found incompatible type `{type(flat_sequence)}` instead.")
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  "
                             f"{structure}\nHowever the input is a sequence "
                             f"({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                             f"{flat_sequence}\nnest cannot guarantee that it is safe to map "
                             f"one to the other.")
        return flat_sequence[0]
    atoms = len(flatten(structure))
    if atoms != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {atoms} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.  Structure: "
                         f"{structure}, flat_sequence: {flat_sequence}.")
    return pack_as(structure, flat_sequence)


def _describe(x):
    return f"type={type(x).__name__} str={x}"


def _dots(structure):
    return str(pack_as(structure, ["."] * len(flatten(structure)))).replace("'.'", ".")


def _mismatch(first, second, check_types):
    """(error class, detail) of the first difference between two structures, or None."""
    nested1, nested2 = is_nested(first), is_nested(second)
    if nested1 != nested2:
        seq, other = (first, second) if nested1 else (second, first)
        return ValueError, (f'Substructure "{_describe(seq)}" is a sequence, while '
                            f'substructure "{_describe(other)}" is not')
    if not nested1:
        return None
    if check_types and type(first) is not type(second) and not (
            isinstance(first, abc.Mapping) and isinstance(second, abc.Mapping)):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First "
                           f"structure {_describe(first)} has type {type(first).__name__}, "
                           f"while second structure {_describe(second)} has type "
                           f"{type(second).__name__}")
    if isinstance(first, abc.Mapping) and isinstance(second, abc.Mapping) \
            and set(first) != set(second):
        return ValueError, (f"The two dictionaries don't have the same set of keys. First "
                            f"structure has keys {_describe(list(first))}, while second "
                            f"structure has keys {_describe(list(second))}")
    children1, children2 = _children(first), _children(second)
    if len(children1) != len(children2):
        return ValueError, (f"The two structures don't have the same number of elements. "
                            f"First structure: {_describe(first)}. Second structure: "
                            f"{_describe(second)}")
    for a, b in zip(children1, children2):
        found = _mismatch(a, b, check_types)
        if found is not None:
            return found
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (a different nesting or length, other dict keys) or TypeError
    (other sequence types, when `check_types`) unless the structures match.

    >>> tf.nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    """
    found = _mismatch(nest1, nest2, check_types)
    if found is not None:
        cls, detail = found
        raise cls(f"The two structures don't have the same nested structure.\n\n"
                  f"First structure: {_describe(nest1)}\n\nSecond structure: "
                  f"{_describe(nest2)}\n\nMore specifically: {detail}\nEntire first "
                  f"structure:\n{_dots(nest1)}\nEntire second structure:\n{_dots(nest2)}")


def map_structure(func, *structure, **kwargs):
    """`func` applied to the leaves of the structures (which must match), in a structure
    like the first. Keyword arguments: `check_types` (default True), `expand_composites`.

    >>> tf.nest.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)])
    [11, (22, 33)]
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{'`, `'.join(kwargs)}`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flat = [flatten(s) for s in structure]
    return pack_as(structure[0], [func(*leaves) for leaves in zip(*flat)])
