#!/usr/bin/env python3
"""Writes tests/data/distribute/file_shards.json: what each of two TensorFlow workers
(MultiWorkerMirroredStrategy, two processes, TF_CONFIG) takes from file pipelines under
each auto-shard policy. Run once, by hand, with TensorFlow's Python (never a test
dependency):

    $TF_PYTHON scripts/make_tf_shard_fixtures.py

The files: three TFRecord files `f0.tfrecord`.. `f2.tfrecord` whose records are the bytes
b"<file>:<record>", file k holding k + 3 records (3, 4 and 5), written to a temporary
folder; tests write the same files with texflow's writer. Each case is a pipeline built by
`pipeline(tf, name, folder)` (tests/distribute/test_auto_shard_files.py builds the same
ones with texflow as `tf`), given an auto-shard policy; for each worker the JSON holds its
steps (the per-replica values of `experimental_distribute_dataset`) or the error raised.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "distribute"
FILES = 3
# Runs of (pipeline, policies); a case that raises runs in its own pair of processes (an
# error on one worker leaves the other's collectives broken for what follows).
RUNS = [
    [("tfrecord_batch4", ["AUTO", "FILE", "DATA", "OFF"]), ("tfrecord_batch3", ["FILE"]),
     ("tfrecord_batch5", ["OFF", "DATA"]),
     ("list_files_interleave", ["AUTO", "FILE"]), ("list_files_seeded_shuffle", ["AUTO"]),
     ("list_files_shuffle", ["AUTO"]), ("range_batch4", ["AUTO"])],
    [("one_file", ["AUTO"])],
    [("one_file", ["FILE"])],
    [("range_batch4", ["FILE"])],
]


def pipeline(tf, name, folder):
    names = [os.path.join(folder, f"f{k}.tfrecord") for k in range(FILES)]
    pattern = os.path.join(folder, "f*.tfrecord")
    if name == "tfrecord_batch4":
        return tf.data.TFRecordDataset(names).batch(4)
    if name == "tfrecord_batch3":
        return tf.data.TFRecordDataset(names).batch(3)
    if name == "tfrecord_batch5":  # a short last batch (5, 5, 2)
        return tf.data.TFRecordDataset(names).batch(5)
    if name == "list_files_interleave":
        return tf.data.Dataset.list_files(pattern, shuffle=False).interleave(
            tf.data.TFRecordDataset, cycle_length=2, block_length=1).batch(4)
    if name == "list_files_seeded_shuffle":
        return tf.data.Dataset.list_files(pattern, shuffle=True, seed=7).flat_map(
            tf.data.TFRecordDataset).batch(4)
    if name == "list_files_shuffle":  # shuffled without a seed
        return tf.data.Dataset.list_files(pattern).flat_map(tf.data.TFRecordDataset).batch(4)
    if name == "one_file":
        return tf.data.TFRecordDataset(names[:1]).batch(2)
    return tf.data.Dataset.range(8).batch(4)


def worker(index, ports, folder, result, run):
    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"worker": [f"localhost:{p}" for p in ports.split(",")]},
        "task": {"type": "worker", "index": int(index)}})
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    got = {}
    for name, policies in RUNS[int(run)]:
        for policy in policies:
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = \
                getattr(tf.data.experimental.AutoShardPolicy, policy)
            ds = pipeline(tf, name, folder).with_options(options)
            try:
                steps = []
                for value in strategy.experimental_distribute_dataset(ds):
                    for part in strategy.experimental_local_results(value):
                        steps.append([v.decode() if isinstance(v, bytes) else int(v)
                                      for v in part.numpy().tolist()])
                got[f"{name}/{policy}"] = {"steps": steps}
            except Exception as e:  # recorded: what TensorFlow raises is the fixture
                message = str(e).split("}} ", 1)[-1].splitlines()[0]
                got[f"{name}/{policy}"] = {"error": type(e).__name__, "message": message}
    with open(result, "w") as f:
        json.dump(got, f)


def main():
    if len(sys.argv) > 1:
        return worker(*sys.argv[1:])
    import socket
    import tensorflow as tf
    folder = tempfile.mkdtemp()
    for k in range(FILES):
        with tf.io.TFRecordWriter(os.path.join(folder, f"f{k}.tfrecord")) as w:
            for j in range(k + 3):
                w.write(f"{k}:{j}".encode())
    cases = {}
    for run in range(len(RUNS)):
        ports = []
        for _ in range(2):
            s = socket.socket()
            s.bind(("localhost", 0))
            ports.append(str(s.getsockname()[1]))
            s.close()
        results = [os.path.join(folder, f"w{i}_{run}.json") for i in range(2)]
        procs = [subprocess.Popen([sys.executable, __file__, str(i), ",".join(ports), folder,
                                   results[i], str(run)]) for i in range(2)]
        for p in procs:
            if p.wait(600):
                raise SystemExit(f"a worker failed: {p.returncode}")
        workers = []
        for r in results:
            with open(r) as f:
                workers.append(json.load(f))
        cases.update({key: [w[key] for w in workers] for key in workers[0]})
    out = {"tensorflow": tf.__version__, "workers": 2, "cases": cases}
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "file_shards.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(json.dumps(out["cases"], indent=None)[:6000])


if __name__ == "__main__":
    main()
