"""The runnable examples in tf.keras's docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import texflow as tf
import texflow.keras

MODULES = sorted(name for _, name, _ in pkgutil.walk_packages(texflow.keras.__path__,
                                                              "texflow.keras."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={"tf": tf, "np": np}):
        if not test.examples:
            continue
        tf.set_backend("numpy")
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} docstring examples of {name} failed"
