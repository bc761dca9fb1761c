"""A process killed (SIGKILL) while it writes checkpoints leaves the previous checkpoint
readable: a writer saves large checkpoints in a loop, and is killed at random moments,
again and again; after each kill the latest checkpoint must load, whole and consistent,
and the next writer resumes from it."""

import os
import random
import signal
import subprocess
import sys

import numpy as np
import pytest

import texflow as tf
from texflow.checkpoint import safetensors

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

SIZE = 4_000_000   # 16 MB of float32 per checkpoint: writing takes a while, kills land in it

WRITER = f"""
import sys
import numpy as np
import texflow as tf
from texflow.checkpoint import safetensors
directory = sys.argv[1]
values = tf.Variable(np.zeros({SIZE}, np.float32))
step = tf.Variable(np.int32(0))
manager = tf.train.CheckpointManager(tf.train.Checkpoint(values=values, step=step),
                                     directory, max_to_keep=2)
manager.restore_or_initialize()
print("ready", int(step.numpy()), flush=True)
while True:
    step.assign_add(1)
    n = int(step.numpy())
    values.assign(np.full({SIZE}, float(n), np.float32))
    manager.save()
    # a file saved again and again under one name (as save_weights and model.save do)
    safetensors.save(directory + "/fixed.safetensors",
                     {{"values": np.full({SIZE}, float(n), np.float32),
                       "step": np.array(n, np.int32)}})
"""


def _latest(directory):
    path = tf.train.latest_checkpoint(directory)
    if path is None:
        return 0
    values = tf.Variable(np.zeros(SIZE, np.float32))
    step = tf.Variable(np.int32(-1))
    tf.train.Checkpoint(values=values, step=step).restore(path).assert_consumed()
    n = int(step.numpy())
    assert path.endswith(f"ckpt-{n}"), (path, n)
    assert np.all(values.numpy() == n), f"{path}: values of another step than {n}"
    return n


def test_killed_writers_leave_the_previous_checkpoint_readable(tmp_path):
    directory = str(tmp_path)
    rng = random.Random(7)
    steps, killed_mid_write, leftovers = [], 0, set()
    # At least 6 kills, and more (up to 16) until 2 of them have cut a write short: where
    # a kill lands is up to the machine's timing (in one full suite run only 1 of 6 did).
    for kills in range(1, 17):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, directory],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ready = proc.stdout.readline().split()
            assert ready and ready[0] == "ready", proc.stderr.read()
            assert int(ready[1]) == (steps[-1] if steps else 0)   # resumed from the latest
            try:
                proc.wait(timeout=rng.uniform(0.2, 1.0))
            except subprocess.TimeoutExpired:
                pass
            assert proc.poll() is None, f"the writer died on its own: {proc.stderr.read()}"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        temps = {n for n in os.listdir(directory) if ".tmp-" in n}
        killed_mid_write += bool(temps - leftovers)   # a write was cut short
        leftovers = temps
        steps.append(_latest(directory))
        fixed = os.path.join(directory, "fixed.safetensors")
        if os.path.exists(fixed):
            data, _ = safetensors.load(fixed)
            assert np.all(data["values"] == int(data["step"]))
        if kills >= 6 and killed_mid_write >= 2:
            break
    assert steps == sorted(steps) and steps[-1] > 0, steps
    # The kills must have hit writes in progress for this test to mean anything.
    assert killed_mid_write >= 2, f"only {killed_mid_write} of {kills} kills interrupted a write"
