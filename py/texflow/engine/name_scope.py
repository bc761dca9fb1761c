"""`tf.name_scope` and `tf.get_current_name_scope`, as TensorFlow 2's.

Eagerly a scope only prefixes the names of Variables made in it ("a/v"): any string
is accepted and nothing is made unique. While a tf.function traces, its function
starts at the root scope, names are checked as TensorFlow's graphs check them and a
name used again in the same scope is made unique ("y", "y_1"), as in TensorFlow.
"""

import re
import threading

from . import trace

_ROOT = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_NESTED = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class _Local(threading.local):
    def __init__(self):
        self.scope = ""   # the eager scope: "" or "a/b/"


_local = _Local()


def _state():
    """The object holding the current scope: the thread's, or the tracing function's."""
    tracer = trace.active()
    if tracer is None:
        return _local
    if not hasattr(tracer, "name_scope"):
        tracer.name_scope, tracer.scope_names = "", {}
    return tracer


def current():
    """The current scope with its trailing slash ("a/b/"), or "" at the root."""
    state = _state()
    return state.scope if state is _local else state.name_scope


def get_current_name_scope():
    """The current name scope: "" at the root, "a/b" inside `name_scope("a")` and
    `name_scope("b")`.

    >>> with tf.name_scope("outer"):
    ...     tf.get_current_name_scope()
    'outer'
    """
    return current()[:-1] if current().endswith("/") else current()


def _graph_scope(tracer, name):
    """The scope `name` opens while a function traces (checked and made unique)."""
    old = tracer.name_scope
    if not name:
        return ""
    pattern, text = (_NESTED, "scope") if old else (_ROOT, "root scope")
    if not pattern.match(name):
        _invalid(name, text, pattern)
    if name.endswith("/"):  # an absolute scope, reused as it is
        return name
    full = old + name
    count = tracer.scope_names.get(full.lower(), 0)
    tracer.scope_names[full.lower()] = count + 1
    if count:
        while (f"{full}_{count}").lower() in tracer.scope_names:
            count += 1
        full = f"{full}_{count}"
        tracer.scope_names[full.lower()] = 1
    return full + "/"


def _invalid(name, text, pattern):
    article = "A root scope name" if text == "root scope" else "A scope name"
    raise ValueError(f"'{name}' is not a valid {text} name. {article} has to match the "
                     f"following pattern: {pattern.pattern}")


class name_scope:  # noqa: N801  (TensorFlow's name)
    """A context manager that opens a name scope: Variables made in it are named
    "<scope>/<name>"; `with` gives the scope's full name ("a/b/"). A name ending in "/"
    is an absolute scope, "" the root.

    Args:
        name: the scope's name (a str).

    >>> with tf.name_scope("layer1") as scope:
    ...     v = tf.Variable(1.0, name="w")
    >>> scope, v.name
    ('layer1/', 'layer1/w')
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._exit = []   # (state, the scope to restore) per open `with`

    @property
    def name(self):
        return self._name

    def __enter__(self):
        state = _state()
        if state is _local:
            old, name = state.scope, self._name
            scope = "" if not name else name if name.endswith("/") else old + name + "/"
            state.scope = scope
        else:
            old = state.name_scope
            scope = state.name_scope = _graph_scope(state, self._name)
        self._exit.append((state, old))
        return scope

    def __exit__(self, *exc):
        state, old = self._exit.pop()
        if state is _local:
            state.scope = old
        else:
            state.name_scope = old
        return False
