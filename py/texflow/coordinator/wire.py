"""The coordinator's wire format: binary frames for tensor data, JSON text frames for control.

Tensor data never travels as JSON or base64, and connections never compress
(permessage-deflate costs more than it saves on float data; see the README).
Every binary message is one WebSocket message made of a fixed 40-byte header,
an optional table, then raw little-endian element bytes:

    offset size field
      0     1   magic       0x54 ("T")
      1     1   kind        1 CONTRIB (worker -> coordinator), 2 RESULT (coordinator ->
                            worker), 3 CKPT_PUT (chief -> coordinator), 4 CKPT_DATA (back)
      2     1   op          1 sum, 2 mean, 3 max, 4 min, 5 broadcast, 6 all_gather, 7 barrier
      3     1   flags       bit 0: a table follows the header
      4     2   attempt     this sender's attempt at the collective (a refused contribution
                            or a restart bumps it; messages of older attempts are dropped)
      6     2   root        broadcast root rank
      8     4   table_len   bytes of table after the header (a multiple of 8)
     12     4   generation  membership generation the collective belongs to
     16     4   seq         collective sequence number within the generation
     20     4   reserved    0
     24     8   offset      byte offset of this message's data in the payload
     32     8   total       payload size in bytes

The table travels in the first message of a contribution (offset == lo) and in
the first result message of a broadcast or all_gather:

    u64 lo, u64 hi          the byte range of the payload this connection carries
                            (the whole payload, or one shard's slice)
    u32 count, u16 name_len, name       tensor count and the collective's name (UTF-8)
    per tensor: u8 dtype code, u8 rank, u16 name_len, u64 dims[rank], name
    zero padding to a multiple of 8

The payload is the tensors' bytes back to back, each aligned to its own item
size, so no padding ever separates tensors of one dtype and every multiple of 8
is an element boundary (shards split there). Large payloads travel as several
messages (chunks) in order; small tensors share one message.
"""

import json
import math
import struct

import numpy as np

MAGIC = 0x54
HEADER = struct.Struct("<BBBBHHIIIIQQ")
HEADER_SIZE = HEADER.size  # 40

CONTRIB, RESULT, CKPT_PUT, CKPT_DATA = 1, 2, 3, 4
KINDS = {CONTRIB: "contribution", RESULT: "result", CKPT_PUT: "checkpoint upload",
         CKPT_DATA: "checkpoint data"}
SUM, MEAN, MAX, MIN, BROADCAST, GATHER, BARRIER = 1, 2, 3, 4, 5, 6, 7
OPS = {"sum": SUM, "mean": MEAN, "max": MAX, "min": MIN, "broadcast": BROADCAST,
       "all_gather": GATHER, "barrier": BARRIER}
OP_NAMES = {v: k for k, v in OPS.items()}
REDUCTIONS = (SUM, MEAN, MAX, MIN)
HAS_TABLE = 1
# Close code for a connection that a newer one of the same worker replaced (a reloaded
# tab): its client must not reconnect, or the two would keep replacing each other.
CLOSE_REPLACED = 4001

DTYPES = {1: "float32", 2: "int32", 3: "float16", 4: "float64", 5: "int64", 6: "uint8",
          7: "int8", 8: "bool", 9: "int16", 10: "uint16", 11: "uint32", 12: "uint64"}
DTYPE_CODES = {name: code for code, name in DTYPES.items()}
# Reductions are defined on these; broadcast and all_gather move any dtype above.
REDUCIBLE = ("float32", "int32", "float16", "float64", "int64")
FLOATS = ("float32", "float16", "float64")
# Reductions below this many bytes are not split over shards (see shards.py).
SHARD_MIN = 256 << 10
MAX_RANK = 32
MAX_NAME = 1024
MAX_TENSORS = 1 << 20


class WireError(ValueError):
    """A message that does not follow the wire format (the reason names the field)."""


class ProtocolViolation(Exception):
    """A message that breaks the protocol; the coordinator closes its connection."""


class Placed:
    """A binary message whose bytes after `head` a sink already holds (fastframes.py, which
    the native client uses; here because Pyodide has no `websockets`); `size`: the whole
    message's."""

    __slots__ = ("head", "size")

    def __init__(self, head, size):
        self.head, self.size = head, size

    def __len__(self):
        return self.size


class TensorSpec:
    """One tensor of a payload: name, dtype name, shape, byte offset and size."""

    __slots__ = ("name", "dtype", "shape", "offset", "nbytes", "index")

    def __init__(self, name, dtype, shape, offset=0):
        self.name, self.dtype, self.shape = name, dtype, tuple(int(d) for d in shape)
        self.offset, self.index = offset, 0
        # Python ints: a hostile table's dimensions must not wrap around in int64.
        self.nbytes = math.prod(self.shape) * np.dtype(dtype).itemsize

    def describe(self):
        """'tensor 3 (float32[2, 2])' or, when named, 'tensor grad (float32[2, 2])'."""
        return f"tensor {self.name or self.index} ({self.dtype}{list(self.shape)})"

    def __eq__(self, other):
        return (self.name, self.dtype, self.shape) == (other.name, other.dtype, other.shape)

    def __repr__(self):
        return f"TensorSpec({self.describe()} at {self.offset})"


class Layout:
    """The tensors of one contribution and where each lies in the payload."""

    def __init__(self, specs, name="", lo=0, hi=None):
        self.name = name
        self.specs = []
        end = 0
        for i, spec in enumerate(specs):
            spec.index = i
            size = np.dtype(spec.dtype).itemsize
            spec.offset = -(-end // size) * size  # aligned to the item size
            end = spec.offset + spec.nbytes
            self.specs.append(spec)
        self.total = end
        self.lo, self.hi = lo, (end if hi is None else hi)
        self.runs = _runs(self.specs)

    @classmethod
    def of_arrays(cls, arrays, names=None, name=""):
        names = names or [""] * len(arrays)
        return cls([TensorSpec(n, a.dtype.name, a.shape) for n, a in zip(names, arrays)], name)

    def with_range(self, lo, hi):
        out = Layout.__new__(Layout)
        out.__dict__.update(self.__dict__)
        out.lo, out.hi = lo, hi
        return out

    def spec_at(self, offset):
        """The tensor that holds payload byte `offset` (None in padding)."""
        for spec in self.specs:
            if spec.offset <= offset < spec.offset + spec.nbytes:
                return spec
        return None

    def same_tensors(self, other):
        return self.total == other.total and self.specs == other.specs


def _runs(specs):
    """Maximal byte ranges of consecutive same-dtype tensors: (start, end, dtype)."""
    runs = []
    for spec in specs:
        if not spec.nbytes:
            continue
        if runs and runs[-1][2] == spec.dtype and runs[-1][1] == spec.offset:
            runs[-1][1] = spec.offset + spec.nbytes
        else:
            runs.append([spec.offset, spec.offset + spec.nbytes, spec.dtype])
    return [tuple(r) for r in runs]


def split_points(total, parts):
    """`parts`+1 byte offsets cutting [0, total) into near-equal slices at multiples of 8."""
    cuts = [min(total, (total * i // parts + 7) // 8 * 8) for i in range(parts)]
    return cuts + [total]


def pack_table(layout):
    out = [struct.pack("<QQI", layout.lo, layout.hi, len(layout.specs)), _name(layout.name)]
    for spec in layout.specs:
        name = spec.name.encode()
        out.append(struct.pack(f"<BBH{len(spec.shape)}Q", DTYPE_CODES[spec.dtype],
                               len(spec.shape), len(name), *spec.shape))
        out.append(name)
    table = b"".join(out)
    return table + bytes(-len(table) % 8)


def _name(text):
    data = text.encode()
    return struct.pack("<H", len(data)) + data


def unpack_table(buf, max_bytes):
    """Reads a table; returns a Layout. Raises WireError naming what is wrong."""
    view = memoryview(buf)
    pos = 0

    def take(fmt):
        nonlocal pos
        size = struct.calcsize(fmt)
        if pos + size > len(view):
            raise WireError(f"the table is truncated at byte {pos} (needs {size} more bytes)")
        values = struct.unpack_from(fmt, view, pos)
        pos += size
        return values

    def raw(length):
        nonlocal pos
        if length > MAX_NAME or pos + length > len(view):
            raise WireError(f"a name of {length} bytes runs past the table or the "
                            f"{MAX_NAME}-byte limit")
        data = bytes(view[pos:pos + length])
        pos += length
        try:
            return data.decode()
        except UnicodeDecodeError:
            raise WireError(f"a name is not UTF-8: {data[:40]!r}") from None

    lo, hi, count = take("<QQI")
    if count > MAX_TENSORS:
        raise WireError(f"the table lists {count} tensors; the limit is {MAX_TENSORS}")
    name = raw(take("<H")[0])
    specs = []
    for i in range(count):
        code, rank, length = take("<BBH")
        if code not in DTYPES:
            raise WireError(f"tensor {i} has unknown dtype code {code}")
        if rank > MAX_RANK:
            raise WireError(f"tensor {i} has rank {rank}; the limit is {MAX_RANK}")
        dims = take(f"<{rank}Q") if rank else ()
        if any(d > max_bytes for d in dims):
            raise WireError(f"tensor {i} has a dimension over the {max_bytes}-byte limit of "
                            f"one collective: {list(dims)}")
        specs.append(TensorSpec(raw(length), DTYPES[code], dims))
        specs[-1].index = i
        if specs[-1].nbytes > max_bytes:
            raise WireError(f"{specs[-1].describe()} is larger than the "
                            f"{max_bytes}-byte limit of one collective")
    if any(view[pos:]):
        raise WireError("the table's padding is not zero")
    layout = Layout(specs, name)
    if layout.total > max_bytes:
        raise WireError(f"the payload is {layout.total} bytes; the limit of one collective is "
                        f"{max_bytes}")
    if not (lo <= hi <= layout.total and lo % 8 == 0 and (hi % 8 == 0 or hi == layout.total)):
        raise WireError(f"byte range [{lo}, {hi}) does not fit a payload of {layout.total} "
                        "bytes at 8-byte boundaries")
    return layout.with_range(lo, hi)


class Header:
    """A decoded header; `data` is a memoryview of the message's element bytes."""

    __slots__ = ("kind", "op", "flags", "attempt", "root", "generation", "seq", "offset",
                 "total", "table", "data")

    def __repr__(self):
        return (f"<{KINDS.get(self.kind, self.kind)} {OP_NAMES.get(self.op, self.op)} "
                f"g{self.generation} s{self.seq} a{self.attempt} @{self.offset}/{self.total} "
                f"{len(self.data)}B>")


def pack_header(kind, op, generation, seq, offset, total, attempt=0, root=0, table=b""):
    return HEADER.pack(MAGIC, kind, op, HAS_TABLE if table else 0, attempt, root, len(table),
                       generation, seq, 0, offset, total) + table


def unpack(message):
    """Splits a binary message into a Header (with its table bytes and data view)."""
    view = memoryview(message)
    if len(view) < HEADER_SIZE:
        raise WireError(f"a binary message of {len(view)} bytes is shorter than the "
                        f"{HEADER_SIZE}-byte header")
    (magic, kind, op, flags, attempt, root, table_len, generation, seq, reserved, offset,
     total) = HEADER.unpack_from(view)
    if magic != MAGIC:
        raise WireError(f"bad magic byte 0x{magic:02x} (expected 0x{MAGIC:02x})")
    if kind not in KINDS:
        raise WireError(f"unknown message kind {kind}")
    if op not in OP_NAMES and kind in (CONTRIB, RESULT):
        raise WireError(f"unknown collective op {op}")
    if flags & ~HAS_TABLE or reserved:
        raise WireError(f"unknown flags 0x{flags:02x} or a nonzero reserved field")
    if bool(flags & HAS_TABLE) != bool(table_len) or table_len % 8:
        raise WireError(f"table length {table_len} does not agree with the flags or is not a "
                        "multiple of 8")
    if HEADER_SIZE + table_len > len(view):
        raise WireError(f"the table ({table_len} bytes) runs past the end of the "
                        f"{len(view)}-byte message")
    h = Header()
    h.kind, h.op, h.flags, h.attempt, h.root = kind, op, flags, attempt, root
    h.generation, h.seq, h.offset, h.total = generation, seq, offset, total
    h.table = view[HEADER_SIZE:HEADER_SIZE + table_len]
    h.data = view[HEADER_SIZE + table_len:]
    return h


def surely_finite(values):
    """True when every value of the float array `values` is finite; False when one may not
    be (then check each value: overflow of large finite values also says False).

    float32 and float64 take the dot product with themselves (BLAS, a third of the CPU
    of numpy's pairwise sum: README, "Collective benchmark"): NaN or infinity anywhere
    makes it NaN or infinity, as every product is >= 0 and no inf - inf can occur.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if values.dtype.char in "fd" and values.flags.c_contiguous:
            flat = values.reshape(-1)
            return bool(np.isfinite(np.dot(flat, flat)))
        return bool(np.isfinite(np.add.reduce(values, axis=None)))


def control(message_type, /, **fields):
    """A JSON control message (a WebSocket text frame)."""
    return json.dumps({"type": message_type, **fields}, separators=(",", ":"))
