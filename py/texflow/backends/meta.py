"""A backend that computes nothing: its arrays carry only shape and dtype.

Graph construction runs the real op functions on meta arrays to get each
symbolic Tensor's shape and dtype from the op registry, so a graph raises
the same ShapeError at build time that eager code raises at run time.
"""

import numpy as np

from .. import dtypes
from .base import Backend


def _nothing(k, *inputs, **attrs):
    """Every op's meta kernel, in the kernels' one convention (it is never launched:
    `execute` makes no storage)."""
    return None


class MetaBackend(Backend):
    name = "meta"
    language = "meta"

    @classmethod
    def probe(cls):
        return None

    def find_kernel(self, op_name):
        return _nothing

    def free(self, handle):
        pass

    def upload(self, values, dtype):
        return None

    def download(self, handle, size, dtype):
        return np.zeros(size, dtypes.NUMPY[dtype])  # values are never meaningful here

    def execute(self, fn, inputs, out_shape, out_dtype, attrs, key):
        return None
