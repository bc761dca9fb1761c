"""The public math API: ops defined once in the registry, with Python operators.

Importing the package imports every op module, so each op's public names (its
`export`s) are published before a namespace (tf, tf.math, tf.nn, ...) installs them.
"""

import importlib
import pkgutil

from . import operators

operators.install()
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
