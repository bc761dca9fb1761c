#!/usr/bin/env python3
"""Runs a multi-worker tutorial (scripts/tutorials/, only the import changed) through a
coordinator, as the README's walkthrough does, with workers that are headless browser
pages (Pyodide in a Web Worker), native `texflow worker` processes, or both. Neither kind
is given a TF_CONFIG: the coordinator's job gets one naming the rank it is assigned.

    scripts/run_tutorials_browser.py ctl --pages 1 --native 1        # mixed
    scripts/run_tutorials_browser.py keras --pages 2 --backend webgl # browser only
    scripts/run_tutorials_browser.py keras --pages 2 --rows 1280      # MNIST's first rows

Prints each worker's lines as they come (prefixed with the worker) and the last lines of
each when the job ends; exits 1 if any worker failed.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {"keras": "keras_multi_worker.py", "ctl": "main.py"}


class _Follow:
    """Prints a native worker's lines as they come (prefixed) and keeps them."""

    def __init__(self, proc, who):
        self.lines = []
        self.thread = threading.Thread(target=self._read, args=(proc, who), daemon=True)
        self.thread.start()

    def _read(self, proc, who):
        for line in proc.stdout:
            self.lines.append(line)
            print(f"[{who}] {line}", end="", flush=True)


def _follow_pages(pages):
    """Prints each page's new output lines as they come, until every page's job ended;
    returns what each printed."""
    shown = [0] * len(pages)
    while True:
        done = all(p.evaluate("() => texflowWorkerPage.exitCode !== null") for p in pages)
        texts = [p.inner_text("#out") for p in pages]
        for i, text in enumerate(texts):
            lines = text.splitlines()
            for line in lines[shown[i]:]:
                if line.strip():
                    print(f"[page {i}] {line}", flush=True)
            shown[i] = len(lines)
        if done:
            return texts
        time.sleep(5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tutorial", choices=sorted(SCRIPTS))
    parser.add_argument("--pages", type=int, default=1, help="headless browser workers")
    parser.add_argument("--native", type=int, default=1, help="native workers")
    parser.add_argument("--backend", default="webgl", help="the pages' backend")
    parser.add_argument("--rows", type=int, default=None,
                        help="train on MNIST's first ROWS digits (tests/data/tutorials/"
                             "run_tutorial.py runs the tutorial unchanged and prints its "
                             "weights' sums)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "py"))
    from texflow.bench.collective import CoordinatorProcess
    from texflow.bench.collective_browser import _browser

    workers = args.pages + args.native
    script, job_args = ROOT / "scripts" / "tutorials" / SCRIPTS[args.tutorial], []
    if args.rows:  # the tutorials and the runner in one folder: the job's bundle
        folder = Path(tempfile.mkdtemp(prefix="texflow-tutorial-"))
        for path in [ROOT / "tests" / "data" / "tutorials" / "run_tutorial.py",
                     *script.parent.glob("*.py")]:
            shutil.copy(path, folder)
        script, job_args = folder / "run_tutorial.py", [script.name, str(args.rows)]
    coordinator = CoordinatorProcess(job_args=job_args, job=script, num_workers=workers)
    start = time.perf_counter()
    natives = [subprocess.Popen([sys.executable, "-m", "texflow.cli", "worker", "--coordinator",
                                 coordinator.url, "--token", coordinator.token],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, PYTHONUNBUFFERED="1"))
               for _ in range(args.native)]
    readers = [_Follow(p, f"native {i}") for i, p in enumerate(natives)]
    pw = browser = None
    failed = False
    try:
        outs = []
        if args.pages:
            pw, browser = _browser()
            context = browser.new_context()
            pages = []
            for _ in range(args.pages):
                page = context.new_page()
                page.goto(f"{coordinator.origin}/?backend={args.backend}"
                          f"#token={coordinator.token}")
                pages.append(page)
            texts = _follow_pages(pages)
            for page, text in zip(pages, texts):
                code = page.evaluate("() => texflowWorkerPage.exitCode")
                failed |= code != 0
                outs.append((f"browser page ({args.backend}), exit {code}", text))
        for p, reader in zip(natives, readers):
            p.wait(timeout=7200)
            reader.thread.join(30)
            failed |= p.returncode != 0
            outs.append((f"native worker, exit {p.returncode}", "".join(reader.lines)))
    finally:
        for p in natives:
            p.kill()
        if browser is not None:
            browser.close()
            pw.stop()
        coordinator.stop()
    for who, text in outs:
        lines = [line for line in text.splitlines() if line.strip()
                 and not line.startswith("weights ")]
        print(f"== {who}\n" + "\n".join(lines[-14:]))
    print(f"{args.tutorial}: {args.pages} page(s) + {args.native} native, "
          f"{time.perf_counter() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
