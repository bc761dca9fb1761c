"""GradientTape: record ops on watched arrays, then differentiate backwards.

Each op's gradient is defined once, in the op registry (`OpDef.grad`), and
written with public ops, so every backend differentiates with its own kernels
and the backward pass stays on the device.

The tape holds its own views of the arrays an op's gradient needs (sharing
their storage), so a scope that ends inside the recorded code (a composite op,
a layer) may dispose its arrays: their data lives on until the tape is done.
"""

import numpy as np

from ..engine import scope as scopes
from ..engine.ndarray import NDArray, from_numpy
from ..errors import ShapeError, TexflowError
from .variable import Variable


class GradientTape:
    """Records operations for automatic differentiation (TensorFlow 2's tf.GradientTape).

    Trainable Variables are watched automatically; `tape.watch(x)` watches any
    other array. Ops whose inputs are watched are recorded, and their outputs
    become watched.

    Args:
        persistent: allow several `gradient` calls (the tape keeps its records).
        watch_accessed_variables: watch trainable Variables automatically.

    >>> w = tf.Variable([2.0, 3.0])
    >>> with tf.GradientTape() as tape:
    ...     loss = tf.sum(w * w)
    >>> tape.gradient(loss, w).tolist()
    [4.0, 6.0]
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self._watched = {}   # id -> array (the reference keeps ids unique)
        self._views = {}     # id -> the tape's own view of that array's data
        self._originals = {}  # id -> the array viewed (the reference keeps ids unique)
        # (op, input ids, input views, attrs, output ids, output views, inputs watched)
        self._entries = []
        self._recording = False
        self._used = False

    def __enter__(self):
        self._recording = True
        scopes.recorders().append(self._record)
        return self

    def __exit__(self, *exc):
        self._stop()
        return False

    def _stop(self):
        self._recording = False
        active = scopes.recorders()
        if self._record in active:
            active.remove(self._record)

    def watch(self, value):
        """Watches an NDArray (or a list/tuple of them) so gradients flow to it."""
        for x in value if isinstance(value, (list, tuple)) else (value,):
            if not isinstance(x, NDArray):
                raise TypeError(f"GradientTape.watch needs NDArrays, received "
                                f"{type(x).__name__}")
            self._watched[id(x)] = x

    def _is_watched(self, x):
        if id(x) in self._watched:
            return True
        return (self.watch_accessed_variables and isinstance(x, Variable) and x.trainable)

    def _record(self, op, inputs, attrs, result):
        if op.grad is None:
            return
        if not any(isinstance(x, NDArray) and self._is_watched(x) for x in inputs):
            return
        outputs = result if isinstance(result, tuple) else (result,)
        in_ids = tuple(id(x) if isinstance(x, NDArray) else None for x in inputs)
        in_views = tuple(self._hold(x) if isinstance(x, NDArray) else x for x in inputs)
        out_ids = tuple(id(o) for o in outputs)
        out_views = tuple(self._hold(o) for o in outputs)
        needs = tuple(isinstance(x, NDArray) and self._is_watched(x) for x in inputs)
        self._entries.append((op, in_ids, in_views, attrs, out_ids, out_views, needs))
        for o in outputs:
            self._watched[id(o)] = o

    def _recorded(self, key, view):
        x = self._originals.get(key) if key is not None else None
        if x is None or x._storage is None or x._storage is not view._storage:
            return view
        return x

    def _hold(self, x):
        """The tape's view of `x` (made once), which keeps x's data alive."""
        view = self._views.get(id(x))
        if view is None:
            view = self._views[id(x)] = x._view(x.shape)
            self._originals[id(x)] = x  # keeps the id from being reused
        return view

    def release(self):
        """Frees what the tape holds (a non-persistent tape does so after `gradient`)."""
        for view in self._views.values():
            view.dispose()
        self._views = {}
        self._originals = {}
        self._watched = {}
        self._entries = []

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown
            pass

    def _check_use(self, target, what):
        if self._used and not self.persistent:
            raise TexflowError("a non-persistent GradientTape can compute gradients only "
                               "once; use tf.GradientTape(persistent=True)")
        if not isinstance(target, NDArray):
            raise TypeError(f"{what} target must be an NDArray, received "
                            f"{type(target).__name__}")

    def gradient(self, target, sources, output_gradients=None):
        """Gradients of `target` with respect to `sources` (an array, list or dict).

        Args:
            target: the NDArray to differentiate. Without `output_gradients`, a
                non-scalar target is differentiated as the sum of its elements (as
                TensorFlow does: the gradient flowing into each element is 1).
            sources: an NDArray or Variable, or a list/tuple/dict of them.
            output_gradients: an NDArray of target's shape (or None).

        Returns:
            The gradients in the structure of `sources`; None where a source is
            not connected to the target, as in TensorFlow.
        """
        self._check_use(target, "gradient")
        if output_gradients is not None and tuple(output_gradients.shape) != target.shape:
            raise ShapeError(f"output_gradients has shape {list(output_gradients.shape)}, "
                             f"the target has shape {list(target.shape)}")
        flat, rebuild = _flatten(sources)
        return rebuild(self._run_backward(
            lambda: self._backward(target, flat, output_gradients)))

    def _run_backward(self, fn):
        """fn() in a scope, unrecorded by this tape, which a non-persistent tape then frees."""
        self._used = True
        recording = self._recording
        self._stop()
        try:
            if _outer_tapes():
                # an outer tape records this pass: its intermediates stay for the outer
                # tape's own backward pass (Python frees them when no tape needs them)
                return fn()
            return scopes.scope(fn)
        finally:
            if recording and self.persistent:
                self.__enter__()
            if not self.persistent:
                self.release()

    def jacobian(self, target, sources, unconnected_gradients=None, parallel_iterations=None,
                 experimental_use_pfor=True):
        """d target[i...] / d source[j...] for each source: an array of shape
        target.shape + source.shape (None for a source the target does not depend on),
        TensorFlow's GradientTape.jacobian. It runs one backward pass per element of
        `target` (TensorFlow vectorizes them; the values are the same).

        >>> x = tf.constant([1.0, 2.0])
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x).tolist()
        [[2.0, 0.0], [0.0, 4.0]]
        """
        from ..ops.creation import zeros
        from ..ops.movement import reshape, stack

        self._check_use(target, "jacobian")
        flat, rebuild = _flatten(sources)

        def rows():
            seeds = np.eye(target.size, dtype=np.float32)
            per_element = [self._backward(target, flat, from_numpy(seed.reshape(target.shape)))
                           for seed in seeds]
            out = []
            for i, s in enumerate(flat):
                grads = [g[i] for g in per_element]
                if not self._is_watched(s) or (grads and all(g is None for g in grads)):
                    out.append(None)
                    continue
                grads = [zeros(s.shape) if g is None else g for g in grads]
                full = stack(grads) if grads else zeros((0,) + tuple(s.shape))
                out.append(reshape(full, tuple(target.shape) + tuple(s.shape)))
            return out
        return rebuild(self._run_backward(rows))

    def _backward(self, target, sources, output_gradient):
        from ..ops import elementwise as ew
        from ..ops.creation import ones

        if output_gradient is None:
            output_gradient = ones(target.shape, "float32")
        grads = {id(target): output_gradient}
        # An outer tape recording this backward pass (higher-order gradients) must see
        # the arrays it watches, not this tape's views of them: while their data is the
        # data recorded, the arrays themselves go into the gradient functions.
        nested = _outer_tapes()
        for op, in_ids, inputs, attrs, out_ids, outputs, needs in reversed(self._entries):
            dys = [grads.get(i) for i in out_ids]
            if all(d is None for d in dys):
                continue
            if nested:
                inputs = tuple(self._recorded(k, v) for k, v in zip(in_ids, inputs))
                outputs = tuple(self._recorded(k, v) for k, v in zip(out_ids, outputs))
            dy, y = (dys[0], outputs[0]) if len(outputs) == 1 else (dys, outputs)
            if op.grad_needs:  # skip gradients toward unwatched inputs (costly for conv)
                in_grads = op.grad(dy, inputs, y, attrs, needs=needs)
            else:
                in_grads = op.grad(dy, inputs, y, attrs)
            for key, x, g in zip(in_ids, inputs, in_grads):
                # Only float arrays have gradients (None for ints and bools, as in TensorFlow).
                if g is None or key is None or x.dtype != "float32":
                    continue
                if g.shape != x.shape:
                    raise TexflowError(f"gradient of {op.name!r} has shape {list(g.shape)} "
                                       f"for an input of shape {list(x.shape)}")
                prev = grads.get(key)
                grads[key] = g if prev is None else ew.add(prev, g)
        # Sources the tape never watched get None, as in TensorFlow.
        return [grads.get(id(s)) if self._is_watched(s) else None for s in sources]


def _outer_tapes():
    """Whether a GradientTape records now (a tf.function's tracer records too, but traces
    a backward pass as it is)."""
    return any(isinstance(getattr(r, "__self__", None), GradientTape)
               for r in scopes.recorders())


def _flatten(sources):
    if isinstance(sources, dict):
        keys = list(sources)
        return [sources[k] for k in keys], lambda g: dict(zip(keys, g))
    if isinstance(sources, (list, tuple)):
        kind = type(sources)
        return list(sources), lambda g: kind(g)
    return [sources], lambda g: g[0]
