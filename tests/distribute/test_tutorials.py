"""The two multi-worker tutorials (SEEDS.md 000: Keras `fit`; 004: a custom loop with
`strategy.run`, `strategy.reduce` and a CheckpointManager), as scripts/tutorials/ holds
them (only the import changed), run to completion by two workers: native processes with
TF_CONFIG as the pages start them, and a headless browser page (WebGL) beside a native
`texflow worker` through a coordinator. A synchronous job's workers end with one model.

The Keras tutorial's runs keep MNIST's first 256 training digits so that they take seconds
(tests/data/tutorials/run_tutorial.py does, leaving the tutorial's code alone). The custom
loop's 3 epochs of 70 steps take minutes whatever the data, so it is run by hand
(scripts/run_tutorials.sh ctl natively, scripts/run_tutorials_browser.py ctl on pages).
Both scripts run the tutorials on the whole set."""

import json
import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from test_multi_worker import ROOT, _env, _free_port

RUNNER = ROOT / "tests" / "data" / "tutorials" / "run_tutorial.py"
TUTORIALS = ROOT / "scripts" / "tutorials"
ROWS = "256"   # 2 global batches of 128 per epoch in the Keras tutorial


def _job_folder(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    for path in [RUNNER, *TUTORIALS.glob("*.py")]:
        shutil.copy(path, folder)
    return folder


def _weights(text):
    found = re.search(r"^weights (.*)$", text, re.M)
    assert found, text[-3000:]
    return np.array(json.loads(found.group(1)))


def _same_model(outputs, rtol):
    """Every worker ends with the weights of the first (per weight: sum and sum of |w|)."""
    first = _weights(outputs[0])
    for out in outputs[1:]:
        np.testing.assert_allclose(_weights(out), first, rtol=rtol, atol=rtol)


def test_keras_tutorial_runs_with_tf_config_on_two_native_workers(tmp_path):
    folder = _job_folder(tmp_path)
    cluster = {"worker": [f"localhost:{_free_port()}", f"localhost:{_free_port()}"]}
    procs = [subprocess.Popen(
        [sys.executable, "run_tutorial.py", "keras_multi_worker.py", ROWS], cwd=folder,
        env=_env({"cluster": cluster, "task": {"type": "worker", "index": i}}),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i in range(2)]
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=600)[0])
    finally:
        for p in procs:
            p.kill()
    for p, out in zip(procs, outputs):
        assert p.returncode == 0, out[-3000:]
        assert out.count("Epoch 3/3") == 2 and re.search(r"^2/2 \[=+\]", out, re.M), out
    _same_model(outputs, 1e-5)
    # only the chief's ModelCheckpoint file stays (the tutorial's path, /tmp/keras-ckpt.keras)
    assert not Path("/tmp/workertemp_1").exists()


def test_keras_tutorial_on_a_browser_worker_and_a_native_worker(browser_session, tmp_path):
    from texflow.coordinator import CoordinatorThread, Job

    logging.getLogger("websockets").setLevel(logging.WARNING)
    folder = _job_folder(tmp_path)
    c = CoordinatorThread(num_workers=2, port=0, job=Job(
        folder / "run_tutorial.py", ["keras_multi_worker.py", ROWS])).start()
    context = browser_session.browser._browser.new_context()
    native = subprocess.Popen(  # no TF_CONFIG for either: the coordinator assigns ranks
        [sys.executable, "-m", "texflow.cli", "worker", "--coordinator", c.url, "--token",
         c.token], env=_env(None), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = context.new_page()
        page.goto(f"{c.origin}/?backend=webgl#token={c.token}")
        page.wait_for_function("() => texflowWorkerPage.exitCode !== null", timeout=600_000)
        browser_out = page.inner_text("#out")
        out, _ = native.communicate(timeout=120)
        assert page.evaluate("() => texflowWorkerPage.exitCode") == 0, browser_out[-3000:]
        assert page.evaluate("() => texflowWorkerPage.status")["backend"] == "webgl"
    finally:
        native.kill()
        context.close()
        c.stop()
    assert native.returncode == 0, out[-3000:]
    for text in (out, browser_out):
        assert text.count("Epoch 3/3") == 2, text[-3000:]
    _same_model([out, browser_out], 1e-4)


def test_the_multiworker_demo_job_runs_on_two_native_workers():
    """demos/multiworker/train.py (seed 000's job) as its README starts it: a coordinator
    with --script and two `texflow worker`s that fetch the job (1 epoch of 2 steps)."""
    from texflow.coordinator import CoordinatorThread, Job

    c = CoordinatorThread(num_workers=2, port=0, job=Job(
        ROOT / "demos" / "multiworker" / "train.py", ["1", "2"])).start()
    procs = [subprocess.Popen(
        [sys.executable, "-m", "texflow.cli", "worker", "--coordinator", c.url, "--token",
         c.token], env=_env(None), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(2)]
    try:
        outputs = [p.communicate(timeout=300)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
        c.stop()
    accuracies = set()
    for p, out in zip(procs, outputs):
        assert p.returncode == 0, out[-3000:]
        assert re.search(r"^2/2 \[=+\]", out, re.M), out[-3000:]
        accuracies.add(re.search(r"^test accuracy ([\d.]+) \(loss ([\d.]+)\)", out, re.M).groups())
    assert len(accuracies) == 1, outputs  # one model: the same test accuracy and loss
