"""Collectives between native workers through a coordinator, checked against numpy."""

import asyncio
import logging
import threading

import numpy as np
import pytest

import texflow as tf
from coord_helpers import in_own_thread, run_workers
from texflow.distribute import collective
from texflow.errors import DeadlineExceededError, InvalidArgumentError

REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def _data(rank, shape, dtype, seed=0):
    rng = np.random.default_rng(seed * 100 + rank)
    if np.dtype(dtype).kind == "f":
        return rng.normal(size=shape).astype(dtype)
    return rng.integers(-1000, 1000, size=shape).astype(dtype)


def _oracle(op, parts):
    stacked = np.stack(parts).astype(np.float64)
    out = REDUCE[op](stacked, axis=0)
    if parts[0].dtype.kind == "i" and op == "mean":
        out = np.trunc(out)  # integer mean truncates, as TensorFlow's Div
    return out.astype(parts[0].dtype)


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_all_reduce_matches_numpy_for_each_op_and_dtype(make_coordinator, op):
    c = make_coordinator(3)
    shapes = [(), (1,), (7, 3), (2, 3, 4, 5), (0, 4), (1000,)]
    dtypes = ["float32", "int32", "float64", "int64", "float16"]

    def body(g):
        tensors = [_data(g.rank, s, d, i) for i, (s, d) in enumerate(
            (s, d) for s in shapes for d in dtypes)]
        return tensors, g.all_reduce(tensors, op=op)

    results = run_workers(c, 3, body)
    for rank, (_, out) in results.items():
        for i, got in enumerate(out):
            parts = [results[r][0][i] for r in range(3)]
            want = _oracle(op, parts)
            assert got.dtype == want.dtype and got.shape == want.shape, (i, got, want)
            tol = 1e-2 if got.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"tensor {i}")
        # every worker receives the very same bytes
        for i in range(len(out)):
            np.testing.assert_array_equal(out[i], results[0][1][i])


def test_large_tensors_travel_in_chunks_and_reduce_exactly(make_coordinator):
    c = make_coordinator(2)
    n = 3_000_001  # odd, not a multiple of the chunk: the last chunk is partial

    def body(g):
        x = np.arange(n, dtype=np.int32) * (g.rank + 1)
        return g.all_reduce(x)

    # different chunk sizes per worker: the coordinator reduces by byte ranges
    results = run_workers(c, 2, body, chunk_bytes=(1 << 20) - 8)
    for out in results.values():
        np.testing.assert_array_equal(out, np.arange(n, dtype=np.int32) * 3)


def test_results_held_by_the_caller_are_never_overwritten_by_later_ones(make_coordinator):
    # Result buffers are reused once the caller dropped them: held ones must stay intact.
    c = make_coordinator(2)
    n = 100_003

    def body(g):
        held = [g.all_reduce(np.full(n, step + g.rank, np.float32)) for step in range(6)]
        for _ in range(4):  # dropped results: their buffers come back
            g.all_reduce(np.full(n, 7, np.float32))
        return held

    for held in run_workers(c, 2, body).values():
        for step, y in enumerate(held):
            np.testing.assert_array_equal(y, np.full(n, 2 * step + 1, np.float32))


def test_a_dropped_result_buffer_is_reused(make_coordinator):
    # A fresh buffer of megabytes per call costs a page fault per page (README "Cost model").
    import weakref
    c = make_coordinator(1)  # one worker: no other group of this process takes the buffer

    def body(g):
        x = np.ones(300_000, np.float32)
        y = g.all_reduce(x)
        buffer = weakref.ref(y.base)
        del y
        z = g.all_reduce(x * 3)
        return z.base is buffer(), z

    reused, z = run_workers(c, 1, body)[0]
    assert reused
    np.testing.assert_array_equal(z, np.full(300_000, 3, np.float32))


def test_one_coordinator_holds_64_workers_and_loses_nothing(make_coordinator):
    # The README's 64-worker run (scripts/collective_64.py: 100 all-reduces of 1M floats)
    # in small: 64 clients in this process, every element of every result checked.
    c = make_coordinator(64)

    def body(g):
        out = []
        for step in range(3):
            y = g.all_reduce(np.full(50_000, g.rank + 1 + step, np.float32))
            out.append(bool(np.all(y == 64 * 65 // 2 + 64 * step)) and y.shape == (50_000,))
        return out

    results = run_workers(c, 64, body, timeout=120)
    assert sorted(results) == list(range(64))
    assert all(all(ok) for ok in results.values())


def test_many_small_tensors_of_mixed_dtypes_pack_into_one_message(make_coordinator):
    c = make_coordinator(2)

    def body(g):
        tensors = [np.full((i % 5 + 1,), g.rank + i, np.float16 if i % 3 == 0 else
                           np.float32 if i % 3 == 1 else np.int64) for i in range(300)]
        sent = g.stats["bytes_sent"]
        out = g.all_reduce(tensors)
        return out, g.stats["bytes_sent"] - sent

    results = run_workers(c, 2, body)
    for out, sent in results.values():
        for i, got in enumerate(out):
            assert got.dtype == (np.float16 if i % 3 == 0 else np.float32 if i % 3 == 1
                                 else np.int64)
            np.testing.assert_array_equal(got, np.full((i % 5 + 1,), 2 * i + 1, got.dtype))
        assert sent < 32 << 10  # one message with a table, not 300


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the sum's inf
def test_a_training_steps_gradients_each_step_and_when_their_shapes_change(make_coordinator):
    # Big tensors go to the socket from the caller's arrays, small ones (and the padding
    # before a wider dtype) are joined around them, within messages cut at 256 KiB; the
    # layout of a step is kept for the next, and a new dtype or shape gets its own.
    c = make_coordinator(2)
    steps = [[((3,), np.float16), ((70_001,), np.float32), ((5,), np.int64),
              ((300_000,), np.float32), ((10,), np.float32)]] * 3
    steps.append([((3,), np.float32), ((70_001,), np.float32), ((2, 3), np.int64)])
    huge = np.full(3, 3e38, np.float32)  # finite, though its sum overflows

    def body(g):
        out = [g.all_reduce([_data(g.rank, s, d, i + k) for i, (s, d) in enumerate(step)])
               for k, step in enumerate(steps)]
        return out + [g.all_reduce(huge)]

    results = run_workers(c, 2, body, chunk_bytes=256 << 10)
    for out in results.values():
        for k, step in enumerate(steps):
            for i, (shape, dtype) in enumerate(step):
                want = _oracle("sum", [_data(r, shape, dtype, i + k) for r in range(2)])
                assert out[k][i].dtype == dtype and out[k][i].shape == shape
                np.testing.assert_allclose(out[k][i], want, rtol=1e-2 if dtype == np.float16
                                           else 1e-6, err_msg=f"step {k}, tensor {i}")
        assert np.all(np.isinf(out[-1]))


def test_kinds_and_structures_come_back_as_given(make_coordinator):
    c = make_coordinator(2)

    def body(g):
        return g.all_reduce({"w": tf.array([[1.0, 2.0]]) * (g.rank + 1), "n": 3, "lr": 0.5,
                             "s": np.float32(2), "v": np.ones(2, np.int32)})

    for out in run_workers(c, 2, body).values():
        assert set(out) == {"w", "n", "lr", "s", "v"}
        assert isinstance(out["w"], tf.NDArray) and out["w"].shape == (1, 2)
        np.testing.assert_allclose(out["w"].numpy(), [[3.0, 6.0]])
        assert out["n"] == 6 and type(out["n"]) is int
        assert out["lr"] == 1.0 and type(out["lr"]) is float
        assert out["s"] == 4 and isinstance(out["s"], np.float32)
        np.testing.assert_array_equal(out["v"], [2, 2])

    single = run_workers(c, 2,
                         lambda g: (g.all_reduce(np.float32(g.rank)), g.all_reduce(
                             (np.ones(1), [2])), g.all_reduce([])))
    for scalar, pair, empty in single.values():
        assert scalar == 1 and isinstance(scalar, np.float32)
        assert isinstance(pair, tuple) and pair[0][0] == 2 and pair[1] == [4]
        assert empty == []


def test_broadcast_all_gather_and_barrier(make_coordinator):
    c = make_coordinator(3)

    def body(g):
        mine = np.full((2, 3), g.rank, np.float32)
        b1 = g.broadcast(mine, root=2)
        b2 = g.broadcast(None if g.rank else {"a": np.arange(4.0), "b": np.int32(7)})
        gathered = g.all_gather([np.full((g.rank + 1, 2), g.rank, np.int32),
                                 np.array([g.rank * 1.5], np.float32)])
        g.barrier()
        return b1, b2, gathered

    for rank, (b1, b2, gathered) in run_workers(c, 3, body).items():
        np.testing.assert_array_equal(b1, np.full((2, 3), 2, np.float32))
        if rank:
            assert isinstance(b2, list) and len(b2) == 2
            np.testing.assert_array_equal(b2[0], np.arange(4.0))
            assert b2[1] == 7
        rows = np.concatenate([np.full((r + 1, 2), r, np.int32) for r in range(3)])
        np.testing.assert_array_equal(gathered[0], rows)
        np.testing.assert_array_equal(gathered[1], np.array([0, 1.5, 3], np.float32))


def test_mismatched_shapes_are_refused_naming_the_tensor(make_coordinator, caplog):
    c = make_coordinator(2)

    def body(g):
        if g.rank == 1:
            import time
            time.sleep(0.3)  # rank 0 arrives first and sets the shapes
            with pytest.raises(InvalidArgumentError, match=r"tensor grad \(float32\[4\]\) "
                                                           r"does not match.*float32\[3\]"):
                g.all_reduce({"bias": np.ones(2, np.float32), "grad": np.ones(4, np.float32)})
            # the same worker may send again; the other worker gets a clean result
        return g.all_reduce({"bias": np.ones(2, np.float32), "grad": np.ones(3, np.float32)})

    with caplog.at_level(logging.WARNING, "texflow.coordinator"):
        results = run_workers(c, 2, body)
    for out in results.values():
        np.testing.assert_array_equal(out["grad"], [2, 2, 2])
    assert "refused the contribution of rank 1 to collective 0: tensor grad" in caplog.text


def test_names_of_collectives_must_agree(make_coordinator):
    c = make_coordinator(2)

    def body(g):
        if g.rank == 1:
            import time
            time.sleep(0.3)
            with pytest.raises(InvalidArgumentError, match="collective name 'step_2' does not "
                                                           "match 'step_1'"):
                g.all_reduce(np.ones(2), name="step_2")
        return g.all_reduce(np.ones(2), name="step_1")

    for out in run_workers(c, 2, body).values():
        np.testing.assert_array_equal(out, [2, 2])


def test_nonfinite_values_are_refused_at_the_sender_and_never_reach_others(make_coordinator):
    c = make_coordinator(2)

    def body(g):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        if g.rank == 1:
            bad = x.copy()
            bad[1, 2] = np.nan
            with pytest.raises(InvalidArgumentError, match=r"grad \(float32\[2, 3\]\) has 1 "
                                                           r"non-finite.*index \[1, 2\]"):
                g.all_reduce({"grad": bad})
        return g.all_reduce({"grad": x})

    for out in run_workers(c, 2, body).values():
        np.testing.assert_array_equal(out["grad"], np.arange(6).reshape(2, 3) * 2)

    c2 = make_coordinator(2, allow_nonfinite=True)
    out = run_workers(c2, 2, lambda g: g.all_reduce(np.array([np.inf, 1.0])),
                      allow_nonfinite=True)
    assert all(np.isinf(o[0]) for o in out.values())


def test_connect_reads_the_environment(make_coordinator, monkeypatch):
    c = make_coordinator(1)
    monkeypatch.setenv("TEXFLOW_COORDINATOR", c.url)
    monkeypatch.setenv("TEXFLOW_TOKEN", c.token)
    with collective.connect(timeout=20) as g:
        assert (g.rank, g.size, g.is_chief, g.generation) == (0, 1, True, 1)
        assert g.members()[0]["kind"] == "native"
        np.testing.assert_array_equal(g.all_reduce(np.arange(3)), np.arange(3))
    monkeypatch.delenv("TEXFLOW_TOKEN")
    with pytest.raises(InvalidArgumentError, match="TEXFLOW_TOKEN"):
        collective.connect()
    with pytest.raises(InvalidArgumentError, match="op must be"):
        with collective.connect(c.url, c.token, timeout=20) as g:
            g.all_reduce(np.ones(1), op="prod")


def test_the_worker_page_keeps_its_own_rank_when_another_member_leaves():
    from texflow.distribute.collective import _own_status
    assert _own_status({"event": "generation", "rank": 0, "size": 2}, "webgl")["rank"] == 0
    left = _own_status({"event": "left", "rank": 1, "kind": "native"}, "webgl")
    assert "rank" not in left and left["member_rank"] == 1 and left["backend"] == "webgl"


def test_async_forms_natively(make_coordinator):
    c = make_coordinator(2)

    async def worker():
        g = await collective.connect_async(c.url, c.token, timeout=30)
        total = await g.all_reduce_async({"x": np.full(3, g.rank + 1.0)}, op="mean")
        root = await g.broadcast_async(np.full(2, g.rank, np.int32), root=1)
        rows = await g.all_gather_async(np.full((1, 2), g.rank, np.float32))
        await g.barrier_async()
        await g.close_async()
        return g.rank, total["x"].tolist(), root.tolist(), rows.tolist()

    async def both():  # two groups on one event loop: neither call may block it
        return await asyncio.gather(worker(), worker())

    for rank, total, root, rows in in_own_thread(asyncio.run, both()):
        assert total == [1.5] * 3 and root == [1, 1] and rows == [[0, 0], [1, 1]], rank


def test_a_timed_out_collective_aborts_the_group_until_a_new_generation(make_coordinator):
    c = make_coordinator(2)
    both = threading.Barrier(2, timeout=30)

    def body(g):
        if g.rank == 0:  # rank 1 is not in this collective: rank 0's times out
            with pytest.raises(DeadlineExceededError, match="took longer than its timeout"):
                g.all_reduce(np.ones(3), timeout=0.3)
            # its contribution may still arrive: later collectives would not line up
            with pytest.raises(DeadlineExceededError, match="Collective ops is aborted by"):
                g.all_reduce(np.ones(3))
        both.wait()
        g.rejoin(timeout=20)  # every worker: a new generation, collectives line up again
        return g.all_reduce(np.full(3, g.rank + 1.0))

    for result in run_workers(c, 2, body).values():
        np.testing.assert_array_equal(result, [3.0, 3.0, 3.0])
