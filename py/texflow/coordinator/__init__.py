"""The texflow coordinator: browser and native workers all-reduce through it.

A star through one server (optionally sharded over several processes),
because browsers cannot open connections to each other without WebRTC. It
imports only numpy and websockets (and the standard library): it checks and
reduces bytes and never trains. Workers use `texflow.distribute.collective`.

>>> from texflow.coordinator import CoordinatorThread   # doctest: +SKIP
>>> with CoordinatorThread(num_workers=2, port=0) as c:
...     print(c.url, c.token)
"""

import asyncio
import threading

from .checkpoint_store import CheckpointError, CheckpointStore

__all__ = ["Coordinator", "CoordinatorThread", "CheckpointStore", "CheckpointError", "Job"]


def __getattr__(name):
    # The server needs `websockets`; the wire format (imported by the collective client,
    # also inside Pyodide, which has no `websockets`) must not pull it in.
    if name == "Coordinator":
        from .server import Coordinator
        return Coordinator
    if name == "Job":
        from .pages import Job
        return Job
    raise AttributeError(f"module 'texflow.coordinator' has no attribute {name!r}")


class CoordinatorThread:
    """A `Coordinator` running on its own event loop in a daemon thread (tests, benchmarks,
    embedding). Takes the Coordinator's arguments; `url`, `token`, `join_url`, `port` and
    `coordinator` are available once started; `stop()` shuts it down."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.coordinator = None
        self._loop = None
        self._thread = None

    def start(self):
        ready = threading.Event()
        errors = []

        def run():
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            try:
                from .server import Coordinator
                self.coordinator = Coordinator(**self.kwargs)
                self._loop.run_until_complete(self.coordinator.start())
            except BaseException as e:  # reported to the starting thread
                errors.append(e)
                ready.set()
                return
            ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self.coordinator.close())
            self._loop.close()

        self._thread = threading.Thread(target=run, name="texflow-coordinator", daemon=True)
        self._thread.start()
        ready.wait()
        if errors:
            raise errors[0]
        return self

    def call(self, fn, *args):
        """Runs `fn(*args)` (a coroutine function) on the coordinator's loop; returns its result."""
        return asyncio.run_coroutine_threadsafe(fn(*args), self._loop).result(30)

    def stop(self):
        if self._loop is not None and self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def __getattr__(self, name):
        if name in ("url", "token", "join_url", "port", "origin", "membership", "data",
                    "snapshot"):
            return getattr(self.coordinator, name)
        raise AttributeError(name)
