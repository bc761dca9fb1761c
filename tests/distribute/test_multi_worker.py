"""MultiWorkerMirroredStrategy across native processes set up by TF_CONFIG, as in
TensorFlow's tutorials: N workers with global batch B end with the weights of one
process with batch B over the same data (the workers seed their initializers
differently; the strategy starts them all from the chief's values)."""

import ast
import contextlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
JOB = HERE / "mw_job.py"
ROOT = HERE.parent.parent


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tf_config):
    env = dict(os.environ)
    env.pop("TEXFLOW_COORDINATOR", None)
    env.pop("TEXFLOW_TOKEN", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "py"), env.get("PYTHONPATH", "")])
    if tf_config is None:
        env.pop("TF_CONFIG", None)
    else:
        env["TF_CONFIG"] = json.dumps(tf_config)
    return env


def run_cluster(tmp_path, mode, num_workers):
    """Starts the workers and the one-process reference together; returns their weights."""
    port = _free_port()
    cluster = {"worker": [f"localhost:{port if i == 0 else _free_port()}"
                          for i in range(num_workers)]}
    procs = []
    for i in range(num_workers):
        config = {"cluster": cluster, "task": {"type": "worker", "index": i}}
        procs.append(subprocess.Popen(
            [sys.executable, str(JOB), mode, str(tmp_path / f"w{i}.npz"), str(i + 1),
             str(tmp_path / "shared")],
            env=_env(config), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    procs.append(subprocess.Popen(
        [sys.executable, str(JOB), mode, str(tmp_path / "ref.npz"), "1"],
        env=_env(None), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outputs = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=180)
            outputs.append(out)
            assert p.returncode == 0, out
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    ref = np.load(tmp_path / "ref.npz")
    workers = [np.load(tmp_path / f"w{i}.npz") for i in range(num_workers)]
    return ref, workers, outputs


@pytest.mark.parametrize("mode,num_workers", [("fit", 2), ("ctl", 3)])
def test_workers_end_with_the_weights_of_one_process(tmp_path, mode, num_workers):
    ref, workers, outputs = run_cluster(tmp_path, mode, num_workers)
    assert len(ref.files) == 4
    for i, (w, out) in enumerate(zip(workers, outputs)):
        assert f"done worker {i} {num_workers}" in out, out
        for key in ref.files:
            np.testing.assert_allclose(w[key], ref[key], rtol=1e-5, atol=1e-5,
                                       err_msg=f"worker {i}, weight {key}")
    assert "done None None 1" in outputs[-1]
    if mode == "fit":  # the chief's ModelCheckpoint wrote the model; the others' are gone
        assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == ["model.keras"]
        import texflow as tf
        saved = tf.keras.models.load_model(tmp_path / "shared" / "model.keras")
        for got, key in zip(saved.get_weights(), ref.files):
            np.testing.assert_allclose(got, ref[key], rtol=1e-5, atol=1e-5)
    if mode == "fit":  # dropout: each replica's masks and a fit repeat from the seed;
        # every worker ends the fit through Dropout with one model
        said = [next(line for line in out.splitlines() if line.startswith("dropout"))
                for out in outputs]
        assert all(line.split()[1:4] == ["True"] * 3 for line in said), said
        assert len({line.split()[4] for line in said[:-1]}) == 1, said
        # fit takes experimental_distribute_dataset's and distribute_datasets_from_function's
        # datasets (each worker's own rows) and ends where the plain dataset's fit does
        assert all("distributed_fit True True" in out for out in outputs), outputs
    if mode == "fit":  # epoch-end logs are over every worker's data: one process's
        for word in ("history", "evaluate"):
            lines = [next(line for line in out.splitlines() if line.startswith(word))
                     for out in outputs]
            assert lines[0] == lines[1], lines
            logs = [ast.literal_eval(line.split(" ", 1)[1]) for line in lines]
            for key, value in logs[-1].items():
                np.testing.assert_allclose(logs[0][key], value, rtol=1e-5, err_msg=key)


@pytest.mark.parametrize("keep", [False, True])
def test_a_tf_config_chief_keeps_checkpoints_in_texflow_checkpoint_dir(tmp_path, monkeypatch,
                                                                        keep):
    """A TF_CONFIG job has no coordinator command line: $TEXFLOW_CHECKPOINT_DIR is where
    the chief's coordinator keeps the job's state; without it, what the chief says when it
    cannot store one names what a TF_CONFIG user can do (two workers as threads here)."""
    import threading

    import texflow as tf
    from texflow.distribute import recovery

    monkeypatch.delenv("TEXFLOW_COORDINATOR", raising=False)
    monkeypatch.delenv("TEXFLOW_TOKEN", raising=False)
    if keep:
        monkeypatch.setenv("TEXFLOW_CHECKPOINT_DIR", str(tmp_path / "kept"))
    else:
        monkeypatch.delenv("TEXFLOW_CHECKPOINT_DIR", raising=False)
    spec = tf.distribute.cluster_resolver.ClusterSpec(
        {"worker": [f"localhost:{_free_port()}", f"localhost:{_free_port()}"]})
    strategies = [None, None]

    def make(i):
        strategies[i] = tf.distribute.MultiWorkerMirroredStrategy(
            tf.distribute.cluster_resolver.SimpleClusterResolver(
                spec, task_type="worker", task_id=i))
    threads = [threading.Thread(target=make, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    chief = strategies[0].extended
    try:
        assert chief.group.is_chief and strategies[1].extended.group.rank == 1
        lines = []
        state = recovery.TrainingState([tf.Variable([1.0, 2.0])])
        keeper = recovery.Keeper(chief.group, state, checkpoint_epochs=True, log=lines.append,
                                 checkpoint_hint=chief.checkpoint_hint)
        info = keeper.checkpoint()
        if keep:
            assert info["step"] == 0 and lines == []
            assert (tmp_path / "kept" / "latest").is_file()
            assert chief.group.latest_checkpoint()["step"] == 0
        else:
            assert info is None and len(lines) == 1, lines
            assert "TEXFLOW_CHECKPOINT_DIR=DIR for the chief" in lines[0], lines
            assert "BackupAndRestore" in lines[0] and "--checkpoint-dir" not in lines[0]
    finally:
        for s in reversed(strategies):
            if s is not None:
                s.extended._leave()


def test_cross_worker_reduce_gather_and_input_contexts_follow_tensorflow(monkeypatch,
                                                                          tmp_path):
    """Two workers (threads, TF_CONFIG-style resolvers) with uneven rows: what TensorFlow
    2.21's MultiWorkerMirroredStrategy gave two processes running the same calls (a dataset
    read from files: each worker its files, the one with fewer steps getting empty batches
    until both are done, tests/data/distribute/file_shards.json); then a
    collective the other worker never joins outlasts CommunicationOptions.timeout_seconds
    and raises DeadlineExceededError, as TensorFlow's do."""
    import texflow as tf

    got = [{}, {}]
    names = [str(tmp_path / f"f{k}.tfrecord") for k in range(3)]
    for k, name in enumerate(names):  # as scripts/make_tf_shard_fixtures.py writes them
        with tf.io.TFRecordWriter(name) as w:
            for j in range(k + 3):
                w.write(f"{k}:{j}".encode())

    def work(i, s):
        out = got[i]
        rows = tf.constant([[1.0, 2.0]] * (i + 1)) * float(i + 1)  # 1 row, then 2
        out["mean0"] = s.reduce("MEAN", rows, axis=0).numpy().tolist()
        out["sum0"] = s.reduce(tf.distribute.ReduceOp.SUM, rows, axis=0).numpy().tolist()
        out["mean"] = s.reduce("MEAN", tf.constant([1.0, 2.0]) * float(i + 1),
                               axis=None).numpy().tolist()
        out["gather"] = s.gather(rows, axis=0).numpy().tolist()
        out["replica"] = s.run(
            lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
        contexts = []

        def dataset_fn(context):
            contexts.append((context.num_input_pipelines, context.input_pipeline_id,
                             context.num_replicas_in_sync,
                             context.get_per_replica_batch_size(4)))
            return tf.data.Dataset.range(4).shard(
                context.num_input_pipelines, context.input_pipeline_id).batch(2)
        out["from_fn"] = [b.numpy().tolist()
                          for b in s.distribute_datasets_from_function(dataset_fn)]
        out["contexts"] = contexts
        out["dataset"] = [b.numpy().tolist() for b in s.experimental_distribute_dataset(
            tf.data.Dataset.range(8).batch(4))]
        out["files"] = [[v.decode() for v in b.tolist()] for b in
                        s.experimental_distribute_dataset(
                            tf.data.TFRecordDataset(names).batch(4))]

    with _two_workers(monkeypatch, work, 120) as strategies:
        for i in range(2):
            assert strategies[i].num_replicas_in_sync == 2
            assert (strategies[i].cluster_resolver.task_type,
                    strategies[i].cluster_resolver.task_id) == ("worker", i)
            assert got[i]["mean0"] == pytest.approx([5 / 3, 10 / 3])  # over all 3 rows
            assert got[i]["sum0"] == [5.0, 10.0] and got[i]["mean"] == [1.5, 3.0]
            assert got[i]["gather"] == [[1.0, 2.0], [2.0, 4.0], [2.0, 4.0]]
            assert got[i]["contexts"] == [(2, i, 2, 2)] and got[i]["replica"] == i
            assert got[i]["from_fn"] == [[i, i + 2]]
        assert got[0]["dataset"] == [[0, 1], [4, 5]] and got[1]["dataset"] == [[2, 3], [6, 7]]
        tf_files = json.loads((ROOT / "tests" / "data" / "distribute" / "file_shards.json")
                              .read_text())["cases"]["tfrecord_batch4/AUTO"]
        assert [g["files"] for g in got] == [w["steps"] for w in tf_files]
        strategies[0].extended.communication_options.timeout_seconds = 0.5
        with pytest.raises(tf.errors.DeadlineExceededError, match="timeout_seconds=0.5"):
            strategies[0].reduce("SUM", tf.constant(1.0), axis=None)  # worker 1 never does
        with pytest.raises(tf.errors.DeadlineExceededError, match="aborted by: a collective"):
            strategies[0].gather(tf.constant([1.0]), axis=0)  # as TensorFlow's: restart


def test_fit_on_files_of_uneven_sizes_runs_as_many_steps_on_every_worker(monkeypatch,
                                                                         tmp_path):
    """AUTO shards CSV files by file: worker 0 reads 16 rows, worker 1 12; every worker
    runs 8 steps (worker 1 its last two on empty batches, adding zero gradients) and both
    end with one model instead of waiting on each other's collectives."""
    import texflow as tf

    rng = np.random.RandomState(0)
    names = []
    for k in range(3):  # 4, 12 and 12 rows: worker 0 reads files 0 and 2, worker 1 file 1
        x = rng.rand(4 + 4 * k if k < 2 else 12, 3).astype(np.float32)
        names.append(str(tmp_path / f"f{k}.csv"))
        np.savetxt(names[-1], np.c_[x, 2 * x.sum(1)], delimiter=",", fmt="%.6f")
    got = [None, None]

    def work(i, strategy):
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(
                1, kernel_initializer="ones")])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        ds = tf.data.experimental.CsvDataset(names, [0.0] * 4).map(
            lambda a, b, c, d: (tf.stack([a, b, c]), d)).batch(4)
        steps = []
        model.fit(ds, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.LambdaCallback(
            on_train_batch_end=lambda batch, logs: steps.append(batch))])
        got[i] = (len(steps), model.get_weights())

    with _two_workers(monkeypatch, work, 60):
        assert got[0][0] == got[1][0] == 8
        for a, b in zip(got[0][1], got[1][1]):
            np.testing.assert_array_equal(a, b)
        assert not np.allclose(got[0][1][0], 1.0)  # it trained


@contextlib.contextmanager
def _two_workers(monkeypatch, work, timeout_seconds):
    """Two MultiWorkerMirroredStrategy workers in threads (TF_CONFIG-style resolvers), each
    running `work(index, strategy)`; yields the strategies, which leave afterwards."""
    import threading

    import texflow as tf

    for name in ("TEXFLOW_COORDINATOR", "TEXFLOW_TOKEN", "TEXFLOW_CHECKPOINT_DIR"):
        monkeypatch.delenv(name, raising=False)
    spec = tf.distribute.cluster_resolver.ClusterSpec(
        {"worker": [f"localhost:{_free_port()}", f"localhost:{_free_port()}"]})
    strategies, failed = [None, None], []

    def make(i):
        strategies[i] = tf.distribute.MultiWorkerMirroredStrategy(
            tf.distribute.cluster_resolver.SimpleClusterResolver(
                spec, task_type="worker", task_id=i),
            tf.distribute.experimental.CommunicationOptions(timeout_seconds=timeout_seconds))

    def run(i):
        try:
            work(i, strategies[i])
        except BaseException as e:  # the assertion below says which worker failed
            failed.append((i, e))
    try:
        for target in (make, run):
            threads = [threading.Thread(target=target, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
        assert not failed, failed
        yield strategies
    finally:
        for s in reversed(strategies):
            if s is not None:
                s.extended._leave()
