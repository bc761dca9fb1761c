"""`tf.compat`: `tf.compat.v1` (or `import texflow.compat.v1 as tf`) gives TensorFlow 1
names."""


def __getattr__(name):
    # v1 imports the whole texflow package: load it on first use, not with texflow
    # (importlib, not `from . import v1`: that form asks this hook for v1 again first)
    if name == "v1":
        import importlib
        return importlib.import_module(__name__ + ".v1")
    raise AttributeError(f"module 'texflow.compat' has no attribute {name!r}")
