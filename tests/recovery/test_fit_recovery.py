"""Keras fit under MultiWorkerMirroredStrategy through lost workers: a native worker (and
the chief) killed mid-epoch and restarted; the survivor never exits, and everyone ends
with the weights of one uninterrupted process."""

import logging

import numpy as np
import pytest

from procs import fit_worker
from texflow.coordinator import CoordinatorThread


@pytest.fixture(autouse=True)
def _quiet():
    logging.getLogger("websockets").setLevel(logging.WARNING)
    logging.getLogger("texflow.coordinator").setLevel(logging.ERROR)


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
