"""One value in the forms Keras is given it (tests/backend/test_keras_lists.py and
scripts/make_keras_list_fixtures.py, which runs under TensorFlow: numpy only here)."""

import numpy as np


def make(value, form, constant):
    """`value` (nested lists) as a list, tuples, a numpy array or `constant(value)`."""
    if form == "list":
        return value
    if form == "tuple":
        return _tuples(value)
    if form == "np":  # float32: texflow holds float64 as float32 (README's deviations)
        array = np.asarray(value)
        return array.astype(np.float32) if array.dtype == np.float64 else array
    return constant(value)


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
