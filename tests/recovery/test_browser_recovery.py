"""A headless browser worker (a Web Worker on WebGL in the shared Chromium) whose page is
reloaded mid-epoch of Keras fit: the page rejoins under its old rank (its client id is
kept in sessionStorage), takes the running job's state and resumes; the native survivor
never exits and ends with the weights of one uninterrupted process."""

import numpy as np

from procs import FIT_WORKER, fit_worker
from texflow.coordinator import CoordinatorThread, Job


def test_a_reloaded_browser_worker_rejoins_fit_mid_epoch(browser_session, tmp_path):
    c = CoordinatorThread(num_workers=2, port=0,
                          job=Job(FIT_WORKER, ["browser.npz", "2", "0.2"])).start()
    context = browser_session.browser._browser.new_context()
    survivor = fit_worker(tmp_path / "native.npz", 1, 0.2, name="native",
                          TEXFLOW_COORDINATOR=c.url, TEXFLOW_TOKEN=c.token, TEXFLOW_TASK_ID=0)
    reference = fit_worker(tmp_path / "ref.npz", 1, name="reference")
    try:
        page = context.new_page()
        page.goto(f"{c.origin}/?backend=webgl#token={c.token}")
        survivor.wait_for(lambda line: line.get("epoch") == 1 and line.get("batch") == 2,
                          timeout=300)
        page.reload()  # the tab is gone mid-epoch; the same tab comes back
        page.wait_for_function("() => texflowWorkerPage.exitCode !== null", timeout=300_000)
        out = page.inner_text("#out")
        assert page.evaluate("() => texflowWorkerPage.exitCode") == 0, out
        assert "joined a running job" in out, out
        assert survivor.finish(120) == 0, survivor.dump()
        assert reference.finish(120) == 0, reference.dump()
    finally:
        for w in (survivor, reference):
            if w.proc.poll() is None:
                w.kill()
        context.close()
        c.stop()
    assert len(survivor.find("ready")) == 1 and survivor.find("done") == [4]
    assert any("generation 2" in line for line in survivor.other), survivor.dump()
    with np.load(tmp_path / "native.npz") as got, np.load(tmp_path / "ref.npz") as want:
        for key in want.files:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-4)
