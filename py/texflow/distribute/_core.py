"""The collective client's protocol, written once as asyncio code over a transport.

Natively it runs on a background event-loop thread over the `websockets`
library (_native.py); in Pyodide on the browser's event loop over the page's
WebSocket (_pyodide.py). The public, synchronous API is collective.py.
"""

import asyncio
import json
import os
import secrets
import time

import numpy as np

from ..coordinator import wire
from ..errors import (FailedPreconditionError, InvalidArgumentError, NotFoundError,
                      UnauthenticatedError, UnavailableError, WorkerLostError)
from . import _tensors
from ._pending import Pending

_ERRORS = {e.__name__: e for e in (InvalidArgumentError, NotFoundError,
                                   FailedPreconditionError, UnauthenticatedError)}


class Membership:
    """One generation of the group, as `connect`, `rejoin` and `resize` return it.

    Attributes: generation, rank, size, members (list of {rank, kind, backend}), new
    (ranks not in the previous generation: the chief sends them its state), lost,
    renumbered ({old rank: new rank} of those who stayed), latest_checkpoint (None or
    {"step", "files"}), elastic (the coordinator runs --elastic), is_new (this worker
    is one of `new`).
    """

    def __init__(self, msg):
        self.generation, self.rank, self.size = msg["generation"], msg["rank"], msg["size"]
        self.members, self.new, self.lost = msg["members"], msg["new"], msg["lost"]
        self.renumbered = {int(k): v for k, v in msg.get("renumbered", {}).items()}
        self.latest_checkpoint = msg.get("latest_checkpoint")
        self.elastic = bool(msg.get("elastic", False))
        self.is_new = self.rank in self.new

    def __repr__(self):
        return (f"Membership(generation={self.generation}, rank={self.rank}, "
                f"size={self.size}, new={self.new}, lost={self.lost})")


class Core:
    """A worker's connection(s) to the coordinator and its shards; see collective.Group."""

    def __init__(self, transport_cls, url, token, task_type="worker", task_id=None,
                 kind="native", backend="", chunk_bytes=1 << 20, reconnect=True,
                 client_id=None):
        self.transport_cls = transport_cls
        self.url, self.token = url, token
        self.task_type, self.task_id = task_type, task_id
        self.kind, self.backend = kind, backend
        self.chunk_bytes = chunk_bytes
        # The worker page keeps its id across reloads (so it rejoins under its old rank);
        # only the first group of a process takes it.
        self.client_id = (client_id or os.environ.pop("TEXFLOW_CLIENT_ID", "")
                          or secrets.token_hex(8))
        self.reconnect = reconnect
        self.conns = {}            # shard index -> transport (0: the main connection)
        self.membership = None     # the latest generation heard of
        self.formed = 0            # generations heard of, counted here (a restarted
        self.acked = 0             # coordinator numbers them from 1 again); taken up
        self.broken = None         # the error collectives raise until rejoin/resize
        self.refused = None        # the error: why the coordinator turned the join down
        self.allow_nonfinite = False
        self.last_generation = {}  # the latest "generation" message
        self.seq = 0
        self.pending = None
        self.attempts = {}         # (generation, seq) -> {shard: attempt} for a retry
        self.listeners = []
        self.requests = {}         # checkpoint request id -> Future
        self.downloads = {}        # checkpoint request id -> assembly state
        self.next_id = 1
        self.closed = False
        self.changed = None        # asyncio.Event, set whenever a generation forms
        self.stats = {"bytes_sent": 0, "bytes_received": 0, "collectives": 0,
                      "last_ms": None, "rank": None}
        self._reconnecting = None
        self.layouts = _tensors.Layouts()

    # -- connecting ----------------------------------------------------------------------

    async def connect(self, timeout):
        self.changed = asyncio.Event()
        await self._open_main()
        return await self._wait_generation(0, timeout, "for the group to form")

    async def _open_main(self):
        transport = self.transport_cls(self, 0)
        await transport.connect(self.url)
        task_id = self.task_id
        if self.membership is not None and not self.last_generation.get("elastic"):
            task_id = self.membership.rank  # back under the old rank
        await transport.send(wire.control(
            "hello", token=self.token, role="worker", client_id=self.client_id,
            task_id=task_id, task_type=self.task_type, kind=self.kind, backend=self.backend))
        self.conns[0] = transport

    async def _wait_generation(self, after, timeout, what):
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.formed <= after:
            if self.closed:
                raise UnavailableError("the group was closed")
            if self.refused is not None:
                raise type(self.refused)(str(self.refused))
            event = self.changed
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                have = self.membership.generation if self.membership else 0
                raise UnavailableError(f"timed out after {timeout} s waiting {what} at "
                                       f"{self.url} (generation {have})")
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except asyncio.TimeoutError:
                continue
        self.acked = self.formed
        self.broken = None
        self.seq = 0
        return self.membership

    async def resize(self, timeout):
        """Asks for the next generation and waits for it (rejoin and resize)."""
        after = self.acked
        if self.formed > after:  # formed while the caller was busy (after a reconnect)
            return await self._wait_generation(after, timeout, "")
        main = self.conns.get(0)
        if main is not None and main.open:
            await main.send(wire.control("resize"))
        elif self._reconnecting is None and not self.closed:
            self._reconnecting = asyncio.ensure_future(self._reconnect_loop())
        return await self._wait_generation(after, timeout, "for the next generation")

    async def _reconnect_loop(self):
        delay = 0.1
        try:
            while not self.closed:
                try:
                    await self._open_main()
                    return
                except (OSError, UnavailableError, asyncio.TimeoutError) as e:
                    self._notify({"event": "reconnecting", "error": str(e), "delay": delay})
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)
        finally:
            self._reconnecting = None

    async def _bind_shards(self, msg):
        ports = msg.get("shards") or []
        for index in range(1, len(ports)):
            conn = self.conns.get(index)
            if conn is not None and conn.open:
                await conn.send(wire.control("bind", rank=msg["rank"],
                                             generation=msg["generation"]))
                continue
            conn = self.transport_cls(self, index)
            await conn.connect(_shard_url(self.url, ports[index]))
            await conn.send(wire.control("hello", token=self.token, role="data",
                                         client_id=self.client_id, rank=msg["rank"],
                                         generation=msg["generation"]))
            self.conns[index] = conn

    # -- incoming messages ---------------------------------------------------------------

    def result_sink(self, index, head, size):
        """Where the rest of a result message whose header is `head` may go (fastframes)."""
        p = self.pending
        return None if p is None else p.result_sink(index, head, size)

    def result_region(self, index):
        """(op, generation, seq, start, end, 0, result buffer) of the reduction results
        still to come on connection `index`, which may be placed straight into the buffer
        (whose byte 0 is the payload's byte 0), or None (see Pending.result_region)."""
        p = self.pending
        region = None if p is None else p.result_region(index)
        return None if region is None else (*region, 0, p.result)

    def on_message(self, index, message):
        placed = None
        if isinstance(message, wire.Placed):  # its data is already in the result (result_sink)
            placed, message = message.size - len(message.head), message.head
        if isinstance(message, (bytes, bytearray, memoryview)):
            self.stats["bytes_received"] += len(message) + (placed or 0)
            h = wire.unpack(message)
            if h.kind == wire.RESULT:
                p = self.pending
                if p is not None and h.seq == p.seq and h.generation == p.generation:
                    p.result_message(index, h, placed)
            elif h.kind == wire.CKPT_DATA:
                self._checkpoint_data(h)
            return
        msg = json.loads(message)
        kind = msg.get("type")
        handler = getattr(self, "_on_" + kind, None) if isinstance(kind, str) else None
        if handler is not None:
            result = handler(index, msg)
            if asyncio.iscoroutine(result):
                asyncio.ensure_future(result)

    def _on_joined(self, index, msg):
        self._notify({"event": "waiting", "rank": msg.get("rank")})

    async def _on_generation(self, index, msg):
        self.last_generation = msg
        try:
            await self._bind_shards(msg)
        except OSError as e:
            self._fail(UnavailableError(f"could not reach a coordinator shard: {e}"))
            return
        self.membership = Membership(msg)
        self.formed += 1
        self.stats["rank"] = self.membership.rank
        self._notify({"event": "generation", "generation": msg["generation"],
                      "size": msg["size"], "rank": msg["rank"], "new": msg["new"],
                      "lost": msg["lost"]})
        self.changed.set()
        self.changed = asyncio.Event()

    def _on_lost(self, index, msg):
        if self.membership is None or msg["generation"] != self.membership.generation:
            return
        ranks = msg["ranks"]
        error = WorkerLostError(f"worker rank {', '.join(map(str, ranks))} of generation "
                                f"{msg['generation']} was lost ({msg.get('reason', '')}); "
                                "call group.rejoin() (or group.resize() in an elastic group) "
                                "to go on", ranks, msg["generation"])
        self.broken = error
        self._fail(error)
        self._notify({"event": "lost", "ranks": ranks, "generation": msg["generation"],
                      "reason": msg.get("reason", "")})

    def _on_membership(self, index, msg):
        self._notify(msg)

    def _on_error(self, index, msg):
        error = _ERRORS.get(msg.get("error"), FailedPreconditionError)(msg.get("message", ""))
        if "id" in msg:
            future = self.requests.pop(msg["id"], None)
            if future is not None and not future.done():
                future.set_exception(error)
            return
        if "seq" not in msg:  # a refused join (changed: made by connect, before any message)
            self.refused = error
            self._fail(error)
            self.changed.set()
            return
        p = self.pending
        if p is not None and msg["seq"] == p.seq and msg["generation"] == p.generation:
            asyncio.ensure_future(self._refused(p, index, msg["attempt"], error))

    async def _refused(self, p, index, attempt, error):
        attempts = self.attempts.setdefault((p.generation, p.seq), {})
        attempts[index] = attempt
        others = [j for j in p.shards if j != index]
        if others:  # withdraw the other slices, so no shard keeps any of this contribution
            p.aborts = {j: asyncio.get_running_loop().create_future() for j in others}
            for j in others:
                await self.conns[j].send(wire.control("abort", generation=p.generation,
                                                      seq=p.seq))
            for j, future in p.aborts.items():
                attempts[j] = await future
        p.fail(error)

    def _on_aborted(self, index, msg):
        p = self.pending
        if p is not None and p.aborts and index in p.aborts and not p.aborts[index].done():
            p.aborts[index].set_result(msg["attempt"])

    def _on_restart(self, index, msg):
        p = self.pending
        if p is not None and msg["seq"] == p.seq and msg["generation"] == p.generation:
            p.attempts[index] = msg["attempt"]
            p.restart(index)
            asyncio.ensure_future(self._send_slice(p, index))

    def _on_ckpt_info(self, index, msg):
        self._reply(msg, msg.get("latest"))

    _on_ckpt_saved = _on_ckpt_info

    def _reply(self, msg, value):
        future = self.requests.pop(msg.get("id"), None)
        if future is not None and not future.done():
            future.set_result(value)

    def on_close(self, index, reason, code=None):
        if self.conns.get(index) is None or self.closed:
            return
        del self.conns[index]
        where = "the coordinator" if index == 0 else f"coordinator shard {index}"
        error = UnavailableError(f"lost the connection to {where} at {self.url}: {reason}; "
                                 "call group.rejoin() to go on")
        self.broken = error
        self._fail(error)
        for future in list(self.requests.values()):
            if not future.done():
                future.set_exception(error)
        self.requests.clear()
        self._notify({"event": "disconnected", "shard": index, "reason": reason})
        if code == wire.CLOSE_REPLACED:
            self.broken = UnavailableError(f"this worker connected again elsewhere (a reloaded "
                                           f"page?); this connection was replaced: {reason}")
            self.closed = True
            return
        if index == 0 and (code == 1008 or self.refused):  # refused for what it sent (a
            self.broken = self.refused = self.refused or FailedPreconditionError(  # token):
                f"the coordinator at {self.url} closed this worker's connection: {reason}")
            self.changed.set()  # retrying cannot help; a connect or rejoin waiting raises it
        elif index == 0 and self.reconnect and self._reconnecting is None:
            self._reconnecting = asyncio.ensure_future(self._reconnect_loop())

    def _fail(self, error):
        if self.pending is not None:
            self.pending.fail(error)

    def _notify(self, event):
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception as e:  # a listener's bug must not break the connection
                print(f"texflow collective: on_change listener raised {e!r}")

    # -- collectives ---------------------------------------------------------------------

    def check_usable(self):
        if self.closed:
            raise UnavailableError("the group was closed")
        error = self.broken
        if isinstance(error, WorkerLostError):
            raise WorkerLostError(str(error), error.ranks, error.generation)
        if error is not None:
            raise type(error)(str(error))

    async def collective(self, op, arrays, names=None, name="", root=0, timeout=None):
        """Runs one collective; returns the result arrays (or, for the root of a
        broadcast, None)."""
        self.check_usable()
        if op in wire.REDUCTIONS or op == wire.BROADCAST and root == self.membership.rank:
            if not self.allow_nonfinite:
                _tensors.check_finite(arrays, names)
        layout = self.layouts.get(arrays, names, name)
        nshards = len(self.membership_shards())
        if op in wire.REDUCTIONS and nshards > 1 and layout.total >= wire.SHARD_MIN:
            cuts = wire.split_points(layout.total, nshards)
        else:
            cuts = [0, layout.total]
        generation = self.membership.generation
        p = Pending(generation, self.seq, op, root, layout, arrays, cuts,
                    self.attempts.pop((generation, self.seq), {}), self.membership.rank)
        self.pending = p
        t0 = time.perf_counter()
        try:
            for index in p.shards:
                await self._send_slice(p, index)
            if timeout is None:
                result = await p.future
            else:
                result = await asyncio.wait_for(asyncio.shield(p.future), timeout)
        finally:
            if self.pending is p:
                self.pending = None
        self.seq += 1
        if op == wire.MEAN:
            result = [_mean(r, self.membership.size) for r in result]
        self.stats["collectives"] += 1
        self.stats["last_ms"] = (time.perf_counter() - t0) * 1e3
        return result

    def membership_shards(self):
        return self.last_generation.get("shards") or [0]

    async def _send_slice(self, p, index):
        conn = self.conns.get(index)
        if conn is None:
            p.fail(UnavailableError(f"no connection to coordinator shard {index}"))
            return
        lo, hi = p.slice_of(index)
        if p.op == wire.BROADCAST and p.my_rank != p.root:
            hi = lo  # receivers send their table only
        table = _tensors.table_of(p.layout, lo, hi) if (
            p.op != wire.BROADCAST or p.my_rank == p.root or p.layout.specs) else \
            wire.pack_table(wire.Layout([]))
        attempt = p.attempts.get(index, 0)
        reader = p.reader
        send_chunks = getattr(conn, "send_chunks", None)
        if send_chunks is not None:  # the browser's socket: all messages in one call
            if not p.finished:
                await send_chunks(p, lo, hi, table, attempt, self.chunk_bytes)
            return
        start, first = lo, True
        while first or start < hi:
            end = min(hi, start + self.chunk_bytes)
            pieces = reader.pieces(start, end) if end > start else []
            head = wire.pack_header(wire.CONTRIB, p.op, p.generation, p.seq, start,
                                    p.layout.total, attempt, p.root, table if first else b"")
            if p.attempts.get(index, 0) != attempt or p.finished:
                return  # restarted or refused meanwhile: the restart sends again
            await conn.send_parts(head, pieces)  # one message; big tensors are not copied
            self.stats["bytes_sent"] += len(head) + end - start
            start, first = end, False

    async def send_report(self, msg):
        main = self.conns.get(0)
        if main is not None and main.open:
            try:
                await main.send(json.dumps(msg))
            except UnavailableError:
                pass  # reports are best effort

    # -- checkpoints ---------------------------------------------------------------------

    async def request(self, msg, timeout=60):
        self.check_usable()
        rid = self.next_id
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.requests[rid] = future
        await self.conns[0].send(json.dumps({**msg, "id": rid}))
        return rid, future

    async def checkpoint_put(self, step, files, timeout=None):
        if self.membership is not None and self.membership.rank != 0:
            raise FailedPreconditionError(
                f"only the chief (rank 0 of the current generation) stores checkpoints; this "
                f"worker is rank {self.membership.rank}")
        rid, future = await self.request({"type": "ckpt_put", "step": step})
        names = list(files)
        arrays = [np.frombuffer(bytes(files[n]), np.uint8) for n in names]
        layout = wire.Layout([wire.TensorSpec(n, "uint8", a.shape) for n, a in
                              zip(names, arrays)], str(step))
        reader = _tensors.PayloadReader(layout, arrays)
        table = wire.pack_table(layout)
        start = 0
        while True:
            end = min(layout.total, start + self.chunk_bytes)
            await self.conns[0].send(wire.pack_header(
                wire.CKPT_PUT, 0, 0, rid, start, layout.total,
                table=table if start == 0 else b"") + bytes(reader.read(start, end)))
            start = end
            if start >= layout.total:
                break
        return await asyncio.wait_for(future, timeout)

    async def checkpoint_get(self, step=None, timeout=None):
        rid, future = await self.request({"type": "ckpt_get", "step": step})
        self.downloads[rid] = {"layout": None, "buffer": None, "received": 0}
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self.downloads.pop(rid, None)

    def _checkpoint_data(self, h):
        state = self.downloads.get(h.seq)
        if state is None:
            return
        if h.table:
            state["layout"] = wire.unpack_table(h.table, 1 << 40)
            state["buffer"] = bytearray(h.total)
        state["buffer"][h.offset:h.offset + len(h.data)] = h.data
        state["received"] += len(h.data)
        if state["received"] >= h.total:
            files = {s.name: bytes(state["buffer"][s.offset:s.offset + s.nbytes])
                     for s in state["layout"].specs}
            self._reply({"id": h.seq}, files)

    async def close(self):
        self.closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
        # Every connection says bye, so that neither the coordinator nor a shard takes the
        # closing connections for a lost worker.
        for conn in list(self.conns.values()):
            if conn.open:
                try:
                    await conn.send(wire.control("bye"))
                except UnavailableError:
                    pass
        for conn in list(self.conns.values()):
            await conn.close()
        self.conns.clear()
        self._fail(UnavailableError("the group was closed"))


def _mean(total, size):
    if total.dtype.kind == "f":
        total /= size
        return total
    return np.sign(total) * (np.abs(total) // size)  # integer mean truncates, as TF's Div


def _shard_url(url, port):
    scheme, rest = url.split("://", 1)
    host = rest.split("/", 1)[0].rsplit(":", 1)[0]
    return f"{scheme}://{host}:{port}/ws"
