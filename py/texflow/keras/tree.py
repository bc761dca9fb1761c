"""Nested structures as Keras 3 walks a loss's arguments (its `keras.tree`, on optree).

A Python list or tuple is a structure, not an array: `Loss.__call__` converts it leaf by
leaf (each number a scalar tensor) and `LossFunctionWrapper` pairs the leaves of y_true
with those of y_pred, so `MeanSquaredError()([1.0, 2.0], [[1.0], [2.0]])` is an error
there while the same values as arrays are not. Dicts are leaves here (nothing in
texflow's losses takes them).
"""

_NODES = (list, tuple)


def map_leaves(fn, structure):
    """`structure` with `fn` applied to each leaf.

    >>> from texflow.keras.tree import map_leaves
    >>> map_leaves(lambda x: x * 2, [1, (2, 3)])
    [2, (4, 6)]
    """
    if type(structure) in _NODES:
        return type(structure)(map_leaves(fn, v) for v in structure)
    return fn(structure)


def map_pairs(fn, first, second):
    """`fn(a, b)` over the paired leaves of two structures of the same layout, as
    `(structure of fn(...)[0], structure of fn(...)[1])`.

    Raises ValueError as Keras does when the layouts differ.

    >>> from texflow.keras.tree import map_pairs
    >>> map_pairs(lambda a, b: (a + b, a - b), [1, 2], [10, 20])
    ([11, 22], [-9, -18])
    >>> map_pairs(lambda a, b: (a, b), [1.0, 2.0], [[1.0], [2.0]])
    Traceback (most recent call last):
    ...
    ValueError: Structures don't have the same nested structure.
    """
    _check_nodes(first, second)
    return _map_pairs(fn, first, second)


def _map_pairs(fn, first, second):
    if type(first) not in _NODES:
        if type(second) in _NODES:
            raise ValueError("Structures don't have the same nested structure.")
        return fn(first, second)
    pairs = [_map_pairs(fn, a, b) for a, b in zip(first, second)]
    return type(first)(p[0] for p in pairs), type(first)(p[1] for p in pairs)


def _check_nodes(first, second):
    """Every list/tuple of `first` is matched, in type and length, in `second`.

    optree checks all nodes before it looks at any leaf, last child first; the first
    mismatch found that way is the one reported.
    """
    kind = type(first)
    if kind not in _NODES:
        return
    name = kind.__name__
    if type(second) is not kind:
        raise ValueError(f"Expected an instance of {name}, got {second!r}.")
    if len(second) != len(first):
        raise ValueError(f"{name} arity mismatch; expected: {len(first)}, got: "
                         f"{len(second)}; {name}: {second!r}.")
    for a, b in zip(reversed(first), reversed(second)):
        _check_nodes(a, b)
