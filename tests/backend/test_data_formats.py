"""TFRecord, Example and CSV against files TensorFlow wrote (tests/data/fixtures, made by
scripts/make_tf_fixtures.py), natively and inside Pyodide."""

import sys

import numpy as np

import data_helpers
import texflow as tf
from data_helpers import expected, fixture
from harness import IN_BROWSER, each_backend, raises

if not IN_BROWSER:
    data_helpers.register(sys.modules[__name__])

SPEC = {
    "label": tf.io.FixedLenFeature([], tf.int64),
    "big": tf.io.FixedLenFeature([3], tf.int64),
    "image": tf.io.FixedLenFeature([], tf.string),
    "xy": tf.io.FixedLenFeature([2], tf.float32),
    "tags": tf.io.VarLenFeature(tf.string),
    "ids": tf.io.VarLenFeature(tf.int64),
    "name": tf.io.FixedLenFeature([], tf.string),
    "optional": tf.io.FixedLenFeature([1], tf.float32, default_value=[-7.0]),
    "seq_ids": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=-1),
}


def _same(mine, theirs):
    if theirs.get("sparse"):
        assert isinstance(mine, tf.SparseTensor)
        assert mine.indices.tolist() == theirs["indices"]
        assert mine.dense_shape.tolist() == theirs["dense_shape"]
        mine = mine.values
        theirs = {"values": theirs["values"], "shape": [len(theirs["values"])],
                  "dtype": "string" if mine.dtype == object else str(mine.dtype)}
    arr = np.asarray(mine, dtype=object if isinstance(mine, bytes) else None)
    assert list(arr.shape) == theirs["shape"], (arr.shape, theirs["shape"])
    if arr.dtype == object:
        assert [b.hex() for b in arr.reshape(-1)] == theirs["values"]
    else:
        assert str(arr.dtype) == theirs["dtype"], (arr.dtype, theirs["dtype"])
        assert arr.reshape(-1).tolist() == theirs["values"]


@each_backend
def test_reads_tensorflow_tfrecord_files_in_every_compression():
    want = [bytes.fromhex(h) for h in expected()["examples_hex"]]
    for name, kind in (("examples.tfrecord", ""), ("examples_gzip.tfrecord", "GZIP"),
                       ("examples_zlib.tfrecord", "ZLIB")):
        assert list(tf.data.TFRecordDataset(fixture(name), compression_type=kind)) == want


@each_backend
def test_writer_is_byte_identical_to_tensorflow():
    import os
    import tempfile
    records = list(tf.data.TFRecordDataset(fixture("examples.tfrecord")))
    path = os.path.join(tempfile.mkdtemp(), "mine.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for r in records:
            writer.write(r)
    with open(path, "rb") as mine, open(fixture("examples.tfrecord"), "rb") as theirs:
        assert mine.read() == theirs.read()
    for kind in ("GZIP", "ZLIB"):
        with tf.io.TFRecordWriter(path + kind, tf.io.TFRecordOptions(kind)) as writer:
            for r in records:
                writer.write(r)
        assert list(tf.data.TFRecordDataset(path + kind, kind)) == records


def _example(i):
    rng = np.random.default_rng(4)
    images = [rng.integers(0, 256, 12, dtype=np.uint8).tobytes() for _ in range(i + 1)]
    f = tf.train.Feature
    feats = {
        "label": f(int64_list=tf.train.Int64List(value=[i - 2])),
        "big": f(int64_list=tf.train.Int64List(value=[2**40 + i, -(2**62), 0])),
        "image": f(bytes_list=tf.train.BytesList(value=[images[i]])),
        "xy": f(float_list=tf.train.FloatList(value=[float(i) / 3, -1.5e-3 * i])),
        "tags": f(bytes_list=tf.train.BytesList(value=[b"t%d" % k for k in range(i % 3)])),
        "ids": f(int64_list=tf.train.Int64List(value=list(range(i)))),
        "name": f(bytes_list=tf.train.BytesList(value=[("caf\u00e9 %d" % i).encode()])),
    }
    if i % 2:
        feats["optional"] = f(float_list=tf.train.FloatList(value=[1.0 + i]))
    if i == 4:
        feats["empty"] = tf.train.Feature()
    return tf.train.Example(features=tf.train.Features(feature=feats))


@each_backend
def test_example_serialization_is_byte_identical_to_tensorflow():
    want = expected()["examples_hex"]
    for i, hex_bytes in enumerate(want):
        ex = _example(i)
        assert ex.SerializeToString().hex() == hex_bytes
        back = tf.train.Example.FromString(bytes.fromhex(hex_bytes))
        assert back == ex
        assert back.features.feature["label"].int64_list.value == [i - 2]


@each_backend
def test_parsing_matches_tensorflow():
    exp = expected()
    records = list(tf.data.TFRecordDataset(fixture("examples.tfrecord")))
    for record, theirs in zip(records, exp["parse_single"]):
        mine = tf.io.parse_single_example(record, SPEC)
        assert sorted(mine) == sorted(theirs)
        for key in theirs:
            _same(mine[key], theirs[key])
    batch = tf.io.parse_example(records, SPEC)
    for key, theirs in exp["parse_batch"].items():
        _same(batch[key], theirs)
    # The same through a pipeline: batch, then parse (the guide's advice for sparse data).
    ds = tf.data.TFRecordDataset(fixture("examples.tfrecord")).batch(6).map(
        lambda rec: tf.io.parse_example(rec, SPEC))
    (parsed,) = list(ds)
    _same(parsed["ids"], exp["parse_batch"]["ids"])


@each_backend
def test_sequence_examples_match_tensorflow():
    exp = expected()
    records = list(tf.data.TFRecordDataset(fixture("sequence.tfrecord")))
    assert [r.hex() for r in records] == exp["sequence_hex"]
    for record, theirs in zip(records, exp["sequence"]):
        ctx, seq = tf.io.parse_single_sequence_example(
            record, context_features={"length": tf.io.FixedLenFeature([], tf.int64)},
            sequence_features={"steps": tf.io.FixedLenSequenceFeature([2], tf.float32),
                               "words": tf.io.VarLenFeature(tf.string)})
        _same(ctx["length"], theirs["context"]["length"])
        for key in ("steps", "words"):
            _same(seq[key], theirs["sequence"][key])


@each_backend
def test_csv_parses_as_tensorflow_does():
    rows = list(tf.data.experimental.CsvDataset(
        fixture("tricky.csv"), ["int32", ["dflt"], "float32", [np.int64(9)], ["na!"]],
        na_value="NA").as_numpy_iterator())
    theirs = expected()["csv_rows"]
    assert len(rows) == len(theirs)
    for row, want in zip(rows, theirs):
        for value, w in zip(row, want):
            if isinstance(value, bytes):
                assert value.hex() == w
            elif w is None or (isinstance(w, float) and w != w):
                assert np.isnan(value)
            else:
                assert value == w
    assert [type(v) for v in rows[0]] == [np.int32, bytes, np.float32, np.int64, bytes]


@each_backend
def test_corrupted_and_truncated_records_name_file_record_and_offset():
    from texflow.data import MemorySource
    with open(fixture("examples.tfrecord"), "rb") as f:
        data = f.read()
    first = 12 + int.from_bytes(data[:8], "little") + 4
    bad = bytearray(data)
    bad[first + 20] ^= 0x40
    with raises(tf.errors.DataLossError, match=f"byte offset {first} of bad.tfrecord "
                                               r"\(record 1\).*checksum of its data"):
        list(tf.data.TFRecordDataset(MemorySource(bytes(bad), "bad.tfrecord")))
    bad = bytearray(data)
    bad[first + 2] ^= 1
    with raises(tf.errors.DataLossError, match="record 1.*checksum of its length"):
        list(tf.data.TFRecordDataset(MemorySource(bytes(bad), "bad.tfrecord")))
    with raises(tf.errors.DataLossError, match=r"truncated record .* of cut\.tfrecord"):
        list(tf.data.TFRecordDataset(MemorySource(data[:-5], "cut.tfrecord")))
    with raises(tf.errors.DataLossError, match="truncated GZIP data"):
        list(tf.data.TFRecordDataset(MemorySource(open(fixture("examples_gzip.tfrecord"),
                                                       "rb").read()[:-30], "z"), "GZIP"))
    ds = tf.data.TFRecordDataset([MemorySource(bytes(bad), "bad"),
                                  fixture("examples.tfrecord")]).ignore_errors()
    assert len(list(ds)) == 1 + 6 and ds.skipped == 1
    assert "record 1" in ds.skipped_errors[0]
