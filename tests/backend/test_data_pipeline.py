"""tf.data.Dataset semantics, natively and inside Pyodide (where prefetch and parallel
map run in-line: the results must be the same)."""

import os
import tempfile

import numpy as np

import texflow as tf
from harness import each_backend, raises

Dataset = tf.data.Dataset


def _values(ds):
    return [np.asarray(x).tolist() for x in ds]


@each_backend
def test_sources_and_elementwise_transformations():
    assert _values(Dataset.range(10).filter(lambda x: x % 2 == 0).map(lambda x: x * 10)) == \
        [0, 20, 40, 60, 80]
    assert list(Dataset.from_tensor_slices({"a": [1, 2], "b": ["x", "y"]})) == \
        [{"a": 1, "b": b"x"}, {"a": 2, "b": b"y"}]
    (x, y), = list(Dataset.from_tensors(([1, 2], 3.0)))
    assert x.dtype == np.int32 and y.dtype == np.float32 and x.tolist() == [1, 2]
    pairs = list(Dataset.from_tensor_slices((np.arange(3), np.arange(3) * 2.0)))
    assert [(int(a), float(b)) for a, b in pairs] == [(0, 0.0), (1, 2.0), (2, 4.0)]

    def gen(n):
        for i in range(int(n)):
            yield i, [i] * 2
    ds = Dataset.from_generator(gen, output_types=("int64", "float32"),
                                output_shapes=((), (2,)), args=(3,))
    assert [(int(a), b.tolist()) for a, b in ds] == [(0, [0, 0]), (1, [1, 1]), (2, [2, 2])]
    assert list(Dataset.range(3).enumerate(5)) == [(5, 0), (6, 1), (7, 2)]
    assert _values(Dataset.range(3).concatenate(Dataset.range(2))) == [0, 1, 2, 0, 1]
    assert _values(Dataset.zip((Dataset.range(3), Dataset.range(5)))) == [[0, 0], [1, 1],
                                                                           [2, 2]]
    assert int(Dataset.range(5).reduce(0, lambda s, x: s + x)) == 10


@each_backend
def test_batching():
    assert _values(Dataset.range(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert _values(Dataset.range(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(Dataset.range(7).batch(3)) == 3
    padded = list(Dataset.range(4).map(lambda x: np.full(x, x)).padded_batch(2))
    assert [p.tolist() for p in padded] == [[[0], [1]], [[2, 2, 0], [3, 3, 3]]]
    padded = list(Dataset.range(2).map(lambda x: (np.full(x, x), x)).padded_batch(
        2, padded_shapes=([3], []), padding_values=(np.int64(-1), np.int64(0))))
    assert padded[0][0].tolist() == [[-1, -1, -1], [1, -1, -1]]
    assert _values(Dataset.range(6).batch(4).unbatch()) == list(range(6))
    assert _values(Dataset.range(6).batch(4).rebatch(3)) == [[0, 1, 2], [3, 4, 5]]
    with raises(tf.InvalidArgumentError, match="different shapes in component 0"):
        list(Dataset.range(3).map(lambda x: np.zeros(x)).batch(3))
    with raises(tf.InvalidArgumentError, match="greater than zero"):
        Dataset.range(3).batch(0)


@each_backend
def test_shuffle_interleave_repeat_take_skip_shard():
    ds = Dataset.range(10).shuffle(4, seed=7)
    first, second = _values(ds), _values(ds)
    assert sorted(first) == list(range(10)) and first != second  # reshuffled each iteration
    assert _values(Dataset.range(10).shuffle(4, seed=7)) == first  # seeded: repeatable
    fixed = Dataset.range(10).shuffle(10, seed=1, reshuffle_each_iteration=False)
    assert _values(fixed) == _values(fixed)
    inter = Dataset.range(1, 4).interleave(lambda x: Dataset.from_tensors(x).repeat(x),
                                           cycle_length=2, block_length=1)
    assert _values(inter) == [1, 2, 2, 3, 3, 3]  # TensorFlow's documented order
    assert _values(Dataset.range(2).flat_map(lambda x: Dataset.range(x + 1))) == [0, 0, 1]
    assert _values(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert Dataset.range(3).repeat().cardinality() == tf.data.INFINITE_CARDINALITY
    assert _values(Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert _values(Dataset.range(5).skip(3)) == [3, 4]
    assert _values(Dataset.range(7).shard(3, 1)) == [1, 4]
    with raises(tf.InvalidArgumentError, match="Index must be between 0 and 2"):
        Dataset.range(7).shard(3, 3)


@each_backend
def test_prefetch_parallel_map_and_cache_give_the_same_results():
    base = Dataset.range(50).map(lambda x: x * x)
    fast = Dataset.range(50).prefetch(3).map(lambda x: x * x, num_parallel_calls=4).prefetch(
        tf.data.AUTOTUNE)
    assert _values(fast) == _values(base)
    calls = []
    cached = Dataset.range(3).map(lambda x: calls.append(1) or x).cache()
    assert _values(cached) == _values(cached) == [0, 1, 2] and len(calls) == 3
    path = os.path.join(tempfile.mkdtemp(), "c")
    assert _values(Dataset.range(3).cache(path)) == [0, 1, 2]
    assert _values(Dataset.range(0).cache(path)) == [0, 1, 2]  # read back from the file


@each_backend
def test_errors_are_raised_in_place_and_ignore_errors_counts_them():
    ds = Dataset.from_tensor_slices([1, 0, 2]).map(lambda x: 6 // int(x))
    it = iter(ds)
    assert next(it) == 6
    with raises(ZeroDivisionError):
        next(it)
    assert next(it) == 3  # the pipeline goes on after an error
    skipping = ds.ignore_errors()
    assert _values(skipping) == [6, 3] and skipping.skipped == 1
    assert "ZeroDivisionError" in skipping.skipped_errors[0]
    it = iter(Dataset.range(1))
    it.get_next()
    with raises(tf.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()


@each_backend
def test_files_lines_and_fixed_length_records():
    from texflow.data import MemorySource
    folder = tempfile.mkdtemp()
    for i in range(3):
        with open(os.path.join(folder, f"f{i}.txt"), "w") as f:
            f.write(f"a{i}\r\nb{i}\n")
    names = list(Dataset.list_files(os.path.join(folder, "*.txt"), shuffle=False))
    assert [os.path.basename(n) for n in names] == [b"f0.txt", b"f1.txt", b"f2.txt"]
    lines = Dataset.list_files(os.path.join(folder, "*.txt"), shuffle=False).interleave(
        tf.data.TextLineDataset, cycle_length=2)
    assert list(lines) == [b"a0", b"a1", b"b0", b"b1", b"a2", b"b2"]
    with raises(tf.InvalidArgumentError, match="No files matched pattern"):
        Dataset.list_files(os.path.join(folder, "*.nothing"))
    # CIFAR-10 layout: 1 label byte + 3,072 image bytes, decoded and reshaped as the guide does.
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, (4, 3073), dtype=np.uint8)
    ds = tf.data.FixedLengthRecordDataset(MemorySource(raw.tobytes(), "cifar.bin"), 3073)
    ds = ds.map(lambda r: tf.io.decode_raw(r, tf.uint8)).map(
        lambda b: (b[0].astype(np.int32), b[1:].reshape(3, 32, 32).transpose(1, 2, 0)))
    label, image = list(ds)[2]
    assert label == raw[2, 0] and image.shape == (32, 32, 3)
    assert image[5, 7, 1] == raw[2, 1 + 1024 + 5 * 32 + 7]
    with raises(tf.errors.DataLossError, match=r"cifar\.bin: 10 bytes at byte offset 6146 "
                                              r"\(record 2\)"):
        list(tf.data.FixedLengthRecordDataset(MemorySource(raw.tobytes()[:6156], "cifar.bin"),
                                              3073))
    with raises(tf.errors.NotFoundError, match="No such file"):
        list(tf.data.TextLineDataset(os.path.join(folder, "missing.txt")))


@each_backend
def test_csv_errors_name_file_and_line():
    from texflow.data import MemorySource
    text = b"a,b\n1,2\n3\n4,x\n5,\n6,7\n"
    ds = tf.data.experimental.CsvDataset(MemorySource(text, "t.csv"), ["int32", "int32"],
                                         header=True)
    it = iter(ds)
    assert next(it) == (1, 2)
    with raises(tf.InvalidArgumentError, match="Expect 2 fields but have 1 in record at line 3 "
                                               "of t.csv"):
        next(it)
    with raises(tf.InvalidArgumentError, match="Field 1 in record at line 4 of t.csv is not a "
                                               "valid int32: x"):
        next(it)
    with raises(tf.InvalidArgumentError, match="Field 1 is required but missing in record at "
                                               "line 5 of t.csv"):
        next(it)
    assert next(it) == (6, 7)
    kept = ds.ignore_errors()
    assert [b[0].tolist() for b in kept.batch(10)] == [[1, 6]] and kept.skipped == 3
    cols = tf.io.decode_csv([b'1,"a,""b"""', b"2,"], [[0], ["d"]])
    assert cols[0].tolist() == [1, 2] and cols[1].tolist() == [b'a,"b"', b"d"]
    with raises(tf.InvalidArgumentError, match="Expect 2 fields but have 1 in record 1"):
        tf.io.decode_csv([b"1,2", b"3"], [[0], [0]])
    with raises(tf.InvalidArgumentError, match="Unquoted fields cannot have quotes"):
        tf.io.decode_csv([b'a"b,2'], [[""], [0]])


@each_backend
def test_make_csv_dataset_infers_types_and_splits_the_label():
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "m.csv")
    with open(path, "w") as f:
        f.write("a,b,c,d\n1,2.5,x,3000000000\n2,,y,4\n")
    (features, label), = list(tf.data.experimental.make_csv_dataset(
        path, batch_size=4, num_epochs=1, shuffle=False, label_name="a"))
    assert list(features) == ["b", "c", "d"] and label.tolist() == [1, 2]
    assert features["b"].dtype == np.float32 and features["b"].tolist() == [2.5, 0.0]
    assert features["d"].dtype == np.int64 and features["c"].tolist() == [b"x", b"y"]


@each_backend
def test_options_carry_the_auto_shard_policy():
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        tf.data.experimental.AutoShardPolicy.DATA
    ds = Dataset.range(4).with_options(options).map(lambda x: x).batch(2)
    assert ds.options().experimental_distribute.auto_shard_policy == \
        tf.data.experimental.AutoShardPolicy.DATA
    assert Dataset.range(2).options().experimental_distribute.auto_shard_policy == \
        tf.data.experimental.AutoShardPolicy.AUTO
    with raises(tf.InvalidArgumentError, match="no option 'nonsense'"):
        options.nonsense = 1


@each_backend
def test_batches_move_to_the_backend():
    x, y = next(iter(Dataset.from_tensor_slices((np.ones((4, 3), np.float32),
                                                 np.arange(4))).batch(4)))
    arr = tf.array(x)  # a model consumes a batch: it becomes an NDArray on the backend
    assert arr.shape == (4, 3) and float(tf.sum(arr).numpy()) == 12.0
    assert tf.array(y).dtype == "int32"


@each_backend
def test_constructing_runs_no_pipeline_element_spec_runs_it_briefly():
    # TensorFlow checks element types at construction without running anything; a spec that
    # needs texflow's data (a map's) is read only when element_spec is asked for
    calls = []
    ds = Dataset.range(10).map(lambda x: calls.append(int(x)) or x)
    ds.concatenate(ds), ds.unique(), Dataset.sample_from_datasets([ds, ds])
    Dataset.choose_from_datasets([ds], Dataset.range(1)), ds.batch(2).padded_batch(2)
    assert calls == []
    assert ds.batch(3).element_spec == tf.TensorSpec([None], tf.int64)
    assert calls == [0, 1]  # two elements: the sizes that vary between them are None
