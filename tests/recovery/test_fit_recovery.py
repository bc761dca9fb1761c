"""Keras fit under MultiWorkerMirroredStrategy through lost workers: a native worker (and
the chief) killed mid-epoch and restarted; the survivor never exits, and everyone ends
with the weights of one uninterrupted process."""

import time

import numpy as np
import pytest

from procs import fit_worker
from texflow.coordinator import CoordinatorThread


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "ref.npz"
    w = fit_worker(out, 1, name="reference")
    assert w.finish() == 0, w.dump()
    with np.load(out) as z:
        return [z[k] for k in sorted(z.files, key=lambda k: int(k.split("_")[1]))]


def _weights(path):
    with np.load(path) as z:
        return [z[k] for k in sorted(z.files, key=lambda k: int(k.split("_")[1]))]


@pytest.mark.parametrize("victim", [1, 0], ids=["worker", "chief"])
def test_fit_goes_on_when_a_worker_is_killed_mid_epoch_and_restarted(tmp_path, reference,
                                                                     victim):
    c = CoordinatorThread(num_workers=2, port=0).start()
    env = dict(TEXFLOW_COORDINATOR=c.url, TEXFLOW_TOKEN=c.token)
    workers = {r: fit_worker(tmp_path / f"w{r}.npz", r + 1, 0.05, name=f"rank {r}",
                             TEXFLOW_TASK_ID=r, **env) for r in (0, 1)}
    restarted = None
    survivor = workers[1 - victim]
    try:
        survivor.wait_for(lambda line: line.get("epoch") == 1 and line.get("batch") == 2)
        workers[victim].kill()
        restarted = fit_worker(tmp_path / "again.npz", 7, 0.05, name="restarted",
                               TEXFLOW_TASK_ID=victim, **env)
        assert survivor.finish() == 0, survivor.dump()
        assert restarted.finish() == 0, restarted.dump()
        assert len(survivor.find("ready")) == 1 and survivor.find("done") == [4]
        assert restarted.find("done")[0] in (2, 3)  # it ran the epochs left when it came
        assert any("joined a running job" in line for line in restarted.other), \
            restarted.dump()
        for path in (tmp_path / f"w{1 - victim}.npz", tmp_path / "again.npz"):
            for got, want in zip(_weights(path), reference):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    finally:
        for w in list(workers.values()) + [restarted]:
            if w is not None and w.proc.poll() is None:
                w.kill()
        c.stop()


def test_fit_goes_on_when_the_chief_hosting_the_coordinator_is_killed(tmp_path, reference):
    """TF_CONFIG as the tutorial sets it: the chief runs the coordinator in its own process,
    so killing it takes the coordinator too; the survivor reconnects to the one the
    restarted chief starts at the same address and gives it the state."""
    import json
    import socket

    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    cluster = {"worker": [f"localhost:{p}" for p in ports]}

    def config(index):
        return json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})

    chief = fit_worker(tmp_path / "w0.npz", 1, 0.05, name="chief", TF_CONFIG=config(0))
    survivor = fit_worker(tmp_path / "w1.npz", 2, 0.05, name="worker", TF_CONFIG=config(1))
    restarted = None
    try:
        survivor.wait_for(lambda line: line.get("epoch") == 1 and line.get("batch") == 2)
        chief.kill()
        restarted = fit_worker(tmp_path / "again.npz", 7, 0.05, name="restarted chief",
                               TF_CONFIG=config(0))
        assert survivor.finish() == 0, survivor.dump()
        assert restarted.finish() == 0, restarted.dump()
        assert len(survivor.find("ready")) == 1 and survivor.find("done") == [4]
        assert any("joined a running job" in line for line in restarted.other)
        for path in (tmp_path / "w1.npz", tmp_path / "again.npz"):
            for got, want in zip(_weights(path), reference):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    finally:
        for w in (chief, survivor, restarted):
            if w is not None and w.proc.poll() is None:
                w.kill()


def test_elastic_fit_goes_on_with_fewer_workers_and_admits_one_at_an_epoch_start(
        tmp_path, reference):
    c = CoordinatorThread(num_workers=3, port=0, elastic=True).start()
    pause = tmp_path / "pause"
    env = dict(TEXFLOW_COORDINATOR=c.url, TEXFLOW_TOKEN=c.token, FIT_PAUSE_FILE=pause)
    # the same seed everywhere: an elastic group ranks its first workers as they come
    workers = [fit_worker(tmp_path / f"w{i}.npz", 1, 0.05, name=f"worker {i}", **env)
               for i in range(3)]
    newcomer = None
    try:
        ranks = {w.wait_for(lambda line: "ready" in line)["ready"]: w for w in workers}
        ranks[0].wait_for(lambda line: line.get("epoch") == 1 and line.get("batch") == 2)
        ranks[2].kill()
        survivors = [ranks[0], ranks[1]]
        for w in survivors:  # the two go on at size 2 ...
            w.wait_for(lambda line: line.get("epoch") == 1 and line.get("batch") == 4)
        pause.touch()  # ... and wait (mid-epoch) until the newcomer asks to join
        newcomer = fit_worker(tmp_path / "new.npz", 9, 0.05, name="newcomer", **env)
        deadline = time.monotonic() + 60
        while not c.coordinator.membership.waiting and time.monotonic() < deadline:
            time.sleep(0.05)
        pause.unlink()
        for w in survivors + [newcomer]:
            assert w.finish() == 0, w.dump()
        for w in survivors:
            assert len(w.find("ready")) == 1 and w.find("done") == [4]
            assert any("generation 2: rank" in line and "of 2" in line for line in w.other)
            assert any("generation 3: rank" in line and "of 3" in line for line in w.other)
        assert newcomer.find("done")[0] in (1, 2)  # admitted at an epoch's start
        paths = [tmp_path / f"w{workers.index(w)}.npz" for w in survivors]
        for path in paths + [tmp_path / "new.npz"]:
            for got, want in zip(_weights(path), reference):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    finally:
        for w in workers + [newcomer]:
            if w is not None and w.proc.poll() is None:
                w.kill()
        c.stop()
