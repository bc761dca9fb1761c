"""recovery.Keeper with a plain GradientTape loop: native worker processes are killed
mid-run and restarted; the survivors keep running, and every worker ends with the weights
of one uninterrupted process with the global batch over the same data order."""

import socket
import time

import numpy as np
import pytest

import loop_worker
from procs import loop_worker as spawn
from texflow.coordinator import CoordinatorThread

STEPS = 36


@pytest.fixture(scope="module")
def expected():
    return loop_worker.reference(STEPS)


@pytest.fixture
def coordinator():
    started = []

    def make(num_workers, **options):
        options.setdefault("port", 0)
        c = CoordinatorThread(num_workers=num_workers, **options).start()
        started.append(c)
        return c

    yield make
    for c in started:
        c.stop()


def _stepped(n):
    return lambda line: line.get("step", -1) >= n


def _check_weights(workers, expected):
    finals = []
    for w in workers:
        done = w.wait_for(lambda line: "done" in line)
        assert done["done"] == STEPS, w.dump()
        with np.load(done["weights"]) as z:
            finals.append([z[f"arr_{i}"] for i in range(len(expected))])
    for final in finals:
        for got, want in zip(final, expected):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        for got, first in zip(final, finals[0]):  # workers agree more closely still
            np.testing.assert_allclose(got, first, rtol=1e-6, atol=1e-6)


def _report(kind, record, worker=None):
    waited = f"waited {record['waited_s']:.2f} s, " if "waited_s" in record else ""
    started = ""
    if worker is not None:
        started = f"process start to joined {worker.find('import_s')[0]:.2f} s, "
    print(f"\n{kind}: {started}{waited}new generation to first step "
          f"{record['first_step_s']:.2f} s (state sync {record['sync_s'] * 1e3:.0f} ms, "
          f"from {record['source']})")


@pytest.mark.parametrize("victim", [1, 0], ids=["worker", "chief"])
def test_a_killed_worker_restarts_and_the_survivor_never_exits(coordinator, tmp_path,
                                                                 expected, victim):
    c = coordinator(2)
    workers = {r: spawn(c, STEPS, tmp_path, "--task-id", r, "--step-sleep", 0.05,
                        name=f"rank {r}") for r in (0, 1)}
    survivor = workers[1 - victim]
    try:
        survivor.wait_for(_stepped(10))
        workers[victim].kill()
        restarted = spawn(c, STEPS, tmp_path, "--task-id", victim, name="restarted")
        _check_weights([survivor, restarted], expected)
        assert survivor.finish() == 0 and restarted.finish() == 0
        # the survivor's process, model and data pipeline lived through it: one start
        assert len(survivor.find("ready")) == 1
        [record] = [r for r in survivor.find("recovery") if r["event"] == "recover"]
        assert record["lost"] == [victim] and record["new"] == [victim]
        assert record["source"] == f"rank {1 - victim}"
        start = restarted.find("recovery")[0]
        assert start["event"] == "start" and start["source"] == f"rank {1 - victim}"
        assert 10 <= start["step"] < STEPS
        _report(f"killed rank {victim}, survivor", record)
        _report(f"killed rank {victim}, restarted", start, restarted)
    finally:
        for w in list(workers.values()) + [locals().get("restarted")]:
            if w is not None and w.proc.poll() is None:
                w.kill()


def test_elastic_group_goes_on_without_a_lost_worker_and_admits_one_later(
        coordinator, tmp_path, expected):
    c = coordinator(3, elastic=True)
    pause = tmp_path / "pause"
    workers = [spawn(c, STEPS, tmp_path, "--step-sleep", 0.05, "--pause-file", pause,
                     name=f"worker {i}") for i in range(3)]
    newcomer = None
    try:
        workers[0].wait_for(_stepped(6))
        ranks = {w.wait_for(lambda line: "ready" in line)["ready"]: w for w in workers}
        ranks[1].kill()
        survivors = [ranks[0], ranks[2]]
        # the two go on at size 2 (the global batch kept) before anyone comes back ...
        for w in survivors:
            w.wait_for(lambda line: line.get("size") == 2)
        pause.touch()  # ... and wait (mid-epoch) until a newcomer asks to join
        newcomer = spawn(c, STEPS, tmp_path, name="newcomer")
        deadline = time.monotonic() + 60
        while not c.coordinator.membership.waiting and time.monotonic() < deadline:
            time.sleep(0.05)
        pause.unlink()
        _check_weights(survivors + [newcomer], expected)
        for w in survivors:
            events = [r["event"] for r in w.find("recovery")]
            assert events == ["start", "recover", "admit"], w.find("recovery")
            assert w.finish() == 0 and len(w.find("ready")) == 1
        joined = newcomer.find("recovery")[0]
        assert joined["size"] == 3 and joined["step"] > 0
        assert joined["step"] % loop_worker.STEPS_PER_EPOCH == 0  # an epoch boundary
        assert newcomer.finish() == 0
        _report("elastic, newcomer admitted at an epoch boundary", joined, newcomer)
    finally:
        for w in workers + [newcomer]:
            if w is not None and w.proc.poll() is None:
                w.kill()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_workers_go_on_through_a_restarted_coordinator_and_a_restarted_job(tmp_path,
                                                                          expected):
    port, token, store = _free_port(), "recovery-token", tmp_path / "ckpt"
    options = dict(num_workers=2, port=port, token=token, checkpoint_dir=str(store))
    first = CoordinatorThread(**options).start()
    second = third = None
    workers = [spawn(first, STEPS, tmp_path, "--task-id", r, "--step-sleep", 0.05,
                     "--checkpoint-every", 4, name=f"rank {r}") for r in (0, 1)]
    try:
        workers[0].wait_for(_stepped(10))
        first.stop()
        second = CoordinatorThread(**options).start()
        workers[0].wait_for(lambda line: line.get("log", "").startswith(
            "[recovery] generation 1"))
        workers[1].wait_for(_stepped(20))
        # now the whole job goes down (coordinator and workers) and starts again
        for w in workers:
            w.kill()
        second.stop()
        third = CoordinatorThread(**options).start()
        workers = [spawn(third, STEPS, tmp_path, "--task-id", r, "--checkpoint-every", 4,
                         name=f"again {r}") for r in (0, 1)]
        _check_weights(workers, expected)
        for w in workers:
            start = w.find("recovery")[0]
            assert start["source"].startswith("checkpoint of step "), start
            assert start["step"] >= 12
    finally:
        for w in workers:
            if w.proc.poll() is None:
                w.kill()
        for c in (second, third):
            if c is not None:
                c.stop()
