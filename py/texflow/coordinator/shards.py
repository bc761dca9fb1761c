"""`--shards K`: K coordinator processes share the reductions.

Worker clients cut each reduction's payload into K slices at 8-byte
boundaries (`wire.split_points`) and send slice j to shard j, which reduces it
and returns its part of the result (a reduce-scatter through the shards, then
an all-gather back), so one process's core and socket are not the limit.
Shard 0 is the main coordinator; it owns membership, pages, checkpoints, and
the small collectives (payloads under `SHARD_MIN` bytes, broadcast, all_gather
and barrier), which are not split.

Shards 1..K-1 are child processes (`python -m texflow.coordinator.shard`) with a
control link back to the main process (a WebSocket authenticated by a secret
passed in their environment): the main process tells them each generation's
members and when one is broken; they report connections they lose. Workers
open one data connection per shard after their first generation (hello with
role "data") and re-bind it to each new generation.
"""

import asyncio
import hmac
import json
import logging
import os
import secrets
import sys

from websockets.exceptions import ConnectionClosed

from .wire import SHARD_MIN, ProtocolViolation  # noqa: F401  (SHARD_MIN: documented here)

log = logging.getLogger("texflow.coordinator")


class ShardLinks:
    """The main process's side: starts shard processes and talks to them."""

    def __init__(self, coordinator, count):
        if count < 1:
            raise ValueError(f"shards must be at least 1; received {count}")
        self.coordinator, self.count = coordinator, count
        self.secret = secrets.token_urlsafe(24)
        self.links, self.shard_ports, self.procs = {}, {}, []
        self.registered = asyncio.Event() if count == 1 else None
        self.closing = False

    async def start(self):
        c = self.coordinator
        env = dict(os.environ, TEXFLOW_SHARD_SECRET=self.secret, TEXFLOW_TOKEN=c.token)
        for index in range(1, self.count):
            args = [sys.executable, "-m", "texflow.coordinator.shard", "--index", str(index),
                    "--control", c.url, "--host", c.host,
                    # a port asked for: the next ones; port 0: any free port (the
                    # neighbours of the one the system gave may be taken)
                    "--port", str(c.port + index if c.requested_port else 0),
                    "--max-frame", str(c.max_frame), "--max-bytes", str(c.max_bytes),
                    "--heartbeat", str(c.heartbeat),
                    "--heartbeat-timeout", str(c.heartbeat_timeout)]
            for origin in sorted(c.extra_origins | {c.origin}):
                args += ["--allow-origin", origin]
            if c.allow_nonfinite:
                args.append("--allow-nonfinite")
            self.procs.append(await asyncio.create_subprocess_exec(*args, env=env))
        if self.count > 1:
            self.registered = asyncio.Event()
            try:
                await asyncio.wait_for(self.registered.wait(), 60)
            except asyncio.TimeoutError:
                await self.close()
                raise RuntimeError(f"only {len(self.links)} of {self.count - 1} shard "
                                   "processes started within 60 s") from None

    def ready(self):
        return len(self.links) == self.count - 1

    def ports(self):
        return [self.coordinator.port] + [self.shard_ports[i] for i in sorted(self.shard_ports)]

    async def serve(self, ws, hello):
        """A shard process's control link (hello role "shard")."""
        secret = hello.get("secret")
        index = hello.get("index")
        if not isinstance(secret, str) or not hmac.compare_digest(secret.encode(),
                                                                  self.secret.encode()):
            raise ProtocolViolation("a shard link with a wrong secret")
        if not isinstance(index, int) or not 1 <= index < self.count or index in self.links:
            raise ProtocolViolation(f"bad or duplicate shard index {index!r}")
        self.links[index] = ws
        self.shard_ports[index] = int(hello["port"])
        log.info("shard %d ready on port %d", index, self.shard_ports[index])
        if self.ready():
            self.registered.set()
        try:
            async for raw in ws:
                msg = json.loads(raw)
                if msg.get("type") == "lost":
                    await self.coordinator.lose_rank(int(msg["rank"]), f"shard {index}: "
                                                     f"{msg.get('reason', '')}")
        finally:
            del self.links[index]
            if not self.closing:
                log.error("shard %d's control link closed", index)

    async def broadcast(self, msg):
        text = json.dumps(msg)
        for ws in list(self.links.values()):
            try:
                await ws.send(text)
            except ConnectionClosed:
                pass

    async def close(self):
        self.closing = True
        for proc in self.procs:
            if proc.returncode is None:
                proc.terminate()
        for proc in self.procs:
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except asyncio.TimeoutError:
                proc.kill()
        self.procs = []
