"""The two multi-worker tutorials (SEEDS.md 000: Keras `fit`; 004: a custom loop with
`strategy.run`, `strategy.reduce` and a CheckpointManager), as scripts/tutorials/ holds
them (only the import changed), run to completion by two workers: native processes with
TF_CONFIG as the pages start them, and a headless browser page (WebGL) beside a native
`texflow worker` through a coordinator. A synchronous job's workers end with one model,
and only the chief writes the checkpoints' real paths (the others write temporary ones
and remove them, as the tutorials describe): each worker records what it wrote.

The runs keep MNIST's first 256 training digits so that they take seconds
(tests/data/tutorials/run_tutorial.py does, leaving the tutorial's code alone), and the
custom loop's 3 epochs have 2 steps instead of 70 (run_tutorial.py --steps: the one line
changed). scripts/run_tutorials.sh (natively) and scripts/run_tutorials_browser.py (on
pages) run the tutorials unchanged on the whole set."""

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import texflow as tf

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


def _run_with_tf_config(folder, argv):
    """Two native workers running `run_tutorial.py *argv` with TF_CONFIG as the pages
    start them; returns each one's output and the files it wrote (audit events)."""
    cluster = {"worker": [f"localhost:{_free_port()}", f"localhost:{_free_port()}"]}
    procs = [subprocess.Popen(
        [sys.executable, "run_tutorial.py", *argv, "--writes", f"writes_{i}.json"],
        cwd=folder, env=_env({"cluster": cluster, "task": {"type": "worker", "index": i}}),
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
    writes = [json.loads((folder / f"writes_{i}.json").read_text()) for i in range(2)]
    return outputs, writes


def _written(events, under):
    """The files (and folders) a worker created or replaced under `under`."""
    return {path for event, path in events if event in ("open", "os.rename", "os.mkdir")
            and (path == under or path.startswith(under + os.sep))}


def test_keras_tutorial_runs_with_tf_config_on_two_native_workers(tmp_path):
    folder = _job_folder(tmp_path)
    outputs, (chief, other) = _run_with_tf_config(folder, ["keras_multi_worker.py", ROWS])
    for out in outputs:
        assert out.count("Epoch 3/3") == 2 and re.search(r"^2/2 \[=+\]", out, re.M), out
    _same_model(outputs, 1e-5)
    # The chief's coordinator keeps no checkpoints of the job's state: it says so once,
    # with what a TF_CONFIG user can do about it (not the coordinator command's option)
    said = [line for line in outputs[0].splitlines() if "keeps no checkpoints" in line]
    assert len(said) == 1 and "TEXFLOW_CHECKPOINT_DIR" in said[0], outputs[0][-3000:]
    assert "--checkpoint-dir" not in outputs[0]
    # The tutorial's ModelCheckpoint(filepath='/tmp/keras-ckpt.keras'): the chief writes
    # it at each of the 3 epochs; the other worker writes /tmp/workertemp_1/keras-ckpt.keras
    # instead, never the real path, and removes that folder after each save.
    real, temp = "/tmp/keras-ckpt.keras", "/tmp/workertemp_1"
    renamed = [p for e, p in chief if e == "os.rename" and p == real]
    assert len(renamed) == 3, chief
    assert not _written(chief, temp)
    assert not _written(other, real) and not any(
        os.path.basename(p).startswith(".keras-ckpt.keras.tmp") and
        os.path.dirname(p) == "/tmp" for _, p in other), other
    saved = [p for e, p in other if e == "os.rename" and p == temp + "/keras-ckpt.keras"]
    removed = [p for e, p in other if e == "shutil.rmtree" and p == temp]
    assert len(saved) == 3 and len(removed) == 3, other
    assert not Path(temp).exists()


def test_custom_loop_tutorial_checkpoints_only_on_the_chief_with_tf_config(tmp_path):
    """Seed 004's main.py (3 epochs of 2 steps on 256 digits), its CheckpointManager
    made with the tutorial's own `_is_chief`/`write_filepath`: the chief saves into
    checkpoint_dir, the other worker into workertemp_1/ckpt, which it removes after
    each save; checkpoint_dir ends with the chief's last checkpoint, of the final model."""
    folder = _job_folder(tmp_path)
    shared = tmp_path / "shared"  # util.get_temp_dir() of both: a folder both reach
    shared.mkdir()
    outputs, (chief, other) = _run_with_tf_config(
        folder, ["main.py", ROWS, "--steps", "2", "--temp-dir", str(shared)])
    for out in outputs:
        assert len(re.findall(r"^Epoch: \d, accuracy: [\d.]+, train_loss: [\d.]+\.$",
                              out, re.M)) == 3, out[-3000:]
    _same_model(outputs, 1e-5)
    real, temp = str(shared / "ckpt"), str(shared / "workertemp_1")
    assert _written(chief, real) and not _written(chief, temp)
    assert _written(other, temp + "/ckpt")
    assert not _written(other, real), sorted(_written(other, real))
    removed = [p for e, p in other if e == "shutil.rmtree"]
    assert removed == [temp + "/ckpt"] * 3, other
    assert sorted(os.listdir(shared)) == ["ckpt", "workertemp_1"]
    assert os.listdir(temp) == []  # the tutorial removes write_checkpoint_dir, not its parent
    latest = tf.train.latest_checkpoint(real)
    assert latest == real + "/ckpt-3", os.listdir(real)  # max_to_keep=1: the last one only
    assert sorted(os.listdir(real)) == ["checkpoint", "ckpt-3.index"]  # one file each
    reader = tf.train.load_checkpoint(latest)
    assert reader.get_tensor("epoch") == 2
    assert reader.get_tensor("step_in_epoch") == 2
    names = sorted(n for n in reader.get_variable_to_shape_map() if n.startswith("model/"))
    sums = [float(np.sum(reader.get_tensor(n), dtype=np.float64)) for n in names]
    assert sorted(sums) == pytest.approx(sorted(w[0] for w in _weights(outputs[0])),
                                         rel=1e-6, abs=1e-6)


def test_keras_tutorial_on_a_browser_worker_and_a_native_worker(browser_session, tmp_path,
                                                                 log_levels):
    from texflow.coordinator import CoordinatorThread, Job

    log_levels({"websockets": logging.WARNING})
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
