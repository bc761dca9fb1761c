"""A shard process of `texflow coordinator --shards K` (see shards.py).

Started by the main coordinator as `python -m texflow.coordinator.shard`; the
control secret and the token come in its environment, never on the command
line. It exits when its control link to the main process closes.
"""

import argparse
import asyncio
import hmac
import json
import logging
import os
import sys

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from . import liveness, pages, wire
from .dataplane import WRITE_LIMIT, DataPlane
from .fastframes import FastServerConnection
from .server import misaligned

log = logging.getLogger("texflow.coordinator")


class Shard:
    def __init__(self, args):
        self.args = args
        self.token = os.environ["TEXFLOW_TOKEN"]
        self.secret = os.environ["TEXFLOW_SHARD_SECRET"]
        self.data = DataPlane(args.allow_nonfinite, args.max_bytes)
        self.client_ids = {}        # rank -> client id, of the current generation
        self.control = None
        self.received, self.reasons = {}, {}   # per data connection: bytes in, why lost

    def _process_request(self, connection, request):
        origin = request.headers.get("Origin")
        if origin is not None and origin.rstrip("/") not in self.args.allow_origin:
            log.warning("shard %d refused origin %r", self.args.index, origin)
            return pages.response(403, f"origin {origin!r} is not allowed\n")
        if request.headers.get("Upgrade", "").lower() != "websocket":
            return pages.response(404, "a coordinator shard serves no pages\n")
        return None

    async def run(self):
        a = self.args
        server = await serve(self._handler, a.host, a.port, process_request=self._process_request,
                             compression=None, max_size=a.max_frame, max_queue=64,
                             write_limit=WRITE_LIMIT, ping_interval=None, close_timeout=1.0,
                             server_header=None, create_connection=FastServerConnection)
        port = server.sockets[0].getsockname()[1]
        async with connect(a.control, compression=None, max_size=None) as control:
            self.control = control
            await control.send(wire.control("hello", token=self.token, role="shard",
                                            secret=self.secret, index=a.index, port=port))
            try:
                async for raw in control:
                    msg = json.loads(raw)
                    if msg["type"] == "generation":
                        self.client_ids = {int(r): c for r, c in msg["members"].items()}
                        self.data.set_generation(msg["generation"], {}, self.client_ids)
                    elif msg["type"] == "broken":
                        self.data.break_generation()
            except ConnectionClosed:
                pass
        server.close()
        await server.wait_closed()

    async def _watch(self, ws):
        a = self.args
        reason = await liveness.watch(
            ws, a.heartbeat, a.heartbeat_timeout,
            lambda: (self.received.get(ws, 0),
                     liveness.delivered(ws, self.data.sent_to.get(ws, 0))))
        if reason is not None:
            self.reasons[ws] = reason
            ws.transport.abort()

    async def _handler(self, ws):
        watcher = None
        said_bye = False
        try:
            hello = json.loads(await asyncio.wait_for(ws.recv(), 5))
            token = hello.get("token", "")
            if hello.get("role") != "data" or not isinstance(token, str) or \
                    not hmac.compare_digest(token.encode(), self.token.encode()):
                raise ValueError("wrong token or role")
            client_id = hello["client_id"]
            rank = await self._bind(ws, client_id, hello["rank"], hello["generation"])
            watcher = asyncio.ensure_future(self._watch(ws))
            async for message in ws:
                self.received[ws] = self.received.get(ws, 0) + len(message)
                if not isinstance(message, str):  # bytes, or a memoryview (fastframes)
                    h = wire.unpack(message)
                    if h.kind != wire.CONTRIB:
                        raise ValueError(f"unexpected {wire.KINDS[h.kind]} message")
                    if misaligned(h):
                        raise ValueError(misaligned(h))
                    await self.data.contribute(rank, ws, h)
                    continue
                msg = json.loads(message)
                if msg["type"] == "bind":
                    rank = await self._bind(ws, client_id, msg["rank"], msg["generation"])
                elif msg["type"] == "abort":
                    await self.data.abort(rank, ws, int(msg["generation"]), int(msg["seq"]))
                elif msg["type"] == "bye":  # the worker leaves; the main process hears it
                    said_bye = True
                    await ws.close(1000, "bye")
                    break
                else:
                    raise ValueError(f"unknown message type {msg['type']!r}")
        except ConnectionClosed:
            pass
        except (ValueError, KeyError, TypeError, asyncio.TimeoutError) as e:
            log.warning("shard %d closed a connection: %s", self.args.index, e)
            await ws.close(1008, str(e)[:120])
        finally:
            if watcher is not None:
                watcher.cancel()
            self.received.pop(ws, None)
            self.data.sent_to.pop(ws, None)
            lost = [r for r, c in self.data.members.items() if c is ws]
            for r in lost:
                del self.data.members[r]
                if self.control is not None and not said_bye:
                    try:
                        await self.control.send(wire.control(
                            "lost", rank=r, reason=self.reasons.pop(ws, None) or
                            ws.close_reason or "connection closed"))
                    except ConnectionClosed:
                        pass

    async def _bind(self, ws, client_id, rank, generation):
        if not await self.data.wait_for_generation(int(generation), 10):
            raise ValueError(f"generation {generation} is unknown to shard {self.args.index}")
        if self.client_ids.get(rank) != client_id or generation != self.data.generation:
            raise ValueError(f"client {client_id} is not rank {rank} of generation "
                             f"{generation}")
        self.data.bind(rank, ws)
        return rank


def main(argv=None):
    parser = argparse.ArgumentParser(prog="texflow.coordinator.shard")
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--control", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-frame", type=int, default=16 << 20)
    parser.add_argument("--max-bytes", type=int, default=1 << 30)
    parser.add_argument("--heartbeat", type=float, default=1.5)
    parser.add_argument("--heartbeat-timeout", type=float, default=5.0)
    parser.add_argument("--allow-origin", action="append", default=[])
    parser.add_argument("--allow-nonfinite", action="store_true")
    args = parser.parse_args(argv)
    args.allow_origin = {o.rstrip("/") for o in args.allow_origin}
    logging.basicConfig(level=logging.INFO, format=f"[shard {args.index}] %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    asyncio.run(Shard(args).run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
