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

    # Events arrive as they happen, the workers' table with the stats sent once a second:
    # wait for both the two departures and a snapshot taken after the last reports.
    dashboard.wait_for_function("() => texflowDashboard.events.filter("
                                "e => e.event === 'left').length === 2", timeout=30_000)
    dashboard.wait_for_function("() => texflowDashboard.workers.length === 2 && "
                                "texflowDashboard.workers.every("
                                "w => w.report && w.report.step === 19)", timeout=30_000)
    workers = dashboard.evaluate("() => texflowDashboard.workers")
    assert sorted(w["kind"] for w in workers) == ["browser", "native"]
    assert all(w["report"]["step"] == 19 for w in workers)
    events = [e["event"] for e in dashboard.evaluate("() => texflowDashboard.events")]
    assert events[:3] == ["joined", "joined", "generation"]
    table = dashboard.inner_text("#workers")
    assert "browser" in table and "native" in table and status["backend"] in table
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
kinds, read = [], _pyodide.PyodideTransport._binary
def spy(self, buffer):
    kinds.append(read(self, buffer))
    return kinds[-1]
_pyodide.PyodideTransport._binary = spy
g = await collective.connect_async("${url}", "${token}", timeout=60)
a = await g.all_reduce_async(np.arange(3.0))
b = g.all_reduce({"x": np.ones(2, np.int32)})
big = np.arange(300_000, dtype=np.float32)  # results over 64 KiB: read into place
same = [bool((await g.all_reduce_async(big) == big).all()) for _ in range(2)]
await g.close_async()
_pyodide.PyodideTransport._binary = read
placed = any(type(k).__name__ == "Placed" for k in kinds)
del kinds
[g.rank, a.tolist(), b["x"].tolist(), g.members()[0]["kind"], same, placed]`
).then(r => r.toJs())""", [c.url, c.token])
    assert out == [0, [0.0, 1.0, 2.0], [1, 1], "browser", [True, True], True]
