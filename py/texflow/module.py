"""`tf.Module`: a named container of Variables and other Modules, as TensorFlow 2's.

A Module finds its state by reflection, as TensorFlow's does: its attributes in name
order, each flattened with tf.nest (lists, tuples, dicts of them), the Variables and
Modules found there first, then each sub-Module's, depth first; every object once.
Keras layers are not Modules (as in Keras 3): one held by a Module is a plain value.
A Module is saveable: `tf.train.Checkpoint(model=module)` saves its Variables, keyed
by attribute names.
"""

import re

from .autodiff.variable import Variable
from .checkpoint import graph
from .engine import nest
from .engine.name_scope import name_scope

_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")
_CAMEL = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


def _snake(name):
    """"MyHTTPModule" -> "my_http_module", as TensorFlow names a Module by its class."""
    return _CAMEL.sub(r"_\1", name).lower()


class Module:
    """Base class for objects holding Variables and sub-Modules (models, layers of a
    low-level model). Attributes are tracked automatically.

    Args:
        name: the Module's name (a valid Python identifier); default: its class name in
            snake case ("my_model" for MyModel).

    >>> class Dense(tf.Module):
    ...     def __init__(self, n_in, n_out, name=None):
    ...         super().__init__(name=name)
    ...         self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
    ...         self.b = tf.Variable(tf.zeros([n_out]), name="b")
    ...     def __call__(self, x):
    ...         return x @ self.w + self.b
    >>> layer = Dense(3, 2)
    >>> [v.name for v in layer.trainable_variables]
    ['b', 'w']
    """

    def __init__(self, name=None):
        if name is None:
            name = _snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be "
                             "valid Python identifiers (e.g. a valid class name).")
        self._name = name
        with name_scope(name) as scope:
            self._name_scope = name_scope(scope)

    @property
    def name(self):
        """The name given to (or derived for) this Module."""
        return self._name

    @property
    def name_scope(self):
        """A `tf.name_scope` of this Module's scope ("outer/my_module/")."""
        return self._name_scope

    @property
    def variables(self):
        """Every Variable of this Module and its sub-Modules (see the module docstring),
        as a tuple."""
        return tuple(self._flatten(lambda x: isinstance(x, Variable)))

    @property
    def trainable_variables(self):
        """The trainable ones of `variables`."""
        return tuple(self._flatten(lambda x: isinstance(x, Variable) and x.trainable))

    @property
    def non_trainable_variables(self):
        """The non-trainable ones of `variables`."""
        return tuple(self._flatten(lambda x: isinstance(x, Variable) and not x.trainable))

    @property
    def submodules(self):
        """Every Module reachable from this one's attributes (not itself), as a tuple."""
        return tuple(self._flatten(lambda x: isinstance(x, Module)))

    def _flatten(self, predicate):
        """The objects reachable from this Module for which `predicate` holds: its
        attributes' leaves in name order, then each sub-Module's, each object once."""
        seen = {id(self)}

        def walk(module):
            children = []
            for key in sorted(vars(module)):
                try:
                    leaves = nest.flatten(vars(module)[key])
                except Exception as cause:  # noqa: BLE001  (named with the attribute)
                    raise ValueError(f"Error processing property {key!r} of "
                                     f"{vars(module)[key]!r}") from cause
                for leaf in leaves:
                    if id(leaf) in seen:
                        continue
                    seen.add(id(leaf))
                    if predicate(leaf):
                        yield leaf
                    if isinstance(leaf, Module):
                        children.append(leaf)
            for child in children:
                yield from walk(child)
        return walk(self)

    @classmethod
    def with_name_scope(cls, method):
        """Decorates a method so that it runs in the Module's `name_scope` (Variables it
        makes are named "<module>/<name>")."""
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        method_with_name_scope.__name__ = method.__name__
        method_with_name_scope.__qualname__ = method.__qualname__
        method_with_name_scope.__doc__ = method.__doc__
        method_with_name_scope.__wrapped__ = method
        return method_with_name_scope


def _describe(module):
    """A Module's checkpoint children: its saveable attributes, by name."""
    return [], [(key, value) for key, value in sorted(vars(module).items())
                if graph.is_saveable(value)]


graph.register(Module, _describe)
