"""The coordinator's parts without sockets: the wire format, the reduction engine driven by
hand-made messages, membership rules and the checkpoint store."""

import json
import os
import warnings

import numpy as np
import pytest

from texflow.coordinator import CheckpointError, CheckpointStore, wire
from texflow.coordinator.allreduce import Collective, Refused
from texflow.coordinator.membership import JoinRefused, Membership


def _messages(rank_arrays, op=wire.SUM, chunk=64, seq=0, attempt=0, lo=0, hi=None, names=None):
    """The CONTRIB messages a worker sends for `rank_arrays`, cut into `chunk`-byte pieces."""
    layout = wire.Layout.of_arrays(rank_arrays, names)
    hi = layout.total if hi is None else hi
    payload = bytearray(layout.total)
    for spec, a in zip(layout.specs, rank_arrays):
        payload[spec.offset:spec.offset + spec.nbytes] = a.tobytes()
    table = wire.pack_table(layout.with_range(lo, hi))
    out, start = [], lo
    while True:
        end = min(hi, start + chunk)
        out.append(wire.unpack(wire.pack_header(
            wire.CONTRIB, op, 1, seq, start, layout.total, attempt,
            table=table if start == lo else b"") + bytes(payload[start:end])))
        start = end
        if start >= hi:
            return out


def _results(coll, layout_arrays):
    """Assembles the RESULT messages a collective gave into arrays shaped like the input."""
    layout = wire.Layout.of_arrays(layout_arrays)
    buf = bytearray(layout.total)
    for (head, data), ranks in coll.take_results():
        h = wire.unpack(head + bytes(data))
        buf[h.offset:h.offset + len(h.data)] = h.data
    return [np.frombuffer(bytes(buf[s.offset:s.offset + s.nbytes]), s.dtype).reshape(s.shape)
            for s in layout.specs]


def test_header_and_table_round_trip():
    layout = wire.Layout([wire.TensorSpec("w", "float16", (3,)),
                          wire.TensorSpec("b", "float64", (2, 2)),
                          wire.TensorSpec("", "int32", ())], name="step")
    assert [s.offset for s in layout.specs] == [0, 8, 40] and layout.total == 44
    table = wire.pack_table(layout)
    assert len(table) % 8 == 0
    back = wire.unpack_table(table, 1 << 20)
    assert back.specs == layout.specs and back.name == "step" and (back.lo, back.hi) == (0, 44)
    h = wire.unpack(wire.pack_header(wire.CONTRIB, wire.MEAN, 7, 9, 0, 44, 3, 1, table)
                    + b"abc")
    assert (h.kind, h.op, h.generation, h.seq, h.attempt, h.root, bytes(h.data)) == \
        (wire.CONTRIB, wire.MEAN, 7, 9, 3, 1, b"abc")
    assert bytes(h.table) == table
    assert wire.split_points(1000, 3) == [0, 336, 672, 1000]
    assert all(c % 8 == 0 for c in wire.split_points(12345, 7)[:-1])


@pytest.mark.parametrize("mutate, why", [
    (lambda m: m[:10], "shorter than the 40-byte header"),
    (lambda m: b"Q" + m[1:], "bad magic"),
    (lambda m: m[:1] + b"\x07" + m[2:], "unknown message kind 7"),
    (lambda m: m[:3] + b"\x80" + m[4:], "unknown flags"),
    (lambda m: m[:8] + (1 << 20).to_bytes(4, "little") + m[12:], "runs past the end"),
])
def test_malformed_headers_name_the_field(mutate, why):
    good = wire.pack_header(wire.CONTRIB, wire.SUM, 1, 0, 0, 16,
                            table=wire.pack_table(wire.Layout([])))
    with pytest.raises(wire.WireError, match=why):
        wire.unpack(mutate(good))


@pytest.mark.parametrize("table, why", [
    (b"\x00" * 7, "truncated"),
    (wire.pack_table(wire.Layout([wire.TensorSpec("x", "float32", (2,))]))[:-1] + b"\x09",
     "padding is not zero"),
    (bytes(16) + (5).to_bytes(4, "little") + bytes(2) + bytes([99, 0, 0, 0]),
     "unknown dtype code 99"),
    (bytes(16) + (1).to_bytes(4, "little") + bytes(2) + bytes([1, 40, 0, 0]),
     "rank 40"),
    (bytes(8) + (100).to_bytes(8, "little") + bytes(6), "does not fit a payload"),
])
def test_malformed_tables_name_the_field(table, why):
    with pytest.raises(wire.WireError, match=why):
        wire.unpack_table(table + bytes(-len(table) % 8), 1 << 20)


@pytest.mark.parametrize("op, ref", [(wire.SUM, np.sum), (wire.MAX, np.max), (wire.MIN, np.min)])
def test_reduction_of_unequal_chunks_in_any_order(op, ref):
    rng = np.random.default_rng(1)
    arrays = {r: [rng.normal(size=(37,)).astype(np.float32), rng.integers(-9, 9, (5, 3)),
                  rng.normal(size=(4,))] for r in range(3)}
    coll = Collective(1, 0, [0, 1, 2])
    streams = {r: _messages(arrays[r], op, chunk=[24, 64, 1000][r]) for r in range(3)}
    while any(streams.values()):  # interleave the three senders
        for r in (2, 0, 1):
            if streams[r]:
                coll.contribute(r, streams[r].pop(0))
    out = _results(coll, arrays[0])
    assert coll.done
    for i, got in enumerate(out):
        want = ref(np.stack([arrays[r][i] for r in range(3)]), axis=0).astype(got.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_results_stream_before_the_last_chunk_arrives():
    big = [np.ones(100_000, np.float32)]
    coll = Collective(1, 0, [0, 1])
    a, b = _messages(big, chunk=1 << 16), _messages(big, chunk=1 << 16)
    for m in a:
        coll.contribute(0, m)
    for m in b[:3]:
        coll.contribute(1, m)
    early = coll.take_results()
    assert early and not coll.done  # 192 KiB of the prefix are ready and went out
    last = wire.unpack(early[-1][0][0] + bytes(early[-1][0][1]))
    assert last.offset + len(last.data) == 3 << 16


def test_a_refused_chunk_restarts_the_others_and_nothing_of_it_goes_out():
    arrays = [np.ones(1000, np.float32)]
    bad = [arrays[0].copy()]
    bad[0][900] = np.nan
    coll = Collective(1, 0, [0, 1])
    for m in _messages(arrays, chunk=1024):
        coll.contribute(0, m)
    ms = _messages(bad, chunk=1024)
    coll.contribute(1, ms[0])  # clean: added
    coll.contribute(1, ms[1])
    coll.contribute(1, ms[2])
    with pytest.raises(Refused, match=r"tensor 0 \(float32\[1000\]\) has 1 non-finite value.*"
                                      r"index \[900\]"):
        coll.contribute(1, ms[3])
    assert coll.refuse(1) == 1
    # results of its first chunks may have gone out: the others must send again
    assert coll.take_restarts() == {0: 1}
    coll.contribute(1, ms[2])  # still in flight from the refused attempt: dropped
    for m in _messages(arrays, chunk=1024, attempt=1):
        coll.contribute(0, m)
        coll.contribute(1, m)
    assert (_results(coll, arrays)[0] == 2).all()


def test_first_arrival_sets_shapes_and_dtypes():
    coll = Collective(1, 0, [0, 1])
    coll.contribute(1, _messages([np.ones((2, 3), np.float32)], names=["w"])[0])
    with pytest.raises(Refused, match=r"tensor w \(float32\[3, 2\]\) does not match the first "
                                      r"contribution's tensor w \(float32\[2, 3\]\)"):
        coll.contribute(0, _messages([np.ones((3, 2), np.float32)], names=["w"])[0])
    coll.refuse(0)
    with pytest.raises(Refused, match="'max' does not match 'sum'"):
        coll.contribute(0, _messages([np.ones((2, 3), np.float32)], op=wire.MAX, attempt=1)[0])
    with pytest.raises(Refused, match="rank 5 is not a member"):
        coll.contribute(5, _messages([np.ones(1)])[0])
    coll2 = Collective(1, 1, [0])
    with pytest.raises(Refused, match="sum is not defined for bool"):
        coll2.contribute(0, _messages([np.ones(2, bool)])[0])


def test_fixed_membership_keeps_ranks_and_forms_when_all_are_ready():
    m = Membership(3)
    slots = [m.join(f"c{i}", object())[0] for i in range(3)]
    assert [s.rank for s in slots] == [0, 1, 2]
    formed = m.try_form()
    assert (formed.generation, formed.new, formed.size) == (1, [0, 1, 2], 3)
    with pytest.raises(JoinRefused, match="the group is full"):
        m.join("c9", object())
    with pytest.raises(JoinRefused, match="rank 1 is held by a live worker"):
        m.join("c9", object(), task_id=1)
    assert m.leave(slots[1]) == 1 and m.lost == {1}
    assert m.try_form() is None  # nobody asked yet
    back, old = m.join("c9", object())  # a new process gets the free rank
    assert (back.rank, old) == (1, None)
    m.request(slots[0])
    assert m.try_form() is None  # rank 2 has not asked
    m.request(slots[2])
    formed = m.try_form()
    assert (formed.generation, formed.new, formed.lost) == (2, [1], [1])  # another worker
    again, old = m.join("c0", object())  # the same client on a new connection
    assert (again.rank, old) == (0, slots[0])


def test_elastic_membership_renumbers_and_admits_at_a_resize():
    m = Membership(2, elastic=True, max_workers=3)
    a, b = m.join("a", 1)[0], m.join("b", 2)[0]
    assert m.try_form().members == {0: a, 1: b}
    m.leave(a)
    m.request(b)
    formed = m.try_form()
    assert (formed.size, formed.renumbered, formed.lost, b.rank) == (1, {1: 0}, [0], 0)
    c = m.join("c", 3)[0]
    assert m.try_form() is None  # a newcomer waits for the members' resize
    m.request(b)
    formed = m.try_form()
    assert (formed.size, formed.new, c.rank) == (2, [1], 1)
    m.join("d", 4)
    with pytest.raises(JoinRefused, match="full"):
        m.join("e", 5)


def test_checkpoint_store_is_atomic_and_keeps_the_newest(tmp_path, monkeypatch):
    store = CheckpointStore(tmp_path, keep=2)
    assert store.latest() is None
    for step in (1, 2, 3):
        store.put(step, {"weights.bin": bytes([step]) * 10, "opt.json": b"{}"})
    assert store.steps() == [2, 3]
    assert store.latest() == {"step": 3, "files": {"weights.bin": 10, "opt.json": 2}}
    assert store.get(2)["weights.bin"] == bytes([2]) * 10
    with pytest.raises(CheckpointError, match="not allowed"):
        store.put(4, {"../evil": b""})
    with pytest.raises(CheckpointError, match="no checkpoint for step 9"):
        store.get(9)

    def crash(*args):
        raise OSError("disk pulled out")

    monkeypatch.setattr(os, "rename", crash)  # a crash while the new one is written
    with pytest.raises(OSError):
        store.put(4, {"weights.bin": b"new"})
    monkeypatch.undo()
    assert store.latest()["step"] == 3 and store.get()["weights.bin"] == bytes([3]) * 10
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert json.loads((tmp_path / "latest").read_text())["step"] == 3


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_non_finite_values_are_found_and_large_finite_ones_pass(dtype):
    big = np.finfo(dtype).max / 2  # its square and its sum overflow: a false alarm only
    for values, finite in [([1.0, -2.0, 3.0], True), ([big, big, -big], True),
                           ([1.0, np.nan, 2.0], False), ([np.inf, 1.0, 1.0], False),
                           ([1.0, 1.0, -np.inf], False), ([np.inf, -np.inf, 1.0], False)]:
        arrays = [np.array(values, dtype)]
        coll = Collective(1, 0, [0, 1])
        if finite:
            for m in _messages(arrays, chunk=8):
                coll.contribute(0, m)
                coll.contribute(1, m)
            with np.errstate(over="ignore"):
                assert (_results(coll, arrays)[0] == arrays[0] * 2).all()
        else:
            assert not wire.surely_finite(arrays[0])
            with pytest.raises(Refused, match="non-finite value"):
                for m in _messages(arrays, chunk=1 << 10):
                    coll.contribute(0, m)


def test_a_cached_table_is_still_checked_against_each_collective():
    """Parsed tables are kept by their bytes (allreduce._tables): every rule against the
    collective (the first arrival's count, shapes, dtypes, names, byte range; the size
    limit; the op's dtypes) must still hold for a table parsed before."""
    a = [np.ones((2, 3), np.float32), np.arange(4, dtype=np.int32)]
    b = [np.ones((3, 2), np.float32), np.arange(4, dtype=np.int32)]
    for seq, (first, second) in enumerate([(a, a), (b, b), (a, a)]):  # each table twice
        coll = Collective(1, seq, [0, 1])
        for r, arrays in ((1, first), (0, second)):
            for m in _messages(arrays, seq=seq):
                coll.contribute(r, m)
        assert all((got == 2 * x).all() for got, x in zip(_results(coll, first), first))
    coll = Collective(1, 3, [0, 1])  # collective 3: b's shapes first, a's refused
    coll.contribute(1, _messages(b, seq=3)[0])
    with pytest.raises(Refused, match=r"tensor 0 \(float32\[2, 3\]\) does not match the first "
                                      r"contribution's tensor 0 \(float32\[3, 2\]\)"):
        coll.contribute(0, _messages(a, seq=3)[0])
    for other, why in [([a[0]], "1 tensors do not match the 2"),
                       ([b[0], b[1].astype(np.float32)], r"tensor 1 \(float32\[4\]\)")]:
        coll.refuse(0)
        for _ in range(2):  # parsed, then from the cache
            with pytest.raises(Refused, match=why):
                coll.contribute(0, _messages(other, seq=3, attempt=coll.attempt[0])[0])
            coll.refuse(0)
    named = Collective(1, 4, [0, 1])
    for attempt in range(2):
        named.contribute(1, _messages(b, seq=4, names=["x", "v"], attempt=attempt)[0])
        with pytest.raises(Refused, match="tensor 0 is named 'w', the first contribution's 'x'"):
            named.contribute(0, _messages(b, seq=4, names=["w", "v"], attempt=attempt)[0])
        named.refuse(0), named.refuse(1)
    sliced = Collective(1, 5, [0, 1])  # the same tensors, another shard's byte range
    sliced.contribute(1, _messages(b, seq=5, lo=0, hi=16)[0])
    with pytest.raises(Refused, match=r"byte range \[16, 40\) does not match \[0, 16\)"):
        sliced.contribute(0, _messages(b, seq=5, lo=16, hi=40)[0])
    small = Collective(1, 6, [0, 1], max_bytes=32)  # a's table, parsed under 1 GiB before
    with pytest.raises(Refused, match="the payload is 40 bytes; the limit of one collective "
                                      "is 32"):
        small.contribute(0, _messages(a, seq=6)[0])
    for seq in (7, 8):  # a bool table passes for all_gather, never for a reduction
        bools = Collective(1, seq, [0])
        with pytest.raises(Refused, match="sum is not defined for bool"):
            bools.contribute(0, _messages([np.ones(2, bool)], seq=seq)[0])


def test_an_overflowing_sum_gives_infinity_without_a_warning():
    """As TensorFlow's all-reduce (MirroredStrategy's SUM of float32 max gives inf): the
    contributions are finite, so nothing is refused; numpy's warning is not printed."""
    big = [np.array([np.finfo(np.float32).max, 1.0, -np.finfo(np.float32).max], np.float32)]
    coll = Collective(1, 0, [0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for r in (0, 1):
            for m in _messages(big, chunk=8):
                coll.contribute(r, m)
        got = _results(coll, big)[0]
    assert got[0] == np.inf and got[1] == 2 and got[2] == -np.inf


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_held_first_arrivals_reduce_right_in_any_order(ranks):
    """Chunks beyond every other sender's reach are held as they arrived (up to
    allreduce.HOLD of them) and reduced with the next sender's: random chunk sizes, orders
    and dtypes with padding between them, against numpy."""
    rng = np.random.default_rng(ranks)
    shapes = [((7,), np.float16), ((33, 5), np.float32), ((3,), np.int32), ((129,), np.float64)]
    for trial in range(12):
        op, ref = [(wire.SUM, np.sum), (wire.MAX, np.max), (wire.MIN, np.min)][trial % 3]
        arrays = {r: [(rng.normal(size=s) * 9).astype(d) for s, d in shapes]
                  for r in range(ranks)}
        coll = Collective(1, trial, list(range(ranks)))
        streams = {r: _messages(arrays[r], op, seq=trial, chunk=8 * int(rng.integers(1, 50)))
                   for r in range(ranks)}
        order = [r for r in range(ranks) for _ in streams[r]]
        rng.shuffle(order)
        if trial % 4 == 0:
            order.sort()  # each sender's whole contribution before the next one's
        for r in order:
            coll.contribute(r, streams[r].pop(0))
        out = _results(coll, arrays[0])
        assert coll.done and not coll.held
        for i, got in enumerate(out):
            want = ref(np.stack([arrays[r][i] for r in range(ranks)]), axis=0)
            # sums round in arrival order (numpy's float16 sum: in float32)
            atol = {"float16": 0.1, "float32": 1e-5, "float64": 1e-12}.get(got.dtype.name, 0)
            np.testing.assert_allclose(got, want.astype(got.dtype), rtol=1e-5, atol=atol)


@pytest.mark.parametrize("op", [wire.SUM, wire.GATHER])
def test_a_message_ending_inside_an_element_is_refused(op):
    """Cut at byte 6, a NaN's bytes would be split between two finite checks (and numpy
    cannot view the bytes as float32): refused, naming where; the payload's own end (12
    bytes, not a multiple of 8) is fine."""
    values = [np.array([1.0, np.nan, 2.0], np.float32)]
    coll = Collective(1, 0, [0, 1])
    with pytest.raises(Refused, match=r"data ends at byte 6, inside an element: messages end "
                                      r"at multiples of 8 bytes or at the payload's end \(12\)"):
        coll.contribute(0, _messages(values, op, chunk=6)[0])
    ok = Collective(1, 1, [0, 1])
    for m in _messages([np.ones(3, np.float32)], wire.SUM, chunk=8, seq=1):
        ok.contribute(0, m)
        ok.contribute(1, m)
    assert (_results(ok, [np.ones(3, np.float32)])[0] == 2).all()
