"""Heartbeats that tell a slow worker from a dead one.

`websockets`' own keepalive fails a connection whose pong is late, but under load a pong
waits behind megabytes of results queued to the same worker, so a busy, healthy worker
would be dropped. Here a worker is alive while anything shows it: a pong, bytes from it,
or bytes of ours it took off the socket. One that does none of these for `timeout`
seconds (stopped, hung, unplugged) is lost; one that disconnects is noticed at once by
its handler.
"""

import asyncio

from websockets.exceptions import ConnectionClosed


async def watch(ws, interval, timeout, progress):
    """Pings `ws` every `interval` s; returns a reason once it has shown no sign of life for
    `timeout` s, or None when the connection closes first.

    `progress()` returns a value that changes whenever the peer sent us something or took
    something we sent (e.g. bytes in, and bytes written minus those still buffered).
    """
    loop = asyncio.get_running_loop()
    seen = {"at": loop.time()}
    last = progress()

    def ponged(waiter):
        if not waiter.cancelled() and waiter.exception() is None:
            seen["at"] = loop.time()

    while True:
        try:
            waiter = await ws.ping()
        except ConnectionClosed:
            return None
        waiter.add_done_callback(ponged)
        slept = loop.time()
        await asyncio.sleep(interval)
        now = loop.time()
        current = progress()
        # A stalled event loop (ours, busy with a backlog) is no sign of a dead peer.
        if current != last or now - slept > 2 * interval:
            seen["at"], last = now, current
        if now - seen["at"] > timeout:
            return (f"stopped answering: no pong and no data for "
                    f"{now - seen['at']:.1f} s (heartbeat timeout {timeout} s)")


def delivered(ws, written):
    """Bytes of ours the peer has taken off its socket: `written` minus what still waits
    in our transport's buffer."""
    transport = ws.transport
    return written - (transport.get_write_buffer_size() if transport is not None else 0)
