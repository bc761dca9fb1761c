"""--shards K (reduce-scatter through K coordinator processes) and --checkpoint-dir."""

import time

import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed

from coord_helpers import run_workers
from texflow.coordinator import wire
from texflow.distribute import collective
from texflow.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError


def test_sharded_reductions_match_numpy_and_small_ones_stay_whole(make_coordinator):
    c = make_coordinator(3, shards=3)
    assert len(c.snapshot()["shards"]) == 3

    def body(g):
        rng = np.random.default_rng(g.rank)
        big = [rng.normal(size=(300, 1001)).astype(np.float32), rng.integers(-5, 5, 70_001),
               rng.normal(size=(3,))]
        return big, g.all_reduce(big), g.all_reduce(big, op="max"), g.all_reduce(np.ones(3))

    out = run_workers(c, 3, body)
    for rank, (_, total, biggest, small) in out.items():
        for i in range(3):
            parts = np.stack([out[r][0][i] for r in range(3)])
            np.testing.assert_allclose(total[i], parts.sum(0), rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(biggest[i], parts.max(0))
        np.testing.assert_array_equal(small, [3, 3, 3])


def test_a_slice_refused_by_one_shard_is_withdrawn_from_all(make_coordinator):
    c = make_coordinator(2, shards=2)
    clean = np.arange(400_000, dtype=np.float32)

    def body(g):
        if g.rank == 1:
            bad = clean.copy()
            bad[-5] = np.inf  # in the second shard's slice
            time.sleep(0.3)
            with pytest.raises(InvalidArgumentError, match=r"index \[399995\]"):
                g.all_reduce(bad)  # allow_nonfinite: only the coordinator checks
        return g.all_reduce(clean)

    for result in run_workers(c, 2, body, allow_nonfinite=True).values():
        np.testing.assert_array_equal(result, clean * 2)


def test_the_chief_stores_checkpoints_on_the_coordinator(make_coordinator, tmp_path):
    c = make_coordinator(2, checkpoint_dir=str(tmp_path))

    def body(g):
        if g.is_chief:
            assert g.latest_checkpoint() is None
            info = g.save_checkpoint(7, {"weights.npz": b"w" * 3_000_000, "step.json": b"7"})
            assert info == {"step": 7, "files": {"weights.npz": 3_000_000, "step.json": 1}}
        else:
            with pytest.raises(FailedPreconditionError, match="only the chief"):
                g.save_checkpoint(7, {"x": b""})
        g.barrier()
        latest = g.latest_checkpoint()
        files = g.load_checkpoint()
        with pytest.raises(NotFoundError, match="no checkpoint for step 3"):
            g.load_checkpoint(3)
        g.barrier()  # neither leaves while the other still asks
        return latest, files

    for latest, files in run_workers(c, 2, body).values():
        assert latest["step"] == 7
        assert files == {"weights.npz": b"w" * 3_000_000, "step.json": b"7"}
    assert (tmp_path / "ckpt-00000007" / "step.json").read_bytes() == b"7"
    # workers joining later hear of it in their membership
    later = run_workers(c, 2, lambda g: g.membership.latest_checkpoint)
    assert [v["step"] for v in later.values()] == [7, 7]


def test_no_checkpoint_dir_says_so(make_coordinator):
    c = make_coordinator(1)
    with collective.connect(c.url, c.token, timeout=20) as g:
        with pytest.raises(FailedPreconditionError, match="--checkpoint-dir"):
            g.latest_checkpoint()
        # the data that follows a refused save is dropped; the connection stays
        with pytest.raises(FailedPreconditionError, match="--checkpoint-dir"):
            g.save_checkpoint(1, {"state.npz": bytes(3 << 20)})
        assert g.all_reduce(np.ones(2, np.float32))[0] == 1


def test_workers_that_close_leave_a_sharded_group_and_are_not_lost(make_coordinator):
    # Each connection says bye: a shard whose data connection closes after a bye must not
    # report the worker lost (the main process hears the bye on its own connection). The
    # data connection is closed well before the main one here, as a loaded machine may.
    from texflow.distribute import _native
    c = make_coordinator(2, shards=2)

    def body(g):
        g.all_reduce(np.ones(100_000, np.float32))
        g.barrier()
        shard = g._core.conns[1]
        _native.run(shard.send(wire.control("bye")))
        _native.run(shard.close())
        time.sleep(0.5)

    run_workers(c, 2, body)
    deadline = time.time() + 10
    while len([e for e in c.coordinator.events if e["event"] in ("left", "lost")]) < 2 and \
            time.time() < deadline:
        time.sleep(0.05)
    ends = [(e["event"], e.get("reason")) for e in c.coordinator.events
            if e["event"] in ("left", "lost")]
    assert ends == [("left", "bye"), ("left", "bye")], ends


def test_a_shard_closes_a_data_connection_that_splits_an_element(make_coordinator, caplog):
    import json
    import logging

    from websockets.sync.client import connect as ws_connect
    c = make_coordinator(1, shards=2)
    with collective.connect(c.url, c.token, timeout=30) as g:
        port = c.snapshot()["shards"][1]
        with caplog.at_level(logging.WARNING), ws_connect(f"ws://127.0.0.1:{port}") as ws:
            ws.send(json.dumps({"type": "hello", "token": c.token, "role": "data",
                                "client_id": g._core.client_id, "rank": 0,
                                "generation": g.generation}))
            layout = wire.Layout([wire.TensorSpec("w", "float32", (4,))])
            ws.send(wire.pack_header(wire.CONTRIB, wire.SUM, g.generation, 0, 0, 16,
                                     table=wire.pack_table(layout)) + bytes(6))
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
        assert closed.value.rcvd.code == 1008
        assert "must start at a multiple of 8 bytes" in closed.value.rcvd.reason


def test_chunk_bytes_must_cut_at_element_boundaries(make_coordinator):
    c = make_coordinator(1)
    for bad in (1001, 0, 6.0):
        with pytest.raises(InvalidArgumentError, match=f"chunk_bytes must be a positive "
                                                       f"multiple of 8.*received {bad}"):
            collective.connect(c.url, c.token, chunk_bytes=bad)
