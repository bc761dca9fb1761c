"""fastframes.py: binary frames read into reused buffers must give websockets' own results.

Reads of a few bytes put every frame boundary, header field and mask key across reads; a
stock websockets client (random mask keys, fragments, pings, text) talks to a fast server,
and a fast client receives the server's echoes.
"""

import asyncio
import concurrent.futures
import os

import pytest
import websockets
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from texflow.coordinator import fastframes, wire
from texflow.distribute._native import _client_frame_head


class _TinyServer(fastframes.FastServerConnection):
    scratch_size = 7


class _TinyClient(fastframes.FastClientConnection):
    scratch_size = 5


def _messages():
    rng = os.urandom
    return (["hello", b"", rng(1), rng(5), rng(125), rng(126), rng(4099), rng(65535),
             rng(65536), "é" * 3000, rng(200_000)]
            + [[rng(3), rng(9000), rng(1)]])  # fragmented: websockets' path


async def _echo(ws):
    async for message in ws:
        await ws.send(message if isinstance(message, str) else bytes(message))


def _run(coro):
    # on a thread of its own: the shared browser's Playwright (sync API) may keep an event
    # loop running on the main thread, where asyncio.run() refuses to start
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, 20)).result()


@pytest.mark.parametrize("client_cls", [None, _TinyClient], ids=["stock-client", "fast-client"])
def test_frames_split_everywhere_arrive_whole(client_cls):
    async def main():
        async with serve(_echo, "127.0.0.1", 0, compression=None, max_size=1 << 20,
                         create_connection=_TinyServer) as server:
            port = server.sockets[0].getsockname()[1]
            options = {"create_connection": client_cls} if client_cls else {}
            async with connect(f"ws://127.0.0.1:{port}", compression=None,
                               **options) as ws:
                for message in _messages():
                    await ws.send(message)
                    expected = message if not isinstance(message, list) else b"".join(message)
                    got = await ws.recv()
                    # binary messages read by fastframes are memoryviews of its buffers
                    kind = str if isinstance(expected, str) else (bytes, memoryview)
                    assert isinstance(got, kind) and got == expected, len(expected)
                    await ws.ping()
                fast = ws.fast_frames if client_cls else None
            conns = list(server.connections) or []
        return fast, conns

    fast, _ = _run(main())
    if fast is not None:
        assert fast == 10  # every binary echo (the fragmented message comes back whole)


def test_server_counts_fast_frames_and_unmasks_random_keys():
    seen = []

    async def handler(ws):
        async for message in ws:
            seen.append((message.encode() if isinstance(message, str) else bytes(message),
                         ws.fast_frames))

    async def main():
        async with serve(handler, "127.0.0.1", 0, compression=None,
                         create_connection=_TinyServer) as server:
            port = server.sockets[0].getsockname()[1]
            async with connect(f"ws://127.0.0.1:{port}", compression=None) as ws:
                for size in (0, 3, 8, 13, 5000):
                    await ws.send(bytes(range(256)) * (size // 256) + bytes(size % 256))
                await ws.send("bye")
                while len(seen) < 6:
                    await asyncio.sleep(0.01)

    _run(main())
    assert [len(m) for m, _ in seen] == [0, 3, 8, 13, 5000, 3]
    assert seen[4][0] == bytes(range(256)) * 19 + bytes(136)
    assert [n for _, n in seen] == [1, 2, 3, 4, 5, 5]


def test_a_message_kept_by_its_reader_is_never_overwritten():
    """allreduce.Collective keeps a contribution's first chunks as they arrived (views of
    these buffers) until the next sender's reach them: a buffer still referred to must not
    be reused for later frames, while the others are."""
    sent, kept = [os.urandom(70_000 - i) for i in range(16)], []

    async def handler(ws):
        async for message in ws:
            if len(kept) % 3 != 2:  # keep two of every three, drop the third
                kept.append(message)
            else:
                kept.append(None)

    async def main():
        async with serve(handler, "127.0.0.1", 0, compression=None,
                         create_connection=fastframes.FastServerConnection) as server:
            port = server.sockets[0].getsockname()[1]
            async with connect(f"ws://127.0.0.1:{port}", compression=None) as ws:
                for message in sent:
                    await ws.send(message)
                while len(kept) < len(sent):
                    await asyncio.sleep(0.01)
            return list(server.connections)

    _run(main())
    assert all(isinstance(k, memoryview) for k in kept if k is not None)  # the fast path
    assert [bytes(k) == m for k, m in zip(kept, sent) if k is not None] == [True] * 11


def test_a_frame_over_the_limit_closes_with_1009():
    async def main():
        async with serve(_echo, "127.0.0.1", 0, compression=None, max_size=1000,
                         create_connection=_TinyServer) as server:
            port = server.sockets[0].getsockname()[1]
            async with connect(f"ws://127.0.0.1:{port}", compression=None) as ws:
                await ws.send(b"x" * 1000)
                assert await ws.recv() == b"x" * 1000
                await ws.send(b"x" * 1001)
                with pytest.raises(websockets.ConnectionClosed) as e:
                    await ws.recv()
                return e.value.rcvd.code

    assert _run(main()) == 1009


def test_unmask_matches_xor():
    key = bytes([0x12, 0x34, 0x56, 0x78])
    for size in (0, 1, 7, 8, 9, 31, 1000):
        data = bytearray(os.urandom(size))
        expected = bytes(b ^ key[i % 4] for i, b in enumerate(data))
        fastframes.unmask(data, size, key)
        assert bytes(data) == expected


def test_a_sink_takes_the_rest_of_big_frames():
    big, small, refused = os.urandom(100_000), os.urandom(1000), os.urandom(70_000)
    places = []

    def sink(head, size):
        if bytes(head) == refused[:40]:
            return None
        places.append(bytearray(size - 40))
        return memoryview(places[-1])

    async def main():
        async with serve(_echo, "127.0.0.1", 0, compression=None) as server:
            port = server.sockets[0].getsockname()[1]
            async with connect(f"ws://127.0.0.1:{port}", compression=None,
                               create_connection=_TinyClient) as ws:
                ws.sink, ws.sink_head = sink, 40
                got = []
                for message in (big, small, refused):
                    await ws.send(message)
                    got.append(await ws.recv())
                return got

    placed, plain, whole = _run(main())
    assert isinstance(placed, wire.Placed) and len(placed) == len(big)
    assert bytes(placed.head) == big[:40] and bytes(places[0]) == big[40:]
    assert bytes(plain) == small and bytes(whole) == refused and len(places) == 1


def test_write_parts_sends_head_and_data_whole_and_in_order_when_the_socket_is_full():
    # 24 MiB written while the server does not read: most of it waits in asyncio's buffer
    # (a partial sendmsg), and a text frame sent between two messages must stay between.
    data = os.urandom(12 << 20)
    head = wire.pack_header(wire.RESULT, wire.SUM, 1, 2, 0, len(data))
    got, release = [], asyncio.Event()

    async def handler(ws):
        await release.wait()
        async for message in ws:
            got.append(message if isinstance(message, str) else bytes(message))

    async def main():
        async with serve(handler, "127.0.0.1", 0, compression=None,
                         max_size=32 << 20) as server:
            port = server.sockets[0].getsockname()[1]
            async with connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None,
                               create_connection=fastframes.FastClientConnection) as ws:
                for text in ("between", "after"):
                    ws.write_parts([_client_frame_head(len(head) + len(data)) + head,
                                    memoryview(data)[:5 << 20], memoryview(data)[5 << 20:]])
                    queued = ws.transport.get_write_buffer_size()
                    await ws.send(text)
                release.set()
                while len(got) < 4:
                    await asyncio.sleep(0.01)
        return queued

    queued = _run(main())
    assert queued > 0  # the socket did not take it all: the rest went through asyncio
    assert got == [head + data, "between", head + data, "after"]
