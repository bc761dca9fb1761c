"""Bad input never hurts the coordinator or the other workers: each offender is logged with
a reason and closed, and a real group keeps all-reducing throughout."""

import json
import logging
import os
import struct
import threading
import time

import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

from texflow.coordinator import wire
from texflow.distribute import collective

ONES = np.ones(8, np.float32)


@pytest.fixture
def live_group(make_coordinator):
    """A coordinator with two workers all-reducing in the background the whole test."""
    c = make_coordinator(2, max_frame=1 << 20, hello_timeout=3.0)
    groups = [None, None]
    stop, errors, counts = threading.Event(), [], [0, 0]

    def work(i):
        try:
            g = groups[i] = collective.connect(c.url, c.token, task_id=i, timeout=30)
            while True:  # the decision to stop is all-reduced too, so both stop together
                out, done = g.all_reduce([ONES, np.int32(stop.is_set())])
                assert out[0] == 2
                counts[i] += 1
                if done:
                    break
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    while min(counts) < 3 and not errors:
        time.sleep(0.01)
    yield c
    before = list(counts)
    time.sleep(0.3)
    stop.set()
    for t in threads:
        t.join(30)
    for g in groups:
        if g is not None:
            g.close()
    assert not errors, errors
    assert min(c - b for c, b in zip(counts, before)) > 0, "the group stopped working"


def _open(url, **options):
    ws = ws_connect(url, max_size=None, **options)
    return ws.__enter__()  # as `with` does (a bare connection warns)


def _hello(ws, token, **extra):
    ws.send(json.dumps({"type": "hello", "token": token, "role": "worker", **extra}))


def _closed_with_reason(ws, timeout=5):
    """Waits for the coordinator to close `ws`; returns its close code and reason."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ws.recv(timeout=deadline - time.monotonic())
    except ConnectionClosed as e:
        return e.rcvd.code if e.rcvd else None, e.rcvd.reason if e.rcvd else ""
    except TimeoutError:
        pass
    raise AssertionError("the coordinator did not close the connection")


@pytest.mark.parametrize("bad", ["wrong-token", "no-token", "not-json", "binary-first",
                                 "not-hello", "silent", "unknown-role", "bad-task-id"])
def test_bad_hellos_are_closed(live_group, caplog, bad):
    c = live_group
    with caplog.at_level(logging.WARNING, "texflow.coordinator"):
        with ws_connect(c.url) as ws:
            if bad == "wrong-token":
                _hello(ws, c.token + "x")
            elif bad == "no-token":
                ws.send(json.dumps({"type": "hello"}))
            elif bad == "not-json":
                ws.send("{not json")
            elif bad == "binary-first":
                ws.send(os.urandom(64))
            elif bad == "not-hello":
                ws.send(json.dumps({"type": "report", "token": c.token}))
            elif bad == "unknown-role":
                _hello(ws, c.token, role="spy")
            elif bad == "bad-task-id":
                _hello(ws, c.token, task_id="0")
            code, reason = _closed_with_reason(ws)
    assert code == 1008
    want = {"wrong-token": "wrong or missing token", "no-token": "wrong or missing token",
            "not-json": "not JSON", "binary-first": "expected a JSON text message",
            "not-hello": "must be a hello", "silent": "no hello within",
            "unknown-role": "unknown role 'spy'", "bad-task-id": "task_id '0'"}[bad]
    assert want in reason
    assert want in caplog.text


def _joined(c):
    """A raw connection past the hello, as a worker waiting to join (the group is full,
    so it gets refused) -- or, with a free slot, a worker."""
    ws = _open(c.url)
    _hello(ws, c.token, client_id="raw")
    return ws


def _member_socket(make_coordinator):
    """A coordinator for one worker, joined over a raw WebSocket: (coordinator, socket,
    generation)."""
    c = make_coordinator(1, max_frame=1 << 20)
    ws = _open(c.url)
    _hello(ws, c.token)
    while True:
        msg = json.loads(ws.recv(timeout=10))
        if msg["type"] == "generation":
            return c, ws, msg["generation"]


def _contribution(generation, table_of, data, **header):
    table = wire.pack_table(table_of)
    fields = dict(kind=wire.CONTRIB, op=wire.SUM, generation=generation, seq=0, offset=0,
                  total=table_of.total)
    fields.update(header)
    return wire.pack_header(table=table, **fields) + data


LAYOUT = wire.Layout([wire.TensorSpec("w", "float32", (4,))])


@pytest.mark.parametrize("bad", ["random-bytes", "short-header", "bad-magic",
                                 "unknown-kind", "unknown-op", "truncated-table",
                                 "table-runs-past", "unknown-type",
                                 "too-big-frame", "result-kind", "bad-json-field",
                                 "split-element"])
def test_malformed_messages_close_only_the_offender(make_coordinator, caplog, bad):
    c, ws, gen = _member_socket(make_coordinator)
    good = _contribution(gen, LAYOUT, np.ones(4, np.float32).tobytes())
    messages = {
        "random-bytes": os.urandom(200),
        "short-header": good[:20],
        "bad-magic": b"X" + good[1:],
        "unknown-kind": good[:1] + b"\x09" + good[2:],
        "unknown-op": good[:2] + b"\x63" + good[3:],
        "truncated-table": good[:wire.HEADER_SIZE + 8],
        "table-runs-past": good[:8] + struct.pack("<I", 4096) + good[12:],
        "unknown-type": json.dumps({"type": "launch_missiles"}),
        "too-big-frame": bytes(2 << 20),
        "result-kind": good[:1] + bytes([wire.RESULT]) + good[2:],
        "bad-json-field": json.dumps({"type": "abort", "generation": "x", "seq": 0}),
        "split-element": good[:-10],  # 6 of 16 bytes: the second float is cut in two
    }
    with caplog.at_level(logging.WARNING):
        ws.send(messages[bad])
        code, reason = _closed_with_reason(ws)
    assert code in (1008, 1009), (code, reason)
    assert reason or code == 1009
    if bad == "split-element":
        assert "must start at a multiple of 8 bytes" in caplog.text
    # the coordinator still serves: a fresh worker joins and all-reduces alone, once the
    # coordinator has seen the offender go (after a 1009 close it waits up to its close
    # timeout for the close frame this raw socket never sends: a join before that is
    # refused, the group being full; seen on a loaded machine)
    deadline = time.monotonic() + 10
    while c.membership.live() and time.monotonic() < deadline:
        time.sleep(0.05)
    with collective.connect(c.url, c.token, timeout=20) as g:
        assert g.all_reduce(ONES)[0] == 1


def test_a_refused_table_keeps_the_connection(make_coordinator):
    c, ws, gen = _member_socket(make_coordinator)
    ws.send(_contribution(gen, wire.Layout([wire.TensorSpec("w", "float32", (1 << 40,))]),
                          b""))
    msg = json.loads(ws.recv(timeout=10))
    assert msg["type"] == "error" and msg["error"] == "InvalidArgumentError"
    assert "over the 1073741824-byte limit of one collective" in msg["message"]
    # the sender may send again, with the attempt number it was given
    ws.send(_contribution(gen, LAYOUT, np.arange(4, dtype=np.float32).tobytes(),
                          attempt=msg["attempt"]))
    result = wire.unpack(ws.recv(timeout=10))
    assert result.kind == wire.RESULT
    np.testing.assert_array_equal(np.frombuffer(result.data, np.float32), np.arange(4))
    ws.close()


def test_origins_are_checked_and_native_clients_need_none(make_coordinator):
    c = make_coordinator(1, allow_origins=["http://trusted.example:9000"])
    with pytest.raises(InvalidStatus) as e:
        ws_connect(c.url, origin="http://evil.example")
    assert e.value.response.status_code == 403
    for origin in (c.origin, "http://trusted.example:9000", None):
        with ws_connect(c.url, origin=origin) as ws:
            _hello(ws, c.token)
            assert json.loads(ws.recv(timeout=10))["type"] == "joined"


def test_a_flood_of_connections_does_not_stop_the_group(live_group, caplog):
    c = live_group
    sockets, refused = [], 0
    with caplog.at_level(logging.WARNING):
        for _ in range(100):  # connect and say nothing: each holds a pending slot
            try:
                sockets.append(_open(c.url, open_timeout=5))
            except InvalidStatus as e:
                assert e.response.status_code == 503
                refused += 1
        for ws in sockets:
            ws.close()
        for _ in range(40):  # well-formed joins to a full group are refused
            ws = _joined(c)
            msg = json.loads(ws.recv(timeout=10))
            assert msg["type"] == "error" and "the group is full" in msg["message"]
            ws.close()
    assert refused > 0
    assert "refused a connection: 64 are already joining" in caplog.text


def test_a_wrong_token_fails_the_connect_at_once_and_is_not_retried(make_coordinator, caplog):
    from texflow.errors import UnauthenticatedError
    c = make_coordinator(1)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, "texflow.coordinator"):
        with pytest.raises(UnauthenticatedError, match="wrong or missing token"):
            collective.connect(c.url, c.token + "x", timeout=60)
        assert time.monotonic() - started < 10  # not the connect timeout
        time.sleep(0.5)  # a client that retried would be refused again by now
    assert caplog.text.count("wrong or missing token") == 1, caplog.text


def test_connections_never_compress(make_coordinator):
    c = make_coordinator(1)
    with ws_connect(c.url, compression="deflate") as ws:  # offers permessage-deflate
        assert "permessage-deflate" in ws.request.headers["Sec-WebSocket-Extensions"]
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None
