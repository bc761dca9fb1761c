"""`tf.version`: texflow's version (TensorFlow's names; `tf.__version__` is VERSION)."""

VERSION = "0.1.0"
GIT_VERSION = "v" + VERSION  # texflow's releases are tagged vX.Y.Z
