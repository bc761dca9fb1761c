"""The numpy backend: data are flat numpy arrays, kernels are numpy functions.

It runs natively and inside Pyodide, imports nothing but numpy, and is the
host fallback the engine uses for size-0 arrays.
"""

import numpy as np

from ... import dtypes
from ...engine import memory
from ..base import Backend, import_kernel_modules

import_kernel_modules(__name__, __path__)  # registers the kernels


class Call:
    """A numpy kernel's context, its first argument (the convention every kernel language
    shares: docs/ADDING_AN_OP.md): what the op makes, `out_shape` and `out_dtype`, and
    `outs`, (shape, dtype) per output. numpy kernels return their values, which the
    backend casts to `out_dtype` and broadcasts to `out_shape`; most need nothing from
    it. Plain data: a replay makes one per launch once (autodiff/replay_host.py)."""

    __slots__ = ("out_shape", "out_dtype", "_outs")

    def __init__(self, out_shape, out_dtype, outs=None):
        self.out_shape = out_shape
        self.out_dtype = out_dtype
        self._outs = outs  # None for one output: no tuple made per eager call

    @property
    def outs(self):
        return self._outs or ((self.out_shape, self.out_dtype),)


class NumpyBackend(Backend):
    name = "numpy"
    language = "numpy"
    host_programs = True  # a replayed trace runs as autodiff/replay_host.py's program

    @classmethod
    def probe(cls):
        return None

    def free(self, handle):
        pass

    def upload(self, values, dtype):
        return values  # host data is immutable: share it

    def download(self, handle, size, dtype):
        return handle

    def execute(self, fn, inputs, out_shape, out_dtype, attrs, key):
        return self.compute(fn, _args(inputs), out_shape, out_dtype, attrs)

    def execute_joint(self, fn, inputs, outs, attrs, key):
        # one kernel call (one "launch") returns every output
        results = self.call(fn, Call(outs[0][0], outs[0][1], outs), _args(inputs), attrs)
        return [self._flat(result, shape, dtype)
                for result, (shape, dtype) in zip(results, outs)]

    def compute(self, fn, args, out_shape, out_dtype, attrs):
        """Calls numpy kernel `fn` and returns its result flat, in `out_dtype`."""
        return self._flat(self.call(fn, Call(out_shape, out_dtype), args, attrs), out_shape,
                          out_dtype)

    def call(self, fn, k, args, attrs):
        """One launch: numpy kernel `fn` with context `k` (a `Call`) on numpy arrays and
        scalars `args`, as it returns it (every kernel call goes through here: the
        benchmark times it)."""
        memory._state["num_launches"] += 1
        return fn(k, *args, **attrs)

    @staticmethod
    def _flat(result, out_shape, out_dtype):
        np_dtype = dtypes.NUMPY[out_dtype]
        if type(result) is not np.ndarray or result.dtype != np_dtype:
            result = np.asarray(result).astype(np_dtype, copy=False)
        if result.shape != out_shape:
            result = np.broadcast_to(result, out_shape)
        return np.ascontiguousarray(result).reshape(-1)


def _args(inputs):
    # tuple(): numpy parses a tuple subclass (TensorShape) twice as slowly
    return [x if type(x) in (float, int, bool) else x._storage.handle.reshape(tuple(x.shape))
            for x in inputs]
