"""texflow's safetensors writer and reader against the reference `safetensors` library,
malformed files, and atomic writes."""

import json
import os
import struct

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

from texflow.checkpoint import atomic, safetensors
from texflow.errors import DataLossError

DTYPES = ["float32", "float64", "float16", "int32", "int64", "int16", "int8", "uint8",
          "uint16", "uint32", "uint64", "bool"]
SHAPES = [(), (0,), (1,), (3, 4), (2, 0, 5), (2, 3, 4, 5), (70_000,)]


def _tensors(rng):
    out = {}
    for i, (dtype, shape) in enumerate((d, s) for d in DTYPES for s in SHAPES):
        values = rng.normal(size=shape) * 100
        out[f"t{i}/{dtype}/{len(shape)}"] = np.asarray(values > 0 if dtype == "bool"
                                                       else values.astype(dtype))
    return out


def _same(a, b):
    assert sorted(a) == sorted(b)
    for key in a:
        assert a[key].dtype == b[key].dtype, key
        assert a[key].shape == b[key].shape, key
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_reference_library_reads_texflow_files(tmp_path):
    tensors = _tensors(np.random.default_rng(0))
    path = tmp_path / "ours.safetensors"
    safetensors.save(path, tensors, {"format": "test", "note": "ünïcode"})
    _same(load_file(str(path)), tensors)
    with safe_open(str(path), framework="numpy") as f:
        assert f.metadata() == {"format": "test", "note": "ünïcode"}
    # Header padded to 8 bytes, every tensor aligned to its element size.
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    assert size % 8 == 0
    header = json.loads(data[8:8 + size])
    for key, info in header.items():
        if key != "__metadata__":
            assert info["data_offsets"][0] % tensors[key].dtype.itemsize == 0, key


def test_texflow_reads_reference_library_files(tmp_path):
    tensors = _tensors(np.random.default_rng(1))
    path = tmp_path / "theirs.safetensors"
    save_file(tensors, str(path), metadata={"who": "reference"})
    loaded, metadata = safetensors.load(path)
    _same(loaded, tensors)
    assert metadata == {"who": "reference"}
    # bytes in memory too, and dumps() equals what write() streams to a file
    _same(safetensors.loads(path.read_bytes())[0], tensors)
    assert safetensors.dumps(tensors) == _written(tmp_path / "x", tensors)


def _written(path, tensors):
    with open(path, "wb") as f:
        safetensors.write(f, tensors)
    return path.read_bytes()


def test_big_endian_and_non_contiguous_inputs_are_written_little_endian(tmp_path):
    big = np.arange(12, dtype=">f4").reshape(3, 4)
    strided = np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::2]
    path = tmp_path / "a.safetensors"
    safetensors.save(path, {"big": big, "strided": strided})
    loaded = load_file(str(path))
    np.testing.assert_array_equal(loaded["big"], big)
    np.testing.assert_array_equal(loaded["strided"], strided)


@pytest.mark.parametrize("damage, match", [
    (lambda d: d[:5], "fewer than the 8-byte header"),
    (lambda d: d[:-3], "the file is truncated"),
    (lambda d: d + b"xyz", "truncated or padded"),
    (lambda d: struct.pack("<Q", 10**9) + d[8:], "header claims"),
    (lambda d: d[:8] + b"x" + d[9:], "not valid JSON"),
])
def test_damaged_files_raise_data_loss_naming_the_file(tmp_path, damage, match):
    good = safetensors.dumps({"a": np.ones((4, 4), np.float32), "b": np.arange(3)})
    path = tmp_path / "bad.safetensors"
    path.write_bytes(damage(good))
    with pytest.raises(DataLossError, match=match) as info:
        safetensors.load(path)
    assert "bad.safetensors" in str(info.value)


def test_entries_that_overlap_or_leave_gaps_raise():
    def file(header):
        text = json.dumps(header).encode()
        return struct.pack("<Q", len(text)) + text + bytes(16)
    gap = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
           "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}}
    with pytest.raises(DataLossError, match="must be contiguous"):
        safetensors.loads(file(gap))
    wrong = {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 16]}}
    with pytest.raises(DataLossError, match="needs 12 bytes"):
        safetensors.loads(file(wrong))
    unknown = {"a": {"dtype": "Q7", "shape": [4], "data_offsets": [0, 16]}}
    with pytest.raises(DataLossError, match="unsupported entry"):
        safetensors.loads(file(unknown))


def test_bad_names_and_metadata_are_refused():
    with pytest.raises(ValueError, match="non-empty string"):
        safetensors.dumps({"": np.ones(2)})
    with pytest.raises(ValueError, match="strings to strings"):
        safetensors.dumps({"a": np.ones(2)}, {"n": 3})


def test_atomic_write_keeps_the_old_file_when_the_writer_fails(tmp_path):
    path = tmp_path / "f.bin"
    atomic.write_bytes(path, b"old")
    with pytest.raises(RuntimeError):
        with atomic.atomic_write(path) as f:
            f.write(b"new, half written")
            raise RuntimeError("crash")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.bin"]          # the temporary file is gone
    atomic.write_text(path, "new")
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["f.bin"]
