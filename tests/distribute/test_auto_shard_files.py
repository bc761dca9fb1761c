"""Auto-sharding by files against TensorFlow 2.21: tests/data/distribute/file_shards.json holds
what each of two MultiWorkerMirroredStrategy processes took from file pipelines (written by
scripts/make_tf_shard_fixtures.py); here two stand-in workers in threads take the same
pipelines through `experimental_distribute_dataset`'s iterator, agreeing at each step
through a barrier where the real ones all-reduce."""

import importlib.util
import json
import threading
from pathlib import Path

import numpy as np
import pytest

import texflow as tf
from texflow.distribute import input_lib
from texflow.distribute.strategy import StrategyExtended

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURE = json.loads((ROOT / "tests" / "data" / "distribute" / "file_shards.json").read_text())
_spec = importlib.util.spec_from_file_location(
    "make_tf_shard_fixtures", ROOT / "scripts" / "make_tf_shard_fixtures.py")
SCRIPT = importlib.util.module_from_spec(_spec)  # imports no TensorFlow at the top
_spec.loader.exec_module(SCRIPT)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The fixture script's files: f<k>.tfrecord holding k + 3 records b"<k>:<j>"."""
    path = tmp_path_factory.mktemp("shards")
    for k in range(3):
        with tf.io.TFRecordWriter(str(path / f"f{k}.tfrecord")) as w:
            for j in range(k + 3):
                w.write(f"{k}:{j}".encode())
    return path


def _pipeline(name, folder):
    """The fixture script's pipeline `name`, built with texflow (the script builds it with
    whichever `tf` it is given)."""
    return SCRIPT.pipeline(tf, name, str(folder))


class _Worker:
    """Worker `index` of two; `_cross_worker` sums the two workers' values (a barrier)."""

    def __init__(self, index, shared):
        self.extended = StrategyExtended(self)
        self.extended.worker_count, self.extended.worker_index = 2, index
        self.extended._cross_worker = lambda arrays, op="sum": shared(index, arrays[0])


def _alone(index, value):  # a worker read by itself: no other to wait for
    return [value]


def _run_pair(make):
    """Each worker's steps (lists of values) or {"error", "message"}, run side by side."""
    barrier, flags, out = threading.Barrier(2, timeout=30), [None, None], [None, None]

    def shared(index, value):
        flags[index] = value
        barrier.wait()
        total = flags[0] + flags[1]
        barrier.wait()
        return [total]

    def work(index):
        try:
            steps = []
            for value in input_lib.DistributedDataset(_Worker(index, shared), make()):
                steps.append([v.decode() if isinstance(v, bytes) else int(v)
                              for v in np.asarray(value).tolist()])
            out[index] = {"steps": steps}
        except Exception as e:  # noqa: BLE001 (compared with what TensorFlow raised)
            barrier.abort()
            out[index] = {"error": type(e).__name__, "message": str(e)}
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _with_policy(ds, policy):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        getattr(tf.data.experimental.AutoShardPolicy, policy)
    return ds.with_options(options)


def _files(worker):
    return sorted({v.split(":")[0] for step in worker["steps"] for v in step})


@pytest.mark.parametrize("case", sorted(FIXTURE["cases"]))
def test_workers_take_what_tensorflow_workers_took(case, folder):
    name, policy = case.split("/")
    want = FIXTURE["cases"][case]
    if name == "range_batch4" and policy == "FILE":
        # TensorFlow raises NotFoundError (want); texflow falls back to DATA with a warning
        assert want[0]["error"] == "NotFoundError"
        with pytest.warns(UserWarning, match="falls back to sharding by data"):
            got = _run_pair(lambda: _with_policy(_pipeline(name, folder), policy))
        assert got == FIXTURE["cases"]["range_batch4/AUTO"]
        return
    got = _run_pair(lambda: _with_policy(_pipeline(name, folder), policy))
    if name == "one_file":
        # TensorFlow's worker 0 raised this; worker 1, blocked on it, saw the group abort
        assert want[0]["error"] == "InvalidArgumentError"
        assert [g["error"] for g in got] == ["InvalidArgumentError"] * 2
        assert got[0]["message"] == want[0]["message"]
    elif "shuffle" in name:  # the same files per worker, each in its shuffled order
        assert [_files(g) for g in got] == [_files(w) for w in want] == [["0", "2"], ["1"]]
        assert [[len(s) for s in g["steps"]] for g in got] == \
            [[len(s) for s in w["steps"]] for w in want]
    else:
        assert got == want


def test_every_file_reader_is_sharded_by_its_files(tmp_path):
    """TextLine, FixedLengthRecord and Csv readers, make_csv_dataset and a zip of two
    readers: worker w reads files w, w + 2, ...; a zip with a part not read from files is
    sharded by data."""
    for k in range(3):
        (tmp_path / f"t{k}.csv").write_text(f"a,b\n{k},{10 * k}\n{k},{10 * k + 1}\n")
        (tmp_path / f"r{k}.bin").write_bytes(bytes([k, k, k, k]))
    texts = [str(tmp_path / f"t{k}.csv") for k in range(3)]
    bins = [str(tmp_path / f"r{k}.bin") for k in range(3)]
    pipelines = {
        "text": lambda: tf.data.TextLineDataset(texts).skip(0),
        "fixed": lambda: tf.data.FixedLengthRecordDataset(bins, 2).map(lambda r: r[:1]),
        "csv": lambda: tf.data.experimental.CsvDataset(texts, [0, 0], header=True).map(
            lambda a, b: a),
        "make_csv": lambda: tf.data.experimental.make_csv_dataset(
            str(tmp_path / "t*.csv"), 1, num_epochs=1, shuffle=False).unbatch().map(
            lambda row: row["a"]),
        "zip": lambda: tf.data.Dataset.zip((tf.data.TextLineDataset(texts),
                                            tf.data.TextLineDataset(texts))).map(
            lambda a, b: a),
    }
    want = {"text": [[b"a,b", b"0,0", b"0,1", b"a,b", b"2,20", b"2,21"],
                     [b"a,b", b"1,10", b"1,11"]],
            "fixed": [[b"\x00", b"\x00", b"\x02", b"\x02"], [b"\x01", b"\x01"]],
            "csv": [[0, 0, 2, 2], [1, 1]], "make_csv": [[0, 0, 2, 2], [1, 1]]}
    want["zip"] = want["text"]
    for key, make in pipelines.items():
        got = [list(input_lib.worker_dataset(_Worker(i, _alone), make()).as_numpy_iterator())
               for i in range(2)]
        assert [[v.item() if hasattr(v, "item") else v for v in g] for g in got] == \
            want[key], key
    # a part not read from files: the zip is sharded by data, element by element
    mixed = tf.data.Dataset.zip((tf.data.TextLineDataset(texts),
                                 tf.data.Dataset.range(100))).map(lambda a, b: b)
    assert list(input_lib.worker_dataset(_Worker(1, _alone), mixed).as_numpy_iterator()) == \
        [1, 3, 5, 7]  # 9 lines: 0..8


def test_all_pieces_cardinality_counts_a_short_last_batch():
    # OFF: every piece of every batch, a short last batch cut as TensorFlow's rebatch does
    ds = _with_policy(tf.data.Dataset.range(12).batch(5), "OFF")
    for index in range(2):
        mine = input_lib.worker_dataset(_Worker(index, None), ds)
        pieces = [b.tolist() for b in mine.as_numpy_iterator()]
        assert len(pieces) == int(mine.cardinality()) == 5
        assert pieces[-1] == [10, 11]
