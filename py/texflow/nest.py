"""`tf.nest`: TensorFlow's nested-structure utilities (engine/nest.py, which texflow's
GradientTape and tf.data use too)."""

from .engine.nest import (assert_same_structure, flatten, is_nested,  # noqa: F401
                          map_structure, pack_sequence_as)
