"""TensorShape: TensorFlow's shape object, as a tuple of dimensions.

`x.shape` is a TensorShape: `as_list()`, `rank`, `num_elements()`,
`is_fully_defined()`, `concatenate`, `with_rank`, ... as in TensorFlow, with
`None` for a dimension not known until run time (a Graph placeholder's batch
axis, a TensorSpec). It is a tuple subclass, so it compares equal to tuples
(and lists, as TensorFlow's does) and hashes like the tuple of its
dimensions: the op runner keys its plans on shapes and pays nothing extra.
"""

import operator


def _dim(d):
    if d is None:
        return None
    value = getattr(d, "value", d)  # a Dimension-like object
    if value is None:
        return None
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"Dimension value must be integer or None or have an __index__ "
                        f"method, got value {d!r} with type {type(d)!r}") from None
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0")
    return value


class TensorShape(tuple):
    """The shape of a tensor: a tuple of ints, `None` where a dimension is unknown.

    >>> s = tf.TensorShape([None, 3])
    >>> s.rank, s[1], s.as_list(), s.is_fully_defined()
    (2, 3, [None, 3], False)
    >>> tf.zeros([2, 3]).shape == (2, 3)
    True
    """

    __slots__ = ()
    _nest_leaf = True  # tf.nest: a leaf, as TensorFlow's TensorShape (not a tuple) is

    def __new__(cls, dims=()):
        if dims is None:
            return UNKNOWN
        if isinstance(dims, TensorShape):
            return dims
        if isinstance(dims, int) or hasattr(dims, "__index__") and not hasattr(dims, "__len__"):
            dims = (dims,)
        try:
            items = tuple(dims)
        except TypeError:
            raise TypeError(f"a shape must be a list of dimensions (ints or None), "
                            f"received {dims!r}") from None
        return tuple.__new__(TensorShape, [_dim(d) for d in items])

    # -- TensorFlow's accessors ---------------------------------------------------------

    @property
    def rank(self):
        """The number of dimensions (None when unknown)."""
        return len(self)

    ndims = rank

    @property
    def dims(self):
        return list(self)

    def as_list(self):
        """The dimensions as a list (ints and None)."""
        return list(self)

    def num_elements(self):
        """The number of elements, or None when a dimension is unknown."""
        n = 1
        for d in self:
            if d is None:
                return None
            n *= d
        return n

    def is_fully_defined(self):
        return None not in tuple.__iter__(self)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def concatenate(self, other):
        """This shape followed by `other`'s dimensions."""
        other = TensorShape(other)
        if other.rank is None:
            return UNKNOWN
        return tuple.__new__(TensorShape, tuple.__add__(self, other))

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return TensorShape(other).concatenate(self)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return tuple.__new__(TensorShape, tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    # -- compatibility -------------------------------------------------------------------------

    def is_compatible_with(self, other):
        """Whether some fully defined shape fits both (None matches any dimension)."""
        other = TensorShape(other)
        if other.rank is None:
            return True
        if len(self) != len(other):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self, other))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {_text(other)} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both, or ValueError."""
        other = TensorShape(other)
        if other.rank is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([b if a is None else a for a, b in zip(self, other)])

    def most_specific_compatible_shape(self, other):
        other = TensorShape(other)
        if other.rank is None or len(self) != len(other):
            return UNKNOWN
        return TensorShape([a if a == b else None for a, b in zip(self, other)])

    def is_subtype_of(self, other):
        other = TensorShape(other)
        if other.rank is None:
            return True
        return len(self) == len(other) and all(b is None or a == b
                                               for a, b in zip(self, other))

    def with_rank(self, rank):
        """This shape, or ValueError if its rank is not `rank`."""
        if len(self) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if len(self) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if len(self) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank):
        self.with_rank(rank)

    def assert_same_rank(self, other):
        other = TensorShape(other)
        if other.rank is not None and len(self) != len(other):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    # -- equality, text ---------------------------------------------------------------------

    def __eq__(self, other):
        if isinstance(other, tuple):
            return tuple.__eq__(self, other) and (other.__class__ is not UnknownShape)
        if isinstance(other, list):
            return tuple.__eq__(self, tuple(other))
        return NotImplemented

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return tuple.__repr__(self)

    def __reduce__(self):
        return (TensorShape, (list(self),))


class UnknownShape(TensorShape):
    """A shape of unknown rank (`tf.TensorShape(None)`)."""

    __slots__ = ()

    @property
    def rank(self):
        return None

    ndims = rank

    @property
    def dims(self):
        return None

    def as_list(self):
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    def num_elements(self):
        return None

    def is_fully_defined(self):
        return False

    def concatenate(self, other):
        return UNKNOWN

    def is_compatible_with(self, other):
        return True

    def merge_with(self, other):
        return TensorShape(other)

    def most_specific_compatible_shape(self, other):
        return UNKNOWN

    def is_subtype_of(self, other):
        return TensorShape(other).rank is None

    def with_rank(self, rank):
        return TensorShape([None] * rank)

    def with_rank_at_least(self, rank):
        return self

    with_rank_at_most = with_rank_at_least

    def assert_same_rank(self, other):
        pass

    def __len__(self):
        raise ValueError("Cannot take the length of shape with unknown rank.")

    def __iter__(self):
        raise ValueError("Cannot iterate over a shape with unknown rank.")

    def __getitem__(self, key):
        if isinstance(key, slice):
            return UNKNOWN
        return None

    def __eq__(self, other):
        return isinstance(other, UnknownShape)

    def __ne__(self, other):
        return not isinstance(other, UnknownShape)

    __hash__ = tuple.__hash__

    def __repr__(self):
        return "TensorShape(None)"

    def __str__(self):
        return "<unknown>"

    def __reduce__(self):
        return (TensorShape, (None,))


UNKNOWN = tuple.__new__(UnknownShape, ())


def _text(shape):
    return str(shape) if isinstance(shape, TensorShape) else repr(shape)


def as_shape(shape):
    """`shape` as a TensorShape (already one: itself)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


# Shapes of Python ints made by `known`, one object per value: the op runner's signature
# keys (engine/run.py) then usually hold the very shape objects they are looked up with,
# and a dict lookup compares them by identity instead of calling TensorShape.__eq__
# (about a microsecond each inside Pyodide).
_KNOWN = {}
_KNOWN_LIMIT = 4096


def known(dims):
    """A TensorShape of trusted ints (internal fast path: no checks); equal shapes of
    Python ints are the same object."""
    dims = tuple(dims)
    shape = _KNOWN.get(dims)
    if shape is None:
        shape = tuple.__new__(TensorShape, dims)
        for d in dims:
            if type(d) is not int:  # numpy ints: not shared (the shape keeps them as given)
                return shape
        if len(_KNOWN) >= _KNOWN_LIMIT:
            _KNOWN.clear()
        _KNOWN[dims] = shape
    return shape
