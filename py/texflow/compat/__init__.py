"""`tf.compat`: `tf.compat.v1` (or `import texflow.compat.v1 as tf`) gives TensorFlow 1
names."""


def __getattr__(name):
    # v1 imports the whole texflow package: load it on first use, not with texflow
    if name == "v1":
        from . import v1
        return v1
    raise AttributeError(f"module 'texflow.compat' has no attribute {name!r}")
