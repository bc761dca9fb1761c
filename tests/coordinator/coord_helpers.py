"""Workers for coordinator tests: threads of this process, each a group member."""

import concurrent.futures
import contextlib

from texflow.distribute import collective


def run_workers(coordinator, n, body, timeout=60, **connect_options):
    """Runs `body(group)` in `n` threads, each a worker; returns {rank: result}.

    Exceptions raised by a body are re-raised here (the first one)."""
    def one(i):
        group = collective.connect(coordinator.url, coordinator.token, timeout=timeout,
                                   **connect_options)
        try:
            return group.rank, body(group)
        finally:
            with contextlib.suppress(Exception):
                group.close()

    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(one, i) for i in range(n)]
        return dict(f.result(timeout=timeout) for f in futures)
