"""`texflow coordinator`: the server browser and native workers join.

One asyncio process on the `websockets` library: WebSocket connections for
workers, dashboards and shard processes, and plain HTTP on the same port for
the pages (pages.py). It never trains; it checks and reduces bytes.

A connection's first message must be a JSON hello within `hello_timeout`
seconds, carrying the token (compared in constant time). The Origin header is
checked before the handshake: a browser page must come from the coordinator's
own origin or one passed with --allow-origin; native clients send none.
Anything malformed (random bytes, a truncated frame, a table that does not fit
its data, an unknown message type) is logged with the reason and closes that
connection only. Heartbeats are WebSocket pings: a worker that does not answer
within `heartbeat_timeout` seconds, or whose connection drops, is lost.
"""

import asyncio
import hmac
import json
import logging
import secrets
import time
import weakref

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from . import liveness, pages, wire
from .wire import ProtocolViolation
from .checkpoint_service import CheckpointService
from .dataplane import WRITE_LIMIT, DataPlane
from .fastframes import FastServerConnection
from .membership import JoinRefused, Membership
from .shards import ShardLinks

log = logging.getLogger("texflow.coordinator")
HTTP_CLOSE_TIMEOUT = 60.0


class WrongToken(ProtocolViolation):
    """A hello without the coordinator's token."""


class Coordinator:
    """The coordinator; `await start()` then `await serve_forever()` (or `CoordinatorThread`).

    Args:
        num_workers: size of the group (of its first generation when elastic).
        host, port: where to listen (127.0.0.1 unless told otherwise; port 0 picks one).
        token: the join token (random when None).
        allow_origins: page origins allowed besides the coordinator's own.
        checkpoint_dir: where the chief's checkpoints are kept (None: no store).
        shards: coordinator processes sharing the reductions (this one is shard 0).
        elastic: let the group go on with fewer workers and admit new ones.
        allow_nonfinite: pass NaN and infinity through collectives.
        job: a pages.Job every browser worker runs (None: no job).
        heartbeat, heartbeat_timeout: ping interval and how long a pong may take (s).
        max_frame: the largest WebSocket message accepted (bytes).
        max_bytes: the largest collective payload accepted (bytes).
    """

    def __init__(self, num_workers, host="127.0.0.1", port=8470, token=None, allow_origins=(),
                 checkpoint_dir=None, shards=1, elastic=False, allow_nonfinite=False,
                 job=None, heartbeat=1.5, heartbeat_timeout=5.0, max_frame=16 << 20,
                 max_bytes=1 << 30, max_workers=None, hello_timeout=5.0, max_pending=64):
        self.host, self.port = host, port
        self.token = token or secrets.token_hex(16)  # hex: never starts with "-"
        self.extra_origins = {o.rstrip("/") for o in allow_origins}
        self.membership = Membership(num_workers, elastic, max_workers)
        self.data = DataPlane(allow_nonfinite, max_bytes)
        self.checkpoints = CheckpointService(checkpoint_dir, max_bytes)
        self.shard_links = ShardLinks(self, shards)
        self.pages = pages.Pages(self.token, job, num_workers)
        self.job = job
        self.heartbeat, self.heartbeat_timeout = heartbeat, heartbeat_timeout
        self.max_frame, self.hello_timeout, self.max_pending = max_frame, hello_timeout, \
            max_pending
        self.allow_nonfinite, self.max_bytes = allow_nonfinite, max_bytes
        self.viewers = set()
        self.events = []            # recent joins and losses, for the dashboard
        self.traffic = {}           # connection -> [bytes in, bytes out]
        self._pending = 0
        self._server = None
        self._tasks = []
        self._http = weakref.WeakSet()  # connections answered with a plain HTTP response

    # -- lifecycle ----------------------------------------------------------------------

    @property
    def origin(self):
        return f"http://{self.host}:{self.port}"

    @property
    def url(self):
        """The WebSocket URL workers connect to."""
        return f"ws://{self.host}:{self.port}/ws"

    @property
    def join_url(self):
        """The page a browser opens to become a worker (the token rides in the fragment,
        which browsers never send to a server)."""
        return f"{self.origin}/#token={self.token}"

    async def start(self):
        self._server = await serve(
            self._handler, self.host, self.port, process_request=self._process_request,
            compression=None, max_size=self.max_frame, max_queue=64,
            write_limit=WRITE_LIMIT, ping_interval=None, close_timeout=1.0,
            server_header=None,  # heartbeats: liveness.watch
            create_connection=FastServerConnection)
        self.requested_port = self.port  # 0: shards take ports the system picks too
        self.port = self._server.sockets[0].getsockname()[1]
        await self.shard_links.start()
        self._tasks.append(asyncio.create_task(self._stats_loop()))
        log.info("coordinator for %d workers on %s (join page %s)",
                 self.membership.num_workers, self.url, self.join_url)
        return self

    async def serve_forever(self):
        # Until close(); cancelled (Ctrl-C), it returns at once and the caller's close()
        # cuts lingering HTTP connections (websockets' own serve_forever would first wait
        # for them).
        await self._server.wait_closed()

    async def close(self):
        for task in self._tasks:
            task.cancel()
        await self.shard_links.close()
        if self._server is not None:
            # After an HTTP answer websockets waits for the client to hang up (up to its
            # open timeout, 10 s): a page or urllib response still held open would hold up
            # Ctrl-C that long, so those connections are cut here.
            for connection in list(self._http):
                connection.transport.abort()
            self._server.close()
            await self._server.wait_closed()

    # -- HTTP and the handshake ----------------------------------------------------------

    def _allowed_origin(self, origin):
        if origin is None:
            return True  # native clients send no Origin
        origin = origin.rstrip("/")
        own = {self.origin, f"http://localhost:{self.port}", f"http://127.0.0.1:{self.port}"}
        return origin in own or origin in self.extra_origins

    def _process_request(self, connection, request):
        if request.headers.get("Upgrade", "").lower() != "websocket":
            # websockets closes the TCP connection after a plain HTTP answer, waiting
            # close_timeout for the client to read it: Pyodide's 10 MB of wasm needs longer
            # than the 1 s that suits WebSocket closes.
            connection.close_timeout = HTTP_CLOSE_TIMEOUT
            self._http.add(connection)
            return self.pages.respond(request.path, request.headers)
        origin = request.headers.get("Origin")
        if not self._allowed_origin(origin):
            log.warning("refused a WebSocket from origin %r (allowed: %s and --allow-origin)",
                        origin, self.origin)
            return pages.response(403, f"origin {origin!r} is not allowed\n")
        if self._pending >= self.max_pending:
            log.warning("refused a connection: %d are already joining", self._pending)
            return pages.response(503, "too many connections are joining; retry later\n")
        return None

    async def _handler(self, ws):
        self._pending += 1
        try:
            hello = await self._hello(ws)
        except ProtocolViolation as e:
            log.warning("closed a connection from %s before it joined: %s",
                        _peer(ws), e)
            if isinstance(e, WrongToken):  # our clients raise this at once, not retry
                await _send(ws, wire.control("error", error="UnauthenticatedError",
                                             message=f"the coordinator refused this "
                                                     f"connection: {e}"))
            await ws.close(1008, str(e)[:120])
            return
        finally:
            self._pending -= 1
        role = hello.get("role", "worker")
        try:
            if role == "worker":
                await self._worker(ws, hello)
            elif role == "viewer":
                await self._viewer(ws)
            elif role == "shard":
                await self.shard_links.serve(ws, hello)
            else:
                raise ProtocolViolation(f"unknown role {role!r}")
        except ProtocolViolation as e:
            log.warning("closed the connection of %s (%s): %s", _peer(ws), role, e)
            await ws.close(1008, str(e)[:120])
        except ConnectionClosed:
            pass

    async def _hello(self, ws):
        try:
            raw = await asyncio.wait_for(ws.recv(), self.hello_timeout)
        except asyncio.TimeoutError:
            raise ProtocolViolation(f"no hello within {self.hello_timeout} s") from None
        except ConnectionClosed as e:
            raise ProtocolViolation(f"closed before its hello ({e})") from None
        hello = _json(raw)
        if hello.get("type") != "hello":
            raise ProtocolViolation(f"the first message must be a hello; got "
                                    f"{hello.get('type')!r}")
        token = hello.get("token")
        if not isinstance(token, str) or not hmac.compare_digest(token.encode(),
                                                                 self.token.encode()):
            raise WrongToken("wrong or missing token")
        return hello

    # -- workers ------------------------------------------------------------------------

    async def _worker(self, ws, hello):
        client_id = hello.get("client_id") or secrets.token_hex(8)
        task_id = hello.get("task_id")
        if not isinstance(client_id, str) or len(client_id) > 128 or not (
                task_id is None or isinstance(task_id, int) and not isinstance(task_id, bool)):
            raise ProtocolViolation(f"bad client_id {client_id!r} or task_id {task_id!r}")
        info = {"kind": str(hello.get("kind", "native"))[:16],
                "backend": str(hello.get("backend", ""))[:32],
                "task_type": str(hello.get("task_type", "worker"))[:32], "peer": _peer(ws)}
        try:
            slot, old = self.membership.join(client_id, ws, info, task_id)
        except JoinRefused as e:
            log.warning("refused a join from %s: %s", _peer(ws), e)
            await ws.send(wire.control("error", error="FailedPreconditionError",
                                       message=str(e)))
            await ws.close(1008, str(e)[:120])
            return
        self.traffic[ws] = [0, 0]
        if old is not None:
            await self._leave(old, "replaced by a new connection of the same worker")
            await old.conn.close(wire.CLOSE_REPLACED, "replaced by a new connection")
        self._event("joined", slot, rank=slot.rank)
        await ws.send(wire.control("joined", client_id=client_id, rank=slot.rank,
                                   num_workers=self.membership.num_workers,
                                   elastic=self.membership.elastic))
        await self._try_form()
        reason = None
        watcher = asyncio.ensure_future(self._watch(slot, ws))
        try:
            async for message in ws:
                self.traffic[ws][0] += len(message)
                await self._worker_message(slot, ws, message)
        except ConnectionClosed as e:
            reason = str(e)  # names a keepalive timeout when the worker stopped answering
        except ProtocolViolation as e:
            log.warning("closed the connection of rank %s (%s): %s", slot.rank, _peer(ws), e)
            reason = f"closed by the coordinator: {e}"
            await ws.close(1008, str(e)[:120])
        finally:
            watcher.cancel()
            self.traffic.pop(ws, None)
            self.data.sent_to.pop(ws, None)
            self.checkpoints.forget(ws)
            if slot.info.get("bye"):
                reason = "bye"
            reason = slot.info.get("lost_reason") or reason
            await self._leave(slot, reason or f"connection closed (code {ws.close_code})")
            await self._try_form()

    async def _watch(self, slot, ws):
        """Heartbeats: a worker that shows no sign of life for heartbeat_timeout s is lost."""
        def progress():
            return (self.traffic.get(ws, [0])[0],
                    liveness.delivered(ws, self.data.sent_to.get(ws, 0)))

        reason = await liveness.watch(ws, self.heartbeat, self.heartbeat_timeout, progress)
        if reason is not None:
            slot.info["lost_reason"] = reason
            log.warning("rank %s (%s) %s", slot.rank, _peer(ws), reason)
            ws.transport.abort()

    async def _worker_message(self, slot, ws, message):
        member = self.membership.members.get(slot.rank) is slot
        if not isinstance(message, str):  # bytes, or a memoryview (fastframes)
            try:
                h = wire.unpack(message)
            except wire.WireError as e:
                raise ProtocolViolation(f"malformed binary message: {e}") from None
            if h.kind == wire.CONTRIB:
                problem = misaligned(h)
                if problem:
                    raise ProtocolViolation(problem)
                if member:
                    await self.data.contribute(slot.rank, ws, h)
            elif h.kind == wire.CKPT_PUT:
                await self.checkpoints.data(slot, ws, h, self.membership.generation)
            else:
                raise ProtocolViolation(f"a worker may not send {wire.KINDS[h.kind]} messages")
            return
        msg = _json(message)
        kind = msg.get("type")
        if kind in ("resize", "rejoin"):
            self.membership.request(slot)
            await self._try_form()
        elif kind == "report":
            slot.info["report"] = _report(msg)
            slot.info["report_time"] = time.time()
        elif kind == "abort":
            if member:
                await self.data.abort(slot.rank, ws, _int(msg, "generation"), _int(msg, "seq"))
        elif kind in ("ckpt_put", "ckpt_get", "ckpt_latest"):
            chief = member and slot.rank == 0
            await self.checkpoints.request(ws, msg, chief)
        elif kind == "bye":
            slot.info["bye"] = True
            await ws.close(1000, "bye")
        else:
            raise ProtocolViolation(f"unknown message type {kind!r}")

    async def _leave(self, slot, reason):
        if not slot.alive:
            return
        lost = self.membership.leave(slot)
        if lost is None:
            self._event("left", slot, reason=reason)
            return
        if reason == "bye":
            log.info("rank %d left the group (%s)", lost, slot.info.get("peer"))
        else:
            log.warning("rank %d lost (%s): %s", lost, slot.info.get("peer"), reason)
        self._event("left" if reason == "bye" else "lost", slot, rank=lost, reason=reason)
        self.data.break_generation()
        await self.shard_links.broadcast({"type": "broken",
                                          "generation": self.membership.generation})
        message = wire.control("lost", generation=self.membership.generation, ranks=[lost],
                               reason=reason)
        for rank, other in self.membership.live().items():
            await _send(other.conn, message)

    async def lose_rank(self, rank, reason):
        """A shard saw rank `rank` go: the worker is lost everywhere."""
        slot = self.membership.members.get(rank)
        if slot is not None and rank not in self.membership.lost:
            await self._leave(slot, reason)
            await slot.conn.close(1011, reason[:120])

    async def _try_form(self):
        if not self.shard_links.ready():
            return
        formed = self.membership.try_form()
        if formed is None:
            return
        self.data.set_generation(formed.generation,
                                 {r: s.conn for r, s in formed.members.items()})
        await self.shard_links.broadcast({
            "type": "generation", "generation": formed.generation,
            "members": {str(r): s.client_id for r, s in formed.members.items()}})
        members = [{"rank": r, "kind": s.info["kind"], "backend": s.info["backend"]}
                   for r, s in sorted(formed.members.items())]
        latest = self.checkpoints.latest()
        log.info("generation %d formed: %d workers (new %s, lost %s)", formed.generation,
                 formed.size, formed.new, formed.lost)
        self._event("generation", None, generation=formed.generation, size=formed.size,
                    new=formed.new, lost=formed.lost)
        for rank, slot in formed.members.items():
            await _send(slot.conn, wire.control(
                "generation", generation=formed.generation, rank=rank, size=formed.size,
                members=members, new=formed.new, lost=formed.lost,
                renumbered={str(k): v for k, v in formed.renumbered.items()},
                shards=self.shard_links.ports(), elastic=self.membership.elastic,
                latest_checkpoint=latest))

    # -- dashboards -----------------------------------------------------------------------

    async def _viewer(self, ws):
        self.viewers.add(ws)
        try:
            await ws.send(wire.control("events", events=self.events[-200:]))
            await ws.send(wire.control("stats", **self.snapshot()))
            async for _ in ws:
                pass  # viewers only listen
        finally:
            self.viewers.discard(ws)

    def _event(self, kind, slot, **fields):
        event = {"event": kind, "time": time.time(), **fields}
        if slot is not None:
            event.update(kind=slot.info.get("kind"), client=slot.client_id)
        self.events.append(event)
        del self.events[:-1000]
        message = wire.control("events", events=[event])
        for viewer in list(self.viewers):
            asyncio.ensure_future(_send(viewer, message))
        if kind in ("joined", "left"):  # members hear of joiners (elastic: resize to admit)
            note = wire.control("membership", event=kind, rank=fields.get("rank"),
                                kind=event.get("kind"), waiting=len(self.membership.waiting),
                                generation=self.membership.generation)
            for member in self.membership.live().values():
                if member is not slot:
                    asyncio.ensure_future(_send(member.conn, note))

    def snapshot(self, rates=None):
        """The dashboard's view: every worker, membership and traffic."""
        m = self.membership
        rates = rates or {}
        workers = []
        slots = list(m.members.values()) + list(m.waiting.values())
        for slot in slots:
            state = ("left" if slot.info.get("bye") else "lost") if (
                slot.rank in m.lost and m.members.get(slot.rank) is slot) else (
                "member" if m.members.get(slot.rank) is slot else "waiting")
            workers.append({"rank": slot.rank, "state": state, "client": slot.client_id,
                            **{k: slot.info.get(k) for k in ("kind", "backend", "peer",
                                                             "report", "report_time")},
                            "rates": rates.get(slot.conn, [0, 0])})
        return {"generation": m.generation, "size": len(m.members),
                "num_workers": m.num_workers, "elastic": m.elastic, "workers": workers,
                "shards": self.shard_links.ports(), "time": time.time()}

    async def _stats_loop(self, period=0.5):
        last = {}
        while True:
            await asyncio.sleep(period)
            rates = {}
            for conn, (bin_, _) in list(self.traffic.items()):
                bout = self.data.sent_to.get(conn, 0)
                prev = last.get(conn, (bin_, bout))
                rates[conn] = [(bin_ - prev[0]) / period, (bout - prev[1]) / period]
                last[conn] = (bin_, bout)
            if self.viewers:
                message = wire.control("stats", **self.snapshot(rates))
                for viewer in list(self.viewers):
                    await _send(viewer, message)


def misaligned(h):
    """Why CONTRIB message `h` cannot be whole elements, or None: its data must start at a
    multiple of 8 bytes and end at one or at the payload's end (wire.py: every multiple of
    8 is an element boundary). A message cut elsewhere would split an element between two
    messages, where neither the reduction nor the non-finite check can see it whole."""
    end = h.offset + len(h.data)
    if h.offset % 8 or end % 8 and end != h.total:
        return (f"contribution data at bytes [{h.offset}, {end}) of {h.total}: messages must "
                "start at a multiple of 8 bytes and end at one or at the payload's end")
    return None


async def _send(conn, message):
    try:
        await conn.send(message)
    except ConnectionClosed:
        pass


def _json(raw):
    if not isinstance(raw, str):
        raise ProtocolViolation(f"expected a JSON text message; got {len(raw)} binary bytes")
    try:
        msg = json.loads(raw)
    except ValueError as e:
        raise ProtocolViolation(f"a text message is not JSON: {e}") from None
    if not isinstance(msg, dict):
        raise ProtocolViolation(f"a JSON message must be an object; got {type(msg).__name__}")
    return msg


def _int(msg, key):
    value = msg.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ProtocolViolation(f"{key} must be a non-negative int; got {value!r}")
    return value


def _report(msg):
    """The numbers and short strings of a worker's report (for the dashboard)."""
    out = {}
    for key, value in list(msg.items())[:32]:
        if key == "type" or not isinstance(key, str) or len(key) > 64:
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) or value is None:
            out[key] = value
        elif isinstance(value, str):
            out[key] = value[:128]
    return out


def _peer(ws):
    try:
        host, port = ws.remote_address[:2]
        return f"{host}:{port}"
    except Exception:
        return "?"
