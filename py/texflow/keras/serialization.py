"""Keras's object configs: `{'module', 'class_name', 'config', 'registered_name'}`.

Layers, initializers, regularizers, losses, metrics and optimizers serialize
to the dicts Keras 3 writes, so a `get_config()` round-trips through
`from_config()` and nested objects (a layer's initializer, a model's layers)
come back as the same classes. Built-in classes register under their Keras
module ('keras.layers', ...); user classes with `register_keras_serializable`
or through `custom_objects`.
"""

import threading

_BUILTIN = {}      # (module, class name) -> class
_BY_NAME = {}      # class name -> class (built-ins, for configs without a module)
_REGISTERED = {}   # "package>name" -> class or function


class _Scope(threading.local):
    def __init__(self):
        self.custom = []


_scopes = _Scope()


def serializable(module):
    """Class decorator: registers a built-in class under Keras module `module`."""
    def register(cls):
        cls._keras_module = module
        _BUILTIN[(module, cls.__name__)] = cls
        _BY_NAME.setdefault(cls.__name__, cls)
        return cls
    return register


def register_keras_serializable(package="Custom", name=None):
    """Registers a user class or function so configs naming it deserialize.

    >>> @tf.keras.utils.register_keras_serializable(package="demo")
    ... class Twice(tf.keras.layers.Layer):
    ...     def call(self, x):
    ...         return x * 2
    >>> tf.keras.utils.get_registered_name(Twice)
    'demo>Twice'
    """
    def register(obj):
        key = f"{package}>{name or obj.__name__}"
        if key in _REGISTERED and _REGISTERED[key] is not obj:
            raise ValueError(f"{key} has already been registered to {_REGISTERED[key]}")
        _REGISTERED[key] = obj
        obj._keras_registered_name = key
        return obj
    return register


def get_registered_name(obj):
    return getattr(obj, "_keras_registered_name", None) or obj.__name__


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The class or function registered as `name`, or None."""
    for table in (*reversed(_scopes.custom), custom_objects or {}):
        if name in table:
            return table[name]
    if name in _REGISTERED:
        return _REGISTERED[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


class Configurable:
    """The base of Keras's initializers, regularizers and constraints: a config of no
    entries unless a subclass adds its arguments; `from_config` calls the class with
    them."""

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class custom_object_scope:  # noqa: N801  (Keras's name)
    """`with custom_object_scope({"Twice": Twice}):` makes the names deserialize."""

    def __init__(self, custom_objects):
        self.custom_objects = dict(custom_objects or {})

    def __enter__(self):
        _scopes.custom.append(self.custom_objects)
        return self

    def __exit__(self, *exc):
        _scopes.custom.pop()
        return False


def serialize_keras_object(obj):
    """The config dict of `obj` (None, strings and numbers pass through)."""
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    cls = obj if isinstance(obj, type) else type(obj)
    if not hasattr(obj, "get_config"):
        if callable(obj):  # a plain function: Keras records it by name
            registered = getattr(obj, "_keras_registered_name", None)
            return {"module": getattr(obj, "__module__", None), "class_name": "function",
                    "config": registered or obj.__name__, "registered_name": registered}
        raise TypeError(f"cannot serialize {obj!r}: it has no get_config()")
    builtin = getattr(cls, "_keras_module", None)
    is_builtin = builtin is not None and _BUILTIN.get((builtin, cls.__name__)) is cls
    return {"module": builtin if is_builtin else cls.__module__,
            "class_name": cls.__name__,
            "config": obj.get_config(),
            "registered_name": None if is_builtin else get_registered_name(cls)}


def resolve_class(config, custom_objects=None, what="object"):
    """The class a serialized config names."""
    name = config.get("class_name")
    registered = config.get("registered_name")
    for key in (registered, name):
        if key:
            found = get_registered_object(key, custom_objects)
            if found is not None:
                return found
    cls = _BUILTIN.get((config.get("module"), name)) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"could not deserialize {what} {name!r}: it is not a texflow Keras "
                         f"class, nor registered, nor in custom_objects. Received config: "
                         f"{config!r:.300}")
    return cls


def deserialize_keras_object(config, custom_objects=None, what="object"):
    """The object a `serialize_keras_object` dict describes."""
    if config is None or isinstance(config, (int, float, bool)):
        return config
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"could not deserialize {what}: expected a config dict with "
                         f"'class_name', received {config!r:.300}")
    if config["class_name"] == "function":
        name = config["config"]
        fn = get_registered_object(config.get("registered_name") or name, custom_objects)
        if fn is None:
            raise ValueError(f"could not deserialize function {name!r}: register it with "
                             "register_keras_serializable or pass it in custom_objects")
        return fn
    cls = resolve_class(config, custom_objects, what)
    inner = config.get("config", {})
    if custom_objects:
        with custom_object_scope(custom_objects):
            return cls.from_config(inner)
    return cls.from_config(inner)


def get_object(identifier, kind, base, functions=None, classes=None):
    """What `tf.keras.<kind>s.get` returns for a name (of a function or a class), a config
    dict, a class (instantiated) or an object (returned as is)."""
    functions, classes = functions or {}, classes or {}
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier in functions:
            return functions[identifier]
        if identifier in classes:
            return classes[identifier]()
        found = get_registered_object(identifier)
        if found is not None:
            return found() if isinstance(found, type) else found
        raise ValueError(f"Could not interpret {kind} identifier: {identifier!r}; known names: "
                         f"{sorted(functions) + sorted(classes)}")
    if isinstance(identifier, dict):
        return deserialize_keras_object(identifier, what=kind)
    if isinstance(identifier, type) and issubclass(identifier, base):
        return identifier()
    if isinstance(identifier, base) or callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret {kind} identifier: {identifier!r}")


def serialize_nested(value):
    """Losses or metrics (nested in lists and dicts) as names or configs, as a compile
    config holds them."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {k: serialize_nested(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [serialize_nested(v) for v in value]
    if callable(value) and not hasattr(value, "get_config"):
        return value.__name__
    return serialize_keras_object(value)


def deserialize_nested(value):
    """The inverse of `serialize_nested`: configs become objects, names stay names."""
    if isinstance(value, dict) and "class_name" in value:
        return deserialize_keras_object(value)
    if isinstance(value, dict):
        return {k: deserialize_nested(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deserialize_nested(v) for v in value]
    return value
