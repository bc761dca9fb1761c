"""Membership and faults: lost workers, rejoining, elastic resizes, a restarted coordinator."""

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from coord_helpers import run_workers
from texflow.coordinator import CoordinatorThread
from texflow.distribute import collective
from texflow.errors import UnavailableError, WorkerLostError

WORKER = Path(__file__).with_name("worker_proc.py")
ONES = np.ones(4, np.float32)


def _spawn(c, *extra, wait=True):
    proc = subprocess.Popen([sys.executable, str(WORKER), c.url, c.token, *extra],
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline() if wait else None


def _reduce_until_lost(group, deadline=20):
    """All-reduces until a WorkerLostError comes back; returns it and when it came."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            group.all_reduce(ONES, timeout=deadline)
        except WorkerLostError as e:
            return e, time.monotonic()
    raise AssertionError("no WorkerLostError")


def test_killed_worker_is_lost_and_a_restarted_one_rejoins_under_its_rank(make_coordinator):
    c = make_coordinator(2)
    group = None
    procs = []
    try:
        result = {}
        joiner = threading.Thread(target=lambda: result.setdefault(
            "g", collective.connect(c.url, c.token, task_id=0, timeout=30)))
        joiner.start()
        proc, line = _spawn(c)
        procs.append(proc)
        joiner.join()
        group = result["g"]
        assert line.split()[:2] == ["ready", "1"]
        assert group.all_reduce(ONES)[0] == 2
        events = []
        group.on_change(events.append)

        proc.kill()
        killed = time.monotonic()
        error, when = _reduce_until_lost(group)
        assert error.ranks == (1,) and when - killed < 10
        assert "worker rank 1 of generation 1 was lost" in str(error)
        with pytest.raises(WorkerLostError, match="rank 1"):  # later ones too, until rejoin
            group.all_reduce(ONES)
        assert any(e["event"] == "lost" and e["ranks"] == [1] for e in events)

        proc2, _ = _spawn(c, wait=False)  # a restarted process: the free rank is its old one
        procs.append(proc2)
        membership = group.rejoin(timeout=30)
        line = proc2.stdout.readline()
        assert (membership.generation, membership.size, membership.new) == (2, 2, [1])
        assert not membership.is_new and group.rank == 0
        assert line.split() == ["ready", "1", "2"]
        for _ in range(3):
            assert group.all_reduce(ONES)[0] == 2
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        if group is not None:
            group.close()


def test_a_worker_that_stops_answering_is_lost_within_10_seconds(make_coordinator):
    c = make_coordinator(2)
    proc = None
    result = {}
    joiner = threading.Thread(target=lambda: result.setdefault(
        "g", collective.connect(c.url, c.token, task_id=0, timeout=30)))
    joiner.start()
    try:
        proc, _ = _spawn(c)
        joiner.join()
        group = result["g"]
        group.all_reduce(ONES)
        proc.send_signal(signal.SIGSTOP)  # alive, connected, silent
        stopped = time.monotonic()
        error, when = _reduce_until_lost(group, deadline=30)
        assert error.ranks == (1,) and when - stopped < 10, when - stopped
        assert "stopped answering: no pong and no data for" in str(error)
        group.close()
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGCONT)
            proc.kill()
            proc.wait()


def test_elastic_group_goes_on_with_fewer_and_admits_new_workers(make_coordinator):
    c = make_coordinator(3, elastic=True)
    groups, errors, ready = {}, [], threading.Barrier(3)
    shrunk_count = threading.Semaphore(0)

    def survivor(i):
        try:
            g = collective.connect(c.url, c.token, timeout=30)
            groups[g.rank] = g
            ready.wait()
            assert g.all_reduce(ONES)[0] == 3
            if g.rank == 1:
                g.close()  # this one leaves
                return
            with pytest.raises(WorkerLostError):
                while True:
                    g.all_reduce(ONES)
            shrunk = g.resize(timeout=30)
            assert (shrunk.size, shrunk.lost, shrunk.new) == (2, [1], [])
            assert shrunk.renumbered == {0: 0, 2: 1}
            assert g.all_reduce(ONES)[0] == 2
            shrunk_count.release()
            joined = threading.Event()
            g.on_change(lambda e: e["event"] == "joined" and joined.set())
            assert joined.wait(30)  # the newcomer waits for a resize ...
            grown = g.resize(timeout=30)  # ... which every member calls at this point
            assert (grown.size, grown.new) == (3, [2])
            assert g.all_reduce(ONES)[0] == 3
            g.close()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=survivor, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for _ in range(2):
        assert shrunk_count.acquire(timeout=60), errors
    newcomer = collective.connect(c.url, c.token, timeout=30)
    assert (newcomer.rank, newcomer.size, newcomer.membership.is_new) == (2, 3, True)
    assert newcomer.all_reduce(ONES)[0] == 3
    for t in threads:
        t.join(60)
    newcomer.close()
    assert not errors, errors


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_clients_reconnect_to_a_restarted_coordinator(tmp_path):
    port, token = _free_port(), "restart-token"
    first = CoordinatorThread(num_workers=2, port=port, token=token).start()
    outcomes, errors = {}, []
    go = threading.Event()

    def worker():
        try:
            g = collective.connect(f"ws://127.0.0.1:{port}", token, timeout=30)
            assert g.all_reduce(ONES)[0] == 2
            go.wait(30)
            with pytest.raises(UnavailableError, match="lost the connection"):
                while True:
                    g.all_reduce(ONES, timeout=30)
            membership = g.rejoin(timeout=60)
            outcomes[g.rank] = (membership.generation, g.all_reduce(ONES)[0])
            g.close()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    first.stop()
    go.set()
    time.sleep(1.0)  # the workers back off and retry meanwhile
    second = CoordinatorThread(num_workers=2, port=port, token=token).start()
    try:
        for t in threads:
            t.join(90)
        assert not errors, errors
        assert outcomes == {0: (1, 2.0), 1: (1, 2.0)}
    finally:
        second.stop()


def test_a_refused_join_says_why(make_coordinator):
    c = make_coordinator(1)
    with collective.connect(c.url, c.token, timeout=20):
        with pytest.raises(Exception, match="the group is full"):
            collective.connect(c.url, c.token, timeout=20)
        with pytest.raises(Exception, match="task_id 5 is out of range"):
            collective.connect(c.url, c.token, task_id=5, timeout=20)


def test_a_reloaded_page_gets_its_rank_back_by_client_id(make_coordinator, monkeypatch):
    """The worker page keeps a client id in sessionStorage and hands it over (in
    TEXFLOW_CLIENT_ID); a reload connects again with it, replacing its old connection."""
    c = make_coordinator(3)
    results, errors = {}, []

    def steady(task_id):
        try:
            g = collective.connect(c.url, c.token, task_id=task_id, timeout=30)
            assert g.all_reduce(ONES)[0] == 3
            with pytest.raises(WorkerLostError, match="rank 1"):
                g.all_reduce(ONES)
            results[task_id] = g.rejoin(timeout=30)
            assert g.all_reduce(ONES)[0] == 3
            g.close()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=steady, args=(r,)) for r in (0, 2)]
    for t in threads:
        t.start()
    first = collective.connect(c.url, c.token, task_id=1, client_id="tab-7", timeout=30)
    assert first.rank == 1 and first.all_reduce(ONES)[0] == 3
    # reloaded: the page's job worker hands its sessionStorage id over in the environment
    monkeypatch.setenv("TEXFLOW_CLIENT_ID", "tab-7")
    second = collective.connect(c.url, c.token, timeout=30)
    assert (second.rank, second.generation, second.membership.new) == (1, 2, [1])
    assert second.all_reduce(ONES)[0] == 3
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert results[0].new == [1] and results[2].new == [1]
    with pytest.raises(UnavailableError):
        first.all_reduce(ONES)  # the replaced connection is gone for good
    second.close()
    first.close()


def test_a_busy_worker_whose_pongs_wait_behind_data_is_not_lost(make_coordinator):
    """Heartbeats count any sign of life: while megabytes are queued to a worker its pong
    waits behind them, but the bytes it takes show it is alive."""
    c = make_coordinator(2, heartbeat=0.1, heartbeat_timeout=0.4)
    big = np.ones(8_000_000, np.float32)  # each all-reduce takes longer than the timeout

    def body(g):
        return [float(g.all_reduce(big)[0]) for _ in range(3)]

    assert run_workers(c, 2, body) == {0: [2.0] * 3, 1: [2.0] * 3}
