"""GradientTape: record ops on watched arrays, then differentiate backwards.

Each op's gradient is defined once, in the op registry (`OpDef.grad`), and
written with public ops, so every backend differentiates with its own kernels
and the backward pass stays on the device.

The tape holds its own views of the arrays an op's gradient needs (sharing
their storage), so a scope that ends inside the recorded code (a composite op,
a layer) may dispose its arrays: their data lives on until the tape is done.
"""

import contextlib
import enum

import numpy as np

from ..engine import scope as scopes
from ..engine.nest import flatten, pack_as
from ..engine.ndarray import NDArray, from_numpy
from ..errors import ShapeError, TexflowError
from .variable import Variable


class UnconnectedGradients(enum.Enum):
    """What `GradientTape.gradient` gives for a source the target does not depend on
    (tf.UnconnectedGradients): None, or zeros of the source's shape and dtype."""

    NONE = "none"
    ZERO = "zero"


class _UsedTapeError(TexflowError, RuntimeError):
    """A second gradient from a non-persistent tape (TensorFlow: RuntimeError)."""


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
        # id of an inner tape's view -> (the id it stands for here, the view): see _recorded
        self._aliases = {}
        self._recording = False
        self._entered = False
        self._used = False
        self._variables = {}  # id -> the Variables watched or read, in order (watched_variables)

    def __enter__(self):
        self._recording = self._entered = True
        scopes.recorders().append(self._record)
        return self

    def __exit__(self, *exc):
        self._stop()
        self._entered = False
        return False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run in the block are not recorded (TensorFlow's tape.stop_recording())."""
        if not self._entered:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        if not self._recording:
            raise ValueError("Tape is not recording.")
        active = scopes.recorders()
        place = active.index(self._record)
        self._stop()
        try:
            yield
        finally:
            if self._entered:
                self._recording = True
                scopes.recorders().insert(place, self._record)

    def reset(self):
        """Forgets everything recorded so far, as a new tape would (TensorFlow's
        tape.reset()); a recording tape goes on recording."""
        self.release()
        self._variables, self._used = {}, False

    def watched_variables(self):
        """The Variables watched or read while recording, in the order first seen."""
        return tuple(self._variables.values())

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
            if isinstance(x, Variable):
                self._variables.setdefault(id(x), x)

    def _is_watched(self, x):
        if id(x) in self._watched:
            return True
        return (self.watch_accessed_variables and isinstance(x, Variable) and x.trainable)

    def _key(self, x):
        """The id under which this tape knows `x` (an inner tape's view: its original's)."""
        alias = self._aliases.get(id(x)) if self._aliases else None
        return id(x) if alias is None else alias[0]

    def _record(self, op, inputs, attrs, result):
        if op.grad is None:
            return
        in_ids = tuple(self._key(x) if isinstance(x, NDArray) else None for x in inputs)
        needs = tuple(k is not None and (k in self._watched or self._is_watched(x))
                      for k, x in zip(in_ids, inputs))
        if not any(needs):
            return
        for x, need in zip(inputs, needs):
            if need and isinstance(x, Variable):
                self._variables.setdefault(id(x), x)
        outputs = result if isinstance(result, tuple) else (result,)
        in_views = tuple(self._hold(x) if isinstance(x, NDArray) else x for x in inputs)
        out_ids = tuple(id(o) for o in outputs)
        out_views = tuple(self._hold(o) for o in outputs)
        self._entries.append((op, in_ids, in_views, attrs, out_ids, out_views, needs))
        for o in outputs:
            self._watched[id(o)] = o

    def _recorded(self, key, view):
        x = self._originals.get(key) if key is not None else None
        if x is None or x._storage is None or x._storage is not view._storage:
            # x was disposed (a composite op's scope ended) or changed: the outer tapes
            # that know x take this view for it, so higher-order gradients still flow
            if key is not None:
                for tape in _outer_tapes():
                    if key in tape._watched:
                        tape._aliases[id(view)] = (key, view)  # holding it keeps id(view)
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
        self._aliases = {}

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown
            pass

    def _check_use(self, target, what):
        if self._used and not self.persistent:
            raise _UsedTapeError("A non-persistent GradientTape can only be used to compute "
                                 "one set of gradients (or jacobians); use "
                                 "tf.GradientTape(persistent=True)")
        if not isinstance(target, NDArray):
            raise TypeError(f"{what} target must be an NDArray, received "
                            f"{type(target).__name__}")

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Gradients of `target` with respect to `sources` (an array or a nested structure).

        Args:
            target: an NDArray, or a nested list/tuple/dict of them: the gradients of
                all targets are summed, as in TensorFlow. Without `output_gradients`, a
                non-scalar target is differentiated as the sum of its elements (the
                gradient flowing into each element is 1).
            sources: an NDArray or Variable, or a nested list/tuple/dict of them.
            output_gradients: an NDArray of target's shape, or one per target (in the
                flattened order of `target`; targets past the last get ones).
            unconnected_gradients: `tf.UnconnectedGradients.NONE` ("none") gives None
                for a source the targets do not depend on, `ZERO` ("zero") zeros.

        Returns:
            The gradients in the structure of `sources`.
        """
        zero = _unconnected(unconnected_gradients)
        targets = flatten(target)
        for t in targets:
            self._check_use(t, "gradient")
        seeds = [None] * len(targets)
        if output_gradients is not None:
            given = flatten(output_gradients)
            if len(given) > len(targets):
                raise ValueError(f"{len(given)} output_gradients for {len(targets)} targets")
            for i, (t, g) in enumerate(zip(targets, given)):
                if not isinstance(g, NDArray):
                    g = from_numpy(np.asarray(g, np.float32)) if g is not None else g
                if g is None or tuple(g.shape) != t.shape:
                    got = "None" if g is None else f"shape {list(g.shape)}"
                    # TensorFlow checks nothing: an op of the backward pass raises
                    # InvalidArgumentError ("Incompatible shapes: [2] vs. [3]") or the
                    # gradient comes out of another shape; texflow raises here, always
                    raise ShapeError(f"Incompatible shapes: output_gradients[{i}] has {got}, "
                                     f"its target has shape {list(t.shape)}")
                seeds[i] = g
        flat = flatten(sources)
        grads = self._run_backward(lambda: _zeros_for(
            self._backward(targets, flat, seeds), flat, zero))
        return pack_as(sources, grads)

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

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...] for each source: an array of shape
        target.shape + source.shape (for a source the target does not depend on None, or
        zeros with `unconnected_gradients="zero"`), TensorFlow's GradientTape.jacobian.
        It runs one backward pass per element of `target` (TensorFlow vectorizes them;
        the values are the same).

        >>> x = tf.constant([1.0, 2.0])
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x).tolist()
        [[2.0, 0.0], [0.0, 4.0]]
        """
        self._check_use(target, "jacobian")
        zero = _unconnected(unconnected_gradients)
        flat = flatten(sources)
        seeds = np.eye(target.size, dtype=np.float32).reshape((target.size,) + target.shape)
        return pack_as(sources, self._run_backward(
            lambda: self._stacked(target, flat, seeds, (), zero)))

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """The Jacobian of each row of `target` with respect to the same row of `source`
        (TensorFlow's GradientTape.batch_jacobian): for target [b, y...] and source
        [b, x...] an array [b, y..., x...], assuming, as TensorFlow does, that row i of
        the target depends on row i of the source only. One backward pass per element
        of a target row.

        >>> x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.batch_jacobian(y, x).numpy()[1].tolist()
        [[6.0, 0.0], [0.0, 8.0]]
        """
        self._check_use(target, "batch_jacobian")
        if not isinstance(source, NDArray):
            raise TypeError(f"batch_jacobian source must be an NDArray, received "
                            f"{type(source).__name__}")
        if not target.shape or not source.shape or target.shape[0] != source.shape[0]:
            raise ValueError(f"Need first dimension of target shape ({list(target.shape)}) "
                             f"and source shape ({list(source.shape)}) to match.")
        zero = _unconnected(unconnected_gradients)
        batch, rest = target.shape[0], target.shape[1:]
        width = int(np.prod(rest, dtype=np.int64))
        # seed j: element j of every row at once (rows are independent)
        seeds = np.broadcast_to(np.eye(width, dtype=np.float32)[:, None, :],
                                (width, batch, width)).reshape((width,) + target.shape)
        return self._run_backward(
            lambda: self._stacked(target, [source], seeds, (batch,), zero)[0])

    def _stacked(self, target, sources, seeds, lead, zero):
        """Per source, the backward passes of `seeds` stacked as lead + target.shape[len(lead):]
        + source.shape[len(lead):]; None (or zeros) where no pass reaches the source."""
        from ..ops.creation import zeros
        from ..ops.movement import reshape, stack, transpose

        passes = [self._backward([target], sources, [from_numpy(np.ascontiguousarray(s))])
                  for s in seeds]
        rest = tuple(target.shape[len(lead):])
        out = []
        for i, s in enumerate(sources):
            grads = [g[i] for g in passes]
            if not self._is_watched(s) or (grads and all(g is None for g in grads)):
                out.append(zeros(lead + rest + tuple(s.shape[len(lead):]), s.dtype)
                           if zero else None)
                continue
            grads = [zeros(s.shape) if g is None else g for g in grads]
            full = stack(grads) if grads else zeros((0,) + tuple(s.shape))
            if lead:  # [seed, batch, x...] -> [batch, seed, x...]
                full = transpose(full, (1, 0) + tuple(range(2, full.ndim)))
            out.append(reshape(full, lead + rest + tuple(s.shape[len(lead):])))
        return out

    def _backward(self, targets, sources, output_gradients):
        """Per source, the sum over `targets` of its gradient, each target seeded with its
        output gradient (None: ones); None where unconnected."""
        from ..ops import elementwise as ew
        from ..ops.creation import ones

        grads = {}
        for t, seed in zip(targets, output_gradients):
            seed = ones(t.shape, "float32") if seed is None else seed
            prev = grads.get(id(t))
            grads[id(t)] = seed if prev is None else ew.add(prev, seed)
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
    """The GradientTapes recording now (a tf.function's tracer records too, but traces
    a backward pass as it is)."""
    return [r.__self__ for r in scopes.recorders()
            if isinstance(getattr(r, "__self__", None), GradientTape)]


def _unconnected(value):
    """True for UnconnectedGradients.ZERO, False for NONE (either, or its string)."""
    name = getattr(value, "value", value)
    if name not in ("none", "zero"):
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}")
    return name == "zero"


def _zeros_for(grads, sources, zero):
    from ..ops.creation import zeros

    if not zero:
        return grads
    return [zeros(s.shape, s.dtype) if g is None else g for g, s in zip(grads, sources)]
