"""MultiWorkerMirroredStrategy with a headless browser worker (a Web Worker on WebGL, in
the shared Chromium) and a native worker: both end with the weights one process gets
with the same global batch over the same data."""

import json
import logging
import re
import subprocess
import sys

import numpy as np

from texflow.coordinator import CoordinatorThread, Job

from test_multi_worker import JOB, _env


def test_browser_and_native_workers_match_one_process(browser_session, tmp_path, log_levels):
    log_levels({"websockets": logging.WARNING})
    c = CoordinatorThread(num_workers=2, port=0, job=Job(JOB, ["fit", "-", "1"])).start()
    context = browser_session.browser._browser.new_context()
    env = _env(None)
    native = subprocess.Popen(  # runs the coordinator's job, as the page does
        [sys.executable, "-m", "texflow.cli", "worker", "--coordinator", c.url, "--token",
         c.token], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ref = subprocess.Popen([sys.executable, str(JOB), "fit", str(tmp_path / "ref.npz"), "1"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = context.new_page()
        page.goto(f"{c.origin}/?backend=webgl#token={c.token}")
        page.wait_for_function("() => texflowWorkerPage.exitCode !== null", timeout=300_000)
        browser_out = page.inner_text("#out")
        out, _ = native.communicate(timeout=60)
        ref_out, _ = ref.communicate(timeout=60)
        assert page.evaluate("() => texflowWorkerPage.exitCode") == 0, browser_out
        assert page.evaluate("() => texflowWorkerPage.status")["backend"] == "webgl"
    finally:
        native.kill()
        ref.kill()
        context.close()
        c.stop()
    assert native.returncode == 0 and ref.returncode == 0, (out, ref_out)
    reference = np.load(tmp_path / "ref.npz")
    ranks = set()
    for who, text in (("native", out), ("browser", browser_out)):
        rank = int(re.search(r"^done worker (\d) 2$", text, re.M).group(1))
        ranks.add(rank)
        # Neither had TF_CONFIG: the job's, as the tutorials read it, names the rank given.
        assert re.search(r"^tf_config (\d) (\d)$", text, re.M).groups() == ("2", str(rank))
        got = json.loads(re.search(r"^weights (.*)$", text, re.M).group(1))
        for i, key in enumerate(reference.files):
            np.testing.assert_allclose(np.asarray(got[i], np.float32), reference[key],
                                       rtol=1e-4, atol=1e-4, err_msg=f"{who} worker, weight {i}")
    assert ranks == {0, 1}
