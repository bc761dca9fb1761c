"""The browser half of `texflow bench --collective`: browser workers are headless worker
pages of a coordinator (Pyodide in a Web Worker, as a user's tab runs it), and the browser's
own WebSocket limit is a Web Worker echoing the same bytes through a `websockets` server."""

import multiprocessing
import sys

from . import collective as bench

# The echo's message size: browser workers sent 64 KiB messages until they sent 1 MiB
# (README, "Cost model"); the echo, the target's reference, kept its 64 KiB.
BROWSER_CHUNK = 64 << 10


def _browser():
    from playwright.sync_api import sync_playwright

    from ..browser import CHROMIUM_FLAGS, chromium_path
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                 args=list(CHROMIUM_FLAGS))
    return pw, browser


def run_pages(context, coordinator, workers, query=""):
    """Opens `workers` worker pages of `coordinator` (each runs its job; `query` such as
    "?backend=webgl") and returns what each printed once its job ended."""
    pages = []
    for _ in range(workers):
        page = context.new_page()
        page.goto(f"{coordinator.origin}/{query}#token={coordinator.token}")
        pages.append(page)
    outs = []
    for page in pages:
        page.wait_for_function("() => texflowWorkerPage.exitCode !== null",
                               timeout=3_600_000)
        outs.append(page.inner_text("#out"))
    return outs


_ECHO = """([url, sizes, repeats, chunk]) => {
    window.texflowEcho = new Promise((ok, fail) => {
        const w = new Worker('/texflow/web/coordinator/bench_ws.js');
        w.onmessage = (e) => e.data.error ? fail(new Error(e.data.error)) : ok(e.data.results);
        w.postMessage({url, sizes, repeats, chunk});
    });
}"""


def _echoes(pages, url, sizes, repeats):
    """{size: ms} of the browser's own WebSocket echo of 4 * size bytes run in every page
    at once (a Web Worker each, as browser workers run), the slowest page's median."""
    for page in pages:
        page.evaluate(_ECHO, [url, [4 * n for n in sizes], repeats, BROWSER_CHUNK])
    found = [page.evaluate("() => window.texflowEcho") for page in pages]
    return {n: max(r[str(4 * n)] for r in found) for n in sizes}


def measure(sizes, repeats, workers=2):
    """({size: ms} of all-reduces among `workers` browser workers, {size: ms} of the raw
    browser WebSocket echo of the same bytes, {size: ms} of `workers` such echoes at once
    in as many pages (what the workers' traffic costs the one browser and machine they
    share), the browser's version)."""
    args = [",".join(map(str, sizes)), str(repeats)]
    coordinator = bench.CoordinatorProcess(num_workers=workers, job_args=args)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    echo = ctx.Process(target=bench._echo_server, args=(queue,), daemon=True)
    echo.start()
    pw, browser = _browser()
    try:
        context = browser.new_context()
        outs = run_pages(context, coordinator, workers)
        results = [bench.parse_job_output(out) for out in outs]
        times = {n: bench._median([r["times"][n] for r in results]) for n in sizes}
        # The same bytes through the browser's own WebSocket, no Python involved: one
        # worker's, then every worker's at once. Idle pages of the same origin run them.
        url = f"ws://127.0.0.1:{queue.get(timeout=60)}"
        probes = [context.new_page() for _ in range(workers)]
        for probe in probes:
            probe.goto(f"{coordinator.origin}/worker")
        raw = _echoes(probes[:1], url, sizes, repeats)
        together = _echoes(probes, url, sizes, repeats)
        version = browser.version
        backend = results[0]["backend"]
    finally:
        browser.close()
        pw.stop()
        echo.terminate()
        coordinator.stop()
    print(f"[bench] browser workers ran on {backend}", file=sys.stderr)
    return times, raw, together, version
