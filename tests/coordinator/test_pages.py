"""The worker page and the dashboard in the shared headless Chromium: a browser worker (in
a Web Worker, on WebGPU/WebGL) trains one model with a native worker through the
coordinator, and the dashboard shows both live."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from texflow.coordinator import Job

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demos" / "distributed" / "train.py"


@pytest.fixture
def browser_context(browser_session):
    context = browser_session.browser._browser.new_context()
    yield context
    context.close()


def test_browser_and_native_workers_train_together_and_the_dashboard_shows_them(
        make_coordinator, browser_context):
    c = make_coordinator(2, job=Job(DEMO, ["20"]))
    dashboard = browser_context.new_page()
    dashboard.goto(f"{c.origin}/dashboard#token={c.token}")
    native = subprocess.Popen(
        [sys.executable, "-m", "texflow.cli", "worker", "--coordinator", c.url,
         "--token", c.token, str(DEMO), "--", "20"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    page = browser_context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(c.join_url)
    try:
        page.wait_for_function("() => texflowWorkerPage.exitCode !== null", timeout=240_000)
        out, _ = native.communicate(timeout=60)
    finally:
        native.kill()
    browser_out = page.inner_text("#out")
    assert page.evaluate("() => texflowWorkerPage.exitCode") == 0, browser_out
    assert native.returncode == 0, out
    # same data, same all-reduced gradients: the very same weights on both sides
    checksums = [re.search(r"weights checksum (\S+)", text).group(1)
                 for text in (browser_out, out)]
    assert checksums[0] == checksums[1], (browser_out, out)
    assert "step 19: loss" in browser_out and float(
        re.search(r"step 19: loss (\S+)", browser_out).group(1)) < 0.01
    status = page.evaluate("() => texflowWorkerPage.status")
    native_rank = int(re.search(r"worker (\d) of 2", out).group(1))
    assert {status["rank"], native_rank} == {0, 1}
    assert status["size"] == 2 and status["step"] == 19
    assert status["backend"] in ("webgpu", "webgl")
    assert page.evaluate("() => texflowWorkerPage.traffic.sent") > 0
    assert page.inner_text("#state") == "finished"
    # what the page shows: rank, backend, step, loss, bytes per second each way
    assert page.inner_text("#rank") == str(status["rank"])
    assert page.inner_text("#backend-used") == status["backend"]
    assert page.inner_text("#step") == "19" and float(page.inner_text("#loss")) < 0.01
    for cell in ("#sent", "#received"):
        assert re.fullmatch(r"[\d.]+ (MB|kB|B)/s", page.inner_text(cell)), cell
    assert page.inner_text("#allreduce").endswith(" ms")

    # Events arrive as they happen, the workers' table with the stats sent once a second:
    # wait for both the two departures and a snapshot taken after the last reports.
    dashboard.wait_for_function("() => texflowDashboard.events.filter("
                                "e => e.event === 'left').length === 2", timeout=30_000)
    dashboard.wait_for_function("() => texflowDashboard.workers.length === 2 && "
                                "texflowDashboard.workers.every("
                                "w => w.report && w.report.step === 19)", timeout=30_000)
    # the table is drawn from those snapshots: wait until it shows both departures too
    dashboard.wait_for_function("() => { const rows = [...document.querySelectorAll("
                                "'#workers tbody tr')]; return rows.length === 2 && "
                                "rows.every(r => r.cells[3].textContent === 'left'); }",
                                timeout=30_000)
    workers = dashboard.evaluate("() => texflowDashboard.workers")
    assert sorted(w["kind"] for w in workers) == ["browser", "native"]
    assert all(w["report"]["step"] == 19 for w in workers)
    events = [e["event"] for e in dashboard.evaluate("() => texflowDashboard.events")]
    assert events[:3] == ["joined", "joined", "generation"]
    table = dashboard.inner_text("#workers")
    assert "browser" in table and "native" in table and status["backend"] in table
    rows = dashboard.eval_on_selector_all(
        "#workers tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    for rank, kind, backend, state, step, loss, step_ms, allreduce_ms, *rates, peer in rows:
        assert step == "19" and float(loss) < 0.01 and state == "left", rows
        assert step_ms.endswith(" ms") and allreduce_ms.endswith(" ms"), rows
        assert peer.startswith("127.0.0.1:") and len(rates) == 2, rows
    # Chart.js (served by the coordinator) drew the loss of each worker; the dashboard
    # samples once a second, so how many points depends on how fast the job ran
    points = dashboard.evaluate("() => Chart.getChart('loss-chart').data.datasets"
                                ".map(d => d.data.length)")
    assert len(points) == 2 and min(points) >= 1, points
    assert not errors


def test_synchronous_calls_without_jspi_say_to_use_the_async_form(make_coordinator,
                                                                   browser_session):
    c = make_coordinator(1, allow_origins=[browser_session.browser.server.url])
    message = browser_session.page.evaluate(
        """([url, token]) => pyodide.runPython(`
from texflow.distribute import collective
try:
    collective.connect("${url}", "${token}")
    result = "no error"
except RuntimeError as e:
    result = str(e)
result`)""", [c.url, c.token])
    assert "use the async form" in message and "run_sync" in message
    # the async form works from the same page (and the sync one under runPythonAsync)
    out = browser_session.page.evaluate(
        """([url, token]) => pyodide.runPythonAsync(`
import numpy as np
from texflow.distribute import _pyodide, collective
placed, report = [], _pyodide.PyodideTransport._placed
def spy(self, op, generation, seq, start, size):
    placed.append(size)
    report(self, op, generation, seq, start, size)
_pyodide.PyodideTransport._placed = spy
g = await collective.connect_async("${url}", "${token}", timeout=60)
a = await g.all_reduce_async(np.arange(3.0))
b = g.all_reduce({"x": np.ones(2, np.int32)})
big = np.arange(300_000, dtype=np.float32)  # results over 64 KiB: placed by JS
same = [bool((await g.all_reduce_async(big) == big).all()) for _ in range(2)]
await g.close_async()
_pyodide.PyodideTransport._placed = report
[g.rank, a.tolist(), b["x"].tolist(), g.members()[0]["kind"], same, sum(placed)]`
).then(r => r.toJs())""", [c.url, c.token])
    # every result byte reached Python placed by JS (the 24- and 8-byte ones as well)
    assert out == [0, [0.0, 1.0, 2.0], [1, 1], "browser", [True, True], 24 + 8 + 2 * big_bytes]


big_bytes = 300_000 * 4


def test_browser_contributions_in_chunks_and_results_in_pieces(make_coordinator,
                                                                browser_session):
    """Two groups in one Pyodide, sending in 4 KiB messages: payloads exactly one chunk,
    one byte element over, mixed dtypes with padding across chunk boundaries, results in
    many pieces, and a refused contribution (results already placed are redone)."""
    c = make_coordinator(2, allow_origins=[browser_session.browser.server.url])
    out = browser_session.page.evaluate(
        """([url, token]) => {
  const Plain = globalThis.WebSocket, counts = globalThis.texflowTestCounts = [];
  globalThis.WebSocket = class extends Plain {  // counts each socket's binary messages
    constructor(...args) {
      super(...args);
      const i = counts.push(0) - 1;
      this.addEventListener("message", (e) => { if (typeof e.data !== "string") counts[i]++; });
    }
  };
  return pyodide.runPythonAsync(`
import asyncio
import js
import numpy as np
from texflow.distribute import _pyodide, collective
from texflow.errors import InvalidArgumentError
pieces, report = [], _pyodide.PyodideTransport._placed
def spy(self, op, generation, seq, start, size):
    pieces.append(size)
    report(self, op, generation, seq, start, size)
_pyodide.PyodideTransport._placed = spy
groups = await asyncio.gather(*[collective.connect_async(
    "${url}", "${token}", timeout=60, chunk_bytes=4096, allow_nonfinite=True)
    for _ in range(2)])
groups.sort(key=lambda g: g.rank)
rng = np.random.default_rng(0)
def case(r):
    return {"exact": rng.standard_normal(1024).astype(np.float32) + r,     # 4096 bytes
            "over": np.arange(1025, dtype=np.float32) * (r + 1),         # 4100
            "mixed": [np.full(1001, r + 1.5, np.float32), np.arange(700.0) * r,
                      np.arange(3, dtype=np.int32) + r],                  # padded runs
            "big": np.arange(100_000, dtype=np.float32) * (r + 1)}        # 98 messages
checks = []
for key in ("exact", "over", "mixed", "big"):
    xs = [case(r)[key] for r in range(2)]
    ys = await asyncio.gather(*[g.all_reduce_async(x) for g, x in zip(groups, xs)])
    want = [np.add(*pair) for pair in zip(*[x if isinstance(x, list) else [x] for x in xs])]
    for y in ys:
        got = y if isinstance(y, list) else [y]
        checks.append(all(np.array_equal(a, b) for a, b in zip(got, want)))
calls, messages = len(pieces), list(js.texflowTestCounts)
bad = np.arange(100_000, dtype=np.float32)
bad[-1] = np.nan                     # refused once its last chunk is in
good = np.arange(100_000, dtype=np.float32)
waiting = asyncio.ensure_future(groups[1].all_reduce_async(good))
try:
    await groups[0].all_reduce_async(bad)
    refused = "no error"
except InvalidArgumentError as e:
    refused = "non-finite" in str(e)
again = await groups[0].all_reduce_async(good)
other = await waiting
checks += [bool((again == 2 * good).all()), bool((other == 2 * good).all())]
for g in groups:
    await g.close_async()
_pyodide.PyodideTransport._placed = report
[checks, refused, calls, messages]`
  ).then(r => r.toJs()).finally(() => { globalThis.WebSocket = Plain; });
}""", [c.url, c.token])
    checks, refused, calls, messages = out
    assert checks == [True] * 10 and refused is True, out
    # 4 collectives of 2 groups: one call into Python each, though the big results came in
    # several messages (4 collectives, the big one 400 KB: at least 3 + 5 messages)
    assert calls == 8 and len(messages) == 2 and min(messages) >= 8, out


def test_pages_without_the_right_token_say_so_and_stop(make_coordinator, browser_context):
    c = make_coordinator(2)
    page = browser_context.new_page()
    page.goto(f"{c.origin}/dashboard#token=wrong")
    page.wait_for_function("() => texflowDashboard.refused !== undefined", timeout=30_000)
    assert "refused this dashboard: wrong or missing token" in page.inner_text("#summary")
    page = browser_context.new_page()  # the right token: the live view
    page.goto(f"{c.origin}/dashboard#token={c.token}")
    page.wait_for_function("() => texflowDashboard.snapshots > 0", timeout=30_000)
    assert page.inner_text("#summary").startswith("generation 0: 0 of 2 workers")
    worker = browser_context.new_page()  # no token: no Web Worker, a hint instead
    worker.goto(c.origin + "/")
    assert "no token: open the join URL" in worker.inner_text("#phase")


def test_the_worker_page_hands_its_worker_the_token_backend_and_a_client_id_kept_on_reload(
        make_coordinator, browser_context):
    """What the page gives its Web Worker (recorded by a stand-in Worker, so no Pyodide
    boots): the same client id after a reload (so it rejoins under its old rank), the
    token from the fragment or, after a reload without one, from sessionStorage, and the
    backend chosen on the page (none: the runtime's best, webgpu -> webgl -> numpy)."""
    c = make_coordinator(1)
    page = browser_context.new_page()
    page.add_init_script("""
        globalThis.Worker = class { constructor(url) { globalThis.texflowRunMessages = []; }
                                    postMessage(m) { texflowRunMessages.push(m); } };""")
    runs = []
    for url in (c.join_url, f"{c.origin}/?backend=numpy"):  # the second: a reload, no token
        page.goto(url)
        page.wait_for_function("() => texflowRunMessages.length === 1")
        runs.append(page.evaluate("() => texflowRunMessages[0]"))
    assert [r["token"] for r in runs] == [c.token, c.token]
    assert [r["backend"] for r in runs] == ["", "numpy"]
    assert runs[0]["clientId"] == runs[1]["clientId"] and len(runs[0]["clientId"]) == 16
    assert runs[0]["wsURL"] == c.url
    assert page.input_value("#backend") == "numpy"
