"""The safetensors file format, written and read with the standard library and numpy.

A safetensors file is 8 bytes (a little-endian unsigned 64-bit header size N),
N bytes of JSON, then the tensors' bytes back to back:

    {"__metadata__": {"key": "string value", ...},
     "dense/kernel": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 48]}, ...}

Offsets count from the end of the header; together the tensors cover the data
exactly, with no gaps or overlaps. texflow writes the header padded with spaces to
a multiple of 8 bytes and the tensors largest element size first, so every
tensor starts aligned (as the reference `safetensors` library does).

Why our own code: the `safetensors` package is a compiled Rust extension that
does not run inside Pyodide, and the format is small enough to write exactly.
"""

import json
import struct

import numpy as np

from ..errors import DataLossError, InvalidArgumentError

# safetensors dtype names and their little-endian numpy dtypes.
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4",
          "I16": "<i2", "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2",
          "U8": "u1", "BOOL": "?"}
_NAMES = {np.dtype(v): k for k, v in DTYPES.items()}
MAX_HEADER = 100_000_000  # the reference library's limit on the JSON header


def dtype_name(array):
    """The safetensors name of `array`'s dtype ('F32', 'I32', 'BOOL', ...)."""
    name = _NAMES.get(np.dtype(array.dtype).newbyteorder("<"))
    if name is None:
        name = _NAMES.get(np.dtype(array.dtype))
    if name is None:
        raise InvalidArgumentError(f"safetensors has no dtype for numpy {array.dtype}")
    return name


def _layout(tensors, metadata):
    """(header bytes, [(name, little-endian contiguous array)]) for `tensors`."""
    arrays = []
    for name, value in tensors.items():
        if not isinstance(name, str) or not name or name == "__metadata__":
            raise InvalidArgumentError(f"a safetensors tensor name must be a non-empty string "
                                       f"other than '__metadata__', received {name!r}")
        array = np.asarray(value)
        arrays.append((name, array.astype(array.dtype.newbyteorder("<"), copy=False)))
    # Largest elements first so each tensor starts at a multiple of its element size.
    arrays.sort(key=lambda item: (-item[1].dtype.itemsize, item[0]))
    header = {}
    if metadata:
        for key, value in metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise InvalidArgumentError(f"safetensors metadata maps strings to strings, "
                                           f"received {key!r}: {type(value).__name__}")
        header["__metadata__"] = dict(metadata)
    offset = 0
    for name, array in arrays:
        size = array.nbytes
        header[name] = {"dtype": dtype_name(array), "shape": list(array.shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, arrays


def write(file, tensors, metadata=None):
    """Writes `tensors` ({name: numpy array}) to the binary file object `file`.

    The arrays are written one by one, so saving never holds a second copy of
    all the data in memory. Returns the number of bytes written.
    """
    header, arrays = _layout(tensors, metadata)
    file.write(header)
    total = len(header)
    for _, array in arrays:
        data = np.ascontiguousarray(array)
        file.write(memoryview(data.reshape(-1).view(np.uint8)) if data.size else b"")
        total += data.nbytes
    return total


def dumps(tensors, metadata=None):
    """The bytes of a safetensors file holding `tensors`."""
    header, arrays = _layout(tensors, metadata)
    return b"".join([header] + [np.ascontiguousarray(a).tobytes() for _, a in arrays])


def loads(data, name="<bytes>"):
    """({name: numpy array}, metadata dict) from the bytes of a safetensors file.

    The arrays are read-only views of `data` where possible. Raises DataLossError
    naming `name` for a truncated or malformed file.
    """
    view = memoryview(data)
    if len(view) < 8:
        raise DataLossError(f"{name} is not a safetensors file: it has {len(view)} bytes, "
                            "fewer than the 8-byte header size")
    (size,) = struct.unpack("<Q", view[:8])
    if size > MAX_HEADER or 8 + size > len(view):
        raise DataLossError(f"{name} is not a whole safetensors file: its header claims "
                            f"{size} bytes but the file has {len(view)} bytes in all")
    header = parse_header(bytes(view[8:8 + size]), name)
    metadata = header.pop("__metadata__", None) or {}
    body = view[8 + size:]
    tensors = {}
    spans = []
    for key, info in header.items():
        dtype, shape, (begin, end) = _check_entry(key, info, name)
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if end > len(body) and end - begin == count * dtype.itemsize:
            raise DataLossError(f"{name}: tensor {key!r} ends at byte {end} of the data but "
                                f"there are only {len(body)}: the file is truncated")
        if end - begin != count * dtype.itemsize or end > len(body) or begin > end:
            raise DataLossError(f"{name}: tensor {key!r} ({info['dtype']} {shape}) needs "
                                f"{count * dtype.itemsize} bytes but its offsets are "
                                f"[{begin}, {end}] in {len(body)} bytes of data")
        spans.append((begin, end, key))
        tensors[key] = np.frombuffer(body[begin:end], dtype=dtype).reshape(shape) \
            .astype(dtype.newbyteorder("="), copy=False)
    _check_coverage(spans, len(body), name)
    return tensors, metadata


def parse_header(text, name):
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DataLossError(f"{name}: the safetensors header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise DataLossError(f"{name}: the safetensors header is not a JSON object")
    return header


def _check_entry(key, info, name):
    try:
        dtype = np.dtype(DTYPES[info["dtype"]])
        shape = tuple(int(d) for d in info["shape"])
        begin, end = (int(o) for o in info["data_offsets"])
    except (KeyError, TypeError, ValueError):
        raise DataLossError(f"{name}: tensor {key!r} has a malformed or unsupported entry "
                            f"{info!r:.200} (dtypes: {sorted(DTYPES)})") from None
    if any(d < 0 for d in shape):
        raise DataLossError(f"{name}: tensor {key!r} has a negative dimension in {shape}")
    return dtype, shape, (begin, end)


def _check_coverage(spans, size, name):
    position = 0
    for begin, end, key in sorted(spans):
        if begin != position:
            raise DataLossError(f"{name}: tensor {key!r} starts at byte {begin} of the data, "
                                f"expected {position} (the tensors must be contiguous)")
        position = end
    if position != size:
        raise DataLossError(f"{name}: the tensors cover {position} bytes but the data has "
                            f"{size} (a truncated or padded file)")


def load(path):
    """({name: numpy array}, metadata) read from the safetensors file at `path`."""
    with open(path, "rb") as f:
        data = f.read()
    return loads(data, name=str(path))


def save(path, tensors, metadata=None):
    """Writes `tensors` to `path` atomically (see `atomic.atomic_write`)."""
    from .atomic import atomic_write
    with atomic_write(path) as f:
        write(f, tensors, metadata)
