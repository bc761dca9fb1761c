"""Collectives between workers through a texflow coordinator (`texflow coordinator`).

The same API natively and inside Pyodide (a browser tab or Web Worker):

>>> from texflow.distribute import collective            # doctest: +SKIP
>>> group = collective.connect()       # TEXFLOW_COORDINATOR and TEXFLOW_TOKEN; waits for all
>>> grads = group.all_reduce([g1, g2], op="mean")       # numpy in, numpy out
>>> weights = group.broadcast(weights, root=0)
>>> group.report(step=10, loss=0.25)                    # shown on the dashboard
>>> group.close()

Every call is synchronous and has an `await`-able `*_async` form. Natively the
work runs on one background event-loop thread shared by all groups. In Pyodide
the synchronous forms block through JSPI (`pyodide.ffi.run_sync`), which works
when Python was entered through `runPythonAsync` (as the worker page, run-browser
and the test harness do); elsewhere they raise, saying to use the async form.

Membership and faults: a lost worker makes the survivors' pending and later
collectives raise `WorkerLostError` (naming the rank) until they call
`rejoin()` (a fixed group: waits for the rank to come back) or `resize()` (an
elastic group: goes on with who is there and admits new workers). Both return
a `Membership` saying which ranks are new, so the chief can send them its
state. A worker whose connection dropped reconnects with backoff by itself and
gets its rank back. The wire format is described in texflow.coordinator.wire.
"""

import asyncio
import os
import sys
import time

from ..coordinator import wire
from ..errors import DeadlineExceededError, InvalidArgumentError, WorkerLostError
from . import _tensors
from ._core import Core, Membership

IN_BROWSER = sys.platform == "emscripten"
_NO_SYNC = ("a synchronous collective in Pyodide needs JSPI (pyodide.ffi.run_sync), which is "
            "not available here (Python was not entered through runPythonAsync or "
            "callPromising); use the async form, e.g. `await group.all_reduce_async(x)`")

__all__ = ["connect", "connect_async", "Group", "Membership", "WorkerLostError"]


def _run(coro):
    if IN_BROWSER:
        from pyodide.ffi import can_run_sync, run_sync
        if not can_run_sync():
            coro.close()
            raise RuntimeError(_NO_SYNC)
        return run_sync(coro)
    from . import _native
    return _native.run(coro)


async def _run_async(coro):
    if IN_BROWSER:
        return await coro
    from . import _native
    return await _native.run_async(coro)


def _settings(url, token):
    url = url or os.environ.get("TEXFLOW_COORDINATOR")
    token = token if token is not None else os.environ.get("TEXFLOW_TOKEN")
    if not url:
        raise InvalidArgumentError("no coordinator URL: pass url= or set TEXFLOW_COORDINATOR "
                                   "(texflow worker and the worker page set it)")
    if not token:
        raise InvalidArgumentError("no coordinator token: pass token= or set TEXFLOW_TOKEN")
    if not url.startswith(("ws://", "wss://")):
        raise InvalidArgumentError(f"the coordinator URL must start with ws:// or wss://; "
                                   f"received {url!r}")
    if url.count("/") < 3:
        url += "/ws"
    return url, token


def _transport():
    if IN_BROWSER:
        from ._pyodide import PyodideTransport
        return PyodideTransport, "browser", 1 << 20  # measured against 64 KiB: README
    from ._native import NativeTransport
    return NativeTransport, "native", 1 << 20


def connect(url=None, token=None, task_type="worker", task_id=None, timeout=300.0, **options):
    """Joins the coordinator's group and returns a `Group` once all workers have joined.

    Args:
        url: the coordinator, `ws://HOST:PORT` (default: $TEXFLOW_COORDINATOR).
        token: its join token (default: $TEXFLOW_TOKEN).
        task_type: the TF_CONFIG task type, for the dashboard ("worker", "chief").
        task_id: the rank wanted in a fixed group (default: the coordinator's choice; a
            worker coming back gets its old rank).
        timeout: seconds to wait for the group to form.
        **options: `chunk_bytes` (message size), `backend` (shown on the dashboard),
            `allow_nonfinite` (skip the local NaN/inf check), `on_change` (a listener),
            `client_id` (a stable id: connecting again with it gets the same rank back; the
            worker page keeps one per tab in sessionStorage, via $TEXFLOW_CLIENT_ID).

    Returns:
        A Group.
    """
    group = Group(url, token, task_type, _task_id(task_id), **options)
    group.membership = _run(group._core.connect(timeout))
    return group


async def connect_async(url=None, token=None, task_type="worker", task_id=None, timeout=300.0,
                        **options):
    """`connect` without blocking (await it)."""
    group = Group(url, token, task_type, _task_id(task_id), **options)
    group.membership = await _run_async(group._core.connect(timeout))
    return group


def _task_id(task_id):
    """`task_id`, else $TEXFLOW_TASK_ID (set by `texflow worker --task-id`)."""
    if task_id is None and os.environ.get("TEXFLOW_TASK_ID", "").isdigit():
        return int(os.environ["TEXFLOW_TASK_ID"])
    return task_id


class Group:
    """A worker's membership in a coordinator's group; made by `connect`.

    Attributes: rank, size, is_chief (rank 0), generation, membership (the latest
    `Membership`), stats (bytes sent and received, collectives, last duration).
    """

    def __init__(self, url, token, task_type="worker", task_id=None, chunk_bytes=None,
                 backend=None, allow_nonfinite=False, on_change=None, client_id=None):
        url, token = _settings(url, token)
        if chunk_bytes is not None and (not isinstance(chunk_bytes, int) or isinstance(
                chunk_bytes, bool) or chunk_bytes < 8 or chunk_bytes % 8):
            raise InvalidArgumentError(f"chunk_bytes must be a positive multiple of 8 (messages "
                                       f"are cut at element boundaries); received "
                                       f"{chunk_bytes!r}")
        transport, kind, default_chunk = _transport()
        if backend is None:
            backend = _backend_name()
        self._core = Core(transport, url, token, task_type, task_id, kind, backend,
                          chunk_bytes or default_chunk, client_id=client_id)
        self._core.allow_nonfinite = allow_nonfinite
        if on_change is not None:
            self._core.listeners.append(on_change)
        page = _page_status()
        if page is not None:  # the worker page shows rank, generation, losses
            self._core.listeners.append(lambda event: page(_own_status(event, backend)))
        self.membership = None
        self._last_report = None

    # -- who is here ---------------------------------------------------------------------

    @property
    def rank(self):
        return self.membership.rank

    @property
    def size(self):
        return self.membership.size

    @property
    def is_chief(self):
        return self.membership.rank == 0

    @property
    def generation(self):
        return self.membership.generation

    @property
    def url(self):
        return self._core.url

    @property
    def stats(self):
        return dict(self._core.stats)

    def members(self):
        """The members of the current generation: [{rank, kind, backend}]."""
        return [dict(m) for m in self.membership.members]

    def on_change(self, listener):
        """Calls `listener(event)` on joins, losses, new generations and reconnects.

        `event` is a dict with "event" ("waiting", "generation", "lost", "joined", "left",
        "disconnected", "reconnecting") and its details. Natively it runs on the
        collective thread: keep it short and call only *_async collectives from it.
        """
        self._core.listeners.append(listener)
        return listener

    # -- collectives ---------------------------------------------------------------------

    def all_reduce(self, tensors, op="sum", name=None, timeout=None):
        """Reduces `tensors` (one, or a list/tuple/dict) over all workers.

        Args:
            tensors: numpy arrays, texflow arrays or Python numbers; every worker passes
                the same count, shapes and dtypes (a dict's keys name the tensors).
            op: "sum", "mean", "max" or "min".
            name: optional; every worker's collective of this step must agree on it.
            timeout: seconds (None: until the group fails).

        Returns:
            The reduced tensors, in the same structure and kinds (numpy in, numpy out).

        Raises:
            InvalidArgumentError: a tensor this worker sent was refused (the message
                names it); nothing of it reached anyone, and the call may be repeated.
            WorkerLostError: a worker was lost; see `rejoin` / `resize`.
        """
        return self._sync(_op(op), tensors, name, 0, timeout)

    async def all_reduce_async(self, tensors, op="sum", name=None, timeout=None):
        return await self._async(_op(op), tensors, name, 0, timeout)

    def broadcast(self, tensors, root=0, name=None, timeout=None):
        """Every worker gets the root's `tensors`. Others pass tensors of the same shapes
        (checked, and their kinds kept) or None (numpy arrays come back, in a list)."""
        return self._sync(wire.BROADCAST, tensors, name, self._root(root, tensors), timeout)

    async def broadcast_async(self, tensors, root=0, name=None, timeout=None):
        return await self._async(wire.BROADCAST, tensors, name, self._root(root, tensors),
                                 timeout)

    def all_gather(self, tensors, name=None, timeout=None):
        """Concatenates every worker's `tensors` along axis 0, in rank order (the first
        dimension may differ between workers; the others must agree)."""
        return self._sync(wire.GATHER, tensors, name, 0, timeout)

    async def all_gather_async(self, tensors, name=None, timeout=None):
        return await self._async(wire.GATHER, tensors, name, 0, timeout)

    def barrier(self, name=None, timeout=None):
        """Returns once every worker has called it."""
        self._sync(wire.BARRIER, [], name, 0, timeout)

    async def barrier_async(self, name=None, timeout=None):
        await self._async(wire.BARRIER, [], name, 0, timeout)

    def _root(self, root, tensors):
        if isinstance(root, bool) or not isinstance(root, int) or not 0 <= root < self.size:
            raise InvalidArgumentError(f"root must be a rank in [0, {self.size}); "
                                       f"received {root!r}")
        if tensors is None and root == self.rank:
            raise InvalidArgumentError("the broadcast root must pass the tensors to send")
        return root

    def _sync(self, op, tensors, name, root, timeout):
        leaves, rebuild, kinds, names = self._leaves(tensors)
        arrays = [_tensors.to_numpy(x, k, i) for i, (x, k) in enumerate(zip(leaves, kinds))]
        try:
            out = _run(self._core.collective(op, arrays, names, name or "", root, timeout))
        except asyncio.TimeoutError:
            raise self._aborted(timeout) from None
        return self._finish(op, tensors, out, rebuild, kinds, leaves)

    async def _async(self, op, tensors, name, root, timeout):
        leaves, rebuild, kinds, names = self._leaves(tensors)
        arrays = [await _tensors.to_numpy_async(x, k, i)
                  for i, (x, k) in enumerate(zip(leaves, kinds))]
        try:
            out = await _run_async(self._core.collective(op, arrays, names, name or "", root,
                                                         timeout))
        except asyncio.TimeoutError:
            raise self._aborted(timeout) from None
        return self._finish(op, tensors, out, rebuild, kinds, leaves)

    def _aborted(self, timeout):
        """The error of a collective that timed out. Its contribution may still reach the
        coordinator, so this worker's later collectives would no longer line up with the
        others': they raise too (as TensorFlow's collectives do after a timeout) until
        `rejoin`/`resize` or a reconnection starts a new generation."""
        why = (f"a collective of rank {self.rank} of {self.size} took longer than its "
               f"timeout of {timeout} s")
        self._core.broken = DeadlineExceededError(
            f"Collective ops is aborted by: {why}. Call rejoin() (or resize()) to go on")
        return DeadlineExceededError(why)

    @staticmethod
    def _leaves(tensors):
        if tensors is None:
            return [], list, [], None
        arrays = _tensors.numpy_leaves(tensors)
        if arrays is not None:  # a list of numpy arrays: rebuilt as the same kind of list
            return arrays, type(tensors), [_tensors.NUMPY] * len(arrays), None
        leaves, rebuild = _tensors.flatten(tensors)
        names = _tensors.leaf_names(tensors)
        return leaves, rebuild, [_tensors.kind_of(x) for x in leaves], names

    @staticmethod
    def _finish(op, tensors, out, rebuild, kinds, leaves):
        if op == wire.BARRIER:
            return None
        if out is None:  # the root of a broadcast keeps what it sent
            return tensors
        if tensors is None:
            return list(out)
        return rebuild([_tensors.from_numpy(a, k, x) for a, k, x in zip(out, kinds, leaves)])

    # -- membership ----------------------------------------------------------------------

    def rejoin(self, timeout=None):
        """After a loss or a dropped connection: waits for the next generation (a fixed
        group waits for the lost rank to come back) and returns its `Membership`."""
        self.membership = _run(self._core.resize(timeout))
        return self.membership

    async def rejoin_async(self, timeout=None):
        self.membership = await _run_async(self._core.resize(timeout))
        return self.membership

    def resize(self, timeout=None):
        """Forms the next generation at this point (every live member calls it): an
        elastic group goes on without its lost workers and admits those waiting. Returns
        the new `Membership`; its `new` ranks need the chief's state."""
        return self.rejoin(timeout)

    async def resize_async(self, timeout=None):
        return await self.rejoin_async(timeout)

    # -- reports and checkpoints ---------------------------------------------------------

    def report(self, step=None, loss=None, **metrics):
        """Sends this worker's progress to the dashboard (never blocks; never raises for a
        lost coordinator). Adds all-reduce time and bytes per second on its own."""
        now = time.perf_counter()
        stats = self._core.stats
        msg = {"type": "report", "step": step, "loss": _number(loss),
               "allreduce_ms": stats["last_ms"], "rank": stats["rank"]}
        last = self._last_report
        if last is not None and now > last[0]:
            msg["sent_Bps"] = (stats["bytes_sent"] - last[1]) / (now - last[0])
            msg["recv_Bps"] = (stats["bytes_received"] - last[2]) / (now - last[0])
            if step is not None and last[3] is not None and step > last[3]:
                msg["step_ms"] = (now - last[0]) * 1e3 / (step - last[3])
        self._last_report = (now, stats["bytes_sent"], stats["bytes_received"], step)
        msg.update({k: _number(v) for k, v in metrics.items()})
        _post(self._core, msg)
        return msg

    def save_checkpoint(self, step, files, timeout=None):
        """The chief stores `files` ({name: bytes}) as the checkpoint of `step` on the
        coordinator (atomically); returns its info {"step", "files"}."""
        return _run(self._core.checkpoint_put(step, files, timeout))

    async def save_checkpoint_async(self, step, files, timeout=None):
        return await _run_async(self._core.checkpoint_put(step, files, timeout))

    def latest_checkpoint(self, timeout=None):
        """{"step", "files": {name: size}} of the coordinator's latest checkpoint, or None."""
        return _run(self._latest(timeout))

    async def latest_checkpoint_async(self, timeout=None):
        return await _run_async(self._latest(timeout))

    async def _latest(self, timeout):
        _, future = await self._core.request({"type": "ckpt_latest"})
        return await asyncio.wait_for(future, timeout)

    def load_checkpoint(self, step=None, timeout=None):
        """{name: bytes} of checkpoint `step` (default: the latest)."""
        return _run(self._core.checkpoint_get(step, timeout))

    async def load_checkpoint_async(self, step=None, timeout=None):
        return await _run_async(self._core.checkpoint_get(step, timeout))

    def close(self):
        """Leaves the group (the others see this worker lost)."""
        _run(self._core.close())

    async def close_async(self):
        await _run_async(self._core.close())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        m = self.membership
        where = f"rank {m.rank} of {m.size}, generation {m.generation}" if m else "not joined"
        return f"<collective.Group {self._core.url}: {where}>"


def _op(op):
    code = wire.OPS.get(op if isinstance(op, str) else getattr(op, "value", str(op)).lower())
    if code not in wire.REDUCTIONS:
        raise InvalidArgumentError(f"op must be 'sum', 'mean', 'max' or 'min'; received {op!r}")
    return code


def _number(value):
    if value is None or isinstance(value, (int, float, str)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)[:64]


def _page_status():
    """A function posting a dict to the worker page (in its job worker), or None."""
    if not IN_BROWSER:
        return None
    import json

    import js
    status = getattr(js, "texflowJobStatus", None)
    return None if status is None else (lambda d: status(json.dumps(d)))


def _own_status(event, backend):
    """The page's view of a membership event: "joined"/"left" name another member's rank,
    which must not replace this worker's own."""
    status = {**event, "backend": backend}
    if event.get("event") in ("joined", "left"):
        status["member_rank"] = status.pop("rank", None)
    return status


def _post(core, msg):
    if IN_BROWSER:
        page = _page_status()
        if page is not None:
            page(msg)
        asyncio.ensure_future(core.send_report(msg))
        return
    from . import _native
    asyncio.run_coroutine_threadsafe(core.send_report(msg), _native.loop())


def _backend_name():
    try:
        import texflow
        return texflow.get_backend()
    except Exception:
        return ""
