"""Workers for coordinator tests: threads of this process, each a group member."""

import concurrent.futures
import contextlib

from texflow.distribute import collective


def in_own_thread(fn, *args):
    """`fn(*args)` in a thread of its own, for code that calls asyncio.run(): in the main
    thread the shared browser's Playwright (its sync API) leaves its event loop marked
    running while the tests run, and asyncio.run() refuses to start under it."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


def run_workers(coordinator, n, body, timeout=60, **connect_options):
    """Runs `body(group)` in `n` threads, each a worker; returns {rank: result}.

    Exceptions raised by a body are re-raised here: the first, with every worker's
    error in its message (a worker that fails and leaves makes the others fail too, so
    the first is not always the cause)."""
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
        concurrent.futures.wait(futures, timeout)
        errors = [f.exception(timeout=0) for f in futures if f.done() and f.exception(timeout=0)]
        if len(errors) > 1:
            raise AssertionError(f"{len(errors)} workers failed: "
                                 + "; ".join(f"{type(e).__name__}: {e}" for e in errors)) \
                from errors[0]
        return dict(f.result(timeout=timeout) for f in futures)
