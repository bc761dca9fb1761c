"""The checkpoint requests of the coordinator's protocol (see checkpoint_store.py)."""

import asyncio

from websockets.exceptions import ConnectionClosed

from . import wire
from .allreduce import RESULT_CHUNK
from .checkpoint_store import CheckpointError, CheckpointStore
from .wire import ProtocolViolation


class _Upload:
    def __init__(self, step):
        self.step, self.layout, self.buffer, self.received = step, None, None, 0


class CheckpointService:
    """Answers ckpt_latest, ckpt_put (+ CKPT_PUT data) and ckpt_get for one coordinator."""

    def __init__(self, folder, max_bytes):
        self.store = CheckpointStore(folder) if folder else None
        self.max_bytes = max_bytes
        self.uploads = {}  # (connection, request id) -> _Upload
        self.refused = set()  # (connection, request id) of refused uploads: drop their data

    def latest(self):
        if self.store is None:
            return None
        try:
            return self.store.latest()
        except CheckpointError:
            return None

    async def request(self, ws, msg, chief):
        rid = msg.get("id")
        if not isinstance(rid, int) or isinstance(rid, bool) or not 0 <= rid < 1 << 32:
            raise ProtocolViolation(f"a checkpoint request needs an int id; got {rid!r}")
        kind = msg["type"]
        if self.store is None:
            if kind == "ckpt_put":  # its data follows the request: drop it, do not fail
                self.refused.add((ws, rid))
            return await _error(ws, rid, "FailedPreconditionError",
                                "this coordinator keeps no checkpoints (start it with "
                                "--checkpoint-dir DIR)")
        if kind == "ckpt_latest":
            return await _send(ws, wire.control("ckpt_info", id=rid, latest=self.latest()))
        step = msg.get("step")
        if kind == "ckpt_put":
            if not chief:
                self.refused.add((ws, rid))
                return await _error(ws, rid, "FailedPreconditionError",
                                    "only the chief (rank 0 of the current generation) "
                                    "stores checkpoints")
            if not isinstance(step, int) or isinstance(step, bool) or step < 0:
                self.refused.add((ws, rid))
                return await _error(ws, rid, "InvalidArgumentError",
                                    f"step must be a non-negative int; received {step!r}")
            if len(self.uploads) > 64:
                raise ProtocolViolation("too many checkpoint uploads at once")
            self.uploads[(ws, rid)] = _Upload(step)
            return None
        try:
            files = await asyncio.to_thread(self.store.get, step)
        except (CheckpointError, ValueError, TypeError) as e:
            return await _error(ws, rid, "NotFoundError", str(e))
        layout = wire.Layout([wire.TensorSpec(name, "uint8", (len(data),))
                              for name, data in files.items()], name=str(step or ""))
        payload = b"".join(files.values())  # uint8 tensors: no alignment padding
        table = wire.pack_table(layout)
        for i, start in enumerate(range(0, max(len(payload), 1), RESULT_CHUNK)):
            chunk = payload[start:start + RESULT_CHUNK]
            await _send(ws, wire.pack_header(wire.CKPT_DATA, 0, 0, rid, start, len(payload),
                                             table=table if i == 0 else b"") + chunk)
        return None

    async def data(self, slot, ws, h, generation):
        upload = self.uploads.get((ws, h.seq))
        if upload is None and (ws, h.seq) in self.refused:
            return  # the refusal went back already
        if upload is None:
            raise ProtocolViolation(f"checkpoint data for request {h.seq}, which is not an "
                                    "open upload")
        if h.table:
            try:
                upload.layout = wire.unpack_table(h.table, self.max_bytes)
            except wire.WireError as e:
                raise ProtocolViolation(f"bad checkpoint table: {e}") from None
            if any(s.dtype != "uint8" or len(s.shape) != 1 for s in upload.layout.specs):
                raise ProtocolViolation("checkpoint blobs must be 1-D uint8")
            upload.buffer = bytearray(upload.layout.total)
        if upload.layout is None or h.offset != upload.received or \
                h.offset + len(h.data) > upload.layout.total:
            raise ProtocolViolation(f"checkpoint data at offset {h.offset} does not follow "
                                    f"the {upload.received} bytes received")
        upload.buffer[h.offset:h.offset + len(h.data)] = h.data
        upload.received += len(h.data)
        if upload.received < upload.layout.total:
            return
        del self.uploads[(ws, h.seq)]
        files = {s.name: bytes(upload.buffer[s.offset:s.offset + s.nbytes])
                 for s in upload.layout.specs}
        try:
            info = await asyncio.to_thread(self.store.put, upload.step, files)
        except CheckpointError as e:
            return await _error(ws, h.seq, "InvalidArgumentError", str(e))
        await _send(ws, wire.control("ckpt_saved", id=h.seq, latest=info))
        return None

    def forget(self, ws):
        """Drops what belongs to a closed connection."""
        for key in [k for k in self.uploads if k[0] is ws]:
            del self.uploads[key]
        self.refused = {k for k in self.refused if k[0] is not ws}


async def _error(ws, rid, error, message):
    await _send(ws, wire.control("error", id=rid, error=error, message=message))


async def _send(ws, message):
    try:
        await ws.send(message)
    except ConnectionClosed:
        pass
