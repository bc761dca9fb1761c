"""Session: evaluates and trains a deeplearn.js Graph (see graph.py)."""

import numpy as np

from ..engine import scope as scopes
from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..errors import ScopeError, ShapeError, TexflowError
from ..ops import elementwise as ew
from ..ops.movement import reshape
from .graph import CostReduction, SymbolicTensor, _substitute
from .gradient_tape import GradientTape
from .input_provider import InputProvider


class FeedEntry:
    """Data for a Tensor: an NDArray (or array-like) or an InputProvider."""

    __slots__ = ("tensor", "data")

    def __init__(self, tensor, data):
        self.tensor, self.data = tensor, data

    def __repr__(self):
        return f"FeedEntry({self.tensor!r}, {type(self.data).__name__})"


class _Plan:
    """The nodes one (fetches, feeds) signature runs, and when each value dies."""

    def __init__(self, fetches, fed):
        order, seen = [], set()

        def visit(t):
            node = t.node
            if t.id in fed or id(node) in seen:
                return
            seen.add(id(node))
            if node.kind == "placeholder":
                raise TexflowError(f"placeholder {node.name!r} (shape {list(t.shape)}) is needed "
                                   "but was not fed")
            for inp in node.inputs():
                visit(inp)
            order.append(node)

        for t in fetches:
            visit(t)
        self.steps = order
        keep = {t.id for t in fetches} | set(fed)
        last_use = {}
        for k, node in enumerate(order):
            for inp in node.inputs():
                last_use[inp.id] = k
        # After step k, free the op outputs read for the last time there.
        self.release = [[] for _ in order]
        for k, node in enumerate(order):
            for inp in node.inputs():
                if last_use[inp.id] == k and inp.id not in keep and inp.node.kind == "op":
                    self.release[k].append(inp.id)


class Session:
    """Runs a Graph on a math object's backend (`tf.Session(g, math)`).

    `eval` and `eval_all` compute tensors from feeds; `train` runs one batch of
    training and returns its cost.
    """

    def __init__(self, graph, math=None):
        self.graph = graph
        self.math = math
        self._plans = {}

    # -- feeds -------------------------------------------------------------------------

    def _feeds(self, feed_entries):
        if isinstance(feed_entries, dict):
            feed_entries = [FeedEntry(t, d) for t, d in feed_entries.items()]
        feeds = {}
        for entry in feed_entries or ():
            if not isinstance(entry, FeedEntry):
                entry = FeedEntry(*entry)
            t = entry.tensor
            if not isinstance(t, SymbolicTensor) or t.graph is not self.graph:
                raise TexflowError(f"a feed is for {t!r}, which is not a tensor of this graph")
            feeds[t.id] = (t, entry.data)
        return feeds

    def _value(self, tensor, data):
        if isinstance(data, InputProvider):
            data = data.get_next_copy(self.math)
        elif not isinstance(data, NDArray):
            data = from_numpy(to_numpy(data, tensor.dtype))
        if not tensor.shape.is_compatible_with(data.shape):
            raise ShapeError(f"the feed for {tensor.name!r} has shape {list(data.shape)}, but "
                             f"the tensor has shape {list(tensor.shape)}")
        return data

    def _plan(self, fetches, feeds):
        key = (tuple(t.id for t in fetches), frozenset(feeds))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = _Plan(fetches, set(feeds))
        return plan

    def _run(self, plan, values):
        for k, node in enumerate(plan.steps):
            if node.kind in ("variable", "constant"):
                values[node.outputs[0].id] = node.value
                continue
            args = _substitute(node.args, lambda t: values[t.id])
            kwargs = {k2: _substitute(v, lambda t: values[t.id]) for k2, v in node.kwargs.items()}
            out = node.fn(*args, **kwargs)
            for t, o in zip(node.outputs, out if isinstance(out, tuple) else (out,)):
                values[t.id] = o
            for dead in plan.release[k]:
                values.pop(dead).dispose()
        return values

    def _check_safe_mode(self, what):
        if self.math is not None and getattr(self.math, "safe_mode", False) \
                and not scopes.in_scope():
            raise ScopeError(f"Session.{what}() with a safe-mode math object must be called "
                             "inside math.scope() (it returns arrays to track)")

    def _backend_scope(self):
        from ..engine import context
        if self.math is None:
            return context.using(context.current())
        return context.using(self.math.backend)

    # -- public --------------------------------------------------------------------------

    def eval(self, tensor, feed_entries=()):
        """The value of `tensor` given the feeds (FeedEntry list or {tensor: data})."""
        return self.eval_all([tensor], feed_entries)[0]

    def eval_all(self, tensors, feed_entries=()):
        """The values of several tensors, computed in one pass."""
        self._check_safe_mode("eval")
        feeds = self._feeds(feed_entries)
        plan = self._plan(tensors, feeds)

        def body():
            values = {tid: self._value(t, data) for tid, (t, data) in feeds.items()}
            self._run(plan, values)
            return [values[t.id] for t in tensors]
        with self._backend_scope():
            return scopes.scope(body)

    def train(self, cost_tensor, feed_entries, batch_size, optimizer,
              cost_reduction=CostReduction.NONE):
        """Trains one batch: `batch_size` examples (one per provider call), gradients
        averaged over the batch, one optimizer step.

        Returns the batch's cost as a Scalar (its mean for CostReduction.MEAN, its
        sum for SUM); for NONE the cost is not accumulated and the Scalar is 0, as in
        deeplearn.js.
        """
        self._check_safe_mode("train")
        if cost_tensor.graph is not self.graph:
            raise TexflowError(f"{cost_tensor!r} is not a tensor of this graph")
        if len(cost_tensor.shape) and cost_tensor.shape != (1,):
            raise ShapeError(f"the cost {cost_tensor.name!r} must be a scalar, it has shape "
                             f"{list(cost_tensor.shape)}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, received {batch_size}")
        feeds = self._feeds(feed_entries)
        plan = self._plan([cost_tensor], feeds)
        variables = [v for v in self.graph.variables() if v.trainable]

        def example(grads, total):
            values = {tid: self._value(t, data) for tid, (t, data) in feeds.items()}
            with GradientTape() as tape:
                self._run(plan, values)
            cost = values[cost_tensor.id]
            step = tape.gradient(cost, variables)
            grads = [_accumulate(a, b) for a, b in zip(grads, step)]
            if cost_reduction != CostReduction.NONE:
                total = _accumulate(total, cost)
            return grads, total

        def body():
            grads, total = [None] * len(variables), None
            for _ in range(batch_size):
                previous = grads + [total]
                grads, total = scopes.scope(lambda: example(grads, total))
                for old in previous:  # the running sums just replaced
                    if old is not None and all(old is not new for new in grads + [total]):
                        old.dispose()
            scale = 1.0 / batch_size
            optimizer.apply_gradients(
                [(None if g is None else ew.mul(g, scale), v) for g, v in zip(grads, variables)])
            if cost_reduction == CostReduction.MEAN:
                return reshape(ew.mul(total, scale), ())
            if cost_reduction == CostReduction.SUM:
                return reshape(ew.add(total, 0.0), ())
            return from_numpy(np.zeros((), np.float32))  # NONE: deeplearn.js gives 0 too
        with self._backend_scope():
            return scopes.scope(body)


def _accumulate(total, value):
    if value is None:
        return total
    return value if total is None else ew.add(total, value)
